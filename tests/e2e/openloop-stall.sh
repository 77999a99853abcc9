#!/bin/bash
# Coordinated omission, end to end: shb -R 100 -z 4s -c 10 against
# shb-testserver, which is stopped (SIGSTOP) 1 s into the load and resumed
# (SIGCONT) 1 s later. Requests due during the pause cannot be sent: ten
# wait on the ten connections, the others wait for a connection. Measured
# from their intended start (corrected), the hundred requests due in the
# pause took from about 1 s down to nothing, a quarter of the run; measured
# from their actual send (uncorrected), only the ten caught in flight did.
# So the corrected p90 and p99 show the pause and the uncorrected p90 does
# not (its p99 may: ten of 400 is more than 1 %), and the requests that
# waited count as late.
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID, NAME_STATS: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

start_testserver srv hello
url="http://127.0.0.1:$srv_PORT/"
(
	sleep 1.1
	kill -STOP "$srv_PID"
	sleep 1
	kill -CONT "$srv_PID"
) &
PAUSER=$!
E2E_PIDS+=("$PAUSER")
run_shb stall -R 100 -z 4s -c 10 "$url"
wait "$PAUSER" || fail "could not pause the server"
pid_forget "$PAUSER"
kill -CONT "$srv_PID" 2>/dev/null || true
expect_rc stall 0
check_no_errors stall
check stall 'requests.total >= 395' 'requests.total <= 402' \
	'latencySeconds.max >= 0.9' 'latencySeconds.percentiles.p99 >= 0.8' \
	'latencySeconds.percentiles.p90 >= 0.4' \
	'latencyUncorrectedSeconds.percentiles.p90 < 0.1' \
	'latencyUncorrectedSeconds.percentiles.p50 < 0.05' \
	'openLoop.requestsLate >= 50' 'openLoop.scheduleLagMaxSeconds >= 0.8' \
	'openLoop.requestsUnsent <= 2'
stop_server "$srv_PID"
note "passed"
