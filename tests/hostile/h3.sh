#!/bin/bash
# Hostile QUIC servers for shb --proto h3 (shb-hostile-quic on UDP): none
# completes a handshake. Noise, tiny datagrams, Initials that cannot be
# decrypted, a Retry with a wrong integrity tag, fake stateless resets and
# Version Negotiation with the wrong connection IDs must all be ignored
# (RFC 9000 5.2, 10.3, 17.2.1, 17.2.5; RFC 9001 5.8), so each attempt
# ends at the handshake timeout; a Version Negotiation that lists only
# versions other than 1 ends the attempt at once (RFC 9000 6.2).
# Through shb-hostile-quicsrv (a real handshake): transport parameters
# with wrong connection IDs, ACKs of packets never sent, answers that
# are not HTTP/3, a well-behaved server that counts the CONNECTION_CLOSE
# frames it receives, and QPACK abuse: responses that wait for dynamic
# table inserts that never come, an encoder stream above our capacity.
# Usage: h3.sh CASE. Bounds: 2 attempts with --connect-timeout 1s end
# within 10 s under 64 MB of RSS.
# shellcheck disable=SC2154 # NAME_PORT: set by start_peer
source "$(dirname "$0")/lib.sh"

RSS=64
LIMIT=10

# ignored MODE: every attempt runs into the handshake timeout.
ignored() {
	quic_peer q "$1"
	hrun r "$LIMIT" "$RSS" --proto h3 -c 1 -n 2 --connect-timeout 1s "https://127.0.0.1:$q_PORT/"
	expect_rc r 1
	errors_are r timeout 2
	sample_has r timeout 'handshake'
	stop_server "$q_PID"
}

case_garbage() { ignored garbage; }
case_tiny() { ignored tiny; }
case_initial_junk() { ignored initial-junk; }
case_retry_badtag() { ignored retry-badtag; }
case_reset() { ignored reset; }
case_vn_badcid() { ignored vn-badcid; }
case_amplify() { ignored amplify; }

# A peer that never stops sending, to whichever connection spoke last:
# each attempt still ends at the handshake timeout, and its close does
# not wait on the flood (a datagram socket's receive, which no shutdown
# ends, is cancelled as the close begins): 2 attempts of 1 s, under 5 s.
case_flood() {
	ignored flood
	faster r 5000
}

# Only unknown versions: the attempt is abandoned as soon as the Version
# Negotiation arrives, well before the handshake timeout.
case_vn() {
	quic_peer q vn
	hrun r "$LIMIT" "$RSS" --proto h3 -c 1 -n 2 --connect-timeout 5s "https://127.0.0.1:$q_PORT/"
	expect_rc r 1
	check r 'requests.total == 2' 'requests.ok == 0' 'requests.errors == 2' \
		'errors.timeout == 0'
	local kind=protocol
	[[ $(get r errors.protocol) == 2 ]] || kind=connect
	check r "errors.$kind == 2"
	sample_has r "$kind" 'version'
	faster r 2000
	stop_server "$q_PID"
}

# A real handshake whose transport parameters are wrong (RFC 9000 7.3:
# the connection IDs must match what was used; a missing or wrong one is
# a TRANSPORT_PARAMETER_ERROR): every attempt fails at once, with the
# transport parameters named.
bad_tp() {
	need SHB_QUICSRV
	start_peer q "$SHB_QUICSRV" --mode "$1"
	hrun r "$LIMIT" "$RSS" --proto h3 -c 1 -n 2 --connect-timeout 5s "https://127.0.0.1:$q_PORT/"
	expect_rc r 1
	check r 'requests.total == 2' 'requests.ok == 0' 'requests.errors == 2' \
		'errors.timeout == 0'
	local kind=protocol
	[[ $(get r errors.protocol) == 2 ]] || kind=tls
	check r "errors.$kind == 2"
	sample_has r "$kind" 'transport param|connection.id|TRANSPORT_PARAMETER'
	faster r 4000
	stop_server "$q_PID"
}
case_bad_tp_odcid() { bad_tp bad-tp-odcid; }
case_bad_tp_iscid() { bad_tp bad-tp-iscid; }
case_bad_tp_retry() { bad_tp bad-tp-retry; }

# A complete handshake, then bytes that are not HTTP/3 on every request
# stream: each request is a protocol error (RFC 9114 7.1: a frame type
# and length that cannot be parsed, or a response without HEADERS, is
# H3_FRAME_ERROR / H3_MESSAGE_ERROR), and the run ends.
case_raw_streams() {
	need SHB_QUICSRV
	start_peer q "$SHB_QUICSRV" --mode raw-streams
	hrun r "$LIMIT" "$RSS" --proto h3 -c 1 -n 4 --connect-timeout 5s "https://127.0.0.1:$q_PORT/"
	expect_rc r 1
	errors_are r protocol 4
	sample_has r protocol 'frame|HTTP/3|H3_'
	stop_server "$q_PID"
}

# ACKs that acknowledge packets the client never sent (RFC 9000 13.1:
# a connection error of type PROTOCOL_ERROR), one far above the largest
# sent, one a single range from 0 to 2^62-1 (which must not cost a walk
# over every number in it): every request fails at once.
bad_ack() {
	need SHB_QUICSRV
	start_peer q "$SHB_QUICSRV" --mode "$1"
	hrun r "$LIMIT" "$RSS" --proto h3 -c 1 -n 2 --connect-timeout 5s "https://127.0.0.1:$q_PORT/"
	expect_rc r 1
	errors_are r protocol 2
	sample_has r protocol 'ACK|acknowledg'
	faster r 4000
	stop_server "$q_PID"
}
# initial_max_streams_bidi 0, never raised (no MAX_STREAMS): the same
# core mechanism as for an HTTP/2 server allowing no stream. With
# --timeout the requests waiting for a stream time out; without, each
# connection is failed after the connect timeout, and after 5 in a row
# the run stops with one line.
case_no_streams() {
	need SHB_QUICSRV
	start_peer q "$SHB_QUICSRV" --mode no-streams
	hrun r "$LIMIT" "$RSS" --proto h3 -t 1 -c 3 -p 2 -n 6 --timeout 2s \
		--connect-timeout 3s "https://127.0.0.1:$q_PORT/"
	expect_rc r 1
	errors_are r timeout 6
	sample_has r timeout 'never sent'
	hrun r "$LIMIT" "$RSS" --proto h3 -t 1 -c 1 -p 2 -z 30s --connect-timeout 1s \
		"https://127.0.0.1:$q_PORT/"
	expect_rc r 1
	errors_are r timeout 5
	grep -qxE "shb: no connection to 127\.0\.0\.1:[0-9]+ ever succeeded: every connection failed 5 times in a row, the last with: no request could be sent for 1s: .*" \
		"$E2E_TMP/r.stderr" || { show_run r; fail "no_streams: no early-stop line"; }
	stop_server "$q_PID"
}
case_ack_unsent() { bad_ack ack-unsent; }
case_ack_huge() { bad_ack ack-huge; }

# stats_are STATS_FILE N: the server saw N connections and the client's
# CONNECTION_CLOSE on every one of them.
stats_are() {
	local got
	got=$(cat "$1" 2>/dev/null || true)
	note "server: $got"
	[[ $got == "connections $2 closes $2" ]] ||
		fail "server stats '$got'; expected 'connections $2 closes $2'"
}

# A well-behaved HTTP/3 server, one request per connection: each one
# ends with our CONNECTION_CLOSE on the wire (RFC 9000 10.2), or the
# server, its last response never acknowledged, keeps the connection
# until its idle timeout.
case_close_oneshot() {
	need SHB_QUICSRV
	start_peer q "$SHB_QUICSRV" --mode h3 --stats-file "$E2E_TMP/q.stats"
	hrun r "$LIMIT" "$RSS" --proto h3 -c 1 -n 5 --disable-keepalive \
		--connect-timeout 5s "https://127.0.0.1:$q_PORT/"
	expect_rc r 0
	check r 'requests.total == 5' 'requests.ok == 5' 'requests.errors == 0'
	stop_server "$q_PID"
	stats_are "$E2E_TMP/q.stats" 5
}

# The end of a run: the goodbye puts the CONNECTION_CLOSE on the wire,
# after a request count and after a duration (requests in flight).
case_close_goodbye() {
	need SHB_QUICSRV
	start_peer q "$SHB_QUICSRV" --mode h3 --stats-file "$E2E_TMP/q.stats"
	hrun r "$LIMIT" "$RSS" --proto h3 -c 1 -n 3 --connect-timeout 5s \
		"https://127.0.0.1:$q_PORT/"
	expect_rc r 0
	check r 'requests.total == 3' 'requests.ok == 3' 'requests.errors == 0'
	stop_server "$q_PID"
	stats_are "$E2E_TMP/q.stats" 1
	start_peer q "$SHB_QUICSRV" --mode h3 --stats-file "$E2E_TMP/q2.stats"
	hrun r "$LIMIT" "$RSS" --proto h3 -c 1 -z 1s --connect-timeout 5s \
		"https://127.0.0.1:$q_PORT/"
	expect_rc r 0
	check r 'requests.ok > 10' 'requests.errors == 0'
	stop_server "$q_PID"
	stats_are "$E2E_TMP/q2.stats" 1
}

# Every response references a dynamic table entry never inserted. With
# a table announced each request waits (blocked, its bytes held) until
# --timeout cancels it, and the run ends on time; the held stream is let
# go (Stream Cancellation) and the next request is blocked again. With
# no table, the reference is QPACK_DECOMPRESSION_FAILED at once.
case_qpack_blocked() {
	need SHB_QUICSRV
	start_peer q "$SHB_QUICSRV" --mode qpack-blocked
	hrun r "$LIMIT" "$RSS" --proto h3 -c 1 -n 3 --timeout 1s --connect-timeout 5s \
		--proto-opt qpack-table=4096 --proto-opt qpack-blocked=4 \
		"https://127.0.0.1:$q_PORT/"
	expect_rc r 1
	errors_are r timeout 3
	faster r 6000
	hrun r "$LIMIT" "$RSS" --proto h3 -c 1 -n 2 --connect-timeout 5s \
		"https://127.0.0.1:$q_PORT/"
	expect_rc r 1
	errors_are r protocol 2
	sample_has r protocol 'QPACK_DECOMPRESSION_FAILED'
	faster r 4000
	stop_server "$q_PID"
}

# The server's encoder stream sets a capacity above the 4096 octets we
# announced: QPACK_ENCODER_STREAM_ERROR closes each connection.
case_qpack_encoder() {
	need SHB_QUICSRV
	start_peer q "$SHB_QUICSRV" --mode qpack-encoder
	hrun r "$LIMIT" "$RSS" --proto h3 -c 1 -n 2 --connect-timeout 5s \
		--proto-opt qpack-table=4096 --proto-opt qpack-blocked=4 \
		"https://127.0.0.1:$q_PORT/"
	expect_rc r 1
	errors_are r protocol 2
	sample_has r protocol 'QPACK_ENCODER_STREAM_ERROR.*capacity above'
	faster r 4000
	stop_server "$q_PID"
}

run_case "$@"
