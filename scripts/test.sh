#!/usr/bin/env bash
# Every test: installs every package any test needs, builds, runs the unit
# and end-to-end suites, then the unit and hostile-peer suites again under
# AddressSanitizer and UndefinedBehaviorSanitizer, then the interop suite
# against real servers, the fuzz smoke, clang's static analysis
# (scripts/analyze.sh), the SDK examples built out of tree
# from a staging install, and the Debian packages. Ends with one line "N passed, M failed, K skipped".
# A skipped test (exit 77: something it needs is missing) fails the run
# unless tests/allowed-skips.txt lists it with a reason.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh" --with-test-servers
cd "$root"

# tests/allowed-skips.txt: "test-name: reason" lines; # starts a comment.
allowed_file=tests/allowed-skips.txt
declare -A allowed=()
if [ -f "$allowed_file" ]; then
	while IFS= read -r line; do
		line=${line%%#*}
		[[ $line =~ ^[[:space:]]*([^:[:space:]]+)[[:space:]]*:[[:space:]]*([^[:space:]].*)$ ]] || {
			[[ -z ${line//[[:space:]]/} ]] && continue
			echo "test.sh: $allowed_file: '$line' is not 'test-name: reason'" >&2
			exit 2
		}
		allowed[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
	done <"$allowed_file"
fi

passed=0
failed=0
skipped=0
bad_skips=() # skipped and not allowed: "name (why)"

# skipped_test NAME WHY: counts a skip; one not allowed fails the run.
skipped_test() {
	skipped=$((skipped + 1))
	if [[ -n ${allowed[$1]:-} ]]; then
		echo "skipped (allowed: ${allowed[$1]}): $1" >&2
	else
		bad_skips+=("$1 (${2:-no reason given})")
	fi
}

# run_suite LABEL BUILDDIR [meson test args]: runs and adds up the counts.
run_suite() {
	local label=$1 dir=$2 rc=0 log
	shift 2
	echo "== $label"
	log=$(mktemp)
	# Read back below: must be this run's, not one a failed run left.
	rm -f "$dir/meson-logs/testlog.json"
	meson test -C "$dir" --print-errorlogs "$@" 2>&1 | tee "$log" || rc=$?
	local ok fail skip name why n=0
	ok=$(awk '/^Ok:/ {print $2}' "$log")
	fail=$(awk '/^(Fail|Timeout|Unexpected Pass):/ {n += $NF} END {print n + 0}' "$log")
	skip=$(awk '/^Skipped:/ {n += $2} END {print n + 0}' "$log")
	rm -f "$log"
	passed=$((passed + ${ok:-0}))
	failed=$((failed + fail))
	if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
		failed=$((failed + 1)) # meson itself failed (build, setup)
	fi
	# Which tests skipped and why (the "SKIP [script]: ..." line each
	# wrote), from meson's JSON log of this run: "name<TAB>reason" lines.
	while IFS=$'\t' read -r name why; do
		[ -n "$name" ] || continue
		skipped_test "$name" "$why"
		n=$((n + 1))
	done < <(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    t = json.loads(line)
    if t.get("result") != "SKIP":
        continue
    out = (t.get("stdout") or "") + (t.get("stderr") or "")
    why = [l[l.index("]:") + 2:].strip() for l in out.splitlines() if l.startswith("SKIP [") and "]:" in l]
    print(t["name"].split(" / ")[-1] + "\t" + (why[0] if why else ""))
' "$dir/meson-logs/testlog.json" 2>/dev/null || true)
	# Meson's "Skipped:" count is the truth: a skip the log did not
	# name is counted, and fails the run, all the same.
	while [ "$n" -lt "$skip" ]; do
		skipped_test "($label: a skipped test not named in its log)" ""
		n=$((n + 1))
	done
}

run_suite "unit and end-to-end tests (release build)" build

if [ ! -f build-asan/build.ninja ]; then
	meson setup build-asan --buildtype=debug -Db_sanitize=address,undefined \
		-Db_lundef=false >/dev/null
fi
ninja -C build-asan >/dev/null
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	run_suite "unit tests and the hostile-peer suite under ASan+UBSan" build-asan \
	--suite unit --suite hostile

# The interop suite: shb against every server Debian ships, over every
# protocol each speaks. Setup installed them all: --no-install makes a
# missing one a skip (exit 77) rather than an install in mid-run. One test.
echo "== interop suite"
plugins="$root/build/plugins/h1:$root/build/plugins/h2:$root/build/plugins/h3/plugin:$root/build/plugins/reporters"
rc=0
interop/run.sh --no-install --shb "$root/build/core/shb" --plugin-path "$plugins" \
	-o "$root/build/interop-results.md" || rc=$?
case $rc in
0) passed=$((passed + 1)) ;;
77) skipped_test interop "a server or plugin is missing (see its matrix above)" ;;
*) failed=$((failed + 1)) ;;
esac

# ---- fuzz smoke (tests/fuzz): every libFuzzer target briefly, from its
# seeds, in its own clang build (build-fuzz). One test.
echo "== fuzz smoke"
if ! command -v clang >/dev/null; then
	skipped_test fuzz-smoke "clang is not installed"
elif scripts/fuzz.sh --smoke --build "$root/build-fuzz"; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
fi
# ---- end of fuzz smoke

# ---- static analysis (scripts/analyze.sh): clang's analyzer over core/,
# plugins/ and sdk/ in its own build (build-analyze); a finding not listed
# in tests/analyze-known.txt with its reason fails. One test.
echo "== static analysis"
rc=0
scripts/analyze.sh --build "$root/build-analyze" || rc=$?
case $rc in
0) passed=$((passed + 1)) ;;
*) failed=$((failed + 1)) ;;
esac
# ---- end of static analysis

# ---- the plugin author's path (scripts/sdk-check.sh): install into a
# staging prefix, build every sdk/examples/* project out of tree against it
# alone, check its plugin, run its tests against real servers. Its own
# closing line's counts are added to ours.
echo "== SDK examples, built from the installed SDK"
rc=0
sdk_log=$(mktemp)
scripts/sdk-check.sh --build "$root/build-sdk" 2>&1 | tee "$sdk_log" || rc=$?
if read -r p _ f _ k _ < <(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$sdk_log" | tail -n 1); then
	passed=$((passed + p))
	failed=$((failed + f))
	for ((i = 0; i < k; i++)); do
		skipped_test sdk-check "a step of scripts/sdk-check.sh skipped"
	done
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		failed=$((failed + 1))
	fi
else
	failed=$((failed + 1)) # it ended without its closing line
fi
rm -f "$sdk_log"
# ---- end of the plugin author's path

# ---- Debian packages (scripts/deb-check.sh): build from a copy of the
# tree, lintian, install, run the installed shb, remove a plugin package,
# purge. One test; 77 when it cannot install here (no root, no sudo).
echo "== Debian packages"
rc=0
scripts/deb-check.sh --build "$root/build" || rc=$?
case $rc in
0) passed=$((passed + 1)) ;;
77) skipped_test deb-check "packages cannot be installed here (needs root or sudo)" ;;
*) failed=$((failed + 1)) ;;
esac
# ---- end of Debian packages

for s in "${bad_skips[@]+"${bad_skips[@]}"}"; do
	echo "skipped, and not listed in $allowed_file: $s" >&2
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "${#bad_skips[@]}" -eq 0 ]
