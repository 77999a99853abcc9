#!/bin/bash
# Bad input: exit 2, exactly one line on stderr, nothing on stdout, and no
# connection to the target.
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID, NAME_STATS: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

start_testserver srv hello
url="http://127.0.0.1:$srv_PORT/"

# [USAGE_IN=FILE] [USAGE_ULIMIT="-n N"] [USAGE_WANT=TEXT] usage_case LABEL ARGS...
# Stdin is USAGE_IN (default /dev/null); USAGE_ULIMIT applies to shb
# alone; the one line must contain USAGE_WANT.
usage_case() {
	local label=$1 rc=0 lines
	shift
	(
		# shellcheck disable=SC2086 # "-n 256" is two words
		[[ -z "${USAGE_ULIMIT:-}" ]] || ulimit ${USAGE_ULIMIT} || exit 99
		exec timeout -k 5 20 "$SHB" "$@"
	) >"$E2E_TMP/u.out" 2>"$E2E_TMP/u.err" <"${USAGE_IN:-/dev/null}" || rc=$?
	note "$label: exit $rc: $(head -n 1 "$E2E_TMP/u.err")"
	[[ $rc -eq 2 ]] || { cat "$E2E_TMP/u.err" >&2; fail "$label: exit $rc, expected 2"; }
	[[ ! -s "$E2E_TMP/u.out" ]] || { cat "$E2E_TMP/u.out" >&2; fail "$label: wrote to stdout"; }
	lines=$(wc -l <"$E2E_TMP/u.err")
	[[ $lines -eq 1 && $(wc -c <"$E2E_TMP/u.err") -gt 5 ]] || {
		cat "$E2E_TMP/u.err" >&2
		fail "$label: $lines lines on stderr, expected one"
	}
	[[ -z "${USAGE_WANT:-}" ]] || grep -qF -- "$USAGE_WANT" "$E2E_TMP/u.err" ||
		fail "$label: stderr lacks \"$USAGE_WANT\""
}

usage_case "bad scheme" -n 1 "ftp://127.0.0.1:$srv_PORT/"
usage_case "header without colon" -n 1 -H 'NoColonHere' "$url"
usage_case "-n with -z" -n 10 -z 1s "$url"
usage_case "unknown protocol" -n 1 --proto no-such-proto "$url"
usage_case "unreadable body file" -n 1 -d "@$E2E_TMP/missing" "$url"
usage_case "non-numeric -c" -c many -n 1 "$url"
usage_case "bad duration" -n 1 --timeout soon "$url"
USAGE_WANT='--percentiles: "x" is not a percentile' \
	usage_case "bad percentile" -n 1 --percentiles 50,x "$url"
USAGE_WANT='--percentiles: "50": percentiles must be ascending' \
	usage_case "percentiles not ascending" -n 1 --percentiles 90,50 "$url"
USAGE_WANT='--percentiles: at most 64 percentiles' \
	usage_case "65 percentiles" -n 1 --percentiles "$(seq -s, 1 65)" "$url"
usage_case "unknown option" --no-such-option "$url"
USAGE_WANT="unknown option --duraton (did you mean --duration?)" \
	usage_case "mistyped option" --duraton 1s "$url"
USAGE_WANT='--connect-to "a:1": expected HOST:PORT:CONNECT-HOST:CONNECT-PORT' \
	usage_case "bad --connect-to" -n 1 --connect-to a:1 "$url"
USAGE_WANT='--resolve "x:1:nowhere": "nowhere" is not an IPv4 or IPv6 address' \
	usage_case "bad --resolve" -n 1 --resolve x:1:nowhere "$url"
USAGE_WANT="SNI is sent only over TLS" usage_case "--sni over http" -n 1 --sni a.example "$url"
USAGE_WANT="-4/--ipv4 and -6/--ipv6 cannot be combined" usage_case "-4 with -6" -n 1 -4 -6 "$url"
USAGE_WANT="no IPv6 (-6) address" usage_case "-6 at an IPv4 address" -n 1 -6 "$url"

# Bodies: endless devices are refused by name, endless or huge streams stop
# at the 64 MiB cap, in well under the 20 s limit and without the memory.
USAGE_WANT="@/dev/zero: a character device" \
	usage_case "body from /dev/zero" -n 1 -d @/dev/zero "$url"
USAGE_WANT="@/dev/urandom: a character device" \
	usage_case "body from /dev/urandom" -n 1 --data-binary @/dev/urandom "$url"
USAGE_WANT="a directory" usage_case "body from a directory" -n 1 -d "@$E2E_TMP" "$url"
USAGE_IN=<(yes) USAGE_WANT="body from stdin exceeds 64 MiB" \
	usage_case "endless stdin" -n 1 --data-binary @- "$url"
mkfifo "$E2E_TMP/fifo"
(yes >"$E2E_TMP/fifo" 2>/dev/null || true) &
writer=$!
USAGE_WANT="body from $E2E_TMP/fifo exceeds 64 MiB" \
	usage_case "endless FIFO" -n 1 -d "@$E2E_TMP/fifo" "$url"
kill_quiet "$writer"
USAGE_IN=/dev/zero USAGE_WANT="body from stdin exceeds 64 MiB" \
	usage_case "stdin from /dev/zero" -n 1 -d @- "$url"

# Framing headers must agree with the body.
USAGE_WANT="-H 'Content-Length: 5' disagrees with the body (0 bytes)" \
	usage_case "Content-Length without a body" -n 1 -H 'Content-Length: 5' "$url"
USAGE_WANT="Content-Length is given more than once" \
	usage_case "two Content-Lengths" -n 1 -d hello -H 'Content-Length: 5' \
	-H 'content-length: 5' "$url"
USAGE_WANT="-H 'Transfer-Encoding: chunked'" \
	usage_case "Transfer-Encoding" -n 1 -d hello -H 'Transfer-Encoding: chunked' "$url"

# Too few file descriptors for -c: one line before any connection.
USAGE_ULIMIT="-n 256" USAGE_WANT="-c 1000 needs about" \
	usage_case "-c above the descriptor limit" -t 2 -c 1000 -n 1000 "$url"
grep -qF "but the limit is 256, and 500 connections per worker thread is over it too (raise it with ulimit -n, add threads with -t, or lower -c)" \
	"$E2E_TMP/u.err" || fail "the descriptor limit is not named"

stop_server "$srv_PID"
check_file "$srv_STATS" 'accepted == 0'

# A Content-Length that agrees with the body goes out once: the server
# reads exactly one request of 5 body bytes per connection.
start_testserver srv hello
url="http://127.0.0.1:$srv_PORT/"
run_shb cl -c 1 -n 3 -d hello -H 'Content-Length: 5' "$url"
expect_rc cl 0
req=$(printf 'POST / HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nContent-Type: %s\r\nContent-Length: 5\r\n\r\nhello' \
	"$srv_PORT" application/x-www-form-urlencoded | wc -c)
check cl 'requests.ok == 3' 'statusCodes.200 == 3' "bytesSent == $((3 * req))"
check_no_errors cl
stop_server "$srv_PID"
check_file "$srv_STATS" 'requests == 3' 'protocolErrors == 0' "bytesIn == $((3 * req))"

# A low soft limit under a high enough hard one is raised, not an error:
# 300 connections with a soft limit of 64.
start_testserver srv hello
url="http://127.0.0.1:$srv_PORT/"
rc=0
(
	# The soft limit first: a hard limit below the soft one is refused.
	ulimit -Sn 64 || exit 99
	ulimit -Hn 1024 || { echo "this test needs a hard limit of at least 1024 descriptors" >&2; exit 99; }
	exec timeout -k 5 "$E2E_RUN_LIMIT" "$SHB" -q --report "json:$E2E_TMP/fd.json" \
		-c 300 -n 600 "$url"
) >"$E2E_TMP/fd.stdout" 2>"$E2E_TMP/fd.stderr" </dev/null || rc=$?
RC=$rc
note "soft limit 64, hard 1024, -c 300 -> exit $RC"
expect_rc fd 0
check fd 'requests.ok == 600' 'connectionsOpened == 300'
check_no_errors fd
stop_server "$srv_PID"
check_file "$srv_STATS" 'accepted == 300' 'requests == 600'
note "passed"
