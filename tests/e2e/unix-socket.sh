#!/bin/bash
# --unix-socket against nginx listening on Unix stream sockets: HTTP/1.1
# plain, HTTP/2 over TLS (the URL's name is SNI, the certificate's name
# and :authority) and h2c; the counts, Host and protocol of every request
# are checked against nginx's access log. h3 (QUIC runs over UDP) is
# refused with one line and exit 2. Fails without nginx or openssl
# (scripts/setup.sh --with-test-servers installs them).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_nginx.sh"
need SHB SHB_JCHECK

nginx_need
T=$E2E_TMP/nginx
# Valid for the name uds.test only: the TLS run must send and check it.
tls_self cert DNS:uds.test

# shellcheck disable=SC2016 # nginx's variables, not the shell's
servers() {
	nginx_conf "$T" '$server_protocol $request_method $request_uri $http_host $ssl_server_name' <<SERVERS
	ssl_certificate $TLS_DIR/cert.pem;
	ssl_certificate_key $TLS_DIR/cert.key;
	server {
		listen unix:$T/plain.sock;
		listen unix:$T/tls.sock ssl http2;
		location / { return 200 "hello over a socket"; }
	}
	server {
		listen unix:$T/h2c.sock http2;
		access_log $T/access-h2c.log shb;
		location / { return 200 "hello over h2c"; }
	}
SERVERS
}
nginx_start "$T" servers "unix:$T/plain.sock" "unix:$T/tls.sock" "unix:$T/h2c.sock"
note "nginx on $T/{plain,tls,h2c}.sock"

# HTTP/1.1 plain: the URL's host is the Host header, nothing is resolved.
ok_run h1 300 -c 4 --unix-socket "$T/plain.sock" http://uds.test:8080/plain
got=$(nginx_log_count "HTTP/1.1 GET /plain uds.test:8080 -")
[[ "$got" == 300 ]] || { cat "$T/access.log" >&2; fail "h1: nginx logged $got of 300 requests"; }

# HTTP/2 over TLS: SNI and the checked certificate name are the URL's.
ok_run h2tls 400 -c 2 -p 8 --proto h2 --cacert "$TLS_DIR/cert.pem" \
	--unix-socket "$T/tls.sock" https://uds.test/tls
got=$(nginx_log_count "HTTP/2.0 GET /tls uds.test uds.test")
[[ "$got" == 400 ]] || { tail -5 "$T/access.log" >&2; fail "h2 TLS: nginx logged $got of 400 requests"; }

# h2c with prior knowledge.
ok_run h2c 200 -c 2 -p 4 --proto h2 --unix-socket "$T/h2c.sock" http://uds.test/h2c
got=$(nginx_log_count "HTTP/2.0 GET /h2c uds.test -" "$T/access-h2c.log")
[[ "$got" == 200 ]] || { tail -5 "$T/access-h2c.log" >&2; fail "h2c: nginx logged $got of 200 requests"; }
total=$(wc -l <"$T/access.log")
[[ "$total" == 700 ]] || fail "nginx logged $total requests on plain.sock and tls.sock, expected 700"

# A path that is not there, or not a socket: one line naming it, exit 2,
# before any traffic.
refused_usage missing "--unix-socket $T/missing.sock: No such file or directory" \
	--unix-socket "$T/missing.sock" http://uds.test/
refused_usage notsock "--unix-socket $T/access.log: not a socket (a regular file)" \
	--unix-socket "$T/access.log" http://uds.test/

# A socket nobody listens on (bound, then closed): connect errors, and the
# run stops early.
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$T/none.sock"
run_shb nosock -z 20s -c 2 --unix-socket "$T/none.sock" http://uds.test/
expect_rc nosock 1
check nosock 'requests.ok == 0' 'errors.connect > 0'
(( ELAPSED_MS < 15000 )) || fail "nosock: a run to a missing socket took ${ELAPSED_MS} ms"
grep -q "none.sock" "$E2E_TMP/nosock.stderr" "$E2E_TMP/nosock.json" ||
	{ show_run nosock; fail "nosock: the socket path is not named"; }

# Refused before any traffic, one line, exit 2.
refused_usage h3 "--unix-socket: protocol h3 runs over UDP" \
	--proto h3 --unix-socket "$T/tls.sock" https://uds.test/
refused_usage withproxy "--unix-socket and --proxy cannot be combined" \
	--proxy http://127.0.0.1:9 --unix-socket "$T/plain.sock" http://uds.test/
refused_usage withresolve "--unix-socket cannot be combined with --connect-to" \
	--resolve uds.test:80:127.0.0.1 --unix-socket "$T/plain.sock" http://uds.test/
long=$(printf 'x%.0s' $(seq 1 120))
refused_usage toolong "--unix-socket: a socket path is at most 107 bytes, got 120" \
	--unix-socket "$long" http://uds.test/

nginx_stop
note "ok"
