#!/bin/bash
# A server that announces 100 body bytes, sends 10 and closes: each
# request is a read error, the run still finishes, and exits 1 since
# nothing completed.
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID, NAME_STATS: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

start_testserver srv midclose
run_shb mid -c 2 -n 20 "http://127.0.0.1:$srv_PORT/"
expect_rc mid 1
check mid 'requests.ok == 0' 'requests.errors == 20' 'errors.read == 20' \
	'errors.timeout == 0' 'errors.connect == 0' 'connectionsOpened == 20'
[[ $ELAPSED_MS -lt 5000 ]] || fail "the run took ${ELAPSED_MS} ms"
stop_server "$srv_PID"
check_file "$srv_STATS" 'accepted == 20' 'requests == 20'
note "passed"
