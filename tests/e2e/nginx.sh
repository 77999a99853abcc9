#!/bin/bash
# shb against a real nginx on loopback, plain and TLS: exact counts, no
# errors. Fails when nginx or openssl is missing (scripts/setup.sh
# --with-test-servers installs them).
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID, NAME_STATS: set by start_testserver
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_r12.sh"
source "$(dirname "$0")/lib_nginx.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

nginx_need
T=$E2E_TMP/nginx
# A throwaway self-signed certificate for 127.0.0.1 and localhost.
tls_self cert DNS:localhost,IP:127.0.0.1

servers() {
	nginx_conf "$T" off <<SERVERS
	keepalive_timeout 300s;
	ssl_certificate $TLS_DIR/cert.pem;
	ssl_certificate_key $TLS_DIR/cert.key;
	server {
		listen 127.0.0.1:$PLAIN reuseport;
		listen 127.0.0.1:$TLS ssl;
		location / { return 200 "hello, world!"; }
		# return discards the body: nginx still reads every byte.
		location /upload {
			client_max_body_size 100m;
			client_body_buffer_size 1m;
			return 200 "ok";
		}
	}
SERVERS
}
nginx_start "$T" servers PLAIN TLS
note "nginx on 127.0.0.1:$PLAIN (plain) and :$TLS (TLS)"

PLAIN_URL="http://127.0.0.1:$PLAIN/"
TLS_URL="https://127.0.0.1:$TLS/"
make_body "$E2E_TMP/body" 204800

# count_run NAME N ARGS...: a run of exactly N requests, all ok.
count_run() {
	local name=$1 n=$2
	shift 2
	run_shb "$name" -n "$n" "$@"
	expect_rc "$name" 0
	check "$name" "requests.total == $n" "requests.ok == $n" \
		"statusCodes.200 == $n" 'bytesReceived > 0' 'bytesSent > 0' \
		'latencySeconds != null'
	check_no_errors "$name"
}

# nginx's answers within one run all have the same size.
same_size_answers() {
	local got n=$2
	got=$(get "$1" bytesReceived)
	(( got % n == 0 )) || fail "$1: $got bytes received is not a multiple of $n answers"
}

count_run plain 2000 -c 10 "$PLAIN_URL"
same_size_answers plain 2000
check plain 'connectionsOpened <= 10'

run_shb dur -c 10 -z 2s "$PLAIN_URL"
expect_rc dur 0
check dur 'requests.ok > 0' 'bytesReceived > 0' 'durationSeconds >= 1.9' \
	"statusCodes.200 == $(get dur requests.ok)"
check_no_errors dur

count_run post 100 -c 10 -m POST -d "@$E2E_TMP/body" "${PLAIN_URL}upload"
check post "bytesSent > $((100 * 204800))"
same_size_answers post 100

count_run close 300 -c 10 --disable-keepalive "$PLAIN_URL"
check close 'connectionsOpened == 300'
same_size_answers close 300

count_run wide 4000 -c 200 "$PLAIN_URL"
check wide 'connectionsOpened <= 200'
same_size_answers wide 4000

count_run tls 1000 -c 10 "$TLS_URL"
check tls 'connectionsOpened <= 10'

count_run tlsclose 200 -c 10 --disable-keepalive "$TLS_URL"
check tlsclose 'connectionsOpened == 200'

# Set-up timings over TLS (the r12 test reporter shows the 1.2 results):
# one TCP connect and one TLS handshake per connection, every request's
# first byte, and the body bytes nginx sent ("hello, world!": 13).
run_r12 tlstimes -n 100 -c 4 "$TLS_URL"
expect_rc tlstimes 0
check tlstimes 'requests.total == 100' 'requests.ok == 100'
check_no_errors tlstimes
r12_is tlstimes requests_total 100
r12_is tlstimes connections_opened 4
[[ $(r12_count tlstimes connect) == 4 ]] || fail "connect: $(r12 tlstimes connect)"
[[ $(r12_count tlstimes handshake) == 4 ]] || fail "handshake: $(r12 tlstimes handshake)"
[[ $(r12_count tlstimes first_byte) == 100 ]] || fail "first_byte: $(r12 tlstimes first_byte)"
r12_is tlstimes rx_body_bytes 1300
head=$(r12 tlstimes rx_header_bytes)
(( head > 0 && head % 100 == 0 )) || fail "rx_header_bytes $head: not 100 equal heads"
read -r _ hs_min _ <<<"$(r12 tlstimes handshake)"
(( hs_min > 0 )) || fail "a TLS handshake took no time"

# Without keep-alive every request has its own connect and handshake.
run_r12 tlstimes2 -n 40 -c 2 --disable-keepalive "$TLS_URL"
expect_rc tlstimes2 0
r12_is tlstimes2 connections_opened 40
[[ $(r12_count tlstimes2 connect) == 40 ]] || fail "connect: $(r12 tlstimes2 connect)"
[[ $(r12_count tlstimes2 handshake) == 40 ]] || fail "handshake: $(r12 tlstimes2 handshake)"

# Open loop: the target rate is reached within 1 %, over TLS too.
run_shb rate -R 1000 -z 3s -c 20 "$PLAIN_URL"
expect_rc rate 0
check rate 'requests.total >= 2997' 'requests.total <= 3003' \
	'requestsPerSec >= 990' 'requestsPerSec <= 1010' 'openLoop.rateTarget == 1000'
check_no_errors rate
run_shb tlsrate -R 500 -z 2s -c 10 "$TLS_URL"
expect_rc tlsrate 0
check tlsrate 'requests.total >= 997' 'requests.total <= 1003' \
	'requestsPerSec >= 495' 'requestsPerSec <= 505'
check_no_errors tlsrate

nginx_stop
note "passed"
