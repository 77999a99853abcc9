#!/bin/bash
# --warmup against shb-testserver: the server serves the warm-up and the
# measured requests, the report counts only the latter (-n exactly) and
# says how many the warm-up ended; -z starts after the warm-up.
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID, NAME_STATS: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK
HELLO_BYTES=78

start_testserver srv hello
url="http://127.0.0.1:$srv_PORT/"
note "-c 1 -n 300 --warmup 500ms"
run_shb count -c 1 -n 300 --warmup 500ms "$url"
expect_rc count 0
check count 'requests.total == 300' 'requests.ok == 300' \
	'statusCodes.200 == 300' 'warmupSeconds == 0.5' 'warmupRequests > 50' \
	'requestsTarget == 300' 'durationSeconds < 0.5'
check_no_errors count
# One connection, opened in the warm-up: none opened while measuring.
check count 'connectionsOpened == 0'
# The answer to the one request in flight when the warm-up ends may arrive
# after it, and its bytes count.
check count "bytesReceived >= $((300 * HELLO_BYTES))" \
	"bytesReceived <= $((301 * HELLO_BYTES))"
[[ $ELAPSED_MS -ge 500 ]] || fail "the warm-up did not last 500 ms (${ELAPSED_MS} ms)"
warm=$(get count warmupRequests)
stop_server "$srv_PID"
check_file "$srv_STATS" "requests == $((300 + warm))" 'accepted == 1'

start_testserver srv hello
url="http://127.0.0.1:$srv_PORT/"
note "-c 4 -z 1s --warmup 1s"
run_shb dur -c 4 -z 1s --warmup 1s "$url"
expect_rc dur 0
check dur 'requests.ok > 0' 'durationSeconds >= 0.95' 'durationSeconds < 1.8' \
	'warmupSeconds == 1' 'warmupRequests > 0' 'durationTargetSeconds == 1'
check_no_errors dur
[[ $ELAPSED_MS -ge 2000 ]] || fail "warm-up and run took only ${ELAPSED_MS} ms"
[[ $ELAPSED_MS -lt 5000 ]] || fail "warm-up and run took ${ELAPSED_MS} ms"
ok=$(get dur requests.ok)
warm=$(get dur warmupRequests)
stop_server "$srv_PID"
# Cut off at the deadline: at most one request per connection more.
check_file "$srv_STATS" "requests >= $((ok + warm))" "requests <= $((ok + warm + 4))"

note "without --warmup the report says 0"
start_testserver srv hello
run_shb none -c 1 -n 10 "http://127.0.0.1:$srv_PORT/"
expect_rc none 0
check none 'warmupSeconds == 0' 'warmupRequests == 0' 'requests.ok == 10'
stop_server "$srv_PID"
check_file "$srv_STATS" 'requests == 10'
note "passed"
