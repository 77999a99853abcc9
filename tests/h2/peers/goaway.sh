#!/bin/bash
# shb --proto h2 against a peer that sends GOAWAY after N answers on each
# connection (nginx's keepalive_requests, played exactly): the streams
# above the GOAWAY line are never answered and shb must send them again,
# so every request still ends ok. shb's counts match the peer's: each ok
# is one answer, each resend one stream above a GOAWAY, each connection
# one accept.
# shellcheck disable=SC2154 # NAME_URL, NAME_PID: set by start_h2peer
source "$(dirname "$0")/lib.sh"

# goaway_run NAME N SHB_ARGS...: -n N against a fresh peer (GOAWAY after
# $AFTER answers); the exact cross-checks every variant shares.
goaway_run() {
	local name=$1 n=$2 url="${1}_URL"
	shift 2
	start_h2peer "$name" "goaway-after $AFTER"
	run_shb "$name" --proto h2 -n "$n" "$@" "${!url}"
	expect_rc "$name" 0
	counts "$name" "$n"
	stop_h2peer "$name"
	peer_check "$name" "answered == $n" 'refused == 0' 'resetsSent == 0' \
		'clientResets == 0' 'clientGoawayErrors == 0'
	same "$name" requests.retried "$name" aboveGoaway
	same "$name" connectionsOpened "$name" connections
	same_bytes "$name" "$name"
	# Every connection but the last ones ends with a GOAWAY after
	# exactly $AFTER answers, so there are at least n / AFTER of them.
	peer_check "$name" "goawaysSent >= $((n / AFTER - 8))" \
		"connections >= $(((n + AFTER - 1) / AFTER))"
}

AFTER=7
# The brief's case: 8 streams in flight, 7 answered per connection.
goaway_run p8 500 -c 2 -p 8
check p8 'requests.retried > 0'
# Far more in flight than a connection answers: most of each first
# flight is above the line.
goaway_run p64 2000 -c 2 -p 64
check p64 'requests.retried > 1000'
# One stream at a time: nothing is ever above the line.
goaway_run p1 300 -c 4 -p 1
check p1 'requests.retried == 0'

AFTER=1
# One answer per connection, with several threads.
goaway_run one 400 -t 2 -c 8 -p 4
check one 'connectionsOpened >= 400' 'requests.retried > 0'
note "passed"
