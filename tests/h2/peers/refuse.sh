#!/bin/bash
# shb --proto h2 against a peer that refuses (RST_STREAM REFUSED_STREAM)
# every stream arriving before the client has ACKed the peer's SETTINGS,
# as nginx and h2o do with the first flight, and allows 4 concurrent
# streams after that. Every refused request is resent (retried == refused
# at the peer) and ends ok; shb opens at most 100 streams before the
# peer's SETTINGS and never more than 4 once it knows them (the peer
# counts a violation otherwise).
# shellcheck disable=SC2154 # NAME_URL: set by start_h2peer
source "$(dirname "$0")/lib.sh"

# refuse_run NAME N SHB_ARGS...: -n N against a fresh peer; the
# cross-checks every variant shares.
refuse_run() {
	local name=$1 n=$2 url="${1}_URL"
	shift 2
	start_h2peer "$name" refuse-first-flight
	run_shb "$name" --proto h2 -n "$n" "$@" "${!url}"
	expect_rc "$name" 0
	counts "$name" "$n"
	stop_h2peer "$name"
	peer_check "$name" "answered == $n" 'refused > 0' 'resetsSent == 0' \
		'goawaysSent == 0' 'clientResets == 0' 'clientGoawayErrors == 0' \
		'maxOpen <= 4'
	same "$name" requests.retried "$name" refused
	same "$name" connectionsOpened "$name" connections
	same_bytes "$name" "$name"
	# Each refused request is sent once more: streams = answers + refusals.
	[[ $(peer_get "$name" streams) -eq $((n + $(peer_get "$name" refused))) ]] ||
		fail "$name: the peer saw streams other than answers and refusals"
}

refuse_run p8 200 -c 2 -p 8
refuse_run p2 100 -c 4 -p 2
refuse_run p1 50 -c 1 -p 1
# Up to 100 streams before the peer's SETTINGS (shb's assumption), then
# the peer's limit of 4: exactly one first flight of 100 is refused.
refuse_run p128 300 -c 1 -p 128
peer_check p128 'refused == 100' 'maxOpen == 4'
note "passed"
