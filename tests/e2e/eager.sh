#!/bin/bash
# A server that answers "200, Connection: close" as soon as the request
# head arrives, before the 4 MB body is read, then reads the rest and
# closes: every request still counts as ok.
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID, NAME_STATS: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

start_testserver srv eager
make_body "$E2E_TMP/body" 4194304
run_shb eager -c 2 -n 20 -m POST -d "@$E2E_TMP/body" "http://127.0.0.1:$srv_PORT/up"
expect_rc eager 0
check eager 'requests.ok == 20' 'statusCodes.200 == 20' \
	'connectionsOpened == 20'
check_no_errors eager
stop_server "$srv_PID"
check_file "$srv_STATS" 'accepted == 20' 'requests == 20' 'protocolErrors == 0'
note "passed"
