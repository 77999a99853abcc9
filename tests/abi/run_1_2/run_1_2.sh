#!/bin/bash
# A reporter built against the frozen ABI 1.2 headers (report_1_2.c)
# loads and runs unchanged on the current core: listed as ABI minor 2, its
# declared option accepted and an undeclared one refused, sample() called
# with interval deltas, and the 1.2 members it reads filled in, while the
# core hands it its larger current structs.
#
# SHB_V12_PLUGIN_DIR (set by meson): the directory holding the reporter.
# shellcheck disable=SC2154 # srv_PORT, srv_PID, srv_STATS: set by start_testserver
source "$(dirname "$0")/../../e2e/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK
[[ -f "$SHB_V12_PLUGIN_DIR/shb-report-v12.so" ]] ||
	fail "the 1.2 fixture is not in SHB_V12_PLUGIN_DIR ($SHB_V12_PLUGIN_DIR)"
# struct shb_results of ABI 1.4 on x86-64 (tests/abi/layout_1_4_x86_64.c);
# a 1.2 build knows 304.
RESULTS_NOW=408

note "--list-plugins takes it as ABI minor 2"
list="$E2E_TMP/list.txt"
rc=0
timeout -k 5 30 "$SHB" --plugin-dir "$SHB_V12_PLUGIN_DIR" --list-plugins \
	>"$list" 2>&1 || rc=$?
grep -q "shb-report-v12.so: org.shb.test.v12report 1.2.0, ABI 1.2$" "$list" ||
	{ cat "$list" >&2; fail "the 1.2 reporter is not listed as ABI 1.2"; }
if grep -Eiq "refus|warn|error" "$list"; then
	cat "$list" >&2
	fail "--list-plugins complained"
fi
[[ $rc -eq 0 ]] || { cat "$list" >&2; fail "--list-plugins exited $rc"; }

note "an option the 1.2 reporter does not declare is refused before traffic"
rc=0
err1=$("$SHB" -q --plugin-dir "$SHB_V12_PLUGIN_DIR" --report v12 \
	--report-opt v12.colour=red -n 1 http://127.0.0.1:9/ 2>&1 >/dev/null) || rc=$?
[[ $rc -eq 2 && "$err1" == *colour* && "$err1" == *tag* ]] ||
	fail "undeclared option: exit $rc, '$err1'"

note "-n 300 at 400 requests/s over 3 connections, reported by the 1.2 reporter"
start_testserver srv hello
out="$E2E_TMP/run.out"
err="$E2E_TMP/run.err"
rc=0
timeout -k 5 "$E2E_RUN_LIMIT" "$SHB" -q --plugin-dir "$SHB_V12_PLUGIN_DIR" \
	--report v12 --report-opt v12.tag=abc --interval 100ms \
	--percentiles 50,99 -R 400 -n 300 -c 3 "http://127.0.0.1:$srv_PORT/" \
	>"$out" 2>"$err" </dev/null || rc=$?
show() {
	echo "--- stdout:" >&2; cat "$out" >&2
	echo "--- stderr:" >&2; cat "$err" >&2
}
[[ $rc -eq 0 ]] || { show; fail "shb exited $rc"; }
expected="tag abc
begin 1
results_struct_size $RESULTS_NOW
run_info_sizes_match 1
requests_total 300
requests_ok 300
samples_nonzero 1
sample_requests_le_total 1
setup_ns_nonzero 1
uncorrected_count 300
first_byte_count 300
connect_count 3
rx_header_bytes_nonzero 1
percentile_count 2
target_count 1
shard 0/1"
[[ "$(cat "$out")" == "$expected" ]] ||
	{ show; echo "--- expected:" >&2; echo "$expected" >&2; fail "the 1.2 reporter's output differs"; }
[[ ! -s "$err" ]] || { show; fail "shb wrote to stderr"; }
stop_server "$srv_PID"
check_file "$srv_STATS" 'requests == 300' 'accepted == 3'
note "passed"
