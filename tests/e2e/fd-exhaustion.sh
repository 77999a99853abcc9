#!/bin/bash
# Out of file descriptors at first sight: with 180 descriptors inherited
# open and a limit of 256, the start-up check (which counts what -c needs)
# passes, and shb's sockets run out after some 60 connections. That is
# this machine's limit, not the server's fault: the run stops at once with
# one line saying what to change, exit 1, a report of what was done, and
# one connect error per worker at most instead of a storm. Sockets that
# need a descriptor are the ones bound with --source (the kernel's own
# ring-made sockets have none, sock_direct.h): the same run without it
# completes.
# shellcheck disable=SC2154 # NAME_PORT: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

start_testserver srv hello
(
	ulimit -n 256
	for fd in $(seq 20 199); do
		eval "exec $fd</dev/null"
	done
	run_shb fds -t 2 -c 150 -n 100000 --source 127.0.0.1 "http://127.0.0.1:$srv_PORT/"
	expect_rc fds 1
	grep -q "Too many open files with 75 connections per worker: raise the limit (ulimit -n) or lower -c" \
		"$E2E_TMP/fds.stderr" || { show_run fds; fail "no line saying what to change"; }
	[[ $(wc -l <"$E2E_TMP/fds.stderr") -eq 1 ]] || { show_run fds; fail "more than one line on stderr"; }
	check fds 'errors.connect >= 1' 'errors.connect <= 2' 'errors.read == 0' \
		'requests.ok < 100000'
	[[ $ELAPSED_MS -lt 5000 ]] || fail "the run took ${ELAPSED_MS} ms"
	run_shb direct -t 2 -c 150 -n 3000 "http://127.0.0.1:$srv_PORT/"
	expect_rc direct 0
	check direct 'requests.ok == 3000' 'connectionsOpened == 150'
)
note "passed"
