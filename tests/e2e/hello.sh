#!/bin/bash
# shb against shb-testserver in its hello and echo-len modes: exact counts
# in the report, cross-checked with what the server saw.
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID, NAME_STATS: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

# The hello response is 78 bytes: status line 17, Content-Length 20,
# Content-Type 26, empty line 2, body 13.
HELLO_BYTES=78

start_testserver srv hello
url="http://127.0.0.1:$srv_PORT/"

note "keep-alive, -c 10 -n 1000"
run_shb count -c 10 -n 1000 "$url"
expect_rc count 0
check count 'requests.total == 1000' 'requests.ok == 1000' \
	'requests.retried == 0' 'statusCodes.200 == 1000' \
	"bytesReceived == $((1000 * HELLO_BYTES))" 'bytesSent > 0' \
	'connectionsOpened >= 1' 'connectionsOpened <= 10' \
	'latencySeconds != null' 'latencySeconds.percentiles.p99 > 0' \
	'latencySeconds.min > 0' 'durationSeconds > 0'
check_no_errors count
stop_server "$srv_PID"
# What the server saw must match the report byte for byte.
check_file "$srv_STATS" 'requests == 1000' \
	"bytesOut == $(get count bytesReceived)" \
	"bytesIn == $(get count bytesSent)" \
	"accepted == $(get count connectionsOpened)" 'protocolErrors == 0'

start_testserver srv hello
url="http://127.0.0.1:$srv_PORT/"
note "duration, -c 4 -z 2s"
run_shb dur -c 4 -z 2s "$url"
expect_rc dur 0
check dur 'requests.ok > 0' 'durationSeconds >= 1.9' 'durationSeconds < 4'
check_no_errors dur
ok=$(get dur requests.ok)
# Answers to the (at most 4) requests in flight at the deadline may arrive
# and count as bytes, but not as requests.
check dur "statusCodes.200 == $ok" "requests.total == $ok" \
	"bytesReceived >= $((ok * HELLO_BYTES))" \
	"bytesReceived <= $(((ok + 4) * HELLO_BYTES))"
[[ $ELAPSED_MS -lt 6000 ]] || fail "a 2 s run took ${ELAPSED_MS} ms"
stop_server "$srv_PID"
# Requests cut off at the deadline reach the server but not the report.
check_file "$srv_STATS" "requests >= $ok" "requests <= $((ok + 4))"

start_testserver srv hello
url="http://127.0.0.1:$srv_PORT/"
note "no keep-alive, -c 10 -n 200"
run_shb close -c 10 -n 200 --disable-keepalive "$url"
expect_rc close 0
check close 'requests.ok == 200' 'statusCodes.200 == 200' \
	'connectionsOpened == 200'
check_no_errors close
stop_server "$srv_PID"
check_file "$srv_STATS" 'accepted == 200' 'requests == 200' \
	"bytesIn == $(get close bytesSent)" \
	"bytesOut == $(get close bytesReceived)"

start_testserver srv echo-len
url="http://127.0.0.1:$srv_PORT/upload"
make_body "$E2E_TMP/body" 204800
note "POST 200 KB bodies, -c 5 -n 50"
run_shb post -c 5 -n 50 -m POST -d "@$E2E_TMP/body" "$url"
expect_rc post 0
# Each answer: 17 + "Content-Length: 6\r\n" 19 + 26 + 2 + "204800" 6 = 70.
check post 'requests.ok == 50' 'statusCodes.200 == 50' \
	"bytesReceived == $((50 * 70))" "bytesSent > $((50 * 204800))"
check_no_errors post
stop_server "$srv_PID"
check_file "$srv_STATS" 'requests == 50' "bytesIn == $(get post bytesSent)" \
	"bytesOut == $((50 * 70))" 'protocolErrors == 0'

note "passed"
