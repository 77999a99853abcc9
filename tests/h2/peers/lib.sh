# shellcheck shell=bash
# Helpers for the scripts that run shb against shb-h2-peer: sourced, never
# run on its own. Builds on the e2e helpers (run_shb, check, get, stop_server
# and the cleanup of every started process).
#
# Environment (set by meson): SHB, SHB_H2PEER, SHB_JCHECK, SHB_PLUGIN_PATH.
# shellcheck disable=SC2034 # E2E_LOGS, E2E_RUN_LIMIT: used by lib.sh
# shellcheck source=../../e2e/lib.sh
source "$(dirname "$0")/../../e2e/lib.sh"
need SHB SHB_H2PEER SHB_JCHECK

# Each run must end within seconds; a hang fails the test quickly.
E2E_RUN_LIMIT=${E2E_RUN_LIMIT:-30}

# start_h2peer NAME 'MODE [N]' [ARGS...]: starts shb-h2-peer and sets
# NAME_PORT, NAME_PID, NAME_URL and NAME_STATS (written when it stops).
start_h2peer() {
	local name=$1 mode=$2 _
	shift 2
	local pf="$E2E_TMP/$name.port" sf="$E2E_TMP/$name.stats"
	rm -f "$pf" "$sf"
	"$SHB_H2PEER" --mode "$mode" --port-file "$pf" --stats-file "$sf" \
		"$@" >"$E2E_TMP/$name.log" 2>&1 &
	local pid=$!
	E2E_PIDS+=("$pid")
	E2E_LOGS[$pid]="$E2E_TMP/$name.log"
	for _ in $(seq 1 100); do
		[[ -s "$pf" ]] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	[[ -s "$pf" ]] || { cat "$E2E_TMP/$name.log" >&2; fail "shb-h2-peer $mode did not start"; }
	printf -v "${name}_PORT" '%s' "$(cat "$pf")"
	printf -v "${name}_PID" '%s' "$pid"
	printf -v "${name}_URL" '%s' "http://127.0.0.1:$(cat "$pf")/"
	printf -v "${name}_STATS" '%s' "$sf"
}

# stop_h2peer NAME: stops the peer (it must exit 0, having written its
# stats) and prints its log when it saw the client break a rule.
stop_h2peer() {
	local pid_var="${1}_PID" stats_var="${1}_STATS"
	stop_server "${!pid_var}"
	[[ -s "${!stats_var}" ]] || fail "$1: no stats written"
	note "peer $1: $(cat "${!stats_var}")"
	if [[ $("$SHB_JCHECK" --get "${!stats_var}" violations) != 0 ]]; then
		head -c 4000 "$E2E_TMP/$1.log" >&2 || true
		fail "$1: the client broke a protocol rule (log above)"
	fi
}

# peer_check NAME EXPR...: assertions on the stats of peer NAME.
peer_check() {
	local stats_var="${1}_STATS"
	shift
	check_file "${!stats_var}" "$@"
}

# peer_get NAME KEY: one value of the stats of peer NAME.
peer_get() {
	local stats_var="${1}_STATS"
	"$SHB_JCHECK" --get "${!stats_var}" "$2"
}

# same RUN PATH PEER KEY: the report's PATH equals the peer's KEY.
same() {
	local a b
	a=$(get "$1" "$2")
	b=$(peer_get "$3" "$4")
	[[ "$a" == "$b" ]] || { show_run "$1"; fail "$1: $2 is $a but the peer's $4 is $b"; }
}

# same_bytes RUN PEER: both sides counted the same octets. shb's GOAWAY
# at the end of a run (17 octets, best effort) is not in its bytesSent.
# Connections that carried no stream (opened as the run ended) may be
# missing from shb's counts: at most shb's 73 octets (preface, SETTINGS,
# WINDOW_UPDATE, ACK) and the peer's SETTINGS and ACK each.
same_bytes() {
	local sent in goaways rx out idle hs
	sent=$(get "$1" bytesSent)
	rx=$(get "$1" bytesReceived)
	in=$(peer_get "$2" bytesIn)
	out=$(peer_get "$2" bytesOut)
	goaways=$(peer_get "$2" clientGoaways)
	idle=$(peer_get "$2" idleConns)
	hs=$(peer_get "$2" handshakeOut)
	in=$((in - 17 * goaways))
	if ((in < sent || in - sent > 73 * idle || out < rx || out - rx > hs * idle)); then
		show_run "$1"
		fail "$1: shb sent $sent and received $rx octets; the peer read $in (without $goaways final GOAWAY) and wrote $out, with $idle idle connections"
	fi
}

# counts RUN N: exactly N requests, every one ok and 200, no error.
counts() {
	check "$1" "requests.total == $2" "requests.ok == $2" \
		"statusCodes.200 == $2" 'protocol == "HTTP/2"'
	check_no_errors "$1"
}
