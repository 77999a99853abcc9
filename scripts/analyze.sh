#!/usr/bin/env bash
# Static analysis: clang's analyzer (scan-build, clang-tools-14) over
# everything a -Dtests=false build compiles: core/, common/, plugins/ and
# sdk/ (the test harness, tests/harness, is built only with the tests and
# is left out), in its own build directory. Each finding is keyed by file,
# function, checker and message (no line numbers, so that edits elsewhere
# do not move it) and must be listed in tests/analyze-known.txt with the
# reason it is not a bug:
#
#     core/x.c | function | checker | message | why it is not a bug
#
# A finding not listed is printed in that form with its line and fails the
# run; a listed one no longer found is named, so that its line can go.
#
#   scripts/analyze.sh [--build DIR]    (default: build-analyze)
#
# Exits 0 when every finding is listed, 1 when one is not, 2 when the
# analysis could not run. It re-analyzes every file each time (about 5 CPU
# minutes).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$root/build-analyze
while (($#)); do
	case $1 in
	--build) build=$(realpath -m "${2:?--build needs a directory}"); shift 2 ;;
	*) echo "analyze.sh: unknown option $1 (known: --build DIR)" >&2; exit 2 ;;
	esac
done
known=$root/tests/analyze-known.txt
scan=$(command -v scan-build-14 || command -v scan-build || true)
if [ -z "$scan" ] || ! command -v clang >/dev/null; then
	echo "analyze.sh: scan-build and clang are needed (scripts/setup.sh --with-test-servers installs clang-tools-14)" >&2
	exit 2
fi
if [ ! -f "$build/build.ninja" ]; then
	CC=clang "$scan" meson setup "$build" "$root" -Dtests=false \
		--buildtype=debug >/dev/null
fi
# Every file again: scan-build analyzes only what the build compiles.
ninja -C "$build" -t clean >/dev/null
out=$build/scan
rm -rf "$out"
if ! "$scan" -plist -o "$out" ninja -C "$build" >"$build/scan.log" 2>&1; then
	tail -n 20 "$build/scan.log" >&2
	echo "analyze.sh: the analyzed build failed (log: $build/scan.log)" >&2
	exit 2
fi
python3 - "$root" "$build" "$out" "$known" <<'PY'
import glob, os, plistlib, sys

root, build, out, known_path = sys.argv[1:5]
known = {}
for n, line in enumerate(open(known_path), 1):
    line = line.strip()
    if not line or line.startswith('#'):
        continue
    f = [x.strip() for x in line.split('|')]
    if len(f) != 5 or not all(f):
        sys.exit(f"analyze.sh: {known_path}:{n}: not 'file | function | "
                 f"checker | message | reason'")
    known[tuple(f[:4])] = f[4]
found = {}
for p in glob.glob(os.path.join(out, '**', '*.plist'), recursive=True):
    with open(p, 'rb') as fh:
        d = plistlib.load(fh)
    for g in d.get('diagnostics', []):
        loc = g['location']
        path = os.path.relpath(os.path.realpath(
            os.path.join(build, d['files'][loc['file']])), root)
        key = (path, g.get('issue_context', '-') or '-',
               g.get('check_name', '?'), g['description'])
        found.setdefault(key, loc['line'])
new = sorted(k for k in found if k not in known)
for k in sorted(found):
    print(f"{'known' if k in known else 'NEW'}: {k[0]}:{found[k]}: "
          f"{k[1]}: {k[3]} [{k[2]}]")
for k in sorted(set(known) - set(found)):
    print(f"no longer found (remove its line): {' | '.join(k)}")
print(f"{len(found)} findings, {len(found) - len(new)} known, {len(new)} new")
for k in new:
    print(f"  add if not a bug: {' | '.join(k)} | WHY", file=sys.stderr)
sys.exit(1 if new else 0)
PY
