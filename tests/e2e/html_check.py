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
  html_check.py layout BROWSER HTML JSON WIDTH HEIGHT PNG PROFILE
      Opens HTML in headless chromium with a viewport of WIDTH x HEIGHT
      (a phone's below 800 px),
      driven over the DevTools protocol on a pipe (--remote-debugging-pipe:
      no port, no websocket), measures the laid-out page and saves a
      screenshot of the first screen to PNG. The headline (the target in
      the section's h2; ok per second, p50, p99, errors and duration)
      must lie wholly within the first screen and read as the JSON
      report's figures; the page must not be wider than the window; every
      chart must lie within the window's width,
      fill it up to 60em, and have tick labels at least 8 px tall; at a
      width of 1000 px or more a chart must begin on the first screen.
      The measuring script is the test's: the report has none.
"""
import base64
import html
import html.parser
import json
import os
import re
import select
import socket
import subprocess
import sys
import time


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


def latency_runs(iv, want):
    """The lengths of the latency lines: runs of points with a latency,
    the points being the intervals with the last folded into the one
    before when want < len(iv) (it has one if either has)."""
    has = [i["latency"] is not None for i in iv[:want]]
    if want < len(iv):
        has[-1] = has[-1] or iv[-1]["latency"] is not None
    runs, k = [], 0
    for h in has + [False]:
        if h:
            k += 1
        elif k:
            runs.append(k)
            k = 0
    return runs


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
    # The rates have a point per interval; the latencies one per interval
    # with an ok request (latency not null), a gap for one without: on a
    # loaded machine a 200 ms interval may end no request, and that is
    # what the page must show.
    runs = latency_runs(iv, want)
    for chart, cls, expect in ((tp, "ok", [want]), (lat, "p50", runs), (lat, "p99", runs)):
        lines = chart["lines"].get(cls, [])
        got = [len(p) for p in lines]
        if got != expect:
            fail(f"{cls}: polylines of {got} points, expected {expect} ({n} intervals, "
                 f"ok in each: {[i['ok'] for i in iv]})")
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


class Cdp:
    """The DevTools protocol over chromium's pipe: fd 3 into the browser,
    fd 4 out of it, one JSON message each, ended by a NUL byte."""

    def __init__(self, browser, profile, width, height):
        to_r, self.to_w = os.pipe()
        self.from_r, from_w = os.pipe()

        def fds():
            # Copies first: a pipe's end may already be fd 3 or 4, and
            # dup2 onto itself would leave it closed at exec.
            a, b = os.dup(to_r), os.dup(from_w)
            os.dup2(a, 3)
            os.dup2(b, 4)
        self.proc = subprocess.Popen(
            [browser, "--headless", "--no-sandbox", "--disable-gpu",
             f"--user-data-dir={profile}", "--no-first-run",
             "--no-default-browser-check", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--disable-extensions",
             "--disable-default-apps", "--disable-dev-shm-usage", "--hide-scrollbars",
             f"--window-size={width},{height}", "--remote-debugging-pipe",
             "about:blank"],
            preexec_fn=fds, close_fds=False, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=open(profile + ".log", "w"))
        os.close(to_r)
        os.close(from_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.from_r], [], [], left)[0]:
                fail("chromium did not answer over the DevTools pipe in time")
            data = os.read(self.from_r, 1 << 20)
            if not data:
                fail("chromium closed the DevTools pipe")
            self.buf += data
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=True, timeout=30):
        self.next_id += 1
        m = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            m["sessionId"] = self.session
        os.write(self.to_w, json.dumps(m).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            r = self.read(deadline)
            if r.get("id") == self.next_id:
                if "error" in r:
                    fail(f"{method}: {r['error']}")
                return r["result"]
            self.events.append(r)

    def wait_event(self, method, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            for i, e in enumerate(self.events):
                if e.get("method") == method:
                    return self.events.pop(i)
            self.events.append(self.read(deadline))

    def close(self):
        try:
            self.call("Browser.close", session=False, timeout=5)
        except (SystemExit, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


# Measured in the page by the test (the report itself has no script).
MEASURE = r"""JSON.stringify((() => {
  const sec = document.getElementById('run-0');
  const box = e => { if (!e) return null; const r = e.getBoundingClientRect();
    return {l: r.left, t: r.top, r: r.right, b: r.bottom, w: r.width, h: r.height,
            text: e.textContent}; };
  const head = {target: sec && sec.querySelector('h2')};
  for (const k of ['rate', 'p50', 'p99', 'errors', 'duration'])
    head[k] = document.getElementById('run0-' + k);
  const out = {vw: document.documentElement.clientWidth, vh: innerHeight,
               sw: document.documentElement.scrollWidth,
               em: parseFloat(getComputedStyle(document.body).fontSize),
               head: {}, charts: []};
  for (const k in head) {
    out.head[k] = box(head[k]);
    const v = head[k] && head[k].querySelector('.value');
    if (out.head[k] && v) out.head[k].value = v.textContent;
  }
  for (const c of document.querySelectorAll('svg.chart')) {
    const b = box(c), t = c.querySelector('.ticks-x text');
    b.id = c.id; b.tick = t ? t.getBoundingClientRect().height : 0;
    delete b.text; out.charts.push(b);
  }
  return out; })())"""


def layout(browser, page, json_path, width, height, png, profile):
    width, height = int(width), int(height)
    cdp = Cdp(browser, profile, width, height)
    try:
        targets = cdp.call("Target.getTargets", session=False)["targetInfos"]
        tid = [t for t in targets if t["type"] == "page"][0]["targetId"]
        cdp.session = cdp.call("Target.attachToTarget",
                               {"targetId": tid, "flatten": True},
                               session=False)["sessionId"]
        # Headless chromium's window is not exactly its viewport (1280x1600
        # gives 1280x1457): the viewport is set here. A narrow one is a
        # phone's: the page's viewport meta tag applies.
        cdp.call("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1,
            "mobile": width < 800})
        cdp.call("Page.enable")
        cdp.call("Page.navigate", {"url": "file://" + os.path.abspath(page)})
        cdp.wait_event("Page.loadEventFired")
        m = json.loads(cdp.call("Runtime.evaluate", {
            "expression": MEASURE, "returnByValue": True})["result"]["value"])
        shot = cdp.call("Page.captureScreenshot", {"format": "png"})["data"]
        with open(png, "wb") as f:
            f.write(base64.b64decode(shot))
    finally:
        cdp.close()
    check_layout(m, json.load(open(json_path)), width, height)


def check_layout(m, rep, width, height):
    vw, vh = m["vw"], m["vh"]
    if vw != width or vh != height:
        # A phone zooms out to show a page wider than itself.
        fail(f"the window is {vw}x{vh}, expected {width}x{height} (the page "
             f"is {m['sw']} px wide)")
    if m["sw"] > vw:
        fail(f"{width}x{height}: the page is {m['sw']} px wide, wider than the window")
    lat = rep["latencySeconds"]["percentiles"]
    want = {"rate": f"{rep['requestsPerSec']:.1f}",
            "p50": f"{lat['p50'] * 1000:.3f}", "p99": f"{lat['p99'] * 1000:.3f}",
            "errors": str(rep["requests"]["errors"]),
            "duration": f"{rep['durationSeconds']:.3f}"}
    for k, b in m["head"].items():
        if b is None:
            fail(f"{width}x{height}: the headline has no {k}")
        if b["l"] < 0 or b["t"] < 0 or b["r"] > vw or b["b"] > vh or b["w"] <= 0:
            fail(f"{width}x{height}: the headline's {k} at {b} is not within "
                 f"the first screen")
        # The page rounds as the JSON's number is rounded here; allow one
        # unit of the last digit for the two roundings.
        if k in want and abs(float(b["value"]) - float(want[k])) > \
                (0.1 if k == "rate" else 0.0011):
            fail(f"{width}x{height}: the headline's {k} reads {b['value']}, "
                 f"the JSON report {want[k]}")
    if not m["head"]["target"]["text"].startswith("GET http://127.0.0.1:"):
        fail(f"the headline's target reads {m['head']['target']['text']!r}")
    if len(m["charts"]) != 3:
        fail(f"{width}x{height}: {len(m['charts'])} charts, expected 3")
    fill = min(vw - 4 * m["em"], 60 * m["em"])
    for c in m["charts"]:
        if c["l"] < 0 or c["r"] > vw:
            fail(f"{width}x{height}: chart {c['id']} spans {c['l']}..{c['r']}, "
                 f"beyond the window's {vw}")
        if c["w"] < fill:
            fail(f"{width}x{height}: chart {c['id']} is {c['w']} px wide, "
                 f"expected at least {fill}")
        if c["tick"] < 8:
            fail(f"{width}x{height}: chart {c['id']}'s labels are {c['tick']} px tall")
    top = min(c["t"] for c in m["charts"])
    if vw >= 1000 and top >= vh:
        fail(f"{width}x{height}: the first chart begins at {top}, below the first screen")
    print(f"{width}x{height}: headline within the first screen (lowest at "
          f"{max(b['b'] for b in m['head'].values()):.0f} px), charts "
          f"{', '.join(str(round(c['w'])) for c in m['charts'])} px wide, "
          f"first at {top:.0f} px, labels {m['charts'][0]['tick']:.1f} px")


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
    elif cmd == "layout" and len(sys.argv) == 9:
        layout(*sys.argv[2:])
    else:
        fail(__doc__)


if __name__ == "__main__":
    main()
