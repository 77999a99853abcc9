#!/bin/bash
# shb --proto h2 POSTing 200 KB bodies to a peer with 16 KiB stream
# windows and the default 65,535-octet connection window, which it refills
# only after a window ran dry, a millisecond later: shb must stop at every
# window, resume on each WINDOW_UPDATE, never overrun a window (the peer
# counts a violation), and deliver exactly 204,800 octets per stream (the
# peer answers 200 only then, else 400).
# shellcheck disable=SC2154 # NAME_URL: set by start_h2peer
source "$(dirname "$0")/lib.sh"

BODY=204800
make_body "$E2E_TMP/body" "$BODY"
make_body "$E2E_TMP/short" $((BODY - 1))

# post_run NAME N FILE SHB_ARGS...: -n N POSTs of FILE; the peer also
# gets the options in the array PEER_OPTS.
PEER_OPTS=()
post_run() {
	local name=$1 n=$2 file=$3 url="${1}_URL"
	shift 3
	start_h2peer "$name" "small-windows $BODY" "${PEER_OPTS[@]+"${PEER_OPTS[@]}"}"
	run_shb "$name" --proto h2 -n "$n" -m POST -d "@$file" "$@" "${!url}"
	stop_h2peer "$name"
	peer_check "$name" "answered == $n" 'resetsSent == 0' \
		'clientResets == 0' 'clientGoawayErrors == 0' 'maxDataFrame <= 16384'
	same "$name" requests.retried "$name" aboveGoaway
	same "$name" connectionsOpened "$name" connections
	same_bytes "$name" "$name"
	[[ $(peer_get "$name" streams) -eq $((n + $(peer_get "$name" aboveGoaway))) ]] ||
		fail "$name: the peer saw streams other than answers and resends"
}

# The brief's case: 4 streams of 16 KiB windows share 64 KiB.
post_run p4 40 "$E2E_TMP/body" -c 2 -p 4
expect_rc p4 0
counts p4 40
peer_check p4 'bodiesOk == 40' 'bodiesBad == 0' "bodyBytes == $((40 * BODY))" \
	'windowUpdates > 0'
check p4 "bytesSent > $((40 * BODY))"
# 16 streams on one connection: the connection window is the limit.
post_run p16 64 "$E2E_TMP/body" -c 1 -p 16
expect_rc p16 0
counts p16 64
peer_check p16 'bodiesOk == 64' "bodyBytes == $((64 * BODY))"
# One stream at a time.
post_run p1 20 "$E2E_TMP/body" -c 2 -p 1
expect_rc p1 0
counts p1 20
peer_check p1 'bodiesOk == 20' "bodyBytes == $((20 * BODY))"
# GOAWAY after 3 answers, with more bodies under way on the connection:
# their streams are below the GOAWAY line, so they must go on to the end
# (pumped by WINDOW_UPDATEs that arrive after the GOAWAY) and be answered.
PEER_OPTS=(--goaway-after 3)
post_run ga 40 "$E2E_TMP/body" -c 2 -p 4
PEER_OPTS=()
expect_rc ga 0
counts ga 40
peer_check ga 'bodiesOk == 40' 'goawaysSent >= 5' 'answeredAfterGoaway > 0'
# One octet short: the peer notices every time (and so would a server),
# and its 400s are application errors (not a success by default), nothing
# else.
post_run short 10 "$E2E_TMP/short" -c 2 -p 2
expect_rc short 1
check short 'requests.ok == 0' 'statusCodes.400 == 10' 'requests.errors == 10' \
	'errors.application == 10' 'errors.protocol == 0' 'errors.timeout == 0' \
	'errors.read == 0' 'errors.write == 0' 'requests.connectErrors == 0'
peer_check short 'bodiesOk == 0' 'bodiesBad == 10' 'status400 == 10'
note "passed"
