#!/bin/bash
# shb --proto h2 against a peer that sends a PING before every Nth answer
# and holds that answer until the PING is ACKed: shb must echo each
# payload exactly, in order (the peer checks both), or the run cannot
# finish. Every ping is acked, every request ends ok.
# shellcheck disable=SC2154 # NAME_URL: set by start_h2peer
source "$(dirname "$0")/lib.sh"

# ping_run NAME EVERY N SHB_ARGS...: -n N, a PING before every EVERY-th.
ping_run() {
	local name=$1 every=$2 n=$3 url="${1}_URL"
	shift 3
	start_h2peer "$name" "ping $every"
	run_shb "$name" --proto h2 -n "$n" "$@" "${!url}"
	expect_rc "$name" 0
	counts "$name" "$n"
	stop_h2peer "$name"
	peer_check "$name" "answered == $n" "pingsSent == $((n / every))" \
		"pingsAcked == $((n / every))" 'pingMismatches == 0' \
		'clientResets == 0' 'clientGoawayErrors == 0'
	same "$name" connectionsOpened "$name" connections
	same_bytes "$name" "$name"
}

# The brief's case: a PING before every answer, 8 streams per connection.
ping_run p8 1 500 -c 2 -p 8
ping_run p1 3 300 -c 2 -p 1
ping_run many 2 4000 -t 2 -c 8 -p 16
note "passed"
