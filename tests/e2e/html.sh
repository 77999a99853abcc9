#!/bin/bash
# The html reporter end to end: shb runs against shb-testserver for 2 s
# with --interval 200ms and writes the page; Debian's headless chromium
# renders it, and the DOM it built must hold the three charts with one
# point per interval in the throughput line and one per interval with an
# ok request in the latency lines, a gap for an interval without (the
# JSON report's intervals: on a loaded machine an interval may end no
# request), and one per line of the hgrm report in the spectrum, the
# URL (with < & ") read back as typed, and nothing that fetches. Every
# request chromium makes goes to a logging stand-in proxy: the page must
# cause none, and a control page with an external image and style sheet
# must show in the log (so the check can fail). An open-loop run adds the
# uncorrected spectrum; a comparison of two targets is one page of two
# sections. A terminal as stdout is refused, a pipe is not.
# Laid out in windows of 1280x1600 and 390x844 (a phone), the run's
# headline (target, ok/s, p50, p99, errors, duration) is on the first
# screen and reads as the JSON report, and every chart fits the window's
# width; the screenshots are kept in $SHB_E2E_ARTEFACTS/html/ (the build
# dir) for a person to look at.
# shellcheck disable=SC2154 # srv_PORT, srv_PID: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER
check_py=$(dirname "$0")/html_check.py
browser=$(command -v chromium) ||
	fail "chromium is not installed (scripts/setup.sh --with-test-servers installs it)"

# Chromium runs as root here, so without its sandbox; each render has its
# own profile in E2E_TMP, a time limit, and its process group (timeout's)
# is killed when the script ends, whatever the outcome.
GROUPS_STARTED=()
html_cleanup() {
	local g
	for g in "${GROUPS_STARTED[@]}"; do
		kill -KILL -- "-$g" 2>/dev/null || true
	done
	e2e_cleanup
}
trap html_cleanup EXIT

python3 "$check_py" listen "$E2E_TMP/proxy.log" "$E2E_TMP/proxy.port" \
	>"$E2E_TMP/proxy.out" 2>&1 &
E2E_PIDS+=("$!")
for _ in $(seq 1 100); do
	[[ -s "$E2E_TMP/proxy.port" ]] && break
	sleep 0.05
done
[[ -s "$E2E_TMP/proxy.port" ]] || fail "the stand-in proxy did not start"
proxy_port=$(cat "$E2E_TMP/proxy.port")

# render NAME FILE: the DOM of FILE in $E2E_TMP/NAME.dom; the proxy log of
# this render alone in $E2E_TMP/NAME.requests.
render() {
	local name=$1 file=$2 rc=0 pid
	: >"$E2E_TMP/proxy.log"
	timeout -k 5 60 "$browser" --headless --no-sandbox --disable-gpu \
		--user-data-dir="$E2E_TMP/$name.profile" --no-first-run \
		--no-default-browser-check --disable-background-networking \
		--disable-component-update --disable-sync --disable-extensions \
		--disable-default-apps --disable-dev-shm-usage \
		--proxy-server="http://127.0.0.1:$proxy_port" --proxy-bypass-list="<-loopback>" \
		--dump-dom "file://$file" >"$E2E_TMP/$name.dom" 2>"$E2E_TMP/$name.browser.log" &
	pid=$!
	GROUPS_STARTED+=("$pid")
	wait "$pid" || rc=$?
	kill -KILL -- "-$pid" 2>/dev/null || true
	[[ $rc -eq 0 ]] || { tail -20 "$E2E_TMP/$name.browser.log" >&2; fail "chromium exited $rc rendering $name"; }
	[[ -s "$E2E_TMP/$name.dom" ]] || fail "chromium gave no DOM for $name"
	cp "$E2E_TMP/proxy.log" "$E2E_TMP/$name.requests"
}

start_testserver srv hello
url="http://127.0.0.1:$srv_PORT/q?a=<b>&c=\"d\""

note "closed loop: -c 4 -z 2s --interval 200ms"
run_shb run -c 4 -z 2s --interval 200ms \
	--report "html:$E2E_TMP/run.html,hgrm:$E2E_TMP/run.hgrm" "$url"
expect_rc run 0
python3 "$check_py" static "$E2E_TMP/run.html" "$url" || fail "the report file"
render run "$E2E_TMP/run.html"
python3 "$check_py" dom "$E2E_TMP/run.dom" "$E2E_TMP/run.json" "$E2E_TMP/run.hgrm" "$url" ||
	fail "the rendered page"
hosts=$(python3 "$check_py" requests "$E2E_TMP/run.requests") ||
	fail "rendering the report fetched from: $hosts"

# layout W H: the first screen of run.html in a W x H window, measured and
# shot by html_check.py over chromium's DevTools pipe.
layout() {
	local w=$1 h=$2 rc=0 pid
	timeout -k 5 60 python3 "$check_py" layout "$browser" "$E2E_TMP/run.html" \
		"$E2E_TMP/run.json" "$w" "$h" "$shots/run-${w}x$h.png" \
		"$E2E_TMP/layout-$w.profile" &
	pid=$!
	GROUPS_STARTED+=("$pid")
	wait "$pid" || rc=$?
	kill -KILL -- "-$pid" 2>/dev/null || true
	[[ $rc -eq 0 ]] || fail "the page laid out at ${w}x$h (exit $rc)"
	[[ -s "$shots/run-${w}x$h.png" ]] || fail "no screenshot at ${w}x$h"
}
note "layout: the headline on the first screen, charts within the window"
shots=${SHB_E2E_ARTEFACTS:-$E2E_TMP}/html
mkdir -p "$shots"
cp "$E2E_TMP/run.html" "$shots/run.html"
layout 1280 1600
layout 390 844

note "control: a page that fetches shows in the proxy log"
cat >"$E2E_TMP/control.html" <<'EOF'
<!DOCTYPE html>
<html><head><link rel="stylesheet" href="http://fonts.shb-control.invalid/a.css"></head>
<body><img src="http://img.shb-control.invalid/x.png" alt=""></body></html>
EOF
render control "$E2E_TMP/control.html"
hosts=$(python3 "$check_py" requests "$E2E_TMP/control.requests") &&
	fail "the control page's fetches did not reach the proxy log"
[[ " $hosts " == *" img.shb-control.invalid "* ]] ||
	fail "the control page's image is not in the proxy log: '$hosts'"

note "open loop: the uncorrected spectrum too"
run_shb ol -c 4 -R 300 -z 1s --interval 200ms \
	--report "html:$E2E_TMP/ol.html,hgrm:$E2E_TMP/ol.hgrm" "$url"
# A client starved of CPU falls behind the schedule: exit 1 with the
# shortfall reported (the page is written all the same); else 0.
if [[ $RC -eq 1 ]]; then
	check ol 'openLoop.shortfall == true' 'requests.errors == 0'
	note "ol: the open loop fell short on this machine (exit 1, as it must)"
else
	expect_rc ol 0
fi
render ol "$E2E_TMP/ol.html"
python3 "$check_py" dom "$E2E_TMP/ol.dom" "$E2E_TMP/ol.json" "$E2E_TMP/ol.hgrm" "$url" ||
	fail "the rendered open-loop page"
hosts=$(python3 "$check_py" requests "$E2E_TMP/ol.requests") ||
	fail "rendering the open-loop report fetched from: $hosts"

note "a comparison: one page, one section per run"
run_shb cmp -c 2 -n 200 --interval 200ms --report "html:$E2E_TMP/cmp.html" \
	"one=http://127.0.0.1:$srv_PORT/1" "two=http://127.0.0.1:$srv_PORT/2"
expect_rc cmp 0
[[ $(grep -c '^<!DOCTYPE html>$' "$E2E_TMP/cmp.html") -eq 1 &&
   $(grep -c '^<section class="run" id="run-[01]">$' "$E2E_TMP/cmp.html") -eq 2 &&
   $(grep -c '<svg class="chart spectrum" id="run[01]-spectrum"' "$E2E_TMP/cmp.html") -eq 2 &&
   $(grep -c '^</html>$' "$E2E_TMP/cmp.html") -eq 1 &&
   $(tail -n 1 "$E2E_TMP/cmp.html") == "</html>" ]] ||
	{ grep -n 'DOCTYPE\|<section\|<h2>\|</html>' "$E2E_TMP/cmp.html" >&2; fail "the comparison is not one page of two sections"; }
grep -q '^<h2>two: GET http://127.0.0.1:[0-9]*/2</h2>$' "$E2E_TMP/cmp.html" ||
	fail "the comparison's second section is not the second target"

note "stdout: a terminal is refused before any traffic, a pipe is not"
command -v script >/dev/null || fail "script (util-linux) is not installed"
RC=0
timeout -k 5 30 script -qec "'$SHB' -c 1 -n 5 --report html '$url'" /dev/null \
	>"$E2E_TMP/tty.out" 2>&1 </dev/null || RC=$?
[[ $RC -eq 2 ]] || { cat "$E2E_TMP/tty.out" >&2; fail "html to a terminal: exit $RC, expected 2"; }
grep -q -- "--report html:FILE" "$E2E_TMP/tty.out" ||
	{ cat "$E2E_TMP/tty.out" >&2; fail "html to a terminal: the message does not say --report html:FILE"; }
[[ $(grep -c . "$E2E_TMP/tty.out") -eq 1 ]] || { cat "$E2E_TMP/tty.out" >&2; fail "html to a terminal: not one line"; }
RC=0
timeout -k 5 30 "$SHB" -q -c 1 -n 5 --report html "$url" >"$E2E_TMP/pipe.html" </dev/null || RC=$?
[[ $RC -eq 0 ]] || fail "html to a pipe: exit $RC"
[[ $(head -c 16 "$E2E_TMP/pipe.html") == "<!DOCTYPE html>" ]] || fail "html to a pipe: no page"
stop_server "$srv_PID"
note "passed"
