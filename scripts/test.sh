#!/usr/bin/env bash
# Every test: installs what is missing, builds, runs the unit and end-to-end
# suites, then the unit suites again under AddressSanitizer and
# UndefinedBehaviorSanitizer, then the interop suite against real servers.
# Ends with one line "N passed, M failed".
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh" --with-test-servers
cd "$root"

passed=0
failed=0
# run_suite LABEL BUILDDIR [meson test args]: runs and adds up the counts.
run_suite() {
	local label=$1 dir=$2 rc=0 log
	shift 2
	echo "== $label"
	log=$(mktemp)
	meson test -C "$dir" --print-errorlogs "$@" 2>&1 | tee "$log" || rc=$?
	local ok fail
	ok=$(awk '/^Ok:/ {print $2}' "$log")
	fail=$(awk '/^(Fail|Timeout|Unexpected Pass):/ {n += $NF} END {print n + 0}' "$log")
	rm -f "$log"
	passed=$((passed + ${ok:-0}))
	failed=$((failed + fail))
	if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
		failed=$((failed + 1)) # meson itself failed (build, setup)
	fi
}

run_suite "unit and end-to-end tests (release build)" build

if [ ! -f build-asan/build.ninja ]; then
	meson setup build-asan --buildtype=debug -Db_sanitize=address,undefined \
		-Db_lundef=false >/dev/null
fi
ninja -C build-asan >/dev/null
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	run_suite "unit tests under ASan+UBSan" build-asan --suite unit

# The interop suite: shb against every server Debian ships, over every
# protocol each speaks (it installs the servers it needs). One test.
echo "== interop suite"
plugins="$root/build/plugins/h1:$root/build/plugins/h2:$root/build/plugins/h3/plugin:$root/build/plugins/reporters"
if interop/run.sh --shb "$root/build/core/shb" --plugin-path "$plugins" \
	-o "$root/build/interop-results.md"; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
