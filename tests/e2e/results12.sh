#!/bin/bash
# The results of ABI 1.2 that the core fills, against shb-testserver over
# HTTP/1.1: set-up histograms, time to first byte, bytes per request as the
# protocol reported them, the run facts, and the set-up/load split (the
# load and -z start once every connection is up). Exact numbers through
# the test reporter r12; the JSON report must agree on what it shows.
# shellcheck disable=SC2154,SC2153 # NAME_PORT, NAME_PID, NAME_STATS: set by start_testserver; DEAD by free_port
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_r12.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

# The hello response: 65 bytes of head (status line 17, Content-Length 20,
# Content-Type 26, empty line 2) and a 13-byte body.
HEAD=65
BODY=13

start_testserver srv hello
url="http://127.0.0.1:$srv_PORT/"

note "keep-alive, -c 4 -n 100"
run_r12 count -c 4 -n 100 "$url"
expect_rc count 0
check count 'requests.total == 100' 'requests.ok == 100' \
	"bytesReceived == $((100 * (HEAD + BODY)))"
check_no_errors count
r12_is count requests_total 100
r12_is count requests_ok 100
r12_is count requests_errors 0
r12_is count errors_ex_sum 0
r12_is count connections_opened 4
r12_is count rx_header_bytes $((100 * HEAD))
r12_is count rx_body_bytes $((100 * BODY))
r12_is count latency_uncorrected_is_latency 1
r12_has count "status 200 100"
# One connect per connection, no TLS handshake, every request's first byte.
[[ $(r12_count count connect) == 4 ]] || fail "connect: $(r12 count connect)"
[[ $(r12_count count handshake) == 0 ]] || fail "handshake: $(r12 count handshake)"
[[ $(r12_count count first_byte) == 100 ]] || fail "first_byte: $(r12 count first_byte)"
[[ $(r12_count count latency) == 100 ]] || fail "latency: $(r12 count latency)"
# Time to first byte is within the request's latency.
read -r _ fb_min fb_max <<<"$(r12 count first_byte)"
read -r _ lat_min lat_max <<<"$(r12 count latency)"
(( fb_min > 0 && fb_min <= lat_max && fb_max <= lat_max )) ||
	fail "first byte $fb_min..$fb_max outside latency $lat_min..$lat_max"
setup=$(r12 count setup_ns)
(( setup > 0 )) || fail "setup_ns is $setup"
# The run facts of 1.2.
r12_is count run.shard 0/1
r12_is count run.rate_milli 0
r12_is count run.stages 0
r12_is count run.warmup_ns 0
r12_is count run.interval_ns 0
r12_is count run.label '(null)'
r12_is count run.targets 1
r12_is count run.target "0 $url $url GET 1 0"
[[ $(grep -c '^run.percentile ' "$E2E_TMP/count.r12") == 9 ]] || fail "not nine percentiles"
r12_has count "run.percentile 500000"
r12_has count "run.percentile 999900"
stop_server "$srv_PID"
check_file "$srv_STATS" 'requests == 100' 'accepted == 4'

start_testserver srv hello
url="http://127.0.0.1:$srv_PORT/"
note "no keep-alive, -c 2 -n 50: one connect per request"
run_r12 close -c 2 -n 50 --disable-keepalive "$url"
expect_rc close 0
check close 'requests.ok == 50' 'connectionsOpened == 50'
r12_is close connections_opened 50
[[ $(r12_count close connect) == 50 ]] || fail "connect: $(r12 close connect)"
[[ $(r12_count close first_byte) == 50 ]] || fail "first_byte: $(r12 close first_byte)"
stop_server "$srv_PID"

start_testserver srv hello
url="http://127.0.0.1:$srv_PORT/"
note "-c 200 -z 1s: the load, and -z, start once every connection is up"
run_r12 dur -c 200 -z 1s "$url"
expect_rc dur 0
check_no_errors dur
check dur 'durationSeconds >= 1' 'durationSeconds < 1.2'
# Every connection was up before the first request: 200 connects, and
# none more (keep-alive).
r12_is dur connections_opened 200
[[ $(r12_count dur connect) == 200 ]] || fail "connect: $(r12 dur connect)"
elapsed=$(r12 dur elapsed_ns)
setup=$(r12 dur setup_ns)
(( elapsed >= 1000000000 && elapsed < 1200000000 )) || fail "elapsed_ns $elapsed"
(( setup > 0 )) || fail "setup_ns $setup"
# The set-up comes before the load: both fit in the wall-clock time.
(( (setup + elapsed) / 1000000 <= ELAPSED_MS )) ||
	fail "set-up $setup + load $elapsed ns > ${ELAPSED_MS} ms of wall clock"
ok=$(get dur requests.ok)
stop_server "$srv_PID"
check_file "$srv_STATS" "requests >= $ok" "requests <= $((ok + 200))" 'accepted == 200'

start_testserver srv hello
url="http://127.0.0.1:$srv_PORT/"
note "--warmup 500ms -n 100 -c 2: warm-up facts"
run_r12 warm -c 2 -n 100 --warmup 500ms "$url"
expect_rc warm 0
r12_is warm run.warmup_ns 500000000
r12_is warm requests_total 100
warm=$(r12 warm requests_warmup)
(( warm > 0 )) || fail "requests_warmup $warm"
check warm "warmupRequests == $warm"
stop_server "$srv_PID"
check_file "$srv_STATS" "requests == $((100 + warm))"

note "a refused port: connect errors, none by code"
free_port DEAD
run_r12 dead -c 1 -n 3 "http://127.0.0.1:$DEAD/"
expect_rc dead 1
r12_is dead requests_total 3
r12_is dead requests_errors 3
r12_is dead errors_ex_sum 3
r12_is dead errors_sum 3
[[ $(r12_count dead connect) == 0 ]] || fail "connect: $(r12 dead connect)"
if grep -q '^code ' "$E2E_TMP/dead.r12"; then
	fail "errors by code for connect errors"
fi
note "passed"
