#!/bin/bash
# A server that ignores "Connection: close" and answers 204 without a
# Content-Length: with --disable-keepalive shb must close each connection
# itself once the response is complete.
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID, NAME_STATS: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

start_testserver srv stubborn
run_shb stub -c 5 -n 50 --disable-keepalive "http://127.0.0.1:$srv_PORT/"
expect_rc stub 0
check stub 'requests.ok == 50' 'statusCodes.204 == 50' \
	'connectionsOpened == 50' "bytesReceived == $((50 * 27))"
check_no_errors stub
[[ $ELAPSED_MS -lt 5000 ]] || fail "the run took ${ELAPSED_MS} ms: connections were not closed by the client"
stop_server "$srv_PID"
check_file "$srv_STATS" 'accepted == 50' 'requests == 50' 'protocolErrors == 0'
note "passed"
