#!/bin/bash
# SIGINT and SIGTERM stop the load and the report of what was measured is
# written (exit 130 / 143); timeout(1) signals shb and then its process
# group, and that second signal must not cut the report short.
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID, NAME_STATS: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

start_testserver srv hello
url="http://127.0.0.1:$srv_PORT/"

# interrupted NAME: the report of run NAME covers what ran until the signal.
interrupted() {
	check "$1" 'interrupted == true' 'requests.ok > 0' \
		'durationSeconds > 0.5' 'durationSeconds < 5'
	check_no_errors "$1"
	grep -q '^shb: ' "$E2E_TMP/$1.stderr" && { show_run "$1"; fail "$1: message on stderr"; }
	return 0
}

note "timeout -s INT 2: signal to shb, then to the group"
t0=$(date +%s%N)
RC=0
timeout --preserve-status -s INT 2 "$SHB" -q -c 2 -z 30s \
	--report "json:$E2E_TMP/tmo.json,csv:$E2E_TMP/tmo.csv" "$url" \
	>"$E2E_TMP/tmo.stdout" 2>"$E2E_TMP/tmo.stderr" </dev/null || RC=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
expect_rc tmo 130
interrupted tmo
[[ $ms -lt 6000 ]] || fail "stopping took until ${ms} ms"
# The CSV row is whole (98 fields: 44, 41 of ABI 1.2 and 13 of 1.4) and marked
# interrupted.
[[ $(tail -n 1 "$E2E_TMP/tmo.csv" | awk -F, '{print NF "/" $8}') == 98/1 ]] ||
	fail "CSV row not whole or not marked interrupted"

# bg_shb NAME ARGS: shb in the background, PID in SHB_PID.
bg_shb() {
	local name=$1
	shift
	"$SHB" -q --report "json:$E2E_TMP/$name.json" "$@" \
		>"$E2E_TMP/$name.stdout" 2>"$E2E_TMP/$name.stderr" </dev/null &
	SHB_PID=$!
	E2E_PIDS+=("$SHB_PID")
}

note "SIGTERM"
bg_shb term -c 2 -z 30s "$url"
sleep 1
kill -TERM "$SHB_PID"
RC=0
wait "$SHB_PID" || RC=$?
pid_forget "$SHB_PID"
expect_rc term 143
interrupted term

note "two SIGINTs in a row"
bg_shb twice -c 2 -z 30s "$url"
sleep 1
kill -INT "$SHB_PID"
# shb may already be gone when it stops quickly: the second signal then
# has nobody to reach, and the outcome must be the same.
kill -INT "$SHB_PID" 2>/dev/null || true
RC=0
wait "$SHB_PID" || RC=$?
pid_forget "$SHB_PID"
expect_rc twice 130
interrupted twice
stop_server "$srv_PID"

note "passed"
