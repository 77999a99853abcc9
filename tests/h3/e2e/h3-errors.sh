#!/bin/bash
# How shb --proto h3 counts connections that never work, and the cheap
# paths around them: a closed UDP port (ICMP port unreachable) is a
# connect error per connection attempt; a server that never answers runs
# into the handshake timeout (--connect-timeout), counted as a timeout; a
# server that rejects the TLS handshake is a TLS error with the alert in
# the sample. Also: --disable-keepalive opens one QUIC connection per
# request, and SHB_DEBUG=1 traces the handshake and packets.
# Skipped (77) when a server package is missing.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154 # NAME_PORT: set by start_*
source "$(dirname "$0")/lib.sh"
need_h3 relay caddy gtlsserver
need SHB SHB_JCHECK

# h3 NAME URL ARGS...
h3() {
	local name=$1 url=$2
	shift 2
	run_shb "$name" --proto h3 "$@" "$url"
}

sample_has() { # NAME KIND TEXT
	local s
	s=$(get "$1" "errorSamples.$2")
	[[ "$s" == *"$3"* ]] || { show_run "$1"; fail "$1: errorSamples.$2 is $s, expected it to mention '$3'"; }
}

# Nothing listens: every attempt is one connect error, and -n still ends.
port=$(h3srv_pick_port)
h3 refused "https://127.0.0.1:$port/" -c 2 -n 4 --connect-timeout 5s
expect_rc refused 1
check refused 'requests.ok == 0' 'requests.errors == 4' 'errors.connect == 4' \
	'requests.connectErrors == 4'
# ... and says that HTTP/3 is UDP, for a server that speaks TCP only
sample_has refused connect "recv: Connection refused (nothing listens on this UDP port: HTTP/3 runs over UDP, not TCP)"

# A black hole: the relay drops everything, so the handshake times out.
start_caddy caddy >/dev/null
start_relay --name hole "$caddy_PORT" --loss 100 >/dev/null
h3 hole "https://127.0.0.1:$hole_PORT/" -c 1 -n 2 --connect-timeout 1s
expect_rc hole 1
check hole 'requests.ok == 0' 'requests.errors == 2' 'errors.timeout == 2'
sample_has hole timeout "handshake"
(( ELAPSED_MS >= 1800 && ELAPSED_MS < 15000 )) || fail "hole: ran ${ELAPSED_MS} ms for two 1 s handshake timeouts"
stop_relay hole

# No key exchange group in common: the server refuses the handshake with
# a TLS alert (handshake_failure).
H3SRV_GTLS_ARGS="--groups=-GROUP-ALL:+GROUP-SECP521R1" start_gtlsserver badtls >/dev/null
h3 badtls "https://127.0.0.1:$badtls_PORT/" -c 1 -n 2 --connect-timeout 5s
expect_rc badtls 1
check badtls 'requests.ok == 0' 'requests.errors == 2' 'errors.tls == 2'
sample_has badtls tls "TLS alert"
stop_h3 badtls

# One request per connection.
h3 nokeep "https://127.0.0.1:$caddy_PORT/" -c 2 -n 20 --disable-keepalive
expect_rc nokeep 0
check nokeep 'requests.ok == 20' 'statusCodes.200 == 20' 'connectionsOpened == 20'
check_no_errors nokeep

# Debug traces name the handshake and the packets; without SHB_DEBUG the
# run prints nothing on stderr.
SHB_DEBUG=1 h3 debug "https://127.0.0.1:$caddy_PORT/" -c 1 -n 3
expect_rc debug 0
grep -q 'handshake' "$E2E_TMP/debug.stderr" || { show_run debug; fail "debug: no handshake trace"; }
grep -q 'sent' "$E2E_TMP/debug.stderr" || { show_run debug; fail "debug: no packet trace"; }
h3 quiet "https://127.0.0.1:$caddy_PORT/" -c 1 -n 3
expect_rc quiet 0
[[ ! -s "$E2E_TMP/quiet.stderr" ]] || { show_run quiet; fail "quiet: unexpected output on stderr"; }
stop_h3 caddy
echo "h3-errors: all checks passed"
