# Helpers for the end-to-end scripts: sourced, never run on its own.
#
# Environment (set by meson): SHB (the binary under test), SHB_TESTSERVER,
# SHB_JCHECK, SHB_PLUGIN_PATH. Every server a script starts is stopped by
# PID when the script exits, whatever the outcome.

set -euo pipefail

E2E_NAME=$(basename "$0" .sh)
E2E_TMP=$(mktemp -d -t "shb-e2e-$E2E_NAME.XXXXXX")
E2E_PIDS=()
declare -A E2E_LOGS=()
# Upper bound for any single shb run, so a hang fails instead of blocking.
E2E_RUN_LIMIT=${E2E_RUN_LIMIT:-60}

e2e_cleanup() {
	local pid
	for pid in "${E2E_PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	for pid in "${E2E_PIDS[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$E2E_TMP"
}
trap e2e_cleanup EXIT

fail() {
	echo "FAIL [$E2E_NAME]: $*" >&2
	exit 1
}

# skip REASON: the test cannot run here (a server package is missing):
# exit 77, which meson reports as SKIP and scripts/test.sh counts as a
# failure unless tests/allowed-skips.txt lists the test with a reason.
skip() {
	echo "SKIP [$E2E_NAME]: $*" >&2
	exit 77
}

note() {
	echo "# $*"
}

# need VAR...: each variable must name an executable file.
need() {
	local v
	for v in "$@"; do
		[[ -n "${!v:-}" && -x "${!v}" ]] || fail "$v is not set to an executable"
	done
}

# pid_forget PID: the PID was stopped by the script itself.
pid_forget() {
	local keep=() p
	for p in "${E2E_PIDS[@]}"; do
		[[ "$p" == "$1" ]] || keep+=("$p")
	done
	E2E_PIDS=("${keep[@]+"${keep[@]}"}")
}

# wait_port PORT PID: until PORT accepts connections, PID still alive.
wait_port() {
	local _
	for _ in $(seq 1 100); do
		kill -0 "$2" 2>/dev/null || return 1
		if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then
			return 0
		fi
		sleep 0.05
	done
	return 1
}

# start_testserver NAME MODE [ARGS...]: starts shb-testserver and sets
# NAME_PORT, NAME_PID and NAME_STATS (the stats file written at stop).
start_testserver() {
	local name=$1 mode=$2 _
	shift 2
	local pf="$E2E_TMP/$name.port" sf="$E2E_TMP/$name.stats"
	rm -f "$pf" "$sf" # left by an earlier server of the same name
	"$SHB_TESTSERVER" --mode "$mode" --port-file "$pf" --stats-file "$sf" \
		"$@" >"$E2E_TMP/$name.log" 2>&1 &
	local pid=$!
	E2E_PIDS+=("$pid")
	E2E_LOGS[$pid]="$E2E_TMP/$name.log"
	for _ in $(seq 1 100); do
		[[ -s "$pf" ]] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	[[ -s "$pf" ]] || { cat "$E2E_TMP/$name.log" >&2; fail "testserver $mode did not start"; }
	printf -v "${name}_PORT" '%s' "$(cat "$pf")"
	printf -v "${name}_PID" '%s' "$pid"
	printf -v "${name}_STATS" '%s' "$sf"
}

# stop_server PID: SIGTERM and wait. A server must exit cleanly (status
# 0; a testserver then has written its stats, and a sanitizer build would
# have failed it on a leak or memory error).
stop_server() {
	local rc=0
	kill -TERM "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || rc=$?
	pid_forget "$1"
	if [[ $rc -ne 0 ]]; then
		[[ -z "${E2E_LOGS[$1]:-}" ]] || head -c 4000 "${E2E_LOGS[$1]}" >&2 || true
		fail "server $1 exited with status $rc"
	fi
}

# kill_quiet PID: stops a process whose exit status does not matter.
kill_quiet() {
	kill -TERM "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
	pid_forget "$1"
}

# run_shb NAME ARGS...: runs shb with a JSON report in $E2E_TMP/NAME.json.
# Sets RC (exit status) and ELAPSED_MS; never fails by itself.
run_shb() {
	local name=$1 t0 t1
	shift
	rm -f "$E2E_TMP/$name.json"
	t0=$(date +%s%N)
	RC=0
	timeout -k 5 "$E2E_RUN_LIMIT" "$SHB" -q --report "json:$E2E_TMP/$name.json" "$@" \
		>"$E2E_TMP/$name.stdout" 2>"$E2E_TMP/$name.stderr" </dev/null || RC=$?
	t1=$(date +%s%N)
	ELAPSED_MS=$(( (t1 - t0) / 1000000 ))
	note "shb $* -> exit $RC in ${ELAPSED_MS} ms"
	[[ $RC -ne 124 && $RC -ne 137 ]] || { show_run "$name"; fail "shb did not finish within ${E2E_RUN_LIMIT}s"; }
}

show_run() {
	echo "--- stdout of $1:" >&2
	head -c 4000 "$E2E_TMP/$1.stdout" >&2 || true
	echo "--- stderr of $1:" >&2
	head -c 4000 "$E2E_TMP/$1.stderr" >&2 || true
	if [[ -f "$E2E_TMP/$1.json" ]]; then
		echo "--- report of $1:" >&2
		head -c 8000 "$E2E_TMP/$1.json" >&2 || true
	fi
}

# expect_rc NAME CODE: the last run_shb exited with CODE.
expect_rc() {
	[[ "$RC" == "$2" ]] || { show_run "$1"; fail "$1: exit status $RC, expected $2"; }
}

# refused_usage NAME WANT ARGS...: shb ARGS is refused before any
# traffic: exit 2, and one line on stderr that holds WANT.
refused_usage() {
	local name=$1 want=$2
	shift 2
	run_shb "$name" "$@"
	expect_rc "$name" 2
	[[ $(wc -l <"$E2E_TMP/$name.stderr") == 1 ]] || { show_run "$name"; fail "$name: not one line"; }
	grep -qF -- "$want" "$E2E_TMP/$name.stderr" || { show_run "$name"; fail "$name: expected \"$want\""; }
}

# check NAME EXPR...: assertions on the report of run NAME.
check() {
	local name=$1
	shift
	[[ -f "$E2E_TMP/$name.json" ]] || { show_run "$name"; fail "$name: no JSON report written"; }
	"$SHB_JCHECK" "$E2E_TMP/$name.json" "$@" || { show_run "$name"; fail "$name: report checks failed"; }
}

# check_file FILE EXPR...: assertions on any JSON file (server stats).
check_file() {
	local file=$1
	shift
	"$SHB_JCHECK" "$file" "$@" || { cat "$file" >&2 || true; fail "checks on $(basename "$file") failed"; }
}

# get NAME PATH: prints one value of the report of run NAME.
get() {
	"$SHB_JCHECK" --get "$E2E_TMP/$1.json" "$2"
}

# Every error counter of the report is zero.
check_no_errors() {
	check "$1" 'requests.errors == 0' 'requests.connectErrors == 0' \
		'errors.connect == 0' 'errors.tls == 0' 'errors.read == 0' \
		'errors.write == 0' 'errors.timeout == 0' 'errors.protocol == 0'
}

# ok_run NAME N ARGS...: shb -n N ARGS exits 0 with exactly N requests,
# every one answered 200, and no error of any kind.
ok_run() {
	local name=$1 n=$2
	shift 2
	run_shb "$name" -n "$n" "$@"
	expect_rc "$name" 0
	check "$name" "requests.total == $n" "requests.ok == $n" "statusCodes.200 == $n"
	check_no_errors "$name"
}

# make_body FILE BYTES: printable bytes without CR/LF (which -d @file
# would strip), so the body length on the wire is exactly BYTES.
make_body() {
	head -c "$2" /dev/zero | tr '\0' 'a' >"$1"
	[[ $(stat -c %s "$1") -eq $2 ]] || fail "cannot generate $1"
}

# free_port VAR: sets VAR to a port nobody listens on (a testserver's,
# after it stopped).
# shellcheck disable=SC2154 # fp_PID, fp_PORT: set by start_testserver
free_port() {
	start_testserver fp hello
	stop_server "$fp_PID"
	printf -v "$1" '%s' "$fp_PORT"
}

export SHB_PLUGIN_PATH
