#!/bin/bash
# Bad input: exit 2, exactly one line on stderr, nothing on stdout, and no
# connection to the target.
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID, NAME_STATS: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

start_testserver srv hello
url="http://127.0.0.1:$srv_PORT/"

# usage_case LABEL ARGS...
usage_case() {
	local label=$1 rc=0 lines
	shift
	timeout -k 5 20 "$SHB" "$@" >"$E2E_TMP/u.out" 2>"$E2E_TMP/u.err" </dev/null || rc=$?
	note "$label: exit $rc: $(head -n 1 "$E2E_TMP/u.err")"
	[[ $rc -eq 2 ]] || { cat "$E2E_TMP/u.err" >&2; fail "$label: exit $rc, expected 2"; }
	[[ ! -s "$E2E_TMP/u.out" ]] || { cat "$E2E_TMP/u.out" >&2; fail "$label: wrote to stdout"; }
	lines=$(wc -l <"$E2E_TMP/u.err")
	[[ $lines -eq 1 && $(wc -c <"$E2E_TMP/u.err") -gt 5 ]] || {
		cat "$E2E_TMP/u.err" >&2
		fail "$label: $lines lines on stderr, expected one"
	}
}

usage_case "bad scheme" -n 1 "ftp://127.0.0.1:$srv_PORT/"
usage_case "header without colon" -n 1 -H 'NoColonHere' "$url"
usage_case "-n with -z" -n 10 -z 1s "$url"
usage_case "unknown protocol" -n 1 --proto no-such-proto "$url"
usage_case "unreadable body file" -n 1 -d "@$E2E_TMP/missing" "$url"
usage_case "non-numeric -c" -c many -n 1 "$url"
usage_case "bad duration" -n 1 --timeout soon "$url"
usage_case "unknown option" --no-such-option "$url"

stop_server "$srv_PID"
check_file "$srv_STATS" 'accepted == 0'
note "passed"
