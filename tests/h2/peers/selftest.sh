#!/bin/bash
# The checks of shb-h2-peer itself, against a raw client that breaks the
# rules the other scripts rely on the peer to catch: a missing HPACK size
# update, too many streams, a window overrun, a PING ACK with a foreign
# payload, a bad preface. Without this, a peer that checked nothing would
# let every other script pass.
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID: set by start_h2peer
source "$(dirname "$0")/lib.sh"

PREFACE=505249202a20485454502f322e300d0a0d0a534d0d0a0d0a
SETTINGS=000000040000000000
ACK=000000040100000000
GET=828684 # :method GET, :scheme http, :path /

# frame LEN TYPE FLAGS STREAM [PAYLOAD_HEX]: one frame, as hex.
frame() {
	printf '%06x%02x%02x%08x%s' "$1" "$2" "$3" "$4" "${5:-}"
}

# raw NAME HEX...: sends the octets to peer NAME on a new connection,
# reads for half a second and sets REPLY to what came back, as hex.
raw() {
	local port_var="${1}_PORT" fd hex
	shift
	hex=$(printf '%s' "$@")
	exec {fd}<>"/dev/tcp/127.0.0.1/${!port_var}"
	# shellcheck disable=SC2001 # every pair of hex digits, not one pattern
	printf '%b' "$(sed 's/../\\x&/g' <<<"$hex")" >&"$fd"
	REPLY=$(timeout 0.5 cat <&"$fd" | od -An -v -tx1 | tr -d ' \n' || true)
	exec {fd}>&-
}

# has HEX WHAT: the last REPLY contains HEX.
has() {
	[[ "$REPLY" == *"$1"* ]] || fail "no $2 in the peer's reply: $REPLY"
}

# stop NAME: stops peer NAME without judging its violations.
stop() {
	local pid_var="${1}_PID"
	stop_server "${!pid_var}"
}

# The size update: missing after the ACK -> RST_STREAM(COMPRESSION_ERROR);
# present -> answered. The peer opens with SETTINGS(HEADER_TABLE_SIZE 0).
start_h2peer ts "table-size 0"
raw ts "$PREFACE" "$SETTINGS" "$ACK" "$(frame 3 1 5 1 "$GET")"
[[ "$REPLY" == 000006040000000000000100000000"$ACK"* ]] ||
	fail "table-size: the peer did not open with its SETTINGS and an ACK: $REPLY"
has "$(frame 4 3 0 1 00000009)" "RST_STREAM(COMPRESSION_ERROR)"
raw ts "$PREFACE" "$SETTINGS" "$ACK" "$(frame 4 1 5 1 "20$GET")"
has "$(frame 6 1 4 1 880f0d023133)$(frame 13 0 1 1 68656c6c6f2c20776f726c6421)" \
	"answer (HEADERS :status 200, content-length 13, DATA)"
stop ts
peer_check ts 'missingUpdates == 1' 'sizeUpdates == 1' 'answered == 1' \
	'resetsSent == 1' 'violations == 0'

# First flight refused; then a fifth concurrent stream over the limit.
start_h2peer rf refuse-first-flight
raw rf "$PREFACE" "$SETTINGS" "$(frame 3 1 5 1 "$GET")" "$ACK" \
	"$(frame 3 1 4 3 "$GET")" "$(frame 3 1 4 5 "$GET")" \
	"$(frame 3 1 4 7 "$GET")" "$(frame 3 1 4 9 "$GET")" \
	"$(frame 3 1 4 11 "$GET")"
has "$(frame 4 3 0 1 00000007)" "RST_STREAM(REFUSED_STREAM)"
stop rf
peer_check rf 'refused == 1' 'violations == 1' 'maxOpen == 5' \
	'firstViolation == "stream 11: 5 streams open, the limit is 4"'

# One octet beyond a 16 KiB stream window, before any WINDOW_UPDATE.
start_h2peer sw "small-windows 204800"
raw sw "$PREFACE" "$SETTINGS" "$ACK" "$(frame 3 1 4 1 "$GET")" \
	"$(frame 16384 0 0 1 "$(printf '00%.0s' $(seq 16384))")" \
	"$(frame 1 0 1 1 00)"
has "$(frame 6 1 4 1 8c0f0d023133)" "answer 400 to a short body"
stop sw
peer_check sw 'violations == 1' 'bodiesBad == 1' 'bodyBytes == 16385' \
	'firstViolation == "DATA beyond the window of stream 1 (-1)"'

# A PING ACK for a PING never sent.
start_h2peer pg ping
raw pg "$PREFACE" "$SETTINGS" "$ACK" "$(frame 8 6 1 0 0102030405060708)"
stop pg
peer_check pg 'pingMismatches == 1' 'violations == 1'

# Not HTTP/2 at all: GOAWAY(PROTOCOL_ERROR).
start_h2peer bp hello
raw bp "$(printf 'GET / HTTP/1.1\r\nHost: x\r\n\r\n' | od -An -v -tx1 | tr -d ' \n')"
has "$(frame 8 7 0 0 0000000000000001)" "GOAWAY(PROTOCOL_ERROR)"
stop bp
peer_check bp 'violations == 1' 'firstViolation == "bad connection preface"'
note "passed"
