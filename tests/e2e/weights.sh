#!/bin/bash
# A mixed run's weights with -z, whatever the origins' latencies: two
# shb-testservers, one answering at once and one after 5 ms, mixed 10:2
# (-c split 10:2 too, each connection bound to its origin). Closed loop
# (-z) with the slow origin weighted 10 and then 2, and open loop (-R)
# below and beyond what the slow origin can carry for its share: each
# target's share of the requests is its weight's within 1 percentage
# point, and the JSON report states both (weightShare, requestShare).
# Without the gate the fast origin's connections send as fast as it
# answers (closed loop) or take what the slow one's busy connections
# cannot (open loop): its share is far above its weight's.
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID, NAME_STATS: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

start_testserver slow hello --delay-ms 5
start_testserver fast hello
S="http://127.0.0.1:$slow_PORT/"
F="http://127.0.0.1:$fast_PORT/"

# shares NAME: target 0 (weight 10 of 12) got its share of the requests
# within 0.01 (and target 1 the rest), with no errors, and the report
# states both shares: weightShare 10/12 and 2/12, requestShare each
# target's requests over all.
shares() {
	local name=$1 n0 n1
	expect_rc "$name" 0
	check_no_errors "$name"
	n0=$(get "$name" targets.0.requests.total)
	n1=$(get "$name" targets.1.requests.total)
	note "$name: $n0 and $n1 requests (target 0 wants 10 in 12)"
	awk -v a="$n0" -v b="$n1" -v w0="$(get "$name" targets.0.weightShare)" \
		-v w1="$(get "$name" targets.1.weightShare)" \
		-v r0="$(get "$name" targets.0.requestShare)" \
		-v r1="$(get "$name" targets.1.requestShare)" '
		function abs(x) { return x < 0 ? -x : x }
		BEGIN {
			s = a / (a + b)
			exit !(a + b >= 1000 && abs(s - 10 / 12) <= 0.01 &&
			       abs(w0 - 10 / 12) < 1e-6 && abs(w1 - 2 / 12) < 1e-6 &&
			       abs(r0 - s) < 1e-6 && abs(r1 - b / (a + b)) < 1e-6)
		}' ||
		{ show_run "$name"; fail "$name: target 0 got $n0 of $((n0 + n1)) requests, or the report's shares disagree"; }
}

note "closed loop, the slow origin weighted 10: it sets the rate, its share holds"
run_shb slow10 -c 12 -t 2 -z 2s --mix "$S@10" "$F@2"
shares slow10
here=$(dirname "$0")
python3 "$here/../report/check_schema.py" "$here/../../docs/shb-report.schema.json" \
	"$E2E_TMP/slow10.json" >/dev/null || { show_run slow10; fail "slow10: the schema rejects the report"; }
note "closed loop, the fast origin weighted 10: the slow one is held to 1 in 6"
run_shb fast10 -c 12 -t 2 -z 2s --mix "$F@10" "$S@2"
shares fast10
note "open loop -R 600, the slow origin weighted 2: each request where the weights say"
run_shb open -c 12 -t 2 -z 2s -R 600 --mix "$F@10" "$S@2"
shares open
check open 'requests.total >= 1190' 'openLoop.requestsUnsent <= 2'

note "open loop -R 3000, the slow origin weighted 10: its 10 connections carry"
note "2000/s at most, so it sets the rate (the run falls short) and keeps its share"
run_shb openshort -c 12 -t 2 -z 2s -R 3000 --mix "$S@10" "$F@2"
RC_SHORT=$RC
RC=0
shares openshort
if [[ $RC_SHORT -ne 1 ]] || ! grep -q "open loop fell short" "$E2E_TMP/openshort.stderr"; then
	show_run openshort
	fail "openshort: exit $RC_SHORT, expected 1 with the shortfall line"
fi
check openshort 'requests.total <= 4900' 'openLoop.requestsUnsent >= 1000'

note "-n is exact per target, as before"
run_shb count -c 12 -t 2 -n 1200 --mix "$S@10" "$F@2"
expect_rc count 0
check count 'targets.0.requests.ok == 1000' 'targets.1.requests.ok == 200'

stop_server "$slow_PID"
stop_server "$fast_PID"
note "passed"
