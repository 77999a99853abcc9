#!/bin/bash
# Open loop (-R, --stages) against shb-testserver and, over HTTP/2,
# shb-h2-peer: the number of requests the schedule holds (within the one
# or two due at the very end), the achieved rate, the run facts (r12),
# the warm-up, and bad values refused with exit 2 before any traffic.
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID, NAME_STATS: set by start_testserver
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_r12.sh"
need SHB SHB_TESTSERVER SHB_JCHECK SHB_H2PEER

start_testserver srv hello
url="http://127.0.0.1:$srv_PORT/"

note "-R 200 -z 2s -c 4: 400 requests, 200/s"
run_r12 rate -R 200 -z 2s -c 4 "$url"
expect_rc rate 0
check rate 'requests.total >= 398' 'requests.total <= 402' \
	'requestsPerSec >= 197' 'requestsPerSec <= 203' \
	'openLoop.rateTarget == 200' 'openLoop.requestsUnsent <= 2' \
	'durationSeconds >= 1.99' 'durationSeconds < 2.2'
check_no_errors rate
# Each request is due no later than it is sent.
awk -v u="$(get rate latencyUncorrectedSeconds.max)" -v c="$(get rate latencySeconds.max)" \
	'BEGIN { exit !(u <= c) }' || fail "uncorrected max above the corrected max"
r12_is rate run.rate_milli 200000
r12_is rate run.stages 0
r12_is rate latency_uncorrected_is_latency 0
r12_is rate run.percentile 100000

note "closed loop: one histogram, no rate"
run_r12 closed -n 50 -c 2 "$url"
expect_rc closed 0
r12_is closed run.rate_milli 0
r12_is closed latency_uncorrected_is_latency 1
check closed 'openLoop == null'

note "-R 500 -n 100: ends after 100 requests, the last due at 198 ms"
run_shb count -R 500 -n 100 -c 2 "$url"
expect_rc count 0
check count 'requests.total == 100' 'durationSeconds >= 0.19' 'durationSeconds < 0.6' \
	'openLoop.requestsUnsent == 0'

note "-R 2.5 -z 2s: due at 0, 0.4, 0.8, 1.2 and 1.6 s"
run_shb frac -R 2.5 -z 2s -c 1 "$url"
expect_rc frac 0
check frac 'requests.total == 5' 'openLoop.rateTarget == 2.5' 'openLoop.requestsUnsent == 0'

note "-R 100:300 -z 2s: a ramp, 400 requests"
run_r12 ramp -R 100:300 -z 2s -c 4 "$url"
expect_rc ramp 0
check ramp 'requests.total >= 398' 'requests.total <= 402' 'openLoop.rateTarget == null' \
	'openLoop.stages.0.rateFrom == 100' 'openLoop.stages.0.rateTo == 300' \
	'openLoop.stages.0.durationSeconds == 2'
r12_is ramp run.rate_milli 0
r12_is ramp run.stages 1

note "--stages 1s:200,1s:200,500ms:0: 100 + 200 + 50 requests in 2.5 s"
run_r12 stages --stages 1s:200,1s:200,500ms:0 -c 4 "$url"
expect_rc stages 0
check stages 'requests.total >= 348' 'requests.total <= 352' \
	'durationTargetSeconds == 2.5' 'durationSeconds >= 2.45' 'durationSeconds < 2.7' \
	'openLoop.stages.0.rateFrom == 0' 'openLoop.stages.1.rateFrom == 200' \
	'openLoop.stages.2.rateTo == 0'
r12_is stages run.stages 3

note "-R 100 --warmup 1s -z 1s: the schedule runs through the warm-up"
run_shb warm -R 100 --warmup 1s -z 1s -c 2 "$url"
expect_rc warm 0
check warm 'warmupRequests >= 98' 'warmupRequests <= 102' \
	'requests.total >= 98' 'requests.total <= 102'
stop_server "$srv_PID"
total=$(( $(get rate requests.total) + 50 + 100 + 5 + $(get ramp requests.total) +
	$(get stages requests.total) + $(get warm requests.total) + $(get warm warmupRequests) ))
# What shb counted is what the server answered, give or take one request
# per connection in flight at the end of a run (and at the warm-up's end).
check_file "$srv_STATS" "requests >= $total" "requests <= $((total + 20))"

note "HTTP/2, -p 4: -R 300 -z 1s over 2 connections"
pf="$E2E_TMP/peer.port"
"$SHB_H2PEER" --mode hello --port-file "$pf" --stats-file "$E2E_TMP/peer.stats" \
	>"$E2E_TMP/peer.log" 2>&1 &
PEER_PID=$!
E2E_PIDS+=("$PEER_PID")
E2E_LOGS[$PEER_PID]="$E2E_TMP/peer.log"
for _ in $(seq 1 100); do
	[[ -s "$pf" ]] && break
	sleep 0.05
done
[[ -s "$pf" ]] || { cat "$E2E_TMP/peer.log" >&2; fail "shb-h2-peer did not start"; }
run_shb h2 --proto h2 -p 4 -c 2 -R 300 -z 1s "http://127.0.0.1:$(cat "$pf")/"
expect_rc h2 0
check h2 'requests.total >= 298' 'requests.total <= 302' 'openLoop.rateTarget == 300' \
	'requestsPerSec >= 295' 'requestsPerSec <= 305'
check_no_errors h2
n=$(get h2 requests.total)
stop_server "$PEER_PID"
check_file "$E2E_TMP/peer.stats" "streams >= $n" "streams <= $((n + 8))"

note "bad values: exit 2, one line, nothing sent"
start_testserver srv hello
url="http://127.0.0.1:$srv_PORT/"
# usage_case LABEL WANT ARGS...
usage_case() {
	local label=$1 want=$2 rc=0
	shift 2
	timeout -k 5 20 "$SHB" "$@" >"$E2E_TMP/u.out" 2>"$E2E_TMP/u.err" </dev/null || rc=$?
	note "$label: exit $rc: $(head -n 1 "$E2E_TMP/u.err")"
	[[ $rc -eq 2 ]] || { cat "$E2E_TMP/u.err" >&2; fail "$label: exit $rc, expected 2"; }
	[[ ! -s "$E2E_TMP/u.out" && $(wc -l <"$E2E_TMP/u.err") -eq 1 ]] ||
		{ cat "$E2E_TMP/u.out" "$E2E_TMP/u.err" >&2; fail "$label: not one line on stderr alone"; }
	grep -qF -- "$want" "$E2E_TMP/u.err" || fail "$label: stderr lacks \"$want\""
}
usage_case "rate 0" "-R 0: the rate must be greater than 0" -R 0 -n 1 "$url"
usage_case "rate text" "--rate: expected a rate like 1000 or 0.5" --rate fast -n 1 "$url"
usage_case "4 decimals" "-R: expected a rate" -R 0.0005 -n 1 "$url"
usage_case "ramp without -z" "-R 1:5: a ramp runs over the run's duration" -R 1:5 "$url"
usage_case "stages with -z" "--stages and -z/--duration cannot be combined" \
	--stages 1s:5 -z 1s "$url"
usage_case "-R with --stages" "-R and --stages cannot be combined" -R 5 --stages 1s:5 "$url"
usage_case "stage without rate" "--stages: stage 2 \"2s\": expected DURATION:RATE" \
	--stages 1s:5,2s "$url"
usage_case "stages all 0" "every rate is 0" --stages 1s:0,2s:0 "$url"
stop_server "$srv_PID"
check_file "$srv_STATS" 'accepted == 0' 'requests == 0'
note "passed"
