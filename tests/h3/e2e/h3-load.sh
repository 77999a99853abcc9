#!/bin/bash
# shb --proto h3 against real HTTP/3 servers built on independent QUIC
# stacks: caddy (quic-go), ngtcp2's gtlsserver and bun
# (lsquic). For each: -p 1 and -p 32 load with exact counts, a 1 MiB
# response, and a 2 MB POST body (larger than every server's initial flow
# control windows, so the upload must wait for MAX_STREAM_DATA/MAX_DATA).
# Skipped (77) when a server package is missing.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154 # NAME_PORT: set by start_*
source "$(dirname "$0")/lib.sh"
need_h3 caddy gtlsserver bun
need SHB SHB_JCHECK

BODY=$H3_TMP/body2m
make_body "$BODY" 2000000

# h3 NAME URL ARGS...: one shb run over HTTP/3 with a JSON report.
h3() {
	local name=$1 url=$2
	shift 2
	run_shb "$name" --proto h3 --connect-timeout 10s "$@" "$url"
}

# ok_exact NAME N: exit 0, N requests ok, all of them 200, no error.
ok_exact() {
	expect_rc "$1" 0
	check "$1" "requests.ok == $2" "statusCodes.200 == $2" "requests.total == $2" \
		'protocolName == "h3"' 'protocol == "HTTP/3"'
	check_no_errors "$1"
}

# exercise LABEL PORT ECHO_ANSWER_BYTES
exercise() {
	local s=$1 port=$2 echo_len=$3 base="https://127.0.0.1:$2"

	h3 "$s-p1" "$base/" -c 4 -p 1 -n 500
	ok_exact "$s-p1" 500
	# 13-byte bodies: the body count is exact; connections stay up.
	check "$s-p1" 'connectionsOpened == 4' 'bytesSent > 0' 'bytesReceived > 6500'

	h3 "$s-p32" "$base/" -c 4 -p 32 -n 5000
	ok_exact "$s-p32" 5000
	check "$s-p32" 'connectionsOpened == 4'

	h3 "$s-1m" "$base/1m" -c 2 -p 4 -n 24
	ok_exact "$s-1m" 24
	check "$s-1m" "bytesReceived > $((24 * 1048576))"

	h3 "$s-post" "$base/echo" -c 2 -p 2 -n 8 -d "@$BODY"
	ok_exact "$s-post" 8
	check "$s-post" "bytesSent > $((8 * 2000000))" "bytesReceived > $((8 * echo_len))"
	note "$s: all checks passed"
}

start_caddy caddy >/dev/null
exercise caddy "$caddy_PORT" 7
# A host name: the client sends SNI (caddy picks its certificate by it).
h3 caddy-sni "https://localhost:$caddy_PORT/" -c 1 -p 4 -n 100
ok_exact caddy-sni 100
# Open loop over QUIC: the core's schedule, whatever the transport.
h3 caddy-rate "https://127.0.0.1:$caddy_PORT/" -c 2 -p 4 -R 200 -z 2s
expect_rc caddy-rate 0
check caddy-rate 'requests.total >= 398' 'requests.total <= 402' \
	'openLoop.rateTarget == 200' 'requestsPerSec >= 197' 'requestsPerSec <= 203'
check_no_errors caddy-rate
stop_h3 caddy

start_gtlsserver gtlsserver >/dev/null
exercise gtlsserver "$gtlsserver_PORT" 2
# 256 handshakes against one single-threaded server: set-up in waves
# (HANDSHAKES_MAX per worker), or the first flights overflow its UDP
# receive buffer and some handshakes are still lost when the default 5 s
# connect timeout ends (46 of 256 before the waves).
run_shb gtls-setup --proto h3 -c 256 -t 2 -p 1 -n 2560 "https://127.0.0.1:$gtlsserver_PORT/"
ok_exact gtls-setup 2560
check gtls-setup 'connectionsOpened == 256'
stop_h3 gtlsserver

# The goodbye at the end of a run: every connection's CONNECTION_CLOSE
# reaches the server, those with a send still in flight when the run
# ended too (theirs goes once that send completes; before, 1 or 2 of 8
# were skipped). The server logs every frame it receives.
H3SRV_GTLS_VERBOSE=1 start_gtlsserver gtlsbye >/dev/null
run_shb gtls-bye --proto h3 -c 8 -t 1 -p 32 -z 300ms "https://127.0.0.1:$gtlsbye_PORT/1m"
for ((i = 0; i < 30; i++)); do
	closes=$(grep -c CONNECTION_CLOSE "$H3_TMP/gtlsbye/gtlsserver.log" || true)
	((closes < 8)) || break
	sleep 0.1
done
note "gtlsserver received $closes CONNECTION_CLOSE frames from 8 connections"
((closes == 8)) || fail "$closes of 8 connections said goodbye"
stop_h3 gtlsbye

start_bun bun >/dev/null
exercise bun "$bun_PORT" 7
stop_h3 bun
echo "h3-load: all checks passed"
