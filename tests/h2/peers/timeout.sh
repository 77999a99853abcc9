#!/bin/bash
# --timeout cancels one request, not its connection: against a peer that
# never answers every 10th request, shb resets exactly those streams
# (RST_STREAM CANCEL) and counts each as one timeout; the other requests
# on the same connection complete, and the connection is never replaced.
# The last resets go out as the run ends, before the sockets close.
# shellcheck disable=SC2154 # NAME_URL: set by start_h2peer
source "$(dirname "$0")/lib.sh"

stall_run() {
	local name=$1 p=$2 n=$3 url="${1}_URL"
	start_h2peer "$name" 'stall 10'
	run_shb "$name" --proto h2 -c 1 -p "$p" -n "$n" --timeout 300ms "${!url}"
	expect_rc "$name" 0
	check "$name" "requests.ok == $((n - n / 10))" "errors.timeout == $((n / 10))" \
		"requests.errors == $((n / 10))" 'connectionsOpened == 1' \
		'errors.read == 0' 'errors.protocol == 0' 'requests.retried == 0'
	stop_h2peer "$name"
	peer_check "$name" 'connections == 1' "streams == $n" \
		"answered == $((n - n / 10))" "clientResets == $((n / 10))" \
		'clientGoawayErrors == 0'
}

stall_run p8 8 80
stall_run p32 32 320
stall_run p1 1 20
note "passed"
