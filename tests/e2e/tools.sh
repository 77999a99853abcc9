#!/bin/bash
# The harness tools on their own, without shb: every shb-testserver mode
# answers byte for byte as specified, and shb-jcheck's checks and exit
# codes are right.
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID, NAME_STATS: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB_TESTSERVER SHB_JCHECK

CRLF=$'\r\n'
HELLO="HTTP/1.1 200 OK${CRLF}Content-Length: 13${CRLF}Content-Type: text/plain${CRLF}"
KEEP="${HELLO}${CRLF}hello, world!"
CLOSE="${HELLO}Connection: close${CRLF}${CRLF}hello, world!"
# Three pipelined requests: a sized body (5), a chunked body (19), and a
# GET that asks to close.
PIPE="POST /a HTTP/1.1${CRLF}Host: t${CRLF}Content-Length: 5${CRLF}${CRLF}hello"
PIPE+="POST /b HTTP/1.1${CRLF}Host: t${CRLF}Transfer-Encoding: chunked${CRLF}${CRLF}"
PIPE+="3;ext=1${CRLF}abc${CRLF}10${CRLF}0123456789abcdef${CRLF}0${CRLF}${CRLF}"
PIPE+="GET /c HTTP/1.1${CRLF}Host: t${CRLF}Connection: close${CRLF}${CRLF}"

# exchange PORT REQUEST SECONDS: sends REQUEST on a new connection, then
# prints what comes back until EOF or SECONDS of waiting; sets XRC to 0 on
# EOF, 124 when the connection stayed open, 1 on a reset.
exchange() {
	local out="$E2E_TMP/x.out"
	XRC=0
	exec 3<>"/dev/tcp/127.0.0.1/$1"
	printf '%s' "$2" >&3
	timeout "$3" cat <&3 >"$out" 2>/dev/null || XRC=$?
	exec 3<&-
	XOUT=$(cat "$out"; echo x)
	XOUT=${XOUT%x}
}

# expect_exchange LABEL WANT_OUTPUT WANT_XRC
expect_exchange() {
	[[ "$XOUT" == "$2" ]] || {
		printf 'got:  %q\nwant: %q\n' "$XOUT" "$2" >&2
		fail "$1: wrong bytes"
	}
	[[ "$XRC" == "$3" ]] || fail "$1: connection ended with $XRC, expected $3"
}

start_testserver s hello
exchange "$s_PORT" "$PIPE" 5
expect_exchange "hello pipelined" "$KEEP$KEEP$CLOSE" 0
stop_server "$s_PID"
check_file "$s_STATS" 'accepted == 1' 'closed == 1' 'requests == 3' \
	"bytesIn == ${#PIPE}" "bytesOut == $(( ${#KEEP} * 2 + ${#CLOSE} ))"

start_testserver s echo-len
exchange "$s_PORT" "$PIPE" 5
len() { printf 'HTTP/1.1 200 OK\r\nContent-Length: %d\r\nContent-Type: text/plain\r\n%s\r\n%s' "${#1}" "$2" "$1"; }
expect_exchange "echo-len pipelined" "$(len 5 '')$(len 19 '')$(len 0 "Connection: close$CRLF")" 0
stop_server "$s_PID"

start_testserver s stubborn
exchange "$s_PORT" "GET / HTTP/1.1${CRLF}Connection: close${CRLF}${CRLF}" 0.5
expect_exchange "stubborn" "HTTP/1.1 204 No Content${CRLF}${CRLF}" 124
stop_server "$s_PID"

start_testserver s eager
# Only the head of a 100000-byte upload: the answer comes anyway.
exchange "$s_PORT" "PUT /u HTTP/1.1${CRLF}Content-Length: 100000${CRLF}${CRLF}" 0.5
expect_exchange "eager" "$CLOSE" 124
stop_server "$s_PID"

start_testserver s silent
exchange "$s_PORT" "GET / HTTP/1.1${CRLF}${CRLF}" 0.5
expect_exchange "silent" "" 124
stop_server "$s_PID"

start_testserver s midclose
exchange "$s_PORT" "GET / HTTP/1.1${CRLF}${CRLF}" 5
expect_exchange "midclose" "HTTP/1.1 200 OK${CRLF}Content-Length: 100${CRLF}${CRLF}0123456789" 0
stop_server "$s_PID"

start_testserver s close
exchange "$s_PORT" "GET / HTTP/1.1${CRLF}${CRLF}GET / HTTP/1.1${CRLF}${CRLF}" 5
expect_exchange "close" "$CLOSE" 0
stop_server "$s_PID"

start_testserver s reset
exchange "$s_PORT" "GET / HTTP/1.1${CRLF}${CRLF}" 5
expect_exchange "reset" "" 1
stop_server "$s_PID"
check_file "$s_STATS" 'resets == 1' 'requests == 1'

start_testserver s hello --delay-ms 300
t0=$(date +%s%N)
exchange "$s_PORT" "GET / HTTP/1.0${CRLF}${CRLF}" 5
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
expect_exchange "hello delayed, HTTP/1.0" "$CLOSE" 0
[[ $ms -ge 290 ]] || fail "--delay-ms 300 answered after $ms ms"
stop_server "$s_PID"

start_testserver s hello
exchange "$s_PORT" "GET / HTTP/1.1${CRLF}No colon${CRLF}${CRLF}" 5
expect_exchange "malformed head" "" 1
stop_server "$s_PID"
check_file "$s_STATS" 'protocolErrors == 1' 'requests == 0'

rc=0
"$SHB_TESTSERVER" --mode nonsense >/dev/null 2>&1 || rc=$?
[[ $rc -eq 2 ]] || fail "unknown mode: exit $rc"
rc=0
"$SHB_TESTSERVER" --port 70000 >/dev/null 2>&1 || rc=$?
[[ $rc -eq 2 ]] || fail "bad port: exit $rc"

# ---- shb-jcheck ----
J="$E2E_TMP/j.json"
cat >"$J" <<'JSON'
{"requests": {"ok": 1000, "errors": 0}, "statusCodes": {"200": 1000},
 "latencySeconds": {"percentiles": {"p99": 0.0125, "p99.9": 0.02}},
 "name": "h1", "none": null, "flag": true, "list": [5, 6, 7]}
JSON
# jc WANT_RC EXPR...
jc() {
	local want=$1 rc=0
	shift
	"$SHB_JCHECK" "$J" "$@" >"$E2E_TMP/j.out" 2>&1 || rc=$?
	[[ $rc -eq $want ]] || { cat "$E2E_TMP/j.out" >&2; fail "shb-jcheck $*: exit $rc, expected $want"; }
}
jc 0 'requests.ok == 1000' 'requests.errors==0' 'statusCodes.200 >= 1000' \
	'latencySeconds.percentiles.p99 < 0.02' 'latencySeconds.percentiles.p99\.9 == 0.02' \
	'name == h1' 'name == "h1"' 'none == null' 'flag == true' 'flag != false' \
	'list.2 == 7' 'requests.ok > 999.5' 'requests.ok <= 1000' 'name != h2'
jc 1 'requests.ok == 999'
grep -q 'FAIL requests.ok == 999 (actual: 1000)' "$E2E_TMP/j.out" || fail "jcheck did not print the actual value"
jc 1 'requests.ok == 1000' 'missing.path == 1'
grep -q '(actual: (missing))' "$E2E_TMP/j.out" || fail "jcheck did not report a missing path"
jc 1 'none == 0'
jc 1 'requests.ok == "1000"'
jc 1 'list.3 == 7'
jc 2 'requests.ok'
jc 2 'flag > true'
jc 2 'requests.ok =='
rc=0; "$SHB_JCHECK" "$E2E_TMP/absent.json" 'a == 1' >/dev/null 2>&1 || rc=$?
[[ $rc -eq 2 ]] || fail "jcheck on a missing file: exit $rc"
printf '{"a": ' >"$E2E_TMP/bad.json"
rc=0; "$SHB_JCHECK" "$E2E_TMP/bad.json" 'a == 1' >/dev/null 2>&1 || rc=$?
[[ $rc -eq 2 ]] || fail "jcheck on broken JSON: exit $rc"
rc=0; "$SHB_JCHECK" >/dev/null 2>&1 || rc=$?
[[ $rc -eq 2 ]] || fail "jcheck without arguments: exit $rc"
[[ $("$SHB_JCHECK" --get "$J" latencySeconds.percentiles.p99) == 0.0125 ]] || fail "jcheck --get number"
[[ $("$SHB_JCHECK" --get "$J" name) == h1 ]] || fail "jcheck --get string"
rc=0; "$SHB_JCHECK" --get "$J" nope >/dev/null 2>&1 || rc=$?
[[ $rc -eq 1 ]] || fail "jcheck --get of a missing path: exit $rc"

note "passed"
