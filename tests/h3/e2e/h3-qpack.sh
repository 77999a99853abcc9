#!/bin/bash
# QPACK's dynamic table against real HTTP/3 servers: with
# --proto-opt qpack-table=4096 (and the browsers' 65536) and
# qpack-blocked=16, ngtcp2's gtlsserver, whose encoder (nghttp3) uses the
# table, answers every request, with exact counts and no error, and the
# table was really used: the connections' SHB_DEBUG totals count the
# inserts the server's encoder stream made and the Section
# Acknowledgments we sent, both above 0. A run without the options
# announces no table, so nothing is inserted. bun (lsquic) and caddy
# (quic-go) insert nothing even when allowed: checked to work with the
# table announced. Skipped (77) when a server package is missing.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154 # NAME_PORT: set by start_*
source "$(dirname "$0")/lib.sh"
need_h3 caddy gtlsserver bun
need SHB SHB_JCHECK

# qpack NAME URL N ARGS...: N requests with SHB_DEBUG on, all 200, no error.
qpack() {
	local name=$1 url=$2 n=$3
	shift 3
	SHB_DEBUG=1 run_shb "$name" --proto h3 --connect-timeout 10s -n "$n" "$@" "$url"
	expect_rc "$name" 0
	check "$name" "requests.ok == $n" "statusCodes.200 == $n" "requests.total == $n"
	check_no_errors "$name"
}

# sum NAME FIELD: the sum of FIELD over the run's "QPACK: ..." trace lines
# (inserts, acks), 0 when there is none.
sum() {
	local what
	case $2 in
	inserts) what='s/.*QPACK: \([0-9]*\) inserts.*/\1/p' ;;
	acks) what='s/.* \([0-9]*\) section acknowledgments.*/\1/p' ;;
	esac
	sed -n "$what" "$E2E_TMP/$1.stderr" | awk '{ s += $1 } END { print s + 0 }'
}

# used NAME: the table was filled and sections referencing it acknowledged.
used() {
	local ins acks
	ins=$(sum "$1" inserts)
	acks=$(sum "$1" acks)
	[[ $ins -gt 0 && $acks -gt 0 ]] ||
		{ show_run "$1"; fail "$1: the dynamic table was not used ($ins inserts, $acks acknowledgments)"; }
	note "$1: $ins inserts, $acks section acknowledgments"
}

start_gtlsserver gtlsserver >/dev/null
base="https://127.0.0.1:$gtlsserver_PORT"
qpack gtls-4k "$base/" 2000 -c 2 -p 8 --proto-opt qpack-table=4096 --proto-opt qpack-blocked=16
used gtls-4k
qpack gtls-64k "$base/" 2000 -c 2 -p 32 --proto-opt qpack-table=65536 --proto-opt qpack-blocked=100
used gtls-64k
qpack gtls-1m "$base/1m" 16 -c 2 -p 4 --proto-opt qpack-table=4096 --proto-opt qpack-blocked=16
used gtls-1m
# No table announced: nothing inserted, no QPACK totals at all.
qpack gtls-static "$base/" 500 -c 2 -p 8
[[ $(grep -c 'QPACK:' "$E2E_TMP/gtls-static.stderr") -eq 0 ]] ||
	fail "gtls-static: QPACK totals without a table"
stop_h3 gtlsserver

start_bun bun >/dev/null
qpack bun-4k "https://127.0.0.1:$bun_PORT/" 1000 -c 2 -p 8 --proto-opt qpack-table=4096 --proto-opt qpack-blocked=16
note "bun-4k: $(sum bun-4k inserts) inserts (its encoder does not use the table)"
stop_h3 bun

start_caddy caddy >/dev/null
qpack caddy-4k "https://127.0.0.1:$caddy_PORT/" 1000 -c 2 -p 8 --proto-opt qpack-table=4096 --proto-opt qpack-blocked=16
note "caddy-4k: $(sum caddy-4k inserts) inserts (quic-go's encoder uses the static table only)"
stop_h3 caddy
echo "h3-qpack: all checks passed"
