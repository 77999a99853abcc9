#!/bin/bash
# shb --proto h2 against a peer whose response heads are large HPACK
# blocks (48 KiB and more of fields after :status), sent as HEADERS plus
# CONTINUATION frames within shb's 16,384-octet frame limit. The HEADERS
# frame is cut at an offset that moves with the stream id, so the
# fragments split the block at many different places. Every response must
# be read, with its :status, and nothing else may break.
# shellcheck disable=SC2154 # NAME_URL: set by start_h2peer
source "$(dirname "$0")/lib.sh"

# big_run NAME BYTES N SHB_ARGS...: -n N against heads of BYTES octets.
big_run() {
	local name=$1 size=$2 n=$3 url="${1}_URL" block
	shift 3
	start_h2peer "$name" "continuation $size"
	run_shb "$name" --proto h2 -n "$n" "$@" "${!url}"
	expect_rc "$name" 0
	counts "$name" "$n"
	stop_h2peer "$name"
	peer_check "$name" "answered == $n" "blockLen >= $size" \
		"continuations >= $n" 'clientResets == 0' 'clientGoawayErrors == 0'
	same "$name" connectionsOpened "$name" connections
	same_bytes "$name" "$name"
	block=$(peer_get "$name" blockLen)
	check "$name" "bytesReceived > $((n * block))"
}

big_run k48 49152 400 -c 2 -p 8
# Just over one frame: one or two CONTINUATION frames per head.
big_run k16 16385 300 -c 2 -p 4
peer_check k16 'continuations <= 600'
# Many CONTINUATION frames per head, one stream at a time and many.
big_run k200 200000 100 -c 1 -p 1
peer_check k200 'continuations >= 1200'
big_run k200p 200000 200 -c 2 -p 32
note "passed"
