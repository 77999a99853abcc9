#!/bin/bash
# The loader through the shb binary: a 1.2 protocol without timers runs a
# whole load with an exact count, a refused copy in --plugin-dir warns and
# fails when named by path, a bad descriptor table is one line and exit 2,
# a reporter is found by its descriptor name inside a file of another
# name, a plugin that crashes in init() costs a lookup nothing (and is one
# line and exit 2 when named), and --list-plugins survives it and exits 1.
#
# Environment (set by meson): SHB, SHB_TESTSERVER, SHB_JCHECK,
# SHB_TEST_FIXTURES (the loader fixtures: *.so and *.so.fx),
# SHB_REPORTERS_DIR (the built reporters: the report of each run is JSON),
# SHB_H1_DIR (the built h1 plugin).
# shellcheck disable=SC2154 # srv_PORT, srv_PID, srv_STATS: set by start_testserver
source "$(dirname "$0")/../e2e/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK
[[ -d "${SHB_TEST_FIXTURES:-}" ]] || fail "SHB_TEST_FIXTURES is not a directory"
fx=$SHB_TEST_FIXTURES

[[ -d "${SHB_REPORTERS_DIR:-}" ]] || fail "SHB_REPORTERS_DIR is not a directory"
[[ -d "${SHB_H1_DIR:-}" ]] || fail "SHB_H1_DIR is not a directory"
# Only the directories this script makes and the built reporters: no
# installed plugin may answer.
export SHB_PLUGIN_PATH=""
export SHB_PLUGIN_SYSTEM_PATH="$E2E_TMP/sys:$SHB_REPORTERS_DIR"
good="$E2E_TMP/good" bad="$E2E_TMP/bad" rep="$E2E_TMP/rep" probe="$E2E_TMP/probe"
mkdir -p "$E2E_TMP/sys" "$good" "$bad" "$rep" "$probe"
ln -s "$fx/notimer.so.fx" "$good/shb-proto-notimer.so"
# A build for a newer ABI minor, under the same name, earlier in the path.
ln -s "$fx/shb-proto-minor7.so" "$bad/shb-proto-notimer.so"
ln -s "$fx/prom.so.fx" "$rep/shb-report-prom.so"
ln -s "$fx/crash-init.so.fx" "$probe/shb-proto-crash.so"
ln -s "$fx/notimer.so.fx" "$probe/shb-proto-notimer.so"
minor=$("$SHB" --version | sed -n 's/.*plugin ABI \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
read -r abi_major abi_minor <<<"$minor"
[[ -n "$abi_major" && -n "$abi_minor" ]] || fail "no ABI version in shb --version"
refusal="needs shb ABI $abi_major.$((abi_minor + 7)), this shb provides $abi_major.$abi_minor"

start_testserver srv hello
url="http://127.0.0.1:$srv_PORT/"

note "1.2 protocol without timers: -c 4 -n 500"
run_shb notimer --plugin-dir "$good" --proto notimer -c 4 -n 500 "$url"
expect_rc notimer 0
check notimer 'requests.total == 500' 'requests.ok == 500' \
	'statusCodes.200 == 500' 'protocolName == "notimer"'
check_no_errors notimer
[[ ! -s "$E2E_TMP/notimer.stderr" ]] || { show_run notimer; fail "unexpected stderr"; }

note "a refused copy earlier in the path: one warning, the good copy runs"
run_shb warned --plugin-dir "$bad" --plugin-dir "$good" --proto notimer -c 2 -n 100 "$url"
expect_rc warned 0
check warned 'requests.ok == 100'
want="shb: warning: skipped $bad/shb-proto-notimer.so: $refusal; using $good/shb-proto-notimer.so"
[[ "$(cat "$E2E_TMP/warned.stderr")" == "$want" ]] ||
	{ show_run warned; fail "stderr is not the one warning line: $want"; }

note "the refused copy named by path: exit 2, one line, nothing sent"
run_shb explicit --plugin-dir "$good" --proto "$bad/shb-proto-notimer.so" -n 10 "$url"
expect_rc explicit 2
want="shb: $bad/shb-proto-notimer.so: $refusal"
[[ "$(cat "$E2E_TMP/explicit.stderr")" == "$want" ]] ||
	{ show_run explicit; fail "stderr is not: $want"; }

note "a bad scheme table: exit 2, one line"
run_shb defs --proto "$fx/defs1.so.fx" -n 10 "$url"
expect_rc defs 2
want="shb: $fx/defs1.so.fx: protocol descriptor has a bad scheme \"W s\" (lower case letter, then [a-z0-9+.-])"
[[ "$(cat "$E2E_TMP/defs.stderr")" == "$want" ]] ||
	{ show_run defs; fail "stderr is not: $want"; }

note "--report md finds reporter md in shb-report-prom.so"
run_shb md --plugin-dir "$good" --plugin-dir "$rep" --proto notimer --report md -n 20 "$url"
expect_rc md 0
check md 'requests.ok == 20'
note "a plugin that crashes in init() first in the path: --proto h1 and --report md run"
run_shb crashpath --plugin-dir "$probe" --plugin-dir "$rep" --plugin-dir "$SHB_H1_DIR" \
	--proto h1 --report md -n 20 "$url"
expect_rc crashpath 0
check crashpath 'requests.ok == 20'
[[ ! -s "$E2E_TMP/crashpath.stderr" ]] || { show_run crashpath; fail "unexpected stderr"; }

note "the crashing plugin named: exit 2, one line, nothing sent"
run_shb crashnamed --plugin-dir "$probe" --proto crash -n 10 "$url"
expect_rc crashnamed 2
want="shb: $probe/shb-proto-crash.so: crashed (signal 4) in init()"
[[ "$(cat "$E2E_TMP/crashnamed.stderr")" == "$want" ]] ||
	{ show_run crashnamed; fail "stderr is not: $want"; }
stop_server "$srv_PID"
# Every run that was not refused reached the server, and only those.
check_file "$srv_STATS" 'requests == 640' 'protocolErrors == 0'

note "--list-plugins: a crash in init is listed and the listing goes on"
RC=0
"$SHB" --list-plugins --plugin-dir "$probe" >"$E2E_TMP/list.out" 2>"$E2E_TMP/list.err" || RC=$?
[[ $RC -eq 1 ]] || { cat "$E2E_TMP/list.out" "$E2E_TMP/list.err" >&2; fail "--list-plugins exited $RC, want 1"; }
grep -qxF "$probe/shb-proto-crash.so: REFUSED: crashed (signal 4) in init()" "$E2E_TMP/list.out" ||
	{ cat "$E2E_TMP/list.out" >&2; fail "no crash line"; }
grep -qxF "  protocol notimer      fixture protocol without timers (ABI 1.2)" "$E2E_TMP/list.out" ||
	{ cat "$E2E_TMP/list.out" >&2; fail "the listing stopped at the crash"; }
RC=0
"$SHB" --list-plugins --plugin-dir "$good" >"$E2E_TMP/list2.out" 2>&1 || RC=$?
[[ $RC -eq 0 ]] || { cat "$E2E_TMP/list2.out" >&2; fail "--list-plugins of good plugins exited $RC"; }
note "ok"
