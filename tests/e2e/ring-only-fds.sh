#!/bin/bash
# -c beyond the open-files limit: with a limit of 128 descriptors, 300
# connections are held in the workers' io_uring file tables only (each
# socket's descriptor closed once registered), against nginx: HTTP/1.1,
# HTTP/2 over TLS (whose GOAWAY and close_notify go out through the ring
# at the end), connection churn, and the threads raised without -t. A -t
# that leaves more connections per thread than the limit is one line,
# exit 2. nginx's own access log counts the requests and connections.
# shellcheck disable=SC2154 # set by lib.sh and lib_nginx.sh
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_nginx.sh"
need SHB SHB_JCHECK

nginx_need
T=$E2E_TMP/nginx
tls_self cert DNS:localhost,IP:127.0.0.1
servers() {
	nginx_conf "$T" '$connection $request' <<SERVERS
	keepalive_timeout 300s;
	ssl_certificate $TLS_DIR/cert.pem;
	ssl_certificate_key $TLS_DIR/cert.key;
	server {
		listen 127.0.0.1:$PLAIN;
		listen 127.0.0.1:$TLS ssl http2;
		location / { return 200 "hello, world!"; }
	}
SERVERS
}
nginx_start "$T" servers PLAIN TLS

# Runs shb with a limit of 128 open files.
low() {
	local name=$1
	shift
	(
		ulimit -n 128 || exit 99
		run_shb "$name" "$@"
		echo "$RC" >"$E2E_TMP/$name.rc"
	)
	RC=$(cat "$E2E_TMP/$name.rc")
	[[ $RC -ne 99 ]] || fail "cannot set a limit of 128 open files"
}

# The log's distinct connections and lines since the last call.
seen=0
log_since() {
	local all
	all=$(wc -l <"$T/access.log")
	NEW_LINES=$((all - seen))
	NEW_CONNS=$(tail -n +"$((seen + 1))" "$T/access.log" | cut -d' ' -f1 | sort -u | wc -l)
	seen=$all
}

low h1 -t 3 -c 300 -n 3000 "http://127.0.0.1:$PLAIN/"
expect_rc h1 0
check h1 'requests.ok == 3000' 'statusCodes.200 == 3000' 'connectionsOpened == 300'
check_no_errors h1
log_since
[[ $NEW_LINES -eq 3000 && $NEW_CONNS -eq 300 ]] ||
	fail "nginx saw $NEW_LINES requests on $NEW_CONNS connections, not 3000 on 300"

low h2 --proto h2 -t 3 -c 300 -n 3000 "https://127.0.0.1:$TLS/"
expect_rc h2 0
check h2 'requests.ok == 3000' 'connectionsOpened == 300'
check_no_errors h2
log_since
[[ $NEW_LINES -eq 3000 && $NEW_CONNS -eq 300 ]] ||
	fail "nginx saw $NEW_LINES h2 requests on $NEW_CONNS connections, not 3000 on 300"
# Every connection ended cleanly: nginx logs a peer that vanished
# without close_notify or mid-stream at info level only, so the log at
# warn stays free of them either way; what shows the ring's last words
# is that no request was lost and none is left open (below).

low churn -t 2 -c 200 -n 2000 --disable-keepalive "http://127.0.0.1:$PLAIN/"
expect_rc churn 0
check churn 'requests.ok == 2000' 'connectionsOpened == 2000'
check_no_errors churn
log_since
[[ $NEW_LINES -eq 2000 && $NEW_CONNS -eq 2000 ]] ||
	fail "nginx saw $NEW_LINES requests on $NEW_CONNS connections, not 2000 on 2000"

# No -t: threads raised until each holds fewer than the limit.
low auto -c 300 -n 600 "http://127.0.0.1:$PLAIN/"
expect_rc auto 0
check auto 'requests.ok == 600' 'connectionsOpened == 300' 'threads >= 3'
check_no_errors auto

# -t 2 with 600 connections: 300 per thread, over 128.
low over -t 2 -c 600 -n 600 "http://127.0.0.1:$PLAIN/"
expect_rc over 2
grep -qF -- "-c 600 needs about" "$E2E_TMP/over.stderr" &&
	grep -qF "and 300 connections per worker thread is over it too (raise it with ulimit -n, add threads with -t, or lower -c)" \
		"$E2E_TMP/over.stderr" || { show_run over; fail "no line naming the limit"; }
[[ $(wc -l <"$E2E_TMP/over.stderr") -eq 1 ]] || { show_run over; fail "more than one line"; }

# nginx holds no connection of ours any more: every one was closed.
sleep 0.5
open=$(ss -Htn state established "( sport = :$PLAIN or sport = :$TLS )" | wc -l)
[[ $open -eq 0 ]] || fail "$open connections still established at nginx"
note "passed"
