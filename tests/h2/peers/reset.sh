#!/bin/bash
# shb --proto h2 against a peer that resets every Nth request with
# RST_STREAM(INTERNAL_ERROR), alternately before any response and after
# the response head: each reset request is exactly one protocol error with
# a clear sample, never resent, and the run goes on to -n on the same
# connections (a stream error does not end the connection).
# shellcheck disable=SC2154 # NAME_URL: set by start_h2peer
source "$(dirname "$0")/lib.sh"

SAMPLE="h2: stream reset by the server (INTERNAL_ERROR)"

# reset_run NAME EVERY N SHB_ARGS...: -n N, every EVERY-th reset.
reset_run() {
	local name=$1 every=$2 n=$3 url="${1}_URL" errs ok
	shift 3
	errs=$((n / every))
	ok=$((n - errs))
	start_h2peer "$name" "reset $every"
	run_shb "$name" --proto h2 -n "$n" "$@" "${!url}"
	check "$name" "requests.total == $n" "requests.ok == $ok" \
		"requests.errors == $errs" "errors.protocol == $errs" \
		'requests.retried == 0' 'requests.connectErrors == 0' \
		'errors.read == 0' 'errors.write == 0' 'errors.connect == 0' \
		'errors.timeout == 0'
	[[ $ok -eq 0 ]] || check "$name" "statusCodes.200 == $ok"
	[[ $errs -eq 0 ]] || check "$name" "errorSamples.protocol == \"$SAMPLE\""
	stop_h2peer "$name"
	peer_check "$name" "streams == $n" "answered == $ok" "resetsSent == $errs" \
		'refused == 0' 'clientResets == 0' 'clientGoawayErrors == 0'
	same "$name" connectionsOpened "$name" connections
	same_bytes "$name" "$name"
}

# The brief's case: every 5th of 500 on 2 connections of 8 streams.
reset_run p8 5 500 -c 2 -p 8
expect_rc p8 0
check p8 'connectionsOpened == 2'
# One stream at a time; every 3rd.
reset_run p1 3 99 -c 1 -p 1
expect_rc p1 0
check p1 'connectionsOpened == 1'
# Many threads and streams; every 7th of 7000.
reset_run many 7 7000 -t 2 -c 8 -p 32
expect_rc many 0
# Every request reset: no request completed, so the run failed (exit 1),
# with every error counted.
reset_run all 1 100 -c 2 -p 4
expect_rc all 1
note "passed"
