#!/bin/bash
# Hostile HTTP/1.1 servers, over TCP and over TLS (shb-hostile-tls
# relaying to the same scripted peer): malformed and endless responses,
# framing that contradicts itself, slow-loris answers, resets, and TLS
# handshakes that fail or never finish. Usage: h1.sh CASE.
#
# Bounds: runs of 6 requests on 2 connections end within 10 s (sanitizer
# builds included) and stay under 64 MB of RSS; an endless response needs
# --timeout, and the peer sending it for as long as shb reads must not
# grow shb's memory. RFC 9112 decides what is malformed.
# shellcheck disable=SC2154 # NAME_PORT: set by start_peer
source "$(dirname "$0")/lib.sh"

N=6
RSS=64
LIMIT=10

# bad MODE KIND REGEX [SHB_ARGS...]: every one of N requests to a fresh
# peer in MODE is an error of KIND whose sample matches REGEX.
bad() {
	local mode=$1 kind=$2 re=$3
	shift 3
	h1_peer p "$mode"
	hrun r "$LIMIT" "$RSS" -c 2 -n "$N" "$@" "http://127.0.0.1:$p_PORT/"
	expect_rc r 1
	errors_are r "$kind" "$N"
	sample_has r "$kind" "$re"
	stop_server "$p_PID"
}

# bad_tls MODE KIND REGEX [SHB_ARGS...]: the same through TLS.
bad_tls() {
	local mode=$1 kind=$2 re=$3
	shift 3
	h1_peer p "$mode"
	tls_front f relay "$p_PORT" http/1.1
	hrun r "$LIMIT" "$RSS" -c 2 -n "$N" "$@" "https://127.0.0.1:$f_PORT/"
	expect_rc r 1
	errors_are r "$kind" "$N"
	sample_has r "$kind" "$re"
	kill_quiet "$f_PID"
	stop_server "$p_PID"
}

# handshake MODE KIND REGEX: a TLS server that breaks the handshake.
handshake() {
	tls_front f "$1"
	hrun r "$LIMIT" "$RSS" -c 2 -n 4 --connect-timeout 1s "https://127.0.0.1:$f_PORT/"
	expect_rc r 1
	errors_are r "$2" 4
	sample_has r "$2" "$3"
	kill_quiet "$f_PID"
}

HEAD_RE='head|header|line|too (long|large)|limit|exceed|cap'

# -L: every chain ends in an application error on its first 3xx (a loop,
# a Location past 8 KiB, a control byte in it), bounded like the rest.
case_redirect_self() { bad redirect-self application '^redirect loop: http://127\.0\.0\.1:[0-9]+/ -> http://127\.0\.0\.1:[0-9]+/$' -L; }
case_redirect_huge() { bad redirect-huge application 'over 8 KiB' -L; }
case_redirect_bad() { bad redirect-bad application 'not a URL this run can request' -L; }

# -L and --timeout: a chain is one request, its time runs from its first
# request's start. The 302 comes after 900 ms and the hop it leads to is
# never answered: --timeout 1s ends the chain 1 s after it started (1.9 s
# when the hop's own start counted), one timeout, the 302 counted too.
case_redirect_hop_timeout() {
	h1_peer p redirect-slow
	hrun r "$LIMIT" "$RSS" -L -c 1 -n 1 --timeout 1s "http://127.0.0.1:$p_PORT/"
	expect_rc r 0 # the 302 ended ok
	check r 'requests.total == 2' 'requests.ok == 1' 'statusCodes.302 == 1' \
		'requests.errors == 1' 'errors.timeout == 1' \
		'durationSeconds > 0.95' 'durationSeconds < 1.45'
	sample_has r timeout '^request timed out after 1s$'
	stop_server "$p_PID"
}

# The same for a hop that waits in the queue: the 302 leads to b (a target
# of the mix), whose one connection carries b's own request, which b
# never answers. Both chains started at once and time out together,
# 500 ms later, b's request cancelled (its connection closed) and the
# hop never sent (b reads one request, not two).
case_redirect_queued_timeout() {
	start_peer b "$SHB_H1PEER" --mode silent --stats-file "$E2E_TMP/b.stats"
	start_peer a "$SHB_H1PEER" --mode redirect-away \
		--location "http://127.0.0.1:$b_PORT/x" --stats-file "$E2E_TMP/a.stats"
	hrun r "$LIMIT" "$RSS" -L -c 2 -n 2 --timeout 500ms \
		--mix "http://127.0.0.1:$a_PORT/" "http://127.0.0.1:$b_PORT/"
	expect_rc r 0 # the 302 ended ok
	check r 'requests.total == 3' 'requests.ok == 1' 'statusCodes.302 == 1' \
		'requests.errors == 2' 'errors.timeout == 2' \
		'durationSeconds > 0.45' 'durationSeconds < 0.95'
	stop_server "$a_PID"
	stop_server "$b_PID"
	check_file "$E2E_TMP/a.stats" 'requests == 1'
	check_file "$E2E_TMP/b.stats" 'requests == 1'
}

# A request waiting for a connection is timed from when it was due. b
# never completes a connect (its accept queue is full); a answers. Set-up
# waits for a connection no longer than --timeout, so the load starts
# 0.5 s in, and every request of b times out 0.5 s after it was due: a
# timeout counted once, in b's own statistics, never a connect error 8 s
# later (before: the run took 8 s, counted b's request as a connect error
# and reported a load of 0.0001 s).
full_backlog_peer() { # NAME
	start_peer "$1" "$(dirname "$0")/full_backlog.py"
}

# conn_wait NAME SHB_ARGS...: a and b as above, the run under the limit.
conn_wait() {
	local name=$1
	shift
	h1_peer a hello
	full_backlog_peer b
	hrun "$name" "$LIMIT" "$RSS" --timeout 500ms --connect-timeout 8s "$@" \
		--mix "http://127.0.0.1:$a_PORT/" "http://127.0.0.1:$b_PORT/"
	expect_rc "$name" 1
	check "$name" 'errors.connect == 0' 'requests.connectErrors == 0' \
		'targets.1.requests.ok == 0' 'targets.1.errors.connect == 0'
	faster "$name" 4000
	stop_server "$a_PID"
	stop_server "$b_PID"
}

# -n 2: a's one request ok, b's one a timeout 0.5 s after the load began.
case_mix_conn_timeout() {
	conn_wait r -c 2 -n 2
	check r 'requests.total == 2' 'requests.ok == 1' 'errors.timeout == 1' \
		'targets.0.requests.total == 1' 'targets.0.requests.ok == 1' \
		'targets.1.requests.total == 1' \
		'targets.1.errors.timeout == 1' \
		'durationSeconds > 0.45' 'durationSeconds < 0.95'
	sample_has r timeout '^request timed out after 500ms, never sent: no connection or stream had room for it$'
}

# -n 6 on 4 connections: a's three at once, b's three time out together.
case_mix_conn_timeout_n() {
	conn_wait r -c 4 -n 6
	check r 'requests.total == 6' 'requests.ok == 3' 'errors.timeout == 3' \
		'targets.0.requests.total == 3' 'targets.0.requests.ok == 3' \
		'targets.1.requests.total == 3' \
		'targets.1.errors.timeout == 3' \
		'durationSeconds > 0.45' 'durationSeconds < 0.95'
}

# -z 2s: b's requests time out every 0.5 s for the whole load, charged to
# b, the origin that could not take them (a's user, when it waits while
# a's one connection is busy or held back by the origins' shares, may be
# charged to a; a is held to b's pace by the origins' shares, so it is
# sent as few as one); two users, four windows of 0.5 s: at most 8
# timeouts.
case_mix_conn_timeout_z() {
	conn_wait r -c 2 -z 2s
	check r 'durationSeconds == 2' 'targets.0.requests.ok >= 1' \
		'targets.1.errors.timeout >= 3' 'errors.timeout <= 8'
	local t0 t1
	t0=$(get r targets.0.requests.total)
	t1=$(get r targets.1.requests.total)
	(($(get r requests.total) == t0 + t1)) ||
		fail "r: the targets' totals $t0 + $t1 are not the run's"
	(($(get r requests.errors) == $(get r errors.timeout))) ||
		fail "r: errors other than timeouts"
}

# -R 10 -n 10, open loop: b's five (every other one, due 0.2 s apart)
# time out 0.5 s after each was due; the last, due at 0.9 s, at 1.4 s.
case_mix_conn_timeout_open() {
	conn_wait r -c 2 -R 10 -n 10
	check r 'requests.total == 10' 'requests.ok == 5' 'errors.timeout == 5' \
		'targets.0.requests.total == 5' 'targets.0.requests.ok == 5' \
		'targets.1.requests.total == 5' 'targets.1.errors.timeout == 5' \
		'durationSeconds > 1.35' 'durationSeconds < 1.9'
}

# Without a mix, an origin that never completes a connect: each request
# is a timeout 0.5 s after the load began, not a connect error after 8 s.
case_conn_timeout() {
	full_backlog_peer b
	hrun r "$LIMIT" "$RSS" -c 2 -n 2 --timeout 500ms --connect-timeout 8s \
		"http://127.0.0.1:$b_PORT/"
	expect_rc r 1
	errors_are r timeout 2
	check r 'durationSeconds > 0.45' 'durationSeconds < 0.95'
	faster r 4000
	stop_server "$b_PID"
}

case_garbage_status() { bad garbage-status protocol 'status|HTTP'; }
case_binary() { bad binary protocol 'status|HTTP|malformed|invalid'; }
case_bad_code() { bad bad-code protocol 'status'; }
case_endless_headers() { bad endless-headers protocol "$HEAD_RE"; }
case_huge_header() { bad huge-header protocol "$HEAD_RE"; }
case_huge_status() { bad huge-status protocol "$HEAD_RE|status"; }
case_cl_conflict() { bad cl-conflict protocol 'content-length'; }
case_cl_list() { bad cl-list protocol 'content-length'; }
case_cl_huge() { bad cl-huge protocol 'content-length'; }
case_cl_big_close() { bad cl-big-close read 'closed|reset|body'; }
case_cl_negative() { bad cl-negative protocol 'content-length'; }
case_cl_obsfold() { bad cl-obsfold protocol 'content-length|fold'; }
case_chunk_bad() { bad chunk-bad protocol 'chunk'; }
case_chunk_overflow() { bad chunk-overflow protocol 'chunk'; }
case_chunk_ext_endless() { bad chunk-ext-endless protocol "chunk|$HEAD_RE"; }
case_trailers_endless() { bad trailers-endless protocol "trailer|$HEAD_RE"; }
case_bad_version() { bad bad-version protocol 'version|status'; }
case_h2_preface() { bad h2-preface protocol 'status|HTTP'; }
case_reset_body() { bad reset-body read 'reset|closed|body'; }
case_reset_head() { bad reset-head read 'reset|closed'; }
case_empty_reply() { bad empty-reply read 'closed|reset|response'; }

# Bodies that never end: each request times out, memory stays flat while
# the peer sends as fast as shb reads.
case_chunk_endless() { bad chunk-endless timeout 'timeout|timed out' --timeout 500ms; }
case_body_endless() { bad body-endless timeout 'timeout|timed out' --timeout 500ms; }

# 100 Continue without end: bounded either by a cap on interim responses
# (protocol) or by the request timeout, never a hang.
case_flood_1xx() {
	h1_peer p flood-1xx
	hrun r "$LIMIT" "$RSS" -c 2 -n "$N" --timeout 1s "http://127.0.0.1:$p_PORT/"
	expect_rc r 1
	check r "requests.total == $N" 'requests.ok == 0' "requests.errors == $N"
	local proto timeout
	proto=$(get r errors.protocol)
	timeout=$(get r errors.timeout)
	((proto + timeout == N)) || fail "flood_1xx: errors are neither protocol nor timeout"
	((proto == 0)) || sample_has r protocol '1xx|interim|informational|100|limit|cap'
	((timeout == 0)) || sample_has r timeout 'timed out'
	stop_server "$p_PID"
}

# A valid response at one byte per 100 ms (5 s in all): --timeout 1s ends
# each request after 1 s, so 6 requests on 2 connections take about 3 s.
case_slowloris() {
	bad slowloris timeout 'timeout|timed out' --timeout 1s
	faster r 6000
}

# The same without --timeout, for -z 2s: the run ends on time with
# nothing completed (requests in flight at the end are not counted).
case_slowloris_duration() {
	h1_peer p slowloris
	hrun r 6 "$RSS" -c 2 -z 2s "http://127.0.0.1:$p_PORT/"
	expect_rc r 1
	check r 'requests.total == 0' 'requests.ok == 0'
	faster r 4000
	stop_server "$p_PID"
}

# A server that accepts and closes at once, over TCP and through TLS
# (the handshake completes, then the backend closes): one policy for
# both. Each slot backs off after every connection that ended before a
# response, and the run stops once every slot failed 5 times in a row
# with one line: -t 1 -c 4 opens exactly 4 x 5 connections, not tens of
# thousands (68,811 in 3 s before), whatever -z says.
accept_close() {
	local url=$1 limit=$2
	hrun r "$LIMIT" "$RSS" -t 1 -c 4 -z 30s "$url"
	expect_rc r 1
	check r 'requests.ok == 0' 'connectionsOpened == 20' 'errors.read >= 16' \
		'errors.read <= 20'
	[[ $(get r requests.errors) == $(get r errors.read) ]] ||
		{ show_run r; fail "accept_close: errors other than read"; }
	faster r "$limit"
	grep -qxE "shb: no connection to 127\.0\.0\.1:[0-9]+ ever succeeded: every connection failed 5 times in a row, the last with: .*closed.*" \
		"$E2E_TMP/r.stderr" || { show_run r; fail "accept_close: no early-stop line"; }
}
case_accept_close() {
	h1_peer p accept-close
	accept_close "http://127.0.0.1:$p_PORT/" 3000
	stop_server "$p_PID"
}
case_tls_accept_close() {
	h1_peer p accept-close
	tls_front f relay "$p_PORT" http/1.1
	accept_close "https://127.0.0.1:$f_PORT/" 3000
	kill_quiet "$f_PID"
	stop_server "$p_PID"
}

# Pipelining (-p 4 on one connection): the peer reads 4 requests before it
# answers any (but in pipe-conn-close), so these cases also show that the
# 4 left together. Some requests complete, so the exit status is 0. Each
# request is counted once, with the kind docs/reports.md gives.
pipe_run() { # MODE SHB_ARGS...: -t 1 -c 1 -p 4 against a fresh pipe-* peer
	local mode=$1
	shift
	need SHB_H1PEER
	start_peer p "$SHB_H1PEER" --mode "$mode" --depth 4 --stats-file "$E2E_TMP/p.stats"
	hrun r "$LIMIT" "$RSS" -t 1 -c 1 -p 4 "$@" "http://127.0.0.1:$p_PORT/"
	stop_server "$p_PID"
}

# Two answers, then FIN: the two behind are errors of kind read.
case_pipe_close_mid() {
	pipe_run pipe-close-mid -n 4
	expect_rc r 0
	check r 'requests.total == 4' 'requests.ok == 2' 'requests.errors == 2' \
		'errors.read == 2' 'connectionsOpened == 1'
	sample_has r read 'closed'
	check_file "$E2E_TMP/p.stats" 'requests == 4'
}

# One answer, then RST: three errors of kind read.
case_pipe_reset() {
	pipe_run pipe-reset -n 4
	expect_rc r 0
	check r 'requests.total == 4' 'requests.ok == 1' 'requests.errors == 3' \
		'errors.read == 3'
	sample_has r read 'reset|closed'
}

# One answer fewer: the last times out, and only it.
case_pipe_one_fewer() {
	pipe_run pipe-one-fewer -n 4 --timeout 1s
	expect_rc r 0
	check r 'requests.total == 4' 'requests.ok == 3' 'requests.errors == 1' \
		'errors.timeout == 1'
	faster r 4000
}

# No answer: the oldest times out, which closes the connection (a
# response cannot be skipped); the three behind it are errors of kind read.
case_pipe_stall() {
	pipe_run pipe-stall -n 4 --timeout 1s
	expect_rc r 1
	check r 'requests.total == 4' 'requests.ok == 0' 'requests.errors == 4' \
		'errors.timeout == 1' 'errors.read == 3'
	sample_has r read 'another request in the pipeline was cancelled'
	faster r 4000
}

# One answer more: the extra is no request's, the connection closes, the
# next one carries the next 4; nothing is counted twice.
case_pipe_extra() {
	pipe_run pipe-extra -n 8 --timeout 2s
	expect_rc r 0
	check r 'requests.total == 8' 'requests.ok == 8' 'requests.errors == 0' \
		'connectionsOpened == 2'
	check_file "$E2E_TMP/p.stats" 'requests == 8' 'accepted == 2'
}

# Connection: close on the first answer: the three behind are refused
# (the server processes none after it) and sent again, each connection
# answering one: 8 connections, 3 + 3 + 3 + 3 + 3 + 2 + 1 = 18 resent.
case_pipe_conn_close() {
	pipe_run pipe-conn-close -n 8 --timeout 2s
	expect_rc r 0
	check r 'requests.total == 8' 'requests.ok == 8' 'requests.errors == 0' \
		'requests.retried == 18' 'connectionsOpened == 8'
}

# The same misbehaviours over TLS.
case_tls_garbage_status() { bad_tls garbage-status protocol 'status|HTTP'; }
case_tls_endless_headers() { bad_tls endless-headers protocol "$HEAD_RE"; }
case_tls_cl_conflict() { bad_tls cl-conflict protocol 'content-length'; }
case_tls_chunk_endless() { bad_tls chunk-endless timeout 'timeout|timed out' --timeout 500ms; }
case_tls_slowloris() {
	bad_tls slowloris timeout 'timeout|timed out' --timeout 1s
	faster r 6000
}
case_tls_reset_body() { bad_tls reset-body read 'reset|closed|body|TLS'; }

# Handshakes that fail or never finish.
case_tls_plaintext() { handshake plaintext tls 'TLS|handshake|record|packet'; }
case_tls_oversize() { handshake oversize tls 'TLS|record|handshake|size|length'; }
case_tls_alert() { handshake alert tls 'alert|handshake'; }
case_tls_stall() { handshake stall timeout 'handshake'; }
case_tls_stall_mid() { handshake stall-mid timeout 'handshake'; }

run_case "$@"
