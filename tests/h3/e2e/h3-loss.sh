#!/bin/bash
# shb --proto h3 through the seeded lossy relay (shb-udp-relay) in front
# of caddy and gtlsserver: with 5 % loss, and with 2 % loss + 10 %
# duplication + 10 % reordering, both ways, every request completes with
# status 200 and nothing counts as an error. Fixed seeds, so a failure
# replays. The relay's stats prove the transfer really was impaired.
# Skipped (77) when a server package is missing.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154 # NAME_PORT, NAME_STATS: set by start_*
source "$(dirname "$0")/lib.sh"
need_h3 relay caddy gtlsserver
need SHB SHB_JCHECK

BODY=$H3_TMP/body300k
make_body "$BODY" 300000

# h3 NAME URL ARGS...
h3() {
	local name=$1 url=$2
	shift 2
	run_shb "$name" --proto h3 --connect-timeout 20s "$@" "$url"
}

ok_exact() {
	expect_rc "$1" 0
	check "$1" "requests.ok == $2" "statusCodes.200 == $2" "requests.total == $2"
	check_no_errors "$1"
}

# impaired SERVER_LABEL UPSTREAM_PORT RELAY_LABEL RELAY OPTIONS...
impaired() {
	local s=$1 up=$2 r=$3 url
	shift 3
	start_relay --name "$r" "$up" "$@" >/dev/null
	local port_var=${r}_PORT stats_var=${r}_STATS
	url="https://127.0.0.1:${!port_var}"

	h3 "$s-$r-get" "$url/" -c 4 -p 8 -n 400
	ok_exact "$s-$r-get" 400
	h3 "$s-$r-1m" "$url/1m" -c 2 -p 2 -n 6
	ok_exact "$s-$r-1m" 6
	check "$s-$r-1m" "bytesReceived > $((6 * 1048576))"
	h3 "$s-$r-post" "$url/echo" -c 2 -p 2 -n 6 -d "@$BODY"
	ok_exact "$s-$r-post" 6

	stop_relay "$r"
	check_file "${!stats_var}" 'up.dropped > 0' 'down.dropped > 0' 'up.sendErrors == 0' \
		'down.sendErrors == 0'
	note "$s via $r: $(tr -d '\n' <"${!stats_var}")"
}

start_caddy caddy >/dev/null
start_gtlsserver gtlsserver >/dev/null
for s in caddy gtlsserver; do
	port_var=${s}_PORT
	impaired "$s" "${!port_var}" loss5 --seed 11 --loss 5
	impaired "$s" "${!port_var}" mixed --seed 12 --loss 2 --dup 10 --reorder 10
	check_file "$mixed_STATS" 'down.duplicated > 0' 'down.reordered > 0' \
		'up.duplicated > 0' 'up.reordered > 0'
done
stop_h3 caddy
stop_h3 gtlsserver
echo "h3-loss: all checks passed"
