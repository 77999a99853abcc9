#!/usr/bin/env python3
"""Post-processing of h3_after.sh: shb's JSON report (intervals) and the
samples ("unix-ns shb-ticks server-ticks server-drops shb-rss-kib" every
0.2 s)
-> one CSV row per interval and the phase means (before, during, after
the episode, the after part in two halves)."""
import csv
import json
import os
import sys
from datetime import datetime, timezone


def unix_ns(stamp):
    """RFC 3339 with nanoseconds -> unix ns (datetime keeps only us)."""
    day, frac = stamp.rstrip("Z").split(".")
    base = datetime.strptime(day, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc)
    return int(base.timestamp()) * 10**9 + int(frac.ljust(9, "0")[:9])


def load_samples(path):
    rows = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 5 and "-" not in parts[1:]:
                rows.append(tuple(int(x) for x in parts))
    return rows


def at(samples, t, col):
    """Column col linearly interpolated at time t (ns)."""
    for a, b in zip(samples, samples[1:]):
        if a[0] <= t <= b[0]:
            if b[0] == a[0]:
                return a[col]
            return a[col] + (b[col] - a[col]) * (t - a[0]) / (b[0] - a[0])
    return None


def rows_of(report, samples):
    hz = os.sysconf("SC_CLK_TCK")
    start = unix_ns(report["loadStart"])
    out = []
    for iv in report["intervals"]:
        t0 = start + int(iv["startSeconds"] * 1e9)
        t1 = t0 + int(iv["durationSeconds"] * 1e9)
        vals = [(at(samples, t0, c), at(samples, t1, c)) for c in (1, 2, 3, 4)]
        if any(v is None for pair in vals for v in pair) or iv["ok"] == 0:
            continue
        shb_ms = (vals[0][1] - vals[0][0]) * 1000 / hz
        srv_ms = (vals[1][1] - vals[1][0]) * 1000 / hz
        out.append({
            "start_s": iv["startSeconds"], "ok": iv["ok"], "errors": iv["errors"],
            "shb_cpu_ms": round(shb_ms, 1),
            "shb_us_per_req": round(shb_ms * 1000 / iv["ok"], 2),
            "srv_us_per_req": round(srv_ms * 1000 / iv["ok"], 2),
            "tx_bytes_per_req": round(iv["bytesSent"] / iv["ok"], 1),
            "rx_bytes_per_req": round(iv["bytesReceived"] / iv["ok"], 1),
            "srv_drops": int(vals[2][1] - vals[2][0]),
            "shb_rss_kib": int(vals[3][1]),
        })
    return out


def phase(rows, lo, hi):
    sel = [r for r in rows if lo <= r["start_s"] < hi]
    if not sel:
        return None
    ok = sum(r["ok"] for r in sel)
    cpu = sum(r["shb_cpu_ms"] for r in sel)
    srv = sum(r["srv_us_per_req"] * r["ok"] for r in sel)
    tx = sum(r["tx_bytes_per_req"] * r["ok"] for r in sel)
    rx = sum(r["rx_bytes_per_req"] * r["ok"] for r in sel)
    return (len(sel), ok, sum(r["errors"] for r in sel), cpu * 1000 / ok, srv / ok,
            tx / ok, rx / ok, sum(r["srv_drops"] for r in sel), sel[-1]["shb_rss_kib"])


def main():
    report_path, samples_path, at_s, ep_s, csv_path = sys.argv[1:6]
    at_s, ep_s = float(at_s), float(ep_s)
    with open(report_path) as f:
        report = json.load(f)
    rows = rows_of(report, load_samples(samples_path))
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    end = max(r["start_s"] for r in rows) + 1
    after = at_s + ep_s + 10
    mid = after + (end - after) / 2
    print(f"requests ok {report['requests']['ok']}, errors {report['requests']['errors']}, "
          f"connections opened {report['connectionsOpened']}, errors by kind "
          f"{ {k: v for k, v in report['errors'].items() if v} }")
    print("| Phase | From s | To s | Intervals | ok | errors | shb µs/req | server µs/req "
          "| tx B/req | rx B/req | server drops | shb RSS KiB at end |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, lo, hi in (("before", 10, at_s), ("during", at_s, at_s + ep_s),
                         ("settling", at_s + ep_s, after), ("after, first half", after, mid),
                         ("after, second half", mid, end)):
        p = phase(rows, lo, hi)
        if p:
            print(f"| {name} | {lo:.0f} | {hi:.0f} | {p[0]} | {p[1]} | {p[2]} | {p[3]:.1f} "
                  f"| {p[4]:.1f} | {p[5]:.1f} | {p[6]:.1f} | {p[7]} | {p[8]} |")


if __name__ == "__main__":
    main()
