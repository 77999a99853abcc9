#!/bin/bash
# shb --proto h2 against a real nginx on loopback: h2c with prior
# knowledge, h2 over TLS (ALPN), a server that sends GOAWAY every 5
# requests, a 200 KB POST; exact counts and no errors. Then the clear
# errors: h2c against an HTTP/1.1-only port, https without ALPN h2.
# Fails when nginx or openssl is not installed (scripts/setup.sh
# --with-test-servers installs them).
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID: set by start_testserver
source "$(dirname "$0")/../e2e/lib.sh"
source "$(dirname "$0")/../e2e/lib_nginx.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

nginx_need
T=$E2E_TMP/nginx
tls_self cert DNS:localhost,IP:127.0.0.1

servers() {
	nginx_conf "$T" off <<SERVERS
	keepalive_timeout 300s;
	ssl_certificate $TLS_DIR/cert.pem;
	ssl_certificate_key $TLS_DIR/cert.key;
	server {
		listen 127.0.0.1:$P_H2C http2;
		listen 127.0.0.1:$P_TLS ssl http2;
		http2_max_concurrent_streams 128;
		location / { return 200 "hello, world!"; }
		# The proxy reads the whole body before it forwards it.
		location /upload {
			client_max_body_size 100m;
			client_body_buffer_size 1m;
			proxy_pass http://127.0.0.1:$P_H1/sink;
		}
		# Answered at once: the rest of our body is cancelled.
		location /early {
			client_max_body_size 100m;
			return 200 "early";
		}
	}
	server {
		# GOAWAY after every 5th request on a connection.
		listen 127.0.0.1:$P_GOAWAY http2;
		keepalive_requests 5;
		location / { return 200 "hello, world!"; }
	}
	server {
		listen 127.0.0.1:$P_H1;
		listen 127.0.0.1:$P_TLS_H1 ssl;
		location / { return 200 "hello, world!"; }
		location /sink {
			client_max_body_size 100m;
			client_body_buffer_size 1m;
			return 200 "ok";
		}
	}
SERVERS
}
nginx_start "$T" servers P_H2C P_TLS P_GOAWAY P_H1 P_TLS_H1
note "nginx: h2c :$P_H2C, h2 TLS :$P_TLS, GOAWAY/5 :$P_GOAWAY, h1 :$P_H1, TLS h1 :$P_TLS_H1"

H2C="http://127.0.0.1:$P_H2C/"
TLS="https://127.0.0.1:$P_TLS/"
GOAWAY="http://127.0.0.1:$P_GOAWAY/"
make_body "$E2E_TMP/body" 204800

# count_run NAME N ARGS...: exactly N requests, all ok, no errors.
count_run() {
	local name=$1 n=$2
	shift 2
	run_shb "$name" -n "$n" "$@"
	expect_rc "$name" 0
	check "$name" "requests.total == $n" "requests.ok == $n" \
		"statusCodes.200 == $n" 'bytesReceived > 0' 'bytesSent > 0' \
		'protocol == "HTTP/2"' 'latencySeconds != null'
	check_no_errors "$name"
}

count_run p1 2000 --proto h2 -c 4 -p 1 "$H2C"
check p1 'connectionsOpened == 4' 'parallel == 1' 'requests.retried == 0'

count_run p64 2000 --proto h2 -c 4 -p 64 "$H2C"
check p64 'connectionsOpened == 4' 'parallel == 64' 'requests.retried == 0'

count_run many 20000 --proto h2 -t 2 -c 16 -p 32 "$H2C"
check many 'connectionsOpened <= 16'

count_run alias 500 --http2 -c 2 -p 8 "$H2C"

count_run tls1 1000 --proto h2 -c 4 -p 1 "$TLS"
check tls1 'tls == true' 'connectionsOpened == 4'

count_run tls64 2000 --proto h2 -c 4 -p 64 "$TLS"
check tls64 'connectionsOpened == 4'

run_shb dur --proto h2 -c 16 -p 32 -z 2s "$H2C"
expect_rc dur 0
check dur 'requests.ok > 1000' 'durationSeconds >= 1.9' \
	"statusCodes.200 == $(get dur requests.ok)"
check_no_errors dur

# A body larger than nginx's 64 KiB initial windows.
count_run post 200 --proto h2 -c 4 -p 8 -m POST -d "@$E2E_TMP/body" "${H2C}upload"
check post "bytesSent > $((200 * 204800))"
count_run tlspost 100 --proto h2 -c 2 -p 16 -m POST -d "@$E2E_TMP/body" "${TLS}upload"
check tlspost "bytesSent > $((100 * 204800))"
count_run early 200 --proto h2 -c 4 -p 8 -m POST -d "@$E2E_TMP/body" "${H2C}early"

# GOAWAY after 5 requests: every request still ends ok, each connection
# drains and is replaced. With -p above 1, streams opened before the GOAWAY
# arrives are refused and resent (a connection that has answered gets its
# refusals back at once), so counts are exact at any -p.
count_run goaway1 2000 --proto h2 -c 4 -p 1 "$GOAWAY"
check goaway1 'connectionsOpened >= 400' 'requests.retried == 0'
count_run goaway8 2000 --proto h2 -c 4 -p 8 "$GOAWAY"
check goaway8 'requests.retried > 0'
count_run goaway64 2000 --proto h2 -c 4 -p 64 "$GOAWAY"
check goaway64 'requests.retried > 0'

# One clear error per request when the port speaks only HTTP/1.1.
run_shb h1port --proto h2 -c 2 -p 4 -n 20 "http://127.0.0.1:$P_H1/"
check h1port 'requests.ok == 0' 'requests.errors == 20' 'errors.protocol == 20'
sample=$(get h1port errorSamples.protocol)
[[ "$sample" == *"does not speak HTTP/2 over cleartext (h2c)"* ]] ||
	fail "h1port: unexpected error sample $sample"

# https where the server cannot do h2: nginx refuses the handshake
# (no_application_protocol), one error per connection.
run_shb noh2 --proto h2 -c 2 -p 4 -n 10 "https://127.0.0.1:$P_TLS_H1/"
check noh2 'requests.ok == 0' 'requests.errors == 10' 'errors.tls == 10'

# A TLS server that ignores ALPN: connect errors and one warning.
free_port P_NOALPN
openssl s_server -quiet -www -accept "$P_NOALPN" -cert "$TLS_DIR/cert.pem" \
	-key "$TLS_DIR/cert.key" >"$T/s_server.log" 2>&1 </dev/null &
S_SERVER_PID=$!
E2E_PIDS+=("$S_SERVER_PID")
wait_port "$P_NOALPN" "$S_SERVER_PID" || fail "openssl s_server did not start"
run_shb noalpn --proto h2 -c 1 -p 4 -n 4 "https://127.0.0.1:$P_NOALPN/"
check noalpn 'requests.ok == 0' 'requests.errors == 4' 'errors.connect == 4'
[[ $(grep -c "^shb: warning core: server did not select ALPN h2" "$E2E_TMP/noalpn.stderr") -eq 1 ]] ||
	{ show_run noalpn; fail "noalpn: not exactly one ALPN warning"; }
# The connection never opened, and the line after the report says why.
grep -qF "shb: 1 of 1 connections never opened (100.0 %): 1 failed (server did not select ALPN h2 (got none))" \
	"$E2E_TMP/noalpn.stderr" || { show_run noalpn; fail "noalpn: no line on the connection that never opened"; }
kill_quiet "$S_SERVER_PID"

nginx_stop
note "passed"
