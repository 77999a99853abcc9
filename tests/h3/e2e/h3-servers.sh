#!/bin/bash
# The HTTP/3 test servers and the relay, checked without shb: caddy,
# gtlsserver and bun answer every endpoint over HTTP/3
# byte for byte, as seen by ngtcp2's gtlsclient; the relay passes a
# 1 MiB body through untouched, and through loss, duplication and
# reordering the QUIC transfer still delivers exactly the same bytes.
# Skipped (77) when a package is missing.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154 # NAME_PORT, NAME_STATS: set by start_*
source "$(dirname "$0")/lib.sh"
need_h3 relay gtlsclient caddy gtlsserver bun
need SHB_JCHECK

OUT=$H3_TMP/out
make_body "$H3_TMP/body100k" 100000

# expect_get LABEL PORT PATH STATUS [BODY_FILE | =TEXT] [gtlsclient options]
expect_get() {
	local label=$1 port=$2 path=$3 status=$4 want=$5
	shift 5
	h3_get "$port" "$path" "$OUT" "$@"
	[[ "$H3_STATUS" == "$status" ]] ||
		fail "$label: $path answered status '${H3_STATUS}', expected $status"
	if [[ $want == =* ]]; then
		[[ "$(cat "$OUT")" == "${want#=}" && $(stat -c %s "$OUT") -eq ${#want}-1 ]] ||
			fail "$label: $path body '$(head -c 100 "$OUT")', expected '${want#=}'"
	else
		cmp -s "$OUT" "$want" || fail "$label: $path body differs from $want ($(stat -c %s "$OUT") bytes)"
	fi
	note "$label: $path -> $status, body ok"
}

# check_endpoints LABEL PORT ECHO_ANSWER
check_endpoints() {
	expect_get "$1" "$2" / 200 "=hello, world!"
	expect_get "$1" "$2" /1m 200 "$H3_DOCROOT/1m"
	expect_get "$1" "$2" /echo 200 "=$3" -m POST -d "$H3_TMP/body100k"
	h3_get "$2" /no-such-file "$OUT"
	[[ "$H3_STATUS" == 404 ]] || fail "$1: /no-such-file answered '$H3_STATUS', expected 404"
}

port=$(start_caddy caddy)
[[ $port =~ ^[0-9]+$ ]] || fail "start_caddy printed '$port', not a port"
stop_h3 caddy
h3srv_udp_bound "$port" && fail "caddy still holds UDP port $port after stop_h3"

start_caddy caddy >/dev/null
check_endpoints caddy "$caddy_PORT" 100000
start_gtlsserver gtlsserver >/dev/null
check_endpoints gtlsserver "$gtlsserver_PORT" ok
start_bun bun >/dev/null
check_endpoints bun "$bun_PORT" 100000
stop_h3 bun

# A relay with no impairment changes nothing.
start_relay --name clean "$caddy_PORT" >/dev/null
expect_get "clean relay" "$clean_PORT" /1m 200 "$H3_DOCROOT/1m"
stop_relay clean
check_file "$clean_STATS" 'sessions == 1' 'up.dropped == 0' 'down.dropped == 0' \
	'up.duplicated == 0' 'down.reordered == 0' 'up.sendErrors == 0' \
	'down.sendErrors == 0' 'down.in > 700'
[[ $(h3_stat "$clean_STATS" up.in) == $(h3_stat "$clean_STATS" up.out) ]] ||
	fail "clean relay: up.in != up.out"
[[ $(h3_stat "$clean_STATS" down.in) == $(h3_stat "$clean_STATS" down.out) ]] ||
	fail "clean relay: down.in != down.out"

# Loss, duplication and reordering both ways: QUIC recovers, the body is
# exact, and the relay did impair the transfer.
for srv in caddy gtlsserver; do
	port_var=${srv}_PORT
	start_relay --name lossy "${!port_var}" --seed 5 --loss 3 --dup 2 --reorder 5 >/dev/null
	expect_get "$srv via lossy relay" "$lossy_PORT" /1m 200 "$H3_DOCROOT/1m"
	stop_relay lossy
	check_file "$lossy_STATS" 'down.dropped > 0' 'down.duplicated > 0' \
		'down.reordered > 0' 'up.in > 0' 'down.sendErrors == 0'
	note "$srv via lossy relay: $(tr -d '\n' <"$lossy_STATS")"
done

# The handshake's first client flight lost: the client retransmits.
start_relay --name first "$gtlsserver_PORT" --drop-first 1 >/dev/null
expect_get "drop-first relay" "$first_PORT" / 200 "=hello, world!"
stop_relay first
check_file "$first_STATS" 'up.dropped == 1'

stop_h3 caddy
stop_h3 gtlsserver
echo "h3-servers: all checks passed"
