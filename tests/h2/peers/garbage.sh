#!/bin/bash
# shb --proto h2 against a peer that, on every 3rd connection, sends an
# invalid frame once the SETTINGS exchange is over and the client has a
# full set of requests in flight there: a frame longer than shb's
# SETTINGS_MAX_FRAME_SIZE, a SETTINGS frame of 7 octets, or CONTINUATION
# without HEADERS. Each request in flight on such a connection is one
# protocol error with a sample naming the fault; the other connections
# answer (and GOAWAY after 10, so that connections keep being replaced);
# the run reaches -n, without hanging.
# shellcheck disable=SC2154 # NAME_URL: set by start_h2peer
source "$(dirname "$0")/lib.sh"

# garbage_run NAME KIND SAMPLE N P SHB_ARGS...: -n N at -p P.
garbage_run() {
	local name=$1 kind=$2 sample=$3 n=$4 p=$5 url="${1}_URL" errs
	shift 5
	start_h2peer "$name" garbage --garbage "$kind" --goaway-after 10 \
		--wait-streams "$p"
	run_shb "$name" --proto h2 -n "$n" -p "$p" "$@" "${!url}"
	expect_rc "$name" 0
	stop_h2peer "$name"
	peer_check "$name" 'garbageConns >= 2' 'refused == 0' 'resetsSent == 0' \
		'clientResets == 0'
	errs=$(peer_get "$name" garbageStreams)
	check "$name" "requests.total == $n" "requests.errors == $errs" \
		"errors.protocol == $errs" "requests.ok == $((n - errs))" \
		"statusCodes.200 == $((n - errs))" 'requests.connectErrors == 0' \
		'errors.read == 0' 'errors.write == 0' 'errors.timeout == 0' \
		"errorSamples.protocol == \"$sample\""
	same "$name" requests.ok "$name" answered
	same "$name" requests.retried "$name" aboveGoaway
	same "$name" connectionsOpened "$name" connections
	same_bytes "$name" "$name"
}

garbage_run big oversize "h2: DATA of 16777215 octets (limit 16384)" 300 4 -c 2
garbage_run settings settings-len "h2: SETTINGS with length 7" 300 4 -c 2
garbage_run cont continuation "h2: CONTINUATION without HEADERS" 300 4 -c 2
# One stream per connection, and many streams over several threads.
garbage_run big1 oversize "h2: DATA of 16777215 octets (limit 16384)" 200 1 -c 3
garbage_run bigmany oversize "h2: DATA of 16777215 octets (limit 16384)" 2000 16 -t 2 -c 6
note "passed"
