#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang, ASan+UBSan, -O2: four
# times the executions of -O0) and runs each for a number of executions or
# seconds, one after the other, from a copy of its seed corpus. Prints one
# line per target with its execution count, wall and CPU seconds, then
# "N passed, M failed"; exits non-zero when a target failed. The scratch
# files of the targets that read files (urls, template) go to /dev/shm
# when TMPDIR is unset: on a disk-backed /tmp they run four times slower.
#
#   scripts/fuzz.sh --smoke                  short run of every target (CI)
#   scripts/fuzz.sh --runs 10000000 h1_scan  long run of one target
#   scripts/fuzz.sh --seconds 600            every target for 10 minutes
#
# Options:
#   --runs N       stop each target after N executions (default 100000)
#   --seconds S    stop each target after S seconds (default: no limit)
#   --smoke        --runs 20000 --seconds 3
#   --timeout S    an input that runs longer than S seconds of wall clock
#                  is a failure (default 10; a long run at nice 19 on a
#                  busy machine can wait longer than that for a core)
#   --build DIR    build directory (default build-fuzz)
#   --keep DIR     grow DIR/<target> as the corpus instead of a temporary
#                  copy (seeded from tests/fuzz/corpus/<target>)
#   --list         print the target names and exit
# A crashing input is saved as <artifacts>/<target>-crash-<hash>; see
# tests/fuzz/README.md for reproducing it.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
targets_all=(h1_scan h2_frame h2_conn h2_hpack huffman qpack h3_response
	h3_peer quic_header quic_frame quic_tp quic_ack url cli)
targets_all+=(hdrv2 report urls template values script_req)
targets_all+=(elf proxy_connect h1_proxy ws_frame grpc_msg redis_resp)
targets_all+=(check_needed prom_answer dns_reply)
targets_all+=(url_ref qpack_fields h1_resp h1_pipe)
# Inputs longer than 4096 bytes where a target's seeds are (whole reports).
declare -A max_len_of=([report]=65536)
runs=100000
seconds=0
timeout=10
build=$root/build-fuzz
keep=
targets=()

usage() {
	sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=${2:?}; shift 2 ;;
	--seconds) seconds=${2:?}; shift 2 ;;
	--smoke) runs=20000; seconds=3; shift ;;
	--timeout) timeout=${2:?}; shift 2 ;;
	--build) build=${2:?}; shift 2 ;;
	--keep) keep=${2:?}; shift 2 ;;
	--list) printf '%s\n' "${targets_all[@]}"; exit 0 ;;
	-h|--help) usage ;;
	-*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
	*) targets+=("$1"); shift ;;
	esac
done
[ ${#targets[@]} -gt 0 ] || targets=("${targets_all[@]}")
for t in "${targets[@]}"; do
	if [ ! -d "$root/tests/fuzz/corpus/$t" ]; then
		echo "fuzz.sh: no target $t (see --list)" >&2
		exit 2
	fi
done

if ! command -v clang >/dev/null; then
	echo "fuzz.sh: clang is needed (scripts/setup.sh installs it)" >&2
	exit 2
fi
if [ ! -f "$build/build.ninja" ]; then
	CC=clang meson setup "$build" "$root" -Dfuzz=enabled \
		-Db_sanitize=address,undefined -Db_lundef=false \
		--buildtype=debugoptimized >/dev/null
fi
ninja -C "$build" "${targets[@]/#/tests/fuzz/fuzz_}" >/dev/null

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
artifacts=${keep:-$build/fuzz-artifacts}
mkdir -p "$artifacts"

# CPU seconds (user + system) of the finished children so far, from the
# second line of `times` ("XmY.YYYs XmY.YYYs"), into $cpu_now: run in this
# shell, since a subshell's children are not this shell's.
child_cpu() {
	times >"$work/times"
	cpu_now=$(awk 'NR == 2 {
		n = 0
		for (i = 1; i <= 2; i++) {
			split($i, a, "m"); sub("s", "", a[2]); n += a[1] * 60 + a[2]
		}
		printf "%d", n
	}' "$work/times")
}

if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
	export TMPDIR=/dev/shm
fi

passed=0
failed=0
start=$SECONDS
for t in "${targets[@]}"; do
	corpus=$work/$t
	if [ -n "$keep" ]; then
		corpus=$keep/$t
	fi
	mkdir -p "$corpus"
	cp -n "$root/tests/fuzz/corpus/$t"/* "$corpus"/
	log=$work/$t.log
	args=(-runs="$runs" -print_final_stats=1 -timeout="$timeout"
		-max_len="${max_len_of[$t]:-4096}"
		-artifact_prefix="$artifacts/$t-")
	[ "$seconds" -gt 0 ] && args+=(-max_total_time="$seconds")
	t0=$SECONDS
	child_cpu
	c0=$cpu_now
	rc=0
	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
	UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
		"$build/tests/fuzz/fuzz_$t" "${args[@]}" "$corpus" >"$log" 2>&1 ||
		rc=$?
	execs=$(awk '/stat::number_of_executed_units:/ {print $2}' "$log")
	child_cpu
	cpu=$((cpu_now - c0))
	if [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
		printf '%-12s %12s executions %5ss %5ss CPU ok\n' "$t" \
			"${execs:-?}" $((SECONDS - t0)) "$cpu"
	else
		failed=$((failed + 1))
		printf '%-12s %12s executions %5ss %5ss CPU FAILED (exit %s)\n' \
			"$t" "${execs:-?}" $((SECONDS - t0)) "$cpu" "$rc"
		grep -E 'ERROR|check failed|SUMMARY|Test unit written' "$log" |
			head -5 | sed 's/^/    /'
	fi
done
echo "fuzz: ${#targets[@]} targets in $((SECONDS - start))s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
