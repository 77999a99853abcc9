#!/usr/bin/env bash
# Every test: installs what is missing, builds, runs the unit and end-to-end
# suites, then the unit suites again under AddressSanitizer and
# UndefinedBehaviorSanitizer.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh" --with-test-servers
cd "$root"

echo "== unit and end-to-end tests (release build)"
meson test -C build --print-errorlogs

echo "== unit tests under ASan+UBSan"
if [ ! -f build-asan/build.ninja ]; then
	meson setup build-asan --buildtype=debug -Db_sanitize=address,undefined \
		-Db_lundef=false >/dev/null
fi
ninja -C build-asan >/dev/null
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	meson test -C build-asan --suite unit --print-errorlogs
