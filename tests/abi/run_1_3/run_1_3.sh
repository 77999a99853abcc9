#!/bin/bash
# A protocol that is not HTTP, built against the frozen ABI 1.3 headers
# (line_proto.c, as line13), loads and runs unchanged on the current
# core: the loader takes it as minor 3, and a pipelined run through it
# against a line server does exactly the requests asked for, its error replies counted as
# application errors in its private outcome space (by number: a 1.3 build
# names no outcomes). -L, which needs 1.4's issue_req, is refused with one
# line before any traffic (the server's count stays 200).
#
# SHB_V13_PLUGIN_DIR (set by meson): the directory holding it.
source "$(dirname "$0")/../../e2e/lib.sh"
need SHB SHB_JCHECK
[[ -f "$SHB_V13_PLUGIN_DIR/shb-proto-line13.so" ]] ||
	fail "the 1.3 fixture is not in SHB_V13_PLUGIN_DIR ($SHB_V13_PLUGIN_DIR)"

note "--list-plugins takes it as ABI minor 3"
list="$E2E_TMP/list.txt"
rc=0
timeout -k 5 30 "$SHB" --plugin-dir "$SHB_V13_PLUGIN_DIR" --list-plugins \
	>"$list" 2>&1 || rc=$?
grep -q "shb-proto-line13.so: org.shb.test.line13 1.3.0, ABI 1.3$" "$list" ||
	{ cat "$list" >&2; fail "the 1.3 protocol is not listed as ABI 1.3"; }
grep -Eq "^  protocol line13 " "$list" ||
	{ cat "$list" >&2; fail "protocol line13 missing from the listing"; }
[[ $rc -eq 0 ]] || { cat "$list" >&2; fail "--list-plugins exited $rc"; }

note "-n 200 -c 2 -p 4 through the 1.3 protocol against the line server"
portfile=$E2E_TMP/line.port
python3 "$LINE_SERVER" "$portfile" 2>"$E2E_TMP/line.log" &
srv=$!
E2E_PIDS+=("$srv")
for _ in $(seq 1 100); do
	[[ -s "$portfile" ]] && break
	sleep 0.05
done
[[ -s "$portfile" ]] || { cat "$E2E_TMP/line.log" >&2; fail "the line server did not start"; }
port=$(cat "$portfile")
run_shb line --plugin-dir "$SHB_V13_PLUGIN_DIR" --proto line13 \
	-n 200 -c 2 -p 4 "line://127.0.0.1:$port/"
expect_rc line 0
# Every tenth answer of the server is an error reply: 20 of 200.
check line 'requests.total == 200' 'requests.ok == 180' 'requests.errors == 20' \
	'errors.application == 20' 'errors.connect == 0' 'errors.read == 0' \
	'errors.protocol == 0' 'connectionsOpened == 2'
[[ ! -s "$E2E_TMP/line.stderr" ]] || { show_run line; fail "shb wrote to stderr"; }

note "-L needs ABI 1.4's issue_req: refused with one line, exit 2, nothing sent"
run_shb follow --plugin-dir "$SHB_V13_PLUGIN_DIR" --proto line13 -L \
	-n 10 "line://127.0.0.1:$port/"
expect_rc follow 2
want='shb: -L/--location: protocol line13 cannot send a redirect'"'"'s next hop (it has no issue_req, ABI 1.4)'
[[ "$(cat "$E2E_TMP/follow.stderr")" == "$want" ]] ||
	{ show_run follow; fail "follow: expected exactly: $want"; }
kill -TERM "$srv"
wait "$srv" || true
grep -qx "answered 200" "$E2E_TMP/line.log" ||
	{ cat "$E2E_TMP/line.log" >&2; fail "the server did not answer exactly 200 lines"; }
note "passed"
