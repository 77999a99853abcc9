#!/bin/bash
# --sni over HTTP/1.1 and HTTP/2 against nginx, whose default server
# rejects every handshake (ssl_reject_handshake) and whose named servers
# answer only the SNI they are for: an https://127.0.0.1 URL sends no SNI
# (RFC 6066), fails, says how to send one and stops early; --sni NAME
# reaches the server for NAME, and with --cacert the certificate is
# checked against NAME. Fails without nginx or openssl (scripts/setup.sh
# --with-test-servers installs them).
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID, NAME_STATS: set by start_testserver
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_nginx.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

nginx_need
T=$E2E_TMP/nginx
# Valid for the name localhost only: no IP address in it.
tls_self cert DNS:localhost

# Requests go to a server by Host, and Host stays 127.0.0.1:PORT: the log
# records the SNI each came with.
# shellcheck disable=SC2016 # nginx's variables, not the shell's
servers() {
	nginx_conf "$T" '$ssl_server_name $server_protocol' <<SERVERS
	ssl_certificate $TLS_DIR/cert.pem;
	ssl_certificate_key $TLS_DIR/cert.key;
	server {
		listen 127.0.0.1:$P ssl http2 default_server;
		ssl_reject_handshake on;
		location / { return 200 "hello, world!"; }
	}
	server {
		listen 127.0.0.1:$P ssl http2;
		server_name localhost;
		location / { return 200 "hello, world!"; }
	}
	server {
		listen 127.0.0.1:$P ssl http2;
		server_name other.test;
		location / { return 200 "hello, world!"; }
	}
SERVERS
}
nginx_start "$T" servers P
IP_URL="https://127.0.0.1:$P/"
HINT="(no SNI was sent for an IP address: set one with --sni NAME or use a host name)"

# sample_is NAME TEXT: the TLS error sample of run NAME is exactly TEXT.
sample_is() {
	local s
	s=$(get "$1" errorSamples.tls)
	[[ "$s" == "$2" ]] || { show_run "$1"; fail "$1: errorSamples.tls is '$s', expected '$2'"; }
}

for proto in h1 h2; do
	# No SNI: every handshake is refused; the sample says how to send
	# one, and the run stops once each connection failed 5 times.
	run_shb "$proto-ip" --proto "$proto" -t 1 -c 2 -z 30s "$IP_URL"
	expect_rc "$proto-ip" 1
	check "$proto-ip" 'requests.ok == 0' 'errors.tls == 10' 'requests.errors == 10'
	sample=$(get "$proto-ip" errorSamples.tls)
	[[ "$sample" == "TLS handshake: alert "*" $HINT" ]] ||
		{ show_run "$proto-ip"; fail "$proto-ip: errorSamples.tls is $sample"; }
	line="shb: no connection to 127.0.0.1:$P ever succeeded: every connection failed 5 times in a row, the last with: $sample"
	grep -qxF -- "$line" "$E2E_TMP/$proto-ip.stderr" ||
		{ show_run "$proto-ip"; fail "$proto-ip: stderr lacks: $line"; }
	[[ $ELAPSED_MS -lt 10000 ]] || fail "$proto-ip: took ${ELAPSED_MS} ms"

	# --sni picks the server; Host stays the URL's authority.
	ok_run "$proto-sni" 20 --proto "$proto" -c 2 --sni localhost "$IP_URL"
	ok_run "$proto-other" 10 --proto "$proto" -c 2 --sni other.test "$IP_URL"
	# A host name sends its SNI by itself.
	ok_run "$proto-name" 20 --proto "$proto" -c 2 --resolve "localhost:$P:127.0.0.1" \
		"https://localhost:$P/"
	# With verification the certificate must be valid for the --sni
	# name, not for the URL's address.
	ok_run "$proto-verify" 20 --proto "$proto" -c 2 --sni localhost \
		--cacert "$TLS_DIR/cert.pem" "$IP_URL"
	run_shb "$proto-verify-other" --proto "$proto" -t 1 -c 1 -n 3 --sni other.test \
		--cacert "$TLS_DIR/cert.pem" "$IP_URL"
	expect_rc "$proto-verify-other" 1
	check "$proto-verify-other" 'errors.tls == 3'
	sample_is "$proto-verify-other" "TLS handshake: certificate is not valid for other.test"
	# A name nginx does not know: refused, and no hint, SNI was sent.
	run_shb "$proto-unknown" --proto "$proto" -t 1 -c 1 -n 3 --sni unknown.test "$IP_URL"
	expect_rc "$proto-unknown" 1
	check "$proto-unknown" 'errors.tls == 3'
	sample=$(get "$proto-unknown" errorSamples.tls)
	[[ "$sample" == "TLS handshake: alert "* && "$sample" != *"no SNI"* ]] ||
		{ show_run "$proto-unknown"; fail "$proto-unknown: errorSamples.tls is $sample"; }
done

nginx_stop
# Each request came with the SNI it was meant to, over its protocol;
# none without one (those handshakes were refused).
log=$T/access.log
for want in "localhost HTTP/1.1:60" "localhost HTTP/2.0:60" "other.test HTTP/1.1:10" \
	"other.test HTTP/2.0:10"; do
	got=$(nginx_log_count "${want%:*}")
	[[ $got -eq ${want##*:} ]] || { cat "$log" >&2; fail "access.log: $got lines \"${want%:*}\", expected ${want##*:}"; }
done
[[ $(wc -l <"$log") -eq 140 ]] || fail "access.log has $(wc -l <"$log") lines, expected 140"
note "passed"
