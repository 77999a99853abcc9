#!/bin/bash
# A server that accepts and reads but never answers: --timeout ends each
# request, the run ends by itself, and nothing completed means exit 1; the
# sample says the timeout in the unit it was given (500ms, not 0.5s).
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID, NAME_STATS: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

start_testserver srv silent
run_shb silent -c 2 -n 4 --timeout 500ms "http://127.0.0.1:$srv_PORT/"
expect_rc silent 1
check silent 'requests.ok == 0' 'errors.timeout == 4' 'requests.errors == 4' \
	'latencySeconds == null' 'errors.connect == 0' 'bytesReceived == 0' \
	'errorSamples.timeout == "request timed out after 500ms"'
# Two rounds of 500 ms timeouts: about a second, far from a hang.
[[ $ELAPSED_MS -lt 5000 ]] || fail "the run took ${ELAPSED_MS} ms"
[[ $ELAPSED_MS -ge 900 ]] || fail "timeouts fired early: ${ELAPSED_MS} ms"
note "passed"
