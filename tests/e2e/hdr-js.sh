#!/bin/bash
# shb's HdrHistogram export decoded by HdrHistogram's own JavaScript
# library (hdr-histogram-js, installed by scripts/setup.sh
# --with-test-servers into a cache outside the tree; never at test time):
# count, min, max and the asked percentiles against shb's JSON figures,
# and the hgrm report against the library's own percentile spectrum.
# shellcheck disable=SC2154 # srv_PORT, srv_PID: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK
modules=${XDG_CACHE_HOME:-$HOME/.cache}/shb-test/node/node_modules
command -v node >/dev/null || fail "node is not installed (scripts/setup.sh --with-test-servers)"
[[ -f "$modules/hdr-histogram-js/package.json" ]] ||
	fail "hdr-histogram-js is not in $modules (scripts/setup.sh --with-test-servers)"

start_testserver srv hello
url="http://127.0.0.1:$srv_PORT/"
# 400 requests: every percentile below is a whole rank.
run_shb run -c 4 -n 400 --percentiles 25,50,90,99,99.75 \
	--report "hgrm:$E2E_TMP/run.hgrm" "$url"
expect_rc run 0
stop_server "$srv_PID"
check run 'requests.ok == 400' 'histogramUnit == "nanoseconds"'
node "$(dirname "$0")/hdr_js.js" "$modules" "$E2E_TMP/run.json" "$E2E_TMP/run.hgrm" ||
	{ show_run run; fail "hdr-histogram-js reads another histogram"; }
echo "ok"
