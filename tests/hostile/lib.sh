# shellcheck shell=bash
# Helpers for the hostile-peer suite: sourced, never run on its own. Builds
# on the e2e helpers (check, get, fail, note, stop_server, kill_quiet and
# the cleanup of every started process).
#
# Every case starts one misbehaving peer, runs shb against it with a JSON
# report, and asserts what shb must do whatever a peer sends: exit by
# itself within a stated time, no sanitizer report, a consistent report
# (total = ok + errors = the sum of the kinds), the errors in the expected
# kind with a sample that says what went wrong, and a peak RSS (VmHWM,
# from wait4 by shb-hostile-run) under a stated bound.
#
# Environment (set by meson): SHB, SHB_JCHECK, SHB_PLUGIN_PATH, the peers
# SHB_H1PEER, SHB_H2PEER, SHB_TLSFRONT, SHB_QUICPEER, the runner
# SHB_RUNLIMIT, and
# SHB_HOSTILE_RSS_SCALE (RSS bounds are multiplied by it: sanitizer
# builds need several times the memory).
# shellcheck source=../e2e/lib.sh
source "$(dirname "$0")/../e2e/lib.sh"
need SHB SHB_JCHECK

RSS_SCALE=${SHB_HOSTILE_RSS_SCALE:-1}
# A smaller ASan quarantine: freed memory kept for use-after-free checks
# would otherwise count against the RSS bounds.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16"

# start_peer NAME PROGRAM ARGS...: starts a peer that writes its port to
# the file given by --port-file; sets NAME_PORT and NAME_PID.
start_peer() {
	local name=$1 prog=$2 _
	shift 2
	local pf="$E2E_TMP/$name.port"
	rm -f "$pf"
	"$prog" --port-file "$pf" "$@" >"$E2E_TMP/$name.log" 2>&1 &
	local pid=$!
	E2E_PIDS+=("$pid")
	E2E_LOGS[$pid]="$E2E_TMP/$name.log"
	for _ in $(seq 1 200); do
		[[ -s "$pf" ]] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	[[ -s "$pf" ]] || { cat "$E2E_TMP/$name.log" >&2; fail "peer $name ($*) did not start"; }
	printf -v "${name}_PORT" '%s' "$(cat "$pf")"
	printf -v "${name}_PID" '%s' "$pid"
}

h1_peer() { # NAME MODE
	need SHB_H1PEER
	start_peer "$1" "$SHB_H1PEER" --mode "$2"
}

h2_peer() { # NAME MODE
	need SHB_H2PEER
	start_peer "$1" "$SHB_H2PEER" --mode "$2"
}

quic_peer() { # NAME MODE
	need SHB_QUICPEER
	start_peer "$1" "$SHB_QUICPEER" --mode "$2"
}

# tls_front NAME MODE [BACKEND_PORT ALPN]: the TLS side, relaying to a
# plaintext peer or breaking the handshake itself.
tls_front() {
	need SHB_TLSFRONT
	if [[ $# -gt 2 ]]; then
		start_peer "$1" "$SHB_TLSFRONT" --mode "$2" --backend "$3" --alpn "$4"
	else
		start_peer "$1" "$SHB_TLSFRONT" --mode "$2"
	fi
}

# hrun NAME LIMIT_S RSS_MB SHB_ARGS...: runs shb with a JSON report in
# $E2E_TMP/NAME.json under shb-hostile-run, which kills it after LIMIT_S
# seconds and reports its peak RSS (wait4). Fails when shb had to be
# killed, when its peak RSS passed RSS_MB (times RSS_SCALE), when a
# sanitizer reported anything, when it crashed or refused its input, and
# when the report is missing or inconsistent. Sets RC, ELAPSED_MS and
# RSS_KB.
hrun() {
	local name=$1 limit=$2 rss_mb=$3 hung
	shift 3
	need SHB_RUNLIMIT
	rm -f "$E2E_TMP/$name.json" "$E2E_TMP/$name.run"
	"$SHB_RUNLIMIT" $((limit * 1000)) "$E2E_TMP/$name.run" \
		"$SHB" -q --report "json:$E2E_TMP/$name.json" "$@" \
		>"$E2E_TMP/$name.stdout" 2>"$E2E_TMP/$name.stderr" </dev/null ||
		fail "$name: shb-hostile-run failed"
	read -r RC ELAPSED_MS RSS_KB hung <"$E2E_TMP/$name.run"
	note "shb $* -> exit $RC in ${ELAPSED_MS} ms, peak RSS $((RSS_KB / 1024)) MB"
	((hung == 0)) || { show_run "$name"; fail "$name: shb still running after ${limit}s (killed)"; }
	if grep -Eq 'AddressSanitizer|LeakSanitizer|runtime error:|UndefinedBehaviorSanitizer' \
		"$E2E_TMP/$name.stderr"; then
		show_run "$name"
		fail "$name: sanitizer report"
	fi
	[[ $RC -eq 0 || $RC -eq 1 ]] || { show_run "$name"; fail "$name: exit status $RC (0 or 1 expected)"; }
	((RSS_KB <= rss_mb * RSS_SCALE * 1024)) ||
		{ show_run "$name"; fail "$name: peak RSS $((RSS_KB / 1024)) MB, bound $((rss_mb * RSS_SCALE)) MB"; }
	consistent "$name"
}

# consistent NAME: total = ok + errors, and errors = the sum of the kinds.
consistent() {
	local total ok errors sum=0 kind
	[[ -s "$E2E_TMP/$1.json" ]] || { show_run "$1"; fail "$1: no JSON report written"; }
	total=$(get "$1" requests.total)
	ok=$(get "$1" requests.ok)
	errors=$(get "$1" requests.errors)
	for kind in connect tls read write timeout protocol application; do
		sum=$((sum + $(get "$1" "errors.$kind")))
	done
	((total == ok + errors)) || { show_run "$1"; fail "$1: total $total != ok $ok + errors $errors"; }
	((errors == sum)) || { show_run "$1"; fail "$1: errors $errors != $sum, the sum of the kinds"; }
}

# errors_are NAME KIND N: N requests, every one an error of KIND.
errors_are() {
	check "$1" "requests.total == $3" 'requests.ok == 0' \
		"requests.errors == $3" "errors.$2 == $3"
}

# sample_has NAME KIND REGEX: the sample message of KIND matches REGEX
# (extended, case-insensitive).
sample_has() {
	local s
	s=$(get "$1" "errorSamples.$2" 2>/dev/null || true)
	note "errorSamples.$2: $s"
	grep -Eiq -- "$3" <<<"$s" ||
		{ show_run "$1"; fail "$1: errorSamples.$2 is ${s:-absent}; expected it to match /$3/"; }
}

# faster NAME MS: the run took less than MS milliseconds.
faster() {
	((ELAPSED_MS < $2)) || { show_run "$1"; fail "$1: took ${ELAPSED_MS} ms, bound $2 ms"; }
}

# run_case NAME: runs the function case_NAME of the calling script.
run_case() {
	[[ $# -eq 1 ]] || fail "usage: $0 CASE"
	declare -F "case_$1" >/dev/null || fail "no case '$1' in $0"
	E2E_NAME="$E2E_NAME/$1"
	"case_$1"
	note "passed"
}
