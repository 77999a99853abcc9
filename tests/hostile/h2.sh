#!/bin/bash
# Hostile HTTP/2 servers, h2c (prior knowledge) and h2 over TLS
# (shb-hostile-tls relaying to the same shb-h2-peer mode, ALPN h2):
# floods of SETTINGS, PING, WINDOW_UPDATE and RST_STREAM sent while the
# peer reads nothing, flow-control windows pushed past 2^31-1, frames on
# stream 0, on closed and on idle streams, oversized frames, HPACK bombs
# and malformed blocks, CONTINUATION without end, malformed pseudo-header
# sections, PUSH_PROMISE with push disabled, and servers that refuse
# everything (GOAWAY with last_stream_id 0 on every connection,
# REFUSED_STREAM on every stream). Usage: h2.sh CASE.
#
# RFC 9113 and RFC 7541 decide what is an error; docs/ARCHITECTURE.md's
# "Bounds, backpressure and retries" what a flood or an endless block
# must cost: a connection error of kind protocol naming the cap, with
# bounded memory; and that a server refusing everything ends the run
# with errors. Bounds: runs of 4 to 6 requests end within 10 s (sanitizer
# builds included) under 64 MB of RSS.
# shellcheck disable=SC2154 # NAME_PORT: set by start_peer
source "$(dirname "$0")/lib.sh"

N=4
RSS=64
LIMIT=10

# peer_url MODE [tls]: starts the peer (and the TLS front); sets URL.
peer_url() {
	h2_peer p "$1"
	if [[ ${2:-} == tls ]]; then
		tls_front f relay "$p_PORT" h2
		URL="https://127.0.0.1:$f_PORT/"
	else
		f_PID=
		URL="http://127.0.0.1:$p_PORT/"
	fi
}

stop_peers() {
	[[ -z $f_PID ]] || kill_quiet "$f_PID"
	stop_server "$p_PID"
}

# bad MODE KIND REGEX [tls] [SHB_ARGS...]: each of N requests to a fresh
# peer is an error of KIND whose sample matches REGEX.
bad() {
	local mode=$1 kind=$2 re=$3 tls=
	shift 3
	if [[ ${1:-} == tls ]]; then
		tls=tls
		shift
	fi
	peer_url "$mode" "$tls"
	hrun r "$LIMIT" "$RSS" --proto h2 -c 2 -p 2 -n "$N" "$@" "$URL"
	expect_rc r 1
	errors_are r "$kind" "$N"
	sample_has r "$kind" "$re"
	stop_peers
}

FLOOD_RE='flood|too many|limit|exceed|cap'

case_settings_flood() { bad settings-flood protocol "SETTINGS.*($FLOOD_RE)|($FLOOD_RE).*SETTINGS"; }
case_ping_flood() { bad ping-flood protocol "PING.*($FLOOD_RE)|($FLOOD_RE).*PING"; }
case_window_update_flood() { bad window-update-flood protocol "WINDOW_UPDATE.*($FLOOD_RE)|($FLOOD_RE).*WINDOW_UPDATE"; }
case_window_overflow() { bad window-overflow protocol 'window|FLOW_CONTROL'; }
case_stream_window_overflow() { bad stream-window-overflow protocol 'window|FLOW_CONTROL'; }
case_data_stream0() { bad data-stream0 protocol 'stream 0|DATA'; }
case_headers_stream0() { bad headers-stream0 protocol 'stream 0|HEADERS'; }
case_idle_stream() { bad idle-stream protocol 'idle|stream|HEADERS'; }
case_data_first() { bad data-first protocol 'DATA|HEADERS'; }
case_oversize() { bad oversize protocol 'frame|size|octets.*limit'; }
case_settings_bad() { bad settings-bad protocol 'INITIAL_WINDOW_SIZE|window|SETTINGS'; }
case_size_update() { bad size-update protocol 'size|table|update'; }
case_bad_index() { bad bad-index protocol 'index'; }
case_huffman_eos() { bad huffman-eos protocol 'Huffman|EOS'; }
case_huffman_pad() { bad huffman-pad protocol 'Huffman|padding'; }
case_int_overflow() { bad int-overflow protocol 'integer|overflow|HPACK'; }
case_hpack_bomb() { bad hpack-bomb protocol "header|list|size|$FLOOD_RE"; }
case_continuation_endless() { bad continuation-endless protocol "CONTINUATION|header block|$FLOOD_RE"; }
case_pseudo_late() { bad pseudo-late protocol 'pseudo'; }
case_request_pseudo() { bad request-pseudo protocol 'pseudo|:method|request'; }
case_push_promise() { bad push-promise protocol 'PUSH_PROMISE|push'; }
case_refuse_all() { bad refuse-all protocol 'refus'; }

# GOAWAY(last_stream_id=0) on every connection, closed at once or left
# open: no connection ever carries a response, so each one is a failed
# connection (its refused requests are resent, counted nowhere), its slot
# backs off, and after 5 in a row the run stops with one line, without a
# connection storm (the issue saw 12,674 connections in 6 s).
goaway() {
	peer_url "$1" "${2:-}"
	hrun r "$LIMIT" "$RSS" --proto h2 -c 1 -p 2 -n 6 "$URL"
	expect_rc r 1
	check r 'requests.total == 0' 'connectionsOpened == 5'
	grep -qxE "shb: no connection to 127\.0\.0\.1:[0-9]+ ever succeeded: every connection failed 5 times in a row, the last with: every request refused by the server \(GOAWAY or REFUSED_STREAM\)" \
		"$E2E_TMP/r.stderr" || { show_run r; fail "goaway: no early-stop line"; }
	stop_peers
}
case_goaway_storm() { goaway goaway-storm; }
case_goaway_open() { goaway goaway-open; }

# RST_STREAM(CANCEL) on the first stream of each connection, then the
# same frame without end while the peer reads nothing: the reset stream
# is an error, and the flood must end the connection (the next request
# sent on it would never be answered, and the run would hang): at most
# two requests per connection, the reset one and one cut by the cap.
case_rst_flood() {
	peer_url rst-flood
	hrun r "$LIMIT" "$RSS" --proto h2 -c 1 -p 1 -n "$N" "$URL"
	expect_rc r 1
	errors_are r protocol "$N"
	sample_has r protocol 'reset|CANCEL'
	check r "connectionsOpened >= $((N / 2))"
	stop_peers
}

# The answer, then DATA on the stream it closed: a connection error of
# type STREAM_CLOSED (RFC 9113 5.1, "closed"), so no connection carries
# a second answer; a request in flight when it happens is a protocol
# error.
case_closed_stream() {
	peer_url closed-stream
	hrun r "$LIMIT" "$RSS" --proto h2 -c 1 -p 1 -n "$N" "$URL"
	check r "requests.total == $N" 'requests.ok >= 1'
	[[ $(get r requests.errors) == $(get r errors.protocol) ]] || fail "closed_stream: errors other than protocol"
	(($(get r connectionsOpened) >= $(get r requests.ok))) ||
		{ show_run r; fail "closed_stream: a connection carried on after DATA on a closed stream"; }
	stop_peers
}

# SETTINGS_MAX_CONCURRENT_STREAMS 0, never raised (the first flight,
# sent before the SETTINGS came, is refused): no request is ever sent.
# Those waiting for a stream are requests all the same: --timeout counts
# from when they were due, and a connection that takes no request for
# the connect timeout is failed and replaced, under the backoff of
# connections that fail. -t 1: the counts are one worker's.
case_no_streams_n() {
	# 3 x 2 users, each due at the start of the load: 6 timeouts 2 s
	# later, before any connection fails (3 s after the load started).
	# Set-up may wait for --timeout first (no connection can take a
	# request; it waits no longer than --timeout for one).
	peer_url no-streams
	hrun r "$LIMIT" "$RSS" --proto h2 -t 1 -c 3 -p 2 -n 6 --timeout 2s \
		--connect-timeout 3s "$URL"
	expect_rc r 1
	errors_are r timeout 6
	check r 'connectionsOpened == 3' 'durationSeconds < 2.5'
	sample_has r timeout 'never sent'
	faster r 6000
	stop_peers
}
case_no_streams_z() {
	# Two users time out at 2 s (due again then, until 4 s); the
	# connection fails at 3 s (one timeout more) and is replaced; the
	# run ends at 3.5 s.
	peer_url no-streams
	hrun r "$LIMIT" "$RSS" --proto h2 -t 1 -c 1 -p 2 -z 3500ms --timeout 2s \
		--connect-timeout 3s "$URL"
	expect_rc r 1
	errors_are r timeout 3
	check r 'connectionsOpened == 2'
	faster r 5000
	stop_peers
}
# Without --timeout: each connection fails after the connect timeout
# (one timeout error each), and after 5 in a row the run stops with one
# line, for -n as for -z.
no_streams_stop() {
	peer_url no-streams
	hrun r "$LIMIT" "$RSS" --proto h2 -t 1 -c 1 -p 2 "$@" --connect-timeout 1s "$URL"
	expect_rc r 1
	errors_are r timeout 5
	check r 'connectionsOpened == 5'
	sample_has r timeout 'no request could be sent for 1s'
	grep -qxE "shb: no connection to 127\.0\.0\.1:[0-9]+ ever succeeded: every connection failed 5 times in a row, the last with: no request could be sent for 1s: .*" \
		"$E2E_TMP/r.stderr" || { show_run r; fail "no_streams: no early-stop line"; }
	stop_peers
}
case_no_streams_stop_n() { no_streams_stop -n 6; }
case_no_streams_stop_z() { no_streams_stop -z 30s; }

# Over TLS: floods (the TLS relay passes the back-pressure on), an
# endless header block, a malformed HPACK string, refusals, and a
# handshake that never completes.
case_tls_settings_flood() { bad settings-flood protocol "SETTINGS.*($FLOOD_RE)|($FLOOD_RE).*SETTINGS" tls; }
case_tls_ping_flood() { bad ping-flood protocol "PING.*($FLOOD_RE)|($FLOOD_RE).*PING" tls; }
case_tls_continuation_endless() { bad continuation-endless protocol "CONTINUATION|header block|$FLOOD_RE" tls; }
case_tls_huffman_eos() { bad huffman-eos protocol 'Huffman|EOS' tls; }
case_tls_goaway_storm() { goaway goaway-storm tls; }
case_tls_stall() {
	tls_front f stall
	hrun r "$LIMIT" "$RSS" --proto h2 -c 2 -p 2 -n "$N" --connect-timeout 1s "https://127.0.0.1:$f_PORT/"
	expect_rc r 1
	errors_are r timeout "$N"
	sample_has r timeout 'handshake'
	kill_quiet "$f_PID"
}

run_case "$@"
