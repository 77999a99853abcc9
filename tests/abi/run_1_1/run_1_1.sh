#!/bin/bash
# A protocol plugin and a reporter built against the frozen ABI 1.1
# headers (proto_1_1.c, report_1_1.c) load and run unchanged on the
# current core: the loader takes them as minor 1, a run through them
# against shb-testserver does exactly the requests asked for, and the 1.1
# reporter, which cannot see a 1.2 member, is handed the core's larger
# structs (it prints their struct_size) and copes.
#
# SHB_V11_PLUGIN_DIR (set by meson): the directory holding the two.
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID, NAME_STATS: set by start_testserver
source "$(dirname "$0")/../../e2e/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK
[[ -f "$SHB_V11_PLUGIN_DIR/shb-proto-v11h1.so" && \
   -f "$SHB_V11_PLUGIN_DIR/shb-report-v11.so" ]] ||
	fail "the 1.1 fixtures are not in SHB_V11_PLUGIN_DIR ($SHB_V11_PLUGIN_DIR)"
# The sizes of struct shb_results and struct shb_run_info of the current
# ABI (1.4) on x86-64 (tests/abi/layout_1_4_x86_64.c); a 1.1 build knows
# 128 and 88.
RESULTS_1_2=408
RUN_INFO_1_2=296

note "--list-plugins takes both as ABI minor 1"
list="$E2E_TMP/list.txt"
rc=0
timeout -k 5 30 "$SHB" --plugin-dir "$SHB_V11_PLUGIN_DIR" --list-plugins \
	>"$list" 2>&1 || rc=$?
grep -q "shb-proto-v11h1.so: org.shb.test.v11proto 1.1.0, ABI 1.1$" "$list" ||
	{ cat "$list" >&2; fail "the 1.1 protocol is not listed as ABI 1.1"; }
grep -q "shb-report-v11.so: org.shb.test.v11report 1.1.0, ABI 1.1$" "$list" ||
	{ cat "$list" >&2; fail "the 1.1 reporter is not listed as ABI 1.1"; }
grep -Eq "^  protocol v11h1 " "$list" ||
	{ cat "$list" >&2; fail "protocol v11h1 missing from the listing"; }
grep -Eq "^  reporter v11 " "$list" ||
	{ cat "$list" >&2; fail "reporter v11 missing from the listing"; }
if grep -Eiq "refus|warn|error" "$list"; then
	cat "$list" >&2
	fail "--list-plugins complained"
fi
[[ $rc -eq 0 ]] || { cat "$list" >&2; fail "--list-plugins exited $rc"; }

note "-n 200 -c 4 through the 1.1 protocol, reported by the 1.1 reporter"
start_testserver srv hello
out="$E2E_TMP/run.out"
err="$E2E_TMP/run.err"
rc=0
timeout -k 5 "$E2E_RUN_LIMIT" "$SHB" -q --plugin-dir "$SHB_V11_PLUGIN_DIR" \
	--proto v11h1 --report v11 -n 200 -c 4 "http://127.0.0.1:$srv_PORT/" \
	>"$out" 2>"$err" </dev/null || rc=$?
show() {
	echo "--- stdout:" >&2; cat "$out" >&2
	echo "--- stderr:" >&2; cat "$err" >&2
}
[[ $rc -eq 0 ]] || { show; fail "shb exited $rc"; }
expected="results_struct_size $RESULTS_1_2
run_info_struct_size $RUN_INFO_1_2
run_info_sizes_match 1
proto_name v11h1
requests_target 200
requests_total 200
requests_ok 200
requests_errors 0
status_200 200
latency_count 200
bytes_received_nonzero 1
instance 1
begins 1
url http://127.0.0.1:$srv_PORT/"
[[ "$(cat "$out")" == "$expected" ]] ||
	{ show; echo "--- expected:" >&2; echo "$expected" >&2; fail "the 1.1 reporter's output differs"; }
[[ ! -s "$err" ]] || { show; fail "shb wrote to stderr"; }
stop_server "$srv_PID"
# Exactly the 200 requests reached the server, over the 4 connections.
check_file "$srv_STATS" 'requests == 200' 'accepted == 4'

note "a comparison of two targets: a fresh 1.1 reporter instance per run"
start_testserver one hello
start_testserver two hello
rc=0
timeout -k 5 "$E2E_RUN_LIMIT" "$SHB" -q --plugin-dir "$SHB_V11_PLUGIN_DIR" \
	--proto v11h1 --report v11 -n 30 -c 2 "a=http://127.0.0.1:$one_PORT/" \
	"http://127.0.0.1:$two_PORT/" >"$out" 2>"$err" </dev/null || rc=$?
[[ $rc -eq 0 ]] || { show; fail "compare: shb exited $rc"; }
block() { # block N PORT: the lines of the Nth instance's report
	echo "results_struct_size $RESULTS_1_2
run_info_struct_size $RUN_INFO_1_2
run_info_sizes_match 1
proto_name v11h1
requests_target 30
requests_total 30
requests_ok 30
requests_errors 0
status_200 30
latency_count 30
bytes_received_nonzero 1
instance $1
begins 1
url http://127.0.0.1:$2/"
}
expected="$(block 1 "$one_PORT")
$(block 2 "$two_PORT")"
[[ "$(cat "$out")" == "$expected" ]] ||
	{ show; echo "--- expected:" >&2; echo "$expected" >&2; fail "compare: the 1.1 reporter's output differs"; }
[[ ! -s "$err" ]] || { show; fail "compare: shb wrote to stderr"; }
stop_server "$one_PID"
stop_server "$two_PID"
check_file "$one_STATS" 'requests == 30' 'accepted == 2'
check_file "$two_STATS" 'requests == 30' 'accepted == 2'
note "passed"
