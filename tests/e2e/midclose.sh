#!/bin/bash
# A server that announces 100 body bytes, sends 10 and closes: each
# request is a read error, and since no connection ever carries a
# response, each is a failed connection: every slot backs off, and once
# every slot failed 5 times in a row the run stops early with one line
# and exits 1 (-t 1 -c 2: exactly 2 x 5 connections, well before -n).
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID, NAME_STATS: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

start_testserver srv midclose
run_shb mid -t 1 -c 2 -n 20 "http://127.0.0.1:$srv_PORT/"
expect_rc mid 1
check mid 'requests.ok == 0' 'requests.errors == 10' 'errors.read == 10' \
	'errors.timeout == 0' 'errors.connect == 0' 'connectionsOpened == 10'
[[ $ELAPSED_MS -lt 5000 ]] || fail "the run took ${ELAPSED_MS} ms"
grep -qxF "shb: no connection to 127.0.0.1:$srv_PORT ever succeeded: every connection failed 5 times in a row, the last with: connection closed mid-response" \
	"$E2E_TMP/mid.stderr" || { show_run mid; fail "mid: no early-stop line"; }
stop_server "$srv_PID"
check_file "$srv_STATS" 'accepted == 10' 'requests == 10'
note "passed"
