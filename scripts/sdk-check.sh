#!/usr/bin/env bash
# The plugin author's path, as an outsider takes it: build shb, install it
# into a staging prefix, then build every project under sdk/examples/*/
# from a copy outside the source tree, against that prefix alone
# (pkg-config shb-plugin-1 with PKG_CONFIG_LIBDIR and PKG_CONFIG_PATH set
# to the staging prefix only), check that its plugin exports only the
# entry and passes the installed shb-plugin-check, and run its own tests,
# which run the installed shb with that plugin against a real server.
#
#   scripts/sdk-check.sh [--build DIR] [EXAMPLE...]   (default: build-sdk,
#                                                    every example)
#
# An example is a meson project whose `meson test` runs its unit tests
# and its end-to-end tests: the installed shb (the environment's SHB, set
# here to the staging prefix's, which is also first on PATH) with the
# plugin just built against a real server the test starts and stops
# itself, asserting exact counts. An example whose plugin needs more than
# the checker's defaults to be checked (another plugin's extension, a
# request path of its own) lists the checker's options in its
# plugin-check.args: one option and its value per line, '#' comments,
# @plugindir@ replaced by the staging prefix's plugin directory (the
# grpc example names the installed shb-proto-h2.so there) and @srcdir@ by
# the example's copy (its corpus of replies, --replies @srcdir@/tests/replies). Prints one
# line per step and per test
# and ends with "N passed, M failed, K skipped"; exits non-zero unless all
# passed.
# shellcheck disable=SC2317 # the functions below run through step
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$root/build-sdk
only=()
while (($#)); do
	case $1 in
	--build) work=$(realpath -m "${2:?--build needs a directory}"); shift 2 ;;
	-*) echo "sdk-check.sh: unknown option $1 (known: --build DIR)" >&2; exit 2 ;;
	*) [ -f "$root/sdk/examples/$1/meson.build" ] ||
		{ echo "sdk-check.sh: no example $1 under sdk/examples" >&2; exit 2; }
	   only+=("$1"); shift ;;
	esac
done

passed=0
failed=0
skipped=0
logs=$work/logs
mkdir -p "$logs"

# step NAME CMD...: runs CMD with its output in logs/NAME.log; one line.
step() {
	local name=$1 rc=0
	shift
	"$@" >"$logs/$name.log" 2>&1 || rc=$?
	case $rc in
	0) passed=$((passed + 1)); echo "ok: $name" ;;
	77) skipped=$((skipped + 1)); echo "SKIP: $name ($(tail -n 1 "$logs/$name.log"))" ;;
	*) failed=$((failed + 1)); echo "FAIL: $name (exit $rc; last lines of $logs/$name.log:)"
	   tail -n 15 "$logs/$name.log" | sed 's/^/    /' ;;
	esac
	return "$rc"
}

finish() {
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ] && [ "$skipped" -eq 0 ]
	exit
}

build=$work/shb
stage=$work/stage

# ---- shb into the staging prefix ------------------------------------------

configure() {
	if [ -f "$build/build.ninja" ]; then
		meson configure "$build" -Dprefix="$stage"
	else
		meson setup "$build" "$root" --prefix="$stage" --buildtype=release \
			-Dtests=false
	fi
}

install_stage() {
	rm -rf "$stage"
	meson install -C "$build" --no-rebuild
}

step shb-setup configure || finish
step shb-build ninja -C "$build" || finish
step shb-install install_stage || finish

pcfile=$(find "$stage" -name shb-plugin-1.pc -print -quit)
pcdir=$(dirname "${pcfile:-/nonexistent/x}")
# Only the staging prefix: nothing from the system or the source tree.
export PKG_CONFIG_LIBDIR=$pcdir PKG_CONFIG_PATH=$pcdir
shb=$stage/bin/shb

# What the .pc file says matches version.h and the staging prefix.
check_pc() {
	local h=$root/sdk/include/shb/version.h major minor ver cflags ld
	major=$(awk '$1 == "#define" && $2 == "SHB_ABI_MAJOR" {print $3}' "$h")
	minor=$(awk '$1 == "#define" && $2 == "SHB_ABI_MINOR" {print $3}' "$h")
	ver=$(awk '$1 == "#define" && $2 == "SHB_VERSION_STRING" {gsub(/"/, "", $3); print $3}' "$h")
	[ -n "$pcfile" ] || { echo "no shb-plugin-1.pc under $stage"; return 1; }
	cflags=$(pkg-config --cflags shb-plugin-1)
	ld=$(pkg-config --variable=plugin_ldflags shb-plugin-1)
	echo "cflags: $cflags"
	echo "plugin_ldflags: $ld"
	[ "$(pkg-config --modversion shb-plugin-1)" = "$ver" ] || { echo "version is not $ver"; return 1; }
	[ "$(pkg-config --variable=abi_major shb-plugin-1)" = "$major" ] || { echo "abi_major is not $major"; return 1; }
	[ "$(pkg-config --variable=abi_minor shb-plugin-1)" = "$minor" ] || { echo "abi_minor is not $minor"; return 1; }
	[[ " $cflags " == *" -I$stage/include/shb-1 "* ]] || { echo "Cflags lack -I$stage/include/shb-1"; return 1; }
	[[ " $cflags " == *" -fvisibility=hidden "* ]] || { echo "Cflags lack -fvisibility=hidden"; return 1; }
	[ "$ld" = "-Wl,--version-script=$stage/share/shb-1/plugin.map -Wl,-z,defs" ] ||
		{ echo "plugin_ldflags is not the version script and -z defs"; return 1; }
	[ -f "$stage/share/shb-1/plugin.map" ] || { echo "plugin.map is not installed"; return 1; }
	[ -f "$stage/include/shb-1/shb/define.h" ] || { echo "shb/define.h is not installed"; return 1; }
	[ "$(pkg-config --variable=plugindir shb-plugin-1)" = "$(dirname "$pcdir")/shb/plugins" ] ||
		{ echo "plugindir is not under the staging libdir"; return 1; }
}
step pkg-config check_pc

# A project version that differs from version.h's stops meson setup.
version_drift() {
	local copy=$work/drift out
	rm -rf "$copy"
	mkdir -p "$copy"
	# The tree's files (tracked or not, never ignored ones like builds).
	(cd "$root" && git ls-files -co --exclude-standard -z | grep -zv '^sdk/examples/' |
		tar --null -T - --ignore-failed-read -cf - 2>/dev/null) |
		tar -xf - -C "$copy" || return 1
	sed -i "0,/version: '[^']*'/s//version: '9.9.9'/" "$copy/meson.build"
	grep -q "version: '9.9.9'" "$copy/meson.build" || { echo "could not change the version"; return 1; }
	# The system's pkg-config paths: shb's own dependencies.
	if out=$(env -u PKG_CONFIG_LIBDIR -u PKG_CONFIG_PATH \
		meson setup "$copy/build" "$copy" -Dtests=false 2>&1); then
		echo "$out"
		echo "meson setup accepted version 9.9.9 against version.h"
		return 1
	fi
	echo "$out" | tail -n 3
	rm -rf "$copy"
	echo "$out" | grep -q "the project version (9.9.9) differs from SHB_VERSION_STRING"
}
step version-drift-refused version_drift

# ---- every example, out of tree -------------------------------------------

# Only the entry is exported (hidden visibility and the version script
# came from the .pc file).
exports_only_entry() {
	local so=$1 syms
	syms=$(nm -D --defined-only "$so" | awk '{print $3}' | sort)
	echo "exported: $syms"
	[ "$syms" = shb_plugin_entry_v1 ]
}

# check_args FILE SRCDIR: the checker's options from an example's
# plugin-check.args, one per array element, into check_opts.
check_args() {
	local line plugindir
	local -a words
	check_opts=()
	[ -f "$1" ] || return 0
	plugindir=$(pkg-config --variable=plugindir shb-plugin-1)
	while IFS= read -r line; do
		line=${line%%#*}
		line=${line//@plugindir@/$plugindir}
		line=${line//@srcdir@/$2}
		read -ra words <<<"$line"
		check_opts+=("${words[@]}")
	done <"$1"
}

# run_tests NAME BUILDDIR: meson test; one line and one count per test.
run_tests() {
	local name=$1 bld=$2 rc=0 n=0 res t
	rm -f "$bld/meson-logs/testlog.json"
	SHB=$shb PATH=$stage/bin:$PATH meson test -C "$bld" --print-errorlogs \
		>"$logs/$name-test.log" 2>&1 || rc=$?
	while IFS=$'\t' read -r res t; do
		n=$((n + 1))
		case $res in
		OK) passed=$((passed + 1)); echo "ok: $name/$t" ;;
		SKIP) skipped=$((skipped + 1)); echo "SKIP: $name/$t" ;;
		*) failed=$((failed + 1)); echo "FAIL: $name/$t ($res; see $logs/$name-test.log)" ;;
		esac
	done < <(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    t = json.loads(line)
    print(t["result"] + "\t" + t["name"].split(" / ")[-1])
' "$bld/meson-logs/testlog.json" 2>/dev/null)
	# None ran (meson itself failed), or one failed: show the end of
	# the log.
	if [ "$n" -eq 0 ]; then
		failed=$((failed + 1))
		echo "FAIL: $name tests (none ran, exit $rc)"
	fi
	if [ "$rc" -ne 0 ]; then
		grep -E '^(FAIL|SKIP) \[' "$logs/$name-test.log" | head -n 20 | sed 's/^/    /'
		tail -n 15 "$logs/$name-test.log" | sed 's/^/    /'
	fi
}

for ex in "$root"/sdk/examples/*/; do
	[ -f "$ex/meson.build" ] || continue
	name=$(basename "$ex")
	[ ${#only[@]} -eq 0 ] || [[ " ${only[*]} " == *" $name "* ]] || continue
	src=$work/examples/$name/src
	bld=$work/examples/$name/build
	rm -rf "$work/examples/$name"
	mkdir -p "$src"
	# A copy outside the source tree: a path into it cannot work.
	cp -r "$ex/." "$src/"
	step "$name-setup" meson setup "$bld" "$src" --prefix="$stage" || continue
	step "$name-build" ninja -C "$bld" || continue
	so=$(find "$bld" -maxdepth 1 -name 'shb-*.so' -print -quit)
	step "$name-exports" exports_only_entry "${so:-$bld/none.so}"
	# The installed conformance checker passes on the example's plugin,
	# given what its plugin-check.args says it needs.
	check_args "$src/plugin-check.args" "$src"
	step "$name-plugin-check" "$stage/bin/shb-plugin-check" "${check_opts[@]}" \
		"${so:-$bld/none.so}"
	run_tests "$name" "$bld"
done

finish
