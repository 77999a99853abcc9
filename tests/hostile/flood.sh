#!/bin/bash
# Hostile HTTP/1.1 servers that never stop sending (shb-hostile-flood),
# over TCP and over TLS (shb-hostile-tls relaying): whatever makes shb
# close a connection (a head past its cap, Connection: close, --timeout),
# the server goes on writing as fast as the kernel takes it and never
# reads. A closing connection must still end, and its slot serve the next
# request: usage: flood.sh CASE.
#
# Each case runs -n twice -c, so every slot must be given back once for
# the run to end at all: a connection that cannot finish closing is a run
# that never ends (killed at LIMIT). The peer says how many connections
# it saw closed (our FIN or reset) and the longest a connection flooded
# before it did.
# shellcheck disable=SC2154 # NAME_PORT: set by start_peer
source "$(dirname "$0")/lib.sh"
need SHB_FLOODPEER

RSS=64
LIMIT=10
# A connection floods this long at most before the peer sees it closed:
# the close's own wait for a send in flight (SEND_WAIT_NS, 100 ms) or the
# worker's drain at the end of a run (1 s), with room for a loaded
# machine.
CLOSED_MS=3000

# More arguments for the flood peer and for the TLS relay.
FLOOD_ARGS=()
RELAY_ARGS=()

# flood_peer MODE plain|tls: the flood peer p in MODE, reached straight
# or through the TLS relay f; its URL in URL.
flood_peer() {
	start_peer p "$SHB_FLOODPEER" --mode "$1" --stats-file "$E2E_TMP/p.stats" \
		"${FLOOD_ARGS[@]}"
	URL="http://127.0.0.1:$p_PORT/"
	if [[ $2 == tls ]]; then
		need SHB_TLSFRONT
		start_peer f "$SHB_TLSFRONT" --mode relay --backend "$p_PORT" \
			--alpn http/1.1 "${RELAY_ARGS[@]}"
		URL="https://127.0.0.1:$f_PORT/"
	fi
}

# flood_done N: stops the peers; the flood peer accepted and answered N
# connections, and saw each of them closed within CLOSED_MS of its first
# byte of flood. Whether each close was a reset (gone) is only noted: a
# connection shut while its receive window was full closes with a FIN
# alone, and its server waits out a shut window (see floodpeer.c).
flood_done() {
	[[ -z "${f_PID:-}" ]] || kill_quiet "$f_PID"
	stop_server "$p_PID"
	note "peer: $(cat "$E2E_TMP/p.stats")"
	check_file "$E2E_TMP/p.stats" "accepted == $1" "requests == $1" \
		"closed == $1" "maxClosedMs < $CLOSED_MS"
}

# A head without end: past its cap (2 MiB) each response is a protocol
# error and the connection closes while the server still writes.
headers() { # plain|tls
	flood_peer headers "$1"
	hrun r "$LIMIT" "$RSS" -c 2 -n 4 "$URL"
	expect_rc r 1
	errors_are r protocol 4
	sample_has r protocol '^response head over 2 MiB \(cap\)$'
	faster r 5000
	flood_done 4
}

# A whole response with Connection: close, then bytes without end: each
# request ok, and the connection, which waits for a FIN that never
# comes, closes all the same.
close_flood() { # plain|tls
	flood_peer close "$1"
	hrun r "$LIMIT" "$RSS" -c 2 -n 4 "$URL"
	expect_rc r 0
	check r 'requests.total == 4' 'requests.ok == 4' 'requests.errors == 0' \
		'statusCodes.200 == 4'
	faster r 5000
	flood_done 4
}

# A body of 1 TiB, sent as fast as it goes: --timeout ends each request,
# and its connection with it. 1 s, so that on a loaded machine the second
# round's connections (a TLS handshake, the relay's own connect) reach
# the server before their requests time out.
body() { # plain|tls
	flood_peer body "$1"
	hrun r "$LIMIT" "$RSS" -c 2 -n 4 --timeout 1s "$URL"
	expect_rc r 1
	errors_are r timeout 4
	sample_has r timeout '^request timed out after 1s$'
	faster r 5000
	flood_done 4
}

# The head without end while shb still uploads a body of 16 MiB the
# server never reads: the connection closes with its send stuck in the
# kernel. The shutdown waits for that send, but no longer than 100 ms
# (SEND_WAIT_NS), and then fails it: the slot serves the next request
# (before: the close waited for ever, and the run with it). What the
# kernel can hold of the body stays well under 16 MiB: our send buffer
# (tcp_wmem's maximum, 4 MiB), the server's receive buffer, which does
# not grow since it never reads, and over TLS the relay's buffers (its
# receive buffer held at 256 KiB, where autotuning would take it to 32
# MiB, and 4 MiB to send). RSS: the body, and over TLS up to a copy per
# connection in records waiting to be sent. The server answers 300 ms
# after the request's head, by when the send is stuck whatever the order
# in which the bytes were scheduled.
upload() { # plain|tls
	head -c $((16 << 20)) /dev/zero >"$E2E_TMP/body"
	FLOOD_ARGS=(--delay 300)
	RELAY_ARGS=(--rcvbuf 262144)
	flood_peer headers "$1"
	hrun r "$LIMIT" $((RSS + 64)) -c 2 -n 4 --data-binary "@$E2E_TMP/body" "$URL"
	expect_rc r 1
	errors_are r protocol 4
	sample_has r protocol '^response head over 2 MiB \(cap\)$'
	faster r 5000
	flood_done 4
}

case_headers() { headers plain; }
case_tls_headers() { headers tls; }
case_close() { close_flood plain; }
case_tls_close() { close_flood tls; }
case_body() { body plain; }
case_tls_body() { body tls; }
case_upload() { upload plain; }
case_tls_upload() { upload tls; }

run_case "$@"
