#!/bin/bash
# ABI 1.4 protocol metrics end to end: the Redis example (built from
# sdk/examples/redis as a fixture) against a real redis-server on loopback,
# started and stopped here by PID. Its one metric, redis_pipeline_depth (a
# VALUE histogram: commands in flight on the connection as each is sent),
# must come out exactly in every report and survive shb merge:
# - -n 1000 -c 2 -p 8 INCR: the server's counter is 1000, and the metric
#   holds 1000 values (one per command sent) from 1 to 8, in the JSON
#   report, the text report's "Plugin metrics:" block and the CSV columns;
# - with --interval, the intervals' counts add up to the run's;
# - two reports merged: 2000 values, the same p50 and max, in the merged
#   JSON and text;
# - --slo by the metric's name: a gate that holds exits 0, one that fails
#   exits 3 with its line, an unknown name is refused listing the
#   protocol's names (exit 2) before any traffic.
#
# REDIS_FX_DIR (set by meson): the directory holding shb-proto-redis.so.
source "$(dirname "$0")/lib.sh"
need SHB SHB_JCHECK
[[ -f "$REDIS_FX_DIR/shb-proto-redis.so" ]] || fail "no shb-proto-redis.so in REDIS_FX_DIR"
for t in redis-server redis-cli; do
	command -v "$t" >/dev/null || fail "no $t (Debian packages redis-server, redis-tools)"
done

free_port port
redis-server --bind 127.0.0.1 --port "$port" --save "" --appendonly no \
	--dir "$E2E_TMP" --daemonize no --logfile "$E2E_TMP/redis.log" \
	</dev/null >"$E2E_TMP/redis.out" 2>&1 &
srv=$!
E2E_PIDS+=("$srv")
for _ in $(seq 1 100); do
	[[ "$(redis-cli -p "$port" PING 2>/dev/null)" == PONG ]] && break
	kill -0 "$srv" 2>/dev/null || break
	sleep 0.05
done
[[ "$(redis-cli -p "$port" PING 2>/dev/null)" == PONG ]] ||
	{ cat "$E2E_TMP/redis.out" "$E2E_TMP/redis.log" >&2; fail "redis-server did not start"; }
url="redis://127.0.0.1:$port/"
R=(--plugin-dir "$REDIS_FX_DIR" --proto redis --proto-opt command=INCR)
M=metrics.redis_pipeline_depth

note "1000 INCRs: 1000 depths of 1 to 8, in json, text and csv"
run_shb incr "${R[@]}" --proto-opt key=a -n 1000 -c 2 -p 8 \
	--report "text:$E2E_TMP/incr.txt" --report "csv:$E2E_TMP/incr.csv" "$url"
expect_rc incr 0
[[ "$(redis-cli -p "$port" GET a)" == 1000 ]] || fail "incr: the counter is not 1000"
check incr 'requests.ok == 1000' "$M.kind == \"value\"" "$M.unit == \"commands\"" \
	"$M.count == 1000" "$M.max <= 8" "$M.p50 >= 1" "$M.p99 <= 8"
grep -q '^Plugin metrics:$' "$E2E_TMP/incr.txt" || fail "incr: no Plugin metrics block"
line=$(grep '^  redis_pipeline_depth  ' "$E2E_TMP/incr.txt") || fail "incr: no line for the metric"
[[ "$line" =~ ^\ \ redis_pipeline_depth\ \ 1000\ commands,\ value\ mean\ [1-8],\ p50\ [1-8],\ p90\ [1-8],\ p99\ [1-8],\ max\ [1-8]$ ]] ||
	fail "incr: the metric's line is: $line"
# fields may be quoted ("ok,nil"): read as CSV
count=$(python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(rows[0].get("metric_redis_pipeline_depth_count", "none"))' "$E2E_TMP/incr.csv")
[[ "$count" == 1000 ]] || fail "incr: the csv's metric_redis_pipeline_depth_count is $count, not 1000"

note "intervals add up to the run"
run_shb ivals "${R[@]}" --proto-opt key=b -z 1s --interval 200ms -c 2 -p 4 "$url"
expect_rc ivals 0
sum=$("$SHB_JCHECK" --get "$E2E_TMP/ivals.json" intervals | python3 -c '
import json, sys
print(sum(i["metrics"]["redis_pipeline_depth"]["count"] for i in json.load(sys.stdin)))')
total=$("$SHB_JCHECK" --get "$E2E_TMP/ivals.json" "$M.count")
[[ "$sum" == "$total" && "$total" -gt 0 ]] || fail "ivals: intervals sum to $sum, the run has $total"

note "two reports merged: 2000 values"
run_shb second "${R[@]}" --proto-opt key=c -n 1000 -c 2 -p 8 "$url"
expect_rc second 0
RC=0
timeout -k 5 "$E2E_RUN_LIMIT" "$SHB" merge -q --report "json:$E2E_TMP/merged.json" \
	--report "text:$E2E_TMP/merged.txt" "$E2E_TMP/incr.json" "$E2E_TMP/second.json" \
	>"$E2E_TMP/merge.stdout" 2>"$E2E_TMP/merge.stderr" || RC=$?
[[ $RC -eq 0 ]] || { cat "$E2E_TMP/merge.stderr" >&2; fail "merge exited $RC"; }
check merged 'requests.ok == 2000' "$M.count == 2000" "$M.kind == \"value\""
max1=$("$SHB_JCHECK" --get "$E2E_TMP/incr.json" "$M.max")
max2=$("$SHB_JCHECK" --get "$E2E_TMP/second.json" "$M.max")
want=$((max1 > max2 ? max1 : max2))
check merged "$M.max == $want"
grep -q '^  redis_pipeline_depth  2000 commands, value mean ' "$E2E_TMP/merged.txt" ||
	fail "merge: the text report has no 2000 values"

note "--slo by the metric's name"
run_shb slo_ok "${R[@]}" --proto-opt key=d -n 500 -c 1 -p 4 \
	--slo 'redis_pipeline_depth.count>=500' --slo 'redis_pipeline_depth.p100<=4' "$url"
expect_rc slo_ok 0
run_shb slo_fail "${R[@]}" --proto-opt key=e -n 500 -c 1 -p 4 \
	--slo 'redis_pipeline_depth.count>500' "$url"
expect_rc slo_fail 3
grep -qx 'shb: SLO failed: redis_pipeline_depth.count = 500, wanted > 500' \
	"$E2E_TMP/slo_fail.stderr" || { show_run slo_fail; fail "slo_fail: not the line expected"; }
run_shb slo_name "${R[@]}" --proto-opt key=f -n 500 --slo 'redis_depth.p99<5' "$url"
expect_rc slo_name 2
[[ "$(cat "$E2E_TMP/slo_name.stderr")" == 'shb: --slo "redis_depth.p99": protocol "redis" has no metric "redis_depth" (its metrics: redis_pipeline_depth)' ]] ||
	{ show_run slo_name; fail "slo_name: not the line expected"; }
[[ -z "$(redis-cli -p "$port" GET f)" ]] || fail "slo_name: traffic was sent"

kill_quiet "$srv"
note "passed"
