#!/bin/bash
# --tls-resume against nginx, checked in nginx's own log
# ($ssl_session_reused): one request per connection, one connection at a
# time, so every connection after the first offers the ticket of the one
# before; over TLS 1.3 and 1.2, h1 and h2. Without the option no session
# is reused (every connection a full handshake, as before). Refused for
# HTTP/3 and for http:// URLs, one line, exit 2.
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID, NAME_STATS: set by start_testserver
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_nginx.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

nginx_need
T=$E2E_TMP/nginx
LOG=$T/access.log
tls_self cert DNS:localhost,IP:127.0.0.1

# shellcheck disable=SC2016 # nginx's variables, not the shell's
servers() {
	nginx_conf "$T" '$ssl_protocol $ssl_session_reused' <<SERVERS
	ssl_certificate $TLS_DIR/cert.pem;
	ssl_certificate_key $TLS_DIR/cert.key;
	ssl_protocols TLSv1.2 TLSv1.3;
	ssl_session_tickets on;
	server {
		listen 127.0.0.1:$TLS ssl http2;
		location / { return 200 "hello, world!"; }
	}
SERVERS
}
nginx_start "$T" servers TLS
U=https://127.0.0.1:$TLS/

# resumed NAME PROTO WANT_REUSED ARGS...: a run of 20 connections, one at
# a time, one request each; nginx logged 20 lines of PROTO, WANT of them
# reused ("r").
resumed() {
	local name=$1 proto=$2 want=$3 got total
	shift 3
	: >"$LOG"
	run_shb "$name" -c 1 -n 20 --disable-keepalive -k "$@" "$U"
	expect_rc "$name" 0
	check "$name" 'requests.ok == 20' 'requests.errors == 0'
	total=$(grep -c "^$proto " "$LOG" || true)
	got=$(grep -c "^$proto r$" "$LOG" || true)
	[[ $total == 20 && $got == "$want" ]] ||
		{ show_run "$name"; cat "$LOG" >&2; fail "$name: $got of $total $proto sessions reused, expected $want of 20"; }
}

note "without --tls-resume: every connection a full handshake"
resumed full13 TLSv1.3 0
note "--tls-resume, TLS 1.3: all but the first resumed"
resumed res13 TLSv1.3 19 --tls-resume
note "--tls-resume, TLS 1.2"
resumed res12 TLSv1.2 19 --tls-resume --tls-version 1.2
note "--tls-resume over h2"
resumed res-h2 TLSv1.3 19 --tls-resume --proto h2

note "refused: HTTP/3, and a URL without TLS"
refused_usage h3 "--tls-resume: protocol h3 runs its own TLS over UDP, which is not resumed; the core's TLS over TCP is (h1, h2)" \
	--tls-resume --proto h3 "$U"
refused_usage plain '--tls-resume: the URL is http://, which does not run over TLS; use https://' \
	--tls-resume "http://127.0.0.1:$TLS/"
note "ok"
