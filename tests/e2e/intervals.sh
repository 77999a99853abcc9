#!/bin/bash
# --interval against shb-testserver: -z 3s --interval 500ms gives exactly 6
# interval deltas in JSON and CSV whose ok and error counts add up exactly
# to the totals (the moments by which the run ends late are folded into
# the last one, never a 7th stub of a few microseconds with 0 ok); bad
# values are refused before any traffic.
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID, NAME_STATS: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

start_testserver srv hello
url="http://127.0.0.1:$srv_PORT/"
note "-c 4 -z 3s --interval 500ms, JSON and CSV"
run_shb ts -c 4 -z 3s --interval 500ms --report "csv:$E2E_TMP/ts.csv" "$url"
expect_rc ts 0
check ts 'requests.ok > 0'
check_no_errors ts
python3 - "$E2E_TMP/ts.json" "$E2E_TMP/ts.csv" <<'PY' || fail "interval checks failed"
import csv, json, sys
d = json.load(open(sys.argv[1]))
iv = d["intervals"]
n = len(iv)
assert n == 6, f"{n} intervals: " + str([i["durationSeconds"] for i in iv])
assert [i["index"] for i in iv] == list(range(n)), iv
for k, i in enumerate(iv):
    assert abs(i["startSeconds"] - 0.5 * k) < 1e-9, i
assert all(abs(i["durationSeconds"] - 0.5) < 1e-9 for i in iv[:-1]), iv
assert 0.45 <= iv[-1]["durationSeconds"] < 0.55, iv[-1]
# The last one ends with the run: together they span it exactly.
span = sum(i["durationSeconds"] for i in iv)
assert abs(span - d["durationSeconds"]) < 1e-6, (span, d["durationSeconds"])
ok = sum(i["ok"] for i in iv)
errs = sum(i["errors"] for i in iv)
assert ok == d["requests"]["ok"], (ok, d["requests"]["ok"])
assert errs == d["requests"]["errors"] == 0, errs
# Load all through the run, not lumped into one interval: most whole
# intervals have requests (on a loaded machine the server may answer
# nothing for one), and latency is there exactly when ok is.
assert sum(i["ok"] > 0 for i in iv[:5]) >= 3, [i["ok"] for i in iv]
assert all((i["latency"] is None) == (i["ok"] == 0) for i in iv), iv
assert sum(i["bytesReceived"] for i in iv) == d["bytesReceived"]
rows = list(csv.reader(open(sys.argv[2])))
head, total, ivrows = rows[0], rows[1], rows[2:]
assert head[-2:] == ["interval_index", "interval_start_ns"], head[-2:]
assert all(len(r) == len(head) for r in rows)
col = {k: j for j, k in enumerate(head)}
assert total[col["interval_index"]] == ""
assert len(ivrows) == n, (len(ivrows), n)
assert [int(r[col["interval_index"]]) for r in ivrows] == list(range(n))
assert sum(int(r[col["requests_ok"]]) for r in ivrows) == int(total[col["requests_ok"]])
assert int(total[col["requests_ok"]]) == ok
print(f"{n} intervals, {ok} ok")
PY
stop_server "$srv_PID"

note "no --interval: no intervals in JSON"
start_testserver srv hello
run_shb plain -c 1 -n 50 "http://127.0.0.1:$srv_PORT/"
expect_rc plain 0
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert "intervals" not in d' \
	"$E2E_TMP/plain.json" || fail "intervals without --interval"

note "--interval with --warmup: intervals cover the measured load only"
run_shb warm -c 2 -z 1s --warmup 500ms --interval 250ms "http://127.0.0.1:$srv_PORT/"
expect_rc warm 0
python3 - "$E2E_TMP/warm.json" <<'PY' || fail "warm-up interval checks failed"
import json, sys
d = json.load(open(sys.argv[1]))
iv = d["intervals"]
assert len(iv) == 4, [i["durationSeconds"] for i in iv]
assert sum(i["ok"] for i in iv) == d["requests"]["ok"]
assert d["warmupRequests"] > 0
PY
stop_server "$srv_PID"

note "bad values: one line, exit 2"
for bad in 50ms 2h 0 xs; do
	run_shb "bad" --interval "$bad" "http://127.0.0.1:1/"
	expect_rc bad 2
	[[ $(wc -l <"$E2E_TMP/bad.stderr") -eq 1 ]] || { cat "$E2E_TMP/bad.stderr"; fail "--interval $bad: not one line"; }
	grep -q -- '--interval' "$E2E_TMP/bad.stderr" || fail "--interval $bad: the line does not name it"
done
note "passed"
