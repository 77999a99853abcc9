#!/bin/bash
# Names and addresses over HTTP/3: --sni (the QUIC TLS layer takes SNI and
# the name it verifies from the same place, so --sni sets both),
# --connect-to (both also over HTTP/1.1 and HTTP/2 to the same caddy), every address in order over UDP (a port unreachable at
# 127.0.0.2 moves on to 127.0.0.1 without an error), the hint that no SNI
# was sent when a handshake at an IP address fails, and the early stop of
# a run that never connects. Skipped (77) when a server package is
# missing.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154 # NAME_PORT: set by start_*
source "$(dirname "$0")/lib.sh"
need_h3 caddy gtlsserver
need SHB SHB_JCHECK
command -v openssl >/dev/null || skip "openssl is not installed to make a certificate"

HINT="(no SNI was sent for an IP address: set one with --sni NAME or use a host name)"

# A certificate for the name localhost only, made before any server starts
# (they all take this one): verification at 127.0.0.1 must fail.
mkdir -p "$H3_TMP"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
	-keyout "$H3_TMP/key.pem" -out "$H3_TMP/cert.pem" -days 2 -subj /CN=localhost \
	-addext 'subjectAltName=DNS:localhost' >"$H3_TMP/cert.log" 2>&1 ||
	{ cat "$H3_TMP/cert.log" >&2; fail "openssl could not make a certificate"; }
CA=$H3_TMP/cert.pem

h3() { # NAME URL ARGS...
	local name=$1 url=$2
	shift 2
	run_shb "$name" --proto h3 "$@" "$url"
}
ok_h3() { # NAME N URL ARGS...
	local name=$1 n=$2 url=$3
	shift 3
	h3 "$name" "$url" -n "$n" "$@"
	expect_rc "$name" 0
	check "$name" "requests.ok == $n" "statusCodes.200 == $n"
	check_no_errors "$name"
}
sample() { get "$1" "errorSamples.$2"; }

start_caddy caddy >/dev/null
P=$caddy_PORT

# Verified at 127.0.0.1: the certificate has no such address. No SNI went
# out, and the sample says how to send one.
h3 ip-verify "https://127.0.0.1:$P/" -t 1 -c 1 -n 3 --cacert "$CA"
expect_rc ip-verify 1
check ip-verify 'requests.ok == 0' 'errors.tls == 3'
s=$(sample ip-verify tls)
[[ "$s" == *" $HINT" ]] || { show_run ip-verify; fail "ip-verify: errorSamples.tls is '$s'"; }
# --sni localhost: sent, and the name verified.
ok_h3 sni 20 "https://127.0.0.1:$P/" -c 2 --sni localhost --cacert "$CA"
# --connect-to: the URL's name for SNI and verification, the address given.
ok_h3 connect-to 20 "https://localhost:$P/" -c 2 --cacert "$CA" \
	--connect-to "localhost:$P:127.0.0.1:$P"
# The same two over TCP against the same caddy: HTTP/1.1 and HTTP/2.
for proto in h1 h2; do
	run_shb "sni-$proto" --proto "$proto" -n 20 -c 2 --sni localhost \
		--cacert "$CA" "https://127.0.0.1:$P/"
	expect_rc "sni-$proto" 0
	check "sni-$proto" 'requests.ok == 20' 'statusCodes.200 == 20'
	check_no_errors "sni-$proto"
	run_shb "connect-to-$proto" --proto "$proto" -n 20 -c 2 --cacert "$CA" \
		--connect-to "localhost:$P:127.0.0.1:$P" "https://localhost:$P/"
	expect_rc "connect-to-$proto" 0
	check "connect-to-$proto" 'requests.ok == 20' 'statusCodes.200 == 20'
	check_no_errors "connect-to-$proto"
done
# Two addresses: 127.0.0.2 answers ICMP port unreachable, so every
# connection moves on to 127.0.0.1, where it stays; nothing counted, and
# what was sent to 127.0.0.2 is sent again (exactly 40 answers). A UDP
# socket counts as opened once connected: 4 at each address.
ok_h3 fallback 40 "https://api.invalid:$P/" -c 4 --sni localhost \
	--resolve "api.invalid:$P:127.0.0.2,127.0.0.1"
check fallback 'connectionsOpened == 8'

# A server that refuses the handshake with an alert (no key exchange
# group in common): no SNI hint, at an IP address or with --sni, since
# SNI cannot be the cause (only alerts 80 and 112, and a certificate's
# name, get it).
H3SRV_GTLS_ARGS="--groups=-GROUP-ALL:+GROUP-SECP521R1" start_gtlsserver badtls >/dev/null
h3 alert "https://127.0.0.1:$badtls_PORT/" -t 1 -c 1 -n 2
expect_rc alert 1
check alert 'errors.tls == 2'
s=$(sample alert tls)
[[ "$s" == "QUIC handshake failed: server sent TLS alert "* && "$s" != *"no SNI"* ]] ||
	{ show_run alert; fail "alert: errorSamples.tls is '$s'"; }
h3 alert-sni "https://127.0.0.1:$badtls_PORT/" -t 1 -c 1 -n 2 --sni localhost
expect_rc alert-sni 1
check alert-sni 'errors.tls == 2'
s=$(sample alert-sni tls)
[[ "$s" == "QUIC handshake failed: server sent TLS alert "* && "$s" != *"no SNI"* ]] ||
	{ show_run alert-sni; fail "alert-sni: errorSamples.tls is '$s'"; }
# The same server for a duration: every connection fails, none ever
# succeeded, so the run stops early with one line.
h3 alert-z "https://127.0.0.1:$badtls_PORT/" -t 1 -c 2 -z 30s
expect_rc alert-z 1
check alert-z 'requests.ok == 0' 'errors.tls == 10'
grep -qF "shb: no connection to 127.0.0.1:$badtls_PORT ever succeeded: every connection failed 5 times in a row, the last with: QUIC handshake failed: server sent TLS alert" \
	"$E2E_TMP/alert-z.stderr" || { show_run alert-z; fail "alert-z: no early-stop line"; }
(( ELAPSED_MS < 15000 )) || fail "alert-z: ran ${ELAPSED_MS} ms"
stop_h3 badtls

# Nothing listens on the UDP port: the early stop names it.
port=$(h3srv_pick_port)
h3 dead "https://127.0.0.1:$port/" -t 1 -c 2 -z 30s
expect_rc dead 1
check dead 'requests.ok == 0' 'errors.connect == 10'
grep -qxF "shb: no connection to 127.0.0.1:$port ever succeeded: every connection failed 5 times in a row, the last with: recv: Connection refused (nothing listens on this UDP port: HTTP/3 runs over UDP, not TCP)" \
	"$E2E_TMP/dead.stderr" || { show_run dead; fail "dead: no early-stop line"; }
note "passed"
