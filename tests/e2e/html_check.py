#!/usr/bin/env python3
"""Checks for tests/e2e/html.sh (the html reporter end to end).

  html_check.py listen LOG PORTFILE
      A stand-in HTTP proxy on loopback that answers nothing: it writes the
      request line of every connection to LOG (one line each) and closes
      it. Chromium is pointed at it, so any fetch a page makes is logged.
  html_check.py requests LOG
      Exit 1 when LOG holds a request to any host but the browser's own
      background services (component updates, sign-in, time: hosts under
      google.com, googleapis.com and gvt1.com, except the fonts.* ones a
      page would use); prints the hosts it found.
  html_check.py static HTML URL
      The report file itself: "http://" only in the three places the run's
      URL is printed, no "https://", no script, no src/href/url()/@import.
  html_check.py dom DOM JSON HGRM URL
      The DOM chromium rendered from the report, against the run's JSON
      and hgrm reports: the three charts, one point per interval in each
      time-series line, one per hgrm line in the spectrum, the axis
      labels, and the URL read back as typed.
"""
import html
import html.parser
import json
import os
import re
import socket
import sys


def fail(msg):
    print(f"html_check: {msg}", file=sys.stderr)
    sys.exit(1)


def listen(log, portfile):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    with open(portfile + ".tmp", "w") as f:
        f.write(str(s.getsockname()[1]))
    os.rename(portfile + ".tmp", portfile)
    while True:
        c, _ = s.accept()
        c.settimeout(2)
        try:
            data = c.recv(4096)
        except OSError:
            data = b""
        line = data.split(b"\r\n", 1)[0].decode("latin-1")
        with open(log, "a") as f:
            f.write((line or "(nothing sent)") + "\n")
        c.close()


BROWSER_HOSTS = re.compile(r"(^|\.)(google\.com|googleapis\.com|gvt1\.com)$")


def request_host(line):
    parts = line.split()
    if len(parts) < 2:
        return line
    target = parts[1]
    if parts[0] == "CONNECT":
        return target.rsplit(":", 1)[0]
    m = re.match(r"[a-z]+://([^/:]+)", target)
    return m.group(1) if m else target


def requests(log):
    try:
        lines = [l for l in open(log).read().splitlines() if l]
    except FileNotFoundError:
        lines = []
    page = []
    for l in lines:
        h = request_host(l)
        if not BROWSER_HOSTS.search(h) or h.startswith("fonts."):
            page.append(h)
    print(" ".join(sorted(set(page))))
    print(f"# {len(lines)} requests through the proxy, {len(page)} not the browser's own",
          file=sys.stderr)
    sys.exit(1 if page else 0)


def static(path, url):
    doc = open(path, encoding="utf-8").read()
    esc = html.escape(url, quote=True).replace("&#x27;", "&#39;")
    if doc.count(esc) != 3:
        fail(f"the escaped URL appears {doc.count(esc)} times, expected 3 (title, heading, facts)")
    rest = doc.replace(esc, "")
    for bad in ("http://", "https://", "<script", "src=", "href=", "url(", "@import", "<link"):
        if bad in rest.lower():
            i = rest.lower().index(bad)
            fail(f"{bad!r} in the report: ...{rest[max(0, i - 60):i + 60]!r}")
    if not doc.startswith("<!DOCTYPE html>\n") or not doc.endswith("</html>\n"):
        fail("not one whole page")


class Dom(html.parser.HTMLParser):
    """The svg charts, their polylines and tick labels, the h2 text."""

    def __init__(self):
        super().__init__()
        self.charts = {}     # kind -> {"lines": {cls: [points...]}, "labels": {g: [...]}}
        self.chart = None
        self.group = None
        self.intext = False
        self.h2 = []
        self.inh2 = False
        self.notes = []
        self.innote = False
        self.scripts = 0
        self.fetching = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script":
            self.scripts += 1
        for k in ("src", "href"):
            if k in a:
                self.fetching.append((tag, k, a[k]))
        cls = (a.get("class") or "").split()
        if tag == "svg" and "chart" in cls:
            kind = [c for c in cls if c != "chart"][0]
            self.chart = self.charts.setdefault(kind, {"lines": {}, "labels": {}})
        elif self.chart is not None and tag == "g":
            self.group = a.get("class")
        elif self.chart is not None and tag == "polyline" and "series" in cls:
            key = [c for c in cls if c != "series"][0]
            pts = a.get("points", "").split()
            self.chart["lines"].setdefault(key, []).append(pts)
        elif self.chart is not None and tag == "text" and self.group:
            self.intext = True
            self.chart["labels"].setdefault(self.group, []).append("")
        elif tag == "h2":
            self.inh2 = True
            self.h2.append("")
        elif tag == "p" and "note" in cls:
            self.innote = True
            self.notes.append("")

    def handle_endtag(self, tag):
        if tag == "svg":
            self.chart = None
        elif tag == "g":
            self.group = None
        elif tag == "text":
            self.intext = False
        elif tag == "h2":
            self.inh2 = False
        elif tag == "p":
            self.innote = False

    def handle_data(self, data):
        if self.intext and self.chart is not None and self.group:
            self.chart["labels"][self.group][-1] += data
        if self.inh2:
            self.h2[-1] += data
        if self.innote:
            self.notes[-1] += data


def hgrm_points(path):
    """Data lines of each spectrum but the 100 % ones."""
    parts, cur = [], 0
    parts.append(0)
    for line in open(path):
        if line.startswith("# uncorrected"):
            parts.append(0)
            cur = 1
            continue
        f = line.split()
        if len(f) >= 2 and not line.startswith("#") and f[0] != "Value":
            if float(f[1]) < 1.0:
                parts[cur] += 1
    return parts


def dom(dom_path, json_path, hgrm_path, url):
    d = Dom()
    d.feed(open(dom_path, encoding="utf-8").read())
    rep = json.load(open(json_path))
    iv = rep["intervals"]
    n = len(iv)
    # The html reporter folds a last interval shorter than half the one
    # before into it (docs/reports.md).
    want = n - 1 if n >= 2 and iv[-1]["durationSeconds"] < iv[-2]["durationSeconds"] / 2 else n
    if d.scripts or d.fetching:
        fail(f"scripts {d.scripts}, fetching elements {d.fetching}")
    if sorted(d.charts) != ["latency", "spectrum", "throughput"]:
        fail(f"charts rendered: {sorted(d.charts)}")
    tp, lat, sp = d.charts["throughput"], d.charts["latency"], d.charts["spectrum"]
    for chart, cls in ((tp, "ok"), (lat, "p50"), (lat, "p99")):
        lines = chart["lines"].get(cls, [])
        got = [len(p) for p in lines]
        if got != [want]:
            fail(f"{cls}: polylines of {got} points, expected one of {want} ({n} intervals)")
    if "errors" in tp["lines"]:
        fail("an errors/s line without errors")
    hp = hgrm_points(hgrm_path)
    got = [len(p) for p in sp["lines"].get("corrected", [])]
    if got != [hp[0]] or hp[0] < 10:
        fail(f"spectrum: polylines of {got} points, hgrm has {hp[0]} lines")
    # Open loop: the hgrm report's second spectrum is the uncorrected one.
    got = [len(p) for p in sp["lines"].get("uncorrected", [])]
    if got != hp[1:] or (len(hp) > 1 and hp[1] < 10):
        fail(f"uncorrected spectrum: polylines of {got} points, hgrm has {hp[1:]}")
    xl = sp["labels"].get("ticks-x", [])
    if xl[:3] != ["0%", "90%", "99%"]:
        fail(f"spectrum x labels {xl}")
    pts = [(i["ok"], i["durationSeconds"]) for i in iv[:want]]
    if want < n:
        pts[-1] = (pts[-1][0] + iv[-1]["ok"], pts[-1][1] + iv[-1]["durationSeconds"])
    yl = tp["labels"].get("ticks-y", [])
    if not yl or yl[0] != "0" or float(yl[-1]) < max(ok / s for ok, s in pts) * 0.999:
        fail(f"throughput y labels {yl} do not reach the highest rate")
    tl = tp["labels"].get("ticks-x", [])
    if not tl or tl[0] != "0" or float(tl[-1]) < rep["durationSeconds"] * 0.99:
        fail(f"time labels {tl} do not reach {rep['durationSeconds']} s")
    for chart in (tp, lat, sp):
        for cls, lines in chart["lines"].items():
            for pts in lines:
                xs = [float(p.split(",")[0]) for p in pts]
                ys = [float(p.split(",")[1]) for p in pts]
                if xs != sorted(xs) or min(xs) < 0 or max(xs) > 760 or min(ys) < 0 or max(ys) > 300:
                    fail(f"{cls}: points outside the chart or out of order")
    if d.h2 != ["GET " + url]:
        fail(f"heading read back as {d.h2}, expected GET {url}")
    if not any(t.startswith(f"{n} intervals of 0.200 s") for t in d.notes):
        fail(f"no note saying {n} intervals of 0.200 s: {d.notes}")
    print(f"{n} intervals, {want} points per line, spectrum of {hp[0]} points, "
          f"x labels {xl}")


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "listen" and len(sys.argv) == 4:
        listen(sys.argv[2], sys.argv[3])
    elif cmd == "requests" and len(sys.argv) == 3:
        requests(sys.argv[2])
    elif cmd == "static" and len(sys.argv) == 4:
        static(sys.argv[2], sys.argv[3])
    elif cmd == "dom" and len(sys.argv) == 6:
        dom(*sys.argv[2:])
    else:
        fail(__doc__)


if __name__ == "__main__":
    main()
