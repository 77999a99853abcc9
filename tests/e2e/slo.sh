#!/bin/bash
# --slo against shb-testserver: gates that hold exit 0, a latency gate the
# server's delay breaks exits 3 with one line per failed gate, an error
# rate gate against a dead port, and bad expressions exit 2 before any
# request is sent.
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID, NAME_STATS: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

# slo_lines NAME: the SLO lines of run NAME's stderr.
slo_lines() {
	grep '^shb: SLO failed: ' "$E2E_TMP/$1.stderr" || true
}

start_testserver srv hello
url="http://127.0.0.1:$srv_PORT/"
note "gates that hold"
run_shb pass -c 2 -n 200 --slo 'p99<10s' --slo 'p99.9 <= 1m' \
	--slo 'error_rate<1%' --slo 'rps>1' "$url"
expect_rc pass 0
check pass 'requests.ok == 200'
[[ -z $(slo_lines pass) ]] || { show_run pass; fail "pass: an SLO line on stderr"; }
stop_server "$srv_PID"

start_testserver slow hello --delay-ms 20
url="http://127.0.0.1:$slow_PORT/"
note "p99 above the limit (the server answers after 20 ms)"
run_shb fail -c 2 -n 20 --slo 'p99<5ms' --slo 'error_rate<=0%' \
	--slo 'p50>=1s' "$url"
expect_rc fail 3
# The report is still written, and the run itself went well.
check fail 'requests.ok == 20' 'requests.errors == 0' \
	'latencySeconds.percentiles.p99 >= 0.02'
lines=$(slo_lines fail)
[[ $(wc -l <<<"$lines") -eq 2 ]] || { show_run fail; fail "fail: expected 2 SLO lines"; }
# 20 ms or more (a loaded machine adds to the server's delay; the JSON
# check above holds the lower bound).
grep -qE '^shb: SLO failed: p99 = ([2-9][0-9]|[1-9][0-9]{2,})(\.[0-9]+)?ms, wanted < 5ms$' <<<"$lines" ||
	{ show_run fail; fail "fail: no p99 line"; }
grep -qE '^shb: SLO failed: p50 = ([2-9][0-9]|[1-9][0-9]{2})(\.[0-9]+)?ms, wanted >= 1s$' <<<"$lines" ||
	{ show_run fail; fail "fail: no p50 line"; }
stop_server "$slow_PID"

note "error_rate against a dead port: the run failed, and the gate's 3 says so"
free_port port
run_shb dead -c 2 -n 10 --slo 'error_rate<1%' --slo 'error_rate<=100%' \
	"http://127.0.0.1:$port/"
expect_rc dead 3
check dead 'requests.ok == 0' 'errors.connect == 10'
[[ $(slo_lines dead) == "shb: SLO failed: error_rate = 100%, wanted < 1%" ]] ||
	{ show_run dead; fail "dead: wrong SLO lines"; }

note "bad expressions: exit 2, one line, nothing sent"
start_testserver srv hello
url="http://127.0.0.1:$srv_PORT/"
bad() {
	run_shb bad -c 1 -n 5 --slo 'p99<5ms' --slo "$1" "$url"
	expect_rc bad 2
	[[ $(cat "$E2E_TMP/bad.stderr") == "shb: --slo $2 (see shb --help)" ]] ||
		{ show_run bad; fail "bad $1: wrong message"; }
	[[ ! -s "$E2E_TMP/bad.stdout" ]] || fail "bad $1: wrote a report"
}
bad 'p99<5' '"p99<5": the limit needs a unit (ns, us, ms, s, m or h), e.g. p99<5ms'
bad 'p101<5ms' '"p101<5ms": the percentile must be above 0 and at most 100, with at most four decimals (p50, p99.9, p99.9999)'
bad 'error_rate<1' '"error_rate<1": expected a percentage like 1% or 0.5% after <'
bad 'rps=5' '"rps=5": no comparison (<, <=, > or >=), e.g. p99<5ms, error_rate<1% or rps>1000'
stop_server "$srv_PID"
check_file "$srv_STATS" 'accepted == 0' 'requests == 0'
note "passed"
