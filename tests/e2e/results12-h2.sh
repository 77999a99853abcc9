#!/bin/bash
# Errors by code (ABI 1.2 error_codes), end to end: shb --proto h2 against
# shb-h2-peer resetting every 5th stream with RST_STREAM(INTERNAL_ERROR).
# Each reset is one protocol error and one count of (protocol, h2, 2);
# over cleartext HTTP/2 there is one TCP connect and no TLS handshake (the
# protocol's own SETTINGS exchange is not timed). Exact numbers through the
# test reporter r12.
# shellcheck disable=SC2034 # E2E_LOGS: used by lib.sh
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_r12.sh"
need SHB SHB_H2PEER SHB_JCHECK

pf="$E2E_TMP/peer.port"
"$SHB_H2PEER" --mode "reset 5" --port-file "$pf" --stats-file "$E2E_TMP/peer.stats" \
	>"$E2E_TMP/peer.log" 2>&1 &
PEER_PID=$!
E2E_PIDS+=("$PEER_PID")
E2E_LOGS[$PEER_PID]="$E2E_TMP/peer.log"
for _ in $(seq 1 100); do
	[[ -s "$pf" ]] && break
	sleep 0.05
done
[[ -s "$pf" ]] || { cat "$E2E_TMP/peer.log" >&2; fail "shb-h2-peer did not start"; }
url="http://127.0.0.1:$(cat "$pf")/"

run_r12 reset --proto h2 -n 100 -c 1 -p 1 "$url"
expect_rc reset 0
check reset 'requests.total == 100' 'requests.ok == 80' 'requests.errors == 20' \
	'errors.protocol == 20'
r12_is reset requests_total 100
r12_is reset requests_errors 20
r12_is reset errors_sum 20
r12_is reset errors_ex_sum 20
r12_has reset "code 5 1 2 20"
[[ $(grep -c '^code ' "$E2E_TMP/reset.r12") == 1 ]] || fail "more than one error code"
[[ $(r12_count reset connect) == 1 ]] || fail "connect: $(r12 reset connect)"
[[ $(r12_count reset handshake) == 0 ]] || fail "handshake: $(r12 reset handshake)"
[[ $(r12_count reset first_byte) == 80 ]] || fail "first_byte: $(r12 reset first_byte)"
stop_server "$PEER_PID"
check_file "$E2E_TMP/peer.stats" 'streams == 100' 'resetsSent == 20'
note "passed"
