#!/bin/bash
# Nobody listens on the port: every request is a connect error, exit 1.
# https:// to a port that speaks plain HTTP: a TLS error that says so, and
# not the SNI hint, though no SNI is sent to an IP address.
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID, NAME_STATS: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

free_port port
run_shb refused -c 2 -n 10 "http://127.0.0.1:$port/"
expect_rc refused 1
check refused 'requests.ok == 0' 'errors.connect == 10' \
	'requests.errors == 10' 'latencySeconds == null' 'bytesReceived == 0' \
	'errors.read == 0' 'errors.timeout == 0'
[[ $ELAPSED_MS -lt 5000 ]] || fail "the run took ${ELAPSED_MS} ms"

# For a duration, each connection slot backs off (10 ms doubling to 1 s,
# jittered) after every failed attempt, and a run nothing ever connected
# to stops once every slot failed 5 times (route.sh checks the exact
# counts): a few attempts per slot, not a storm of tens of thousands.
run_shb dead -c 4 -z 2s "http://127.0.0.1:$port/"
expect_rc dead 1
check dead 'requests.ok == 0' 'errors.connect >= 16' 'errors.connect <= 80' \
	'errors.read == 0' 'errors.timeout == 0'

# Python's http.server answers a ClientHello with "HTTP/1.0 400" at once.
free_port hport
python3 -m http.server --bind 127.0.0.1 --directory "$E2E_TMP" "$hport" \
	>"$E2E_TMP/http.log" 2>&1 &
plain_PID=$!
E2E_PIDS+=("$plain_PID")
wait_port "$hport" "$plain_PID" || fail "python3 -m http.server did not start"
run_shb plain -t 1 -c 1 -n 3 "https://127.0.0.1:$hport/"
expect_rc plain 1
check plain 'requests.ok == 0' 'errors.tls == 3'
sample=$(get plain errorSamples.tls)
[[ $sample == "TLS handshake: "*" (the answer is not TLS: this port may speak plain HTTP; try http://)" &&
   $sample != *"no SNI"* ]] || { show_run plain; fail "plain: errorSamples.tls is '$sample'"; }
kill_quiet "$plain_PID"
note "passed"
