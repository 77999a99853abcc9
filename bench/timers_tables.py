#!/usr/bin/env python3
"""The tables of bench/timers.sh's report, from its runs file.

Each line of the runs file: load, build, round, requests, seconds, client
µs/req, server µs/req, errors, client user µs/req (tab-separated). Builds are
shb builds ("before", "after") and "floor" (bench/http_floor, which runs the
h1 loads without :t only).

Usage: timers_tables.py RUNS BUILD...
"""
import statistics
import sys

PAIRS = [("h1:10000", "h1:50"), ("h1:10000:t", "h1:50:t"), ("h3:1000", "h3:8")]
GOAL = 1.10  # the high count's cost within 10 % of the low count's


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def main():
    rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
    builds = sys.argv[2:]
    loads = []
    for r in rows:
        if r[0] not in loads:
            loads.append(r[0])

    def sel(load, b):
        return [r for r in rows if r[0] == load and r[1] == b]

    def col(rs, k):
        return [float(r[k]) for r in rs]

    medians(loads, builds, sel, col)
    shb_builds = [b for b in builds if b != "floor"]
    many_few(builds, sel, col)
    if "floor" in builds:
        floor_tables(loads, shb_builds, sel)
    if "before" in builds and "after" in builds:
        after_before(loads, sel)
    every_run(rows)


def medians(loads, builds, sel, col):
    print("### Medians\n")
    print("| Load | Build | Runs | req/s | client µs/req | min..max | user µs/req | server µs/req "
          "| client/server | errors |")
    print("|---|---|---:|---:|---:|---|---:|---:|---:|---:|")
    for l in loads:
        for b in builds:
            s = sel(l, b)
            if not s:
                continue
            cl, sv = col(s, 5), col(s, 6)
            print("| %s | %s | %d | %.0f | %.2f | %.2f..%.2f | %.2f | %.2f | %.3f | %d |" % (
                l, b, len(s), med([int(r[3]) / float(r[4]) for r in s]), med(cl), min(cl), max(cl),
                med(col(s, 8)), med(sv), med([c / v for c, v in zip(cl, sv) if v > 0]),
                sum(int(r[7]) for r in s)))


def round_quotients(hi, lo, k):
    """hi[k] / lo[k] of the runs of the same round."""
    byr = {r[2]: float(r[k]) for r in lo}
    return [float(r[k]) / byr[r[2]] for r in hi if r[2] in byr and byr[r[2]] > 0]


def many_few(builds, sel, col):
    print("\n### Many connections against few\n")
    print("CPU per request at the high count divided by the one at the low count: client (user + sys) and user")
    print("alone; the quotient of the medians, and the median of the quotients of the same round (runs next")
    print("to each other in time). The issue's goal is a client quotient of at most %.2f.\n" % GOAL)
    print("| Build | Loads | client: quotient of medians | median of round quotients | round quotients "
          "| user: quotient of medians | median of round quotients |")
    print("|---|---|---:|---:|---|---:|---:|")
    for b in builds:
        for hi, lo in PAIRS:
            h, o = sel(hi, b), sel(lo, b)
            if not h or not o:
                continue
            q, qu = round_quotients(h, o, 5), round_quotients(h, o, 8)
            print("| %s | %s / %s | %.3f | %.3f | %s | %.3f | %.3f |" % (
                b, hi, lo, med(col(h, 5)) / med(col(o, 5)), med(q), " ".join("%.2f" % x for x in q),
                med(col(h, 8)) / med(col(o, 8)), med(qu)))


def floor_of(load):
    return ":".join(load.split(":")[:2])


def over_floor(sel, b, load, k):
    """shb's figure k over the floor's of the same round, per round."""
    fl = {r[2]: float(r[k]) for r in sel(floor_of(load), "floor")}
    return {r[2]: float(r[k]) / fl[r[2]] for r in sel(load, b) if r[2] in fl and fl[r[2]] > 0}


def floor_tables(loads, shb_builds, sel):
    h1 = [l for l in loads if l.startswith("h1:")]
    print("\n### Against the floor\n")
    print("shb's CPU per request divided by bench/http_floor's in the same round (a :t load against the floor")
    print("without --timeout), client (user + sys) and user alone, and shb's excess over the floor in µs per")
    print("request (medians of the rounds).\n")
    print("| Build | Load | shb ÷ floor | round quotients | user: shb ÷ floor | shb − floor µs/req |")
    print("|---|---|---:|---|---:|---:|")
    for b in shb_builds:
        for l in h1:
            q, qu = over_floor(sel, b, l, 5), over_floor(sel, b, l, 8)
            fl = {r[2]: float(r[5]) for r in sel(floor_of(l), "floor")}
            ex = [float(r[5]) - fl[r[2]] for r in sel(l, b) if r[2] in fl]
            if q:
                print("| %s | %s | %.3f | %s | %.3f | %.2f |" % (
                    b, l, med(list(q.values())), " ".join("%.2f" % q[k] for k in sorted(q, key=int)),
                    med(list(qu.values())), med(ex)))
    print("\n### The goal against the floor\n")
    print("(shb ÷ floor at the high count) divided by (shb ÷ floor at the low count), round by round: the")
    print("kernel's growth with the connections is in both, so this is what grows in shb itself. Goal: at")
    print("most %.2f.\n" % GOAL)
    print("| Build | Loads | median of round quotients | round quotients | user: median | met |")
    print("|---|---|---:|---|---:|---|")
    for b in shb_builds:
        for hi, lo in PAIRS[:2]:
            qh, ql = over_floor(sel, b, hi, 5), over_floor(sel, b, lo, 5)
            uh, ul = over_floor(sel, b, hi, 8), over_floor(sel, b, lo, 8)
            q = [qh[k] / ql[k] for k in sorted(qh, key=int) if k in ql]
            qu = [uh[k] / ul[k] for k in sorted(uh, key=int) if k in ul]
            if q:
                m = med(q)
                print("| %s | %s / %s | %.3f | %s | %.3f | %s |" % (
                    b, hi, lo, m, " ".join("%.2f" % x for x in q), med(qu), "yes" if m <= GOAL else "no"))


def after_before(loads, sel):
    print("\n### after / before\n")
    print("Client µs/req of this build divided by the earlier one's, in the same round; and the same from the")
    print("client/server ratios, which cancel what slows both the client and the server in a run.\n")
    print("| Load | median of round quotients | from client/server ratios | round quotients |")
    print("|---|---:|---:|---|")
    for l in loads:
        a = {r[2]: r for r in sel(l, "after")}
        q, qr = [], []
        for r in sel(l, "before"):
            x = a.get(r[2])
            if not x:
                continue
            q.append(float(x[5]) / float(r[5]))
            if float(x[6]) > 0 and float(r[6]) > 0:
                qr.append((float(x[5]) / float(x[6])) / (float(r[5]) / float(r[6])))
        if q:
            print("| %s | %.3f | %.3f | %s |" % (l, med(q), med(qr), " ".join("%.2f" % v for v in q)))


def every_run(rows):
    print("\n### Every run\n")
    print("| Round | Load | Build | req/s | client µs/req | user µs/req | server µs/req | errors |")
    print("|---:|---|---|---:|---:|---:|---:|---:|")
    for r in rows:
        print("| %s | %s | %s | %.0f | %.2f | %.2f | %.2f | %s |" % (
            r[2], r[0], r[1], int(r[3]) / float(r[4]), float(r[5]), float(r[8]), float(r[6]), r[7]))


if __name__ == "__main__":
    main()
