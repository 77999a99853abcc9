#!/bin/bash
# The end of a run closes every connection without a cancel per
# connection: a TCP connection's shutdown (our FIN) ends its multishot
# receive, so only a receive that no shutdown ends (a datagram socket's,
# tests/core/udp.sh) is cancelled. A cancel looks through every request
# queued for the ring's kernel workers before it finds its own, and the
# shutdowns of the run's end are queued there: a cancel per connection
# cost the square of -c (1.5 s of CPU at -c 10000, bench/close.sh).
# Against nginx, HTTP/1.1 and HTTP/2 over TLS (whose GOAWAY and
# close_notify still go out first): the --debug line of the worker says
# how many receives it cancelled and how many operations were left when
# it stopped waiting, and nginx holds no connection of the run after it.
# shellcheck disable=SC2154 # set by lib.sh and lib_nginx.sh
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_nginx.sh"
need SHB SHB_JCHECK

nginx_need
T=$E2E_TMP/nginx
tls_self cert DNS:localhost,IP:127.0.0.1
servers() {
	nginx_conf "$T" off <<SERVERS
	keepalive_timeout 300s;
	ssl_certificate $TLS_DIR/cert.pem;
	ssl_certificate_key $TLS_DIR/cert.key;
	server {
		listen 127.0.0.1:$PLAIN backlog=1024;
		listen 127.0.0.1:$TLS ssl http2 backlog=1024;
		location / { return 200 "hello, world!"; }
	}
SERVERS
}
nginx_start "$T" servers PLAIN TLS

# closed NAME: one worker's line, no receive cancelled, nothing left in
# flight, and (after nginx saw the FINs) no connection left at nginx.
closed() {
	local n i open
	n=$(grep -cxF "shb: debug core: end of run: 0 receive cancels, 0 operations left" \
		"$E2E_TMP/$1.stderr" || true)
	[[ $n -eq 1 ]] || { grep -F "core: end of run" "$E2E_TMP/$1.stderr" >&2; fail "$1: $n lines of 0 receive cancels and 0 operations left, expected 1"; }
	for ((i = 0; i < 50; i++)); do
		open=$(ss -Htn state established "( sport = :$PLAIN or sport = :$TLS )" | wc -l)
		[[ $open -eq 0 ]] && return 0
		sleep 0.1
	done
	fail "$1: $open connections still established at nginx"
}

SHB_DEBUG=1 run_shb h1 -t 1 -c 400 -z 500ms "http://127.0.0.1:$PLAIN/"
expect_rc h1 0
check h1 'requests.ok > 400' 'connectionsOpened == 400'
check_no_errors h1
closed h1

SHB_DEBUG=1 run_shb h2 -t 1 -c 50 -p 4 -z 500ms --proto h2 -k "https://127.0.0.1:$TLS/"
expect_rc h2 0
check h2 'requests.ok > 200' 'connectionsOpened == 50'
check_no_errors h2
closed h2

nginx_stop
note "passed"
