#!/bin/bash
# shb --proto h2 against the refuse-first-flight peer when the whole
# request budget fits in the first flight (-n <= -c x -p): every request
# is refused before the peer's SETTINGS are ACKed, and the connection
# that refused them is alive and would answer them now. The run must end,
# within seconds, with every request resent and answered.
# shellcheck disable=SC2154 # NAME_URL: set by start_h2peer
source "$(dirname "$0")/lib.sh"
E2E_RUN_LIMIT=10

start_h2peer rb refuse-first-flight
run_shb all --proto h2 -c 1 -p 8 -n 8 "$rb_URL"
expect_rc all 0
counts all 8
check all 'requests.retried == 8'
stop_h2peer rb
peer_check rb 'answered == 8' 'refused == 8' 'streams == 16'
note "passed"
