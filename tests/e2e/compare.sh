#!/bin/bash
# A comparison: several positional `[label=]URL` targets run one after
# another with the same settings. Two shb-testservers that answer
# differently (hello: 65 header + 13 body bytes at once; echo-len: 64 + 1
# bytes after 20 ms): each gets exactly its -n over its own -c
# connections, the JSON report is an array of two documents in run order,
# the CSV has one header and a row per run, the text ends with the
# side-by-side table; --slo is checked per run and says which failed; a
# SIGINT in the middle reports the runs that ended (the JSON array closed);
# a bad target exits 2 before any traffic.
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID, NAME_STATS: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

start_testserver fast hello
start_testserver slow echo-len --delay-ms 20
a="http://127.0.0.1:$fast_PORT/"
b="http://127.0.0.1:$slow_PORT/"

note "two labelled targets, -n 100 -c 2 each, json + csv + text"
run_shb cmp -c 2 -n 100 --report "csv:$E2E_TMP/cmp.csv" \
	--report "text:$E2E_TMP/cmp.txt" "fast=$a" "slow=$b"
expect_rc cmp 0
check cmp '0.label == "fast"' "0.url == \"$a\"" '0.compare.index == 0' \
	'0.compare.count == 2' '0.requests.ok == 100' '0.requests.errors == 0' \
	'0.rxHeaderBytes == 6500' '0.rxBodyBytes == 1300' \
	'0.rxHeaderBytesPerResponse == 65' '0.rxBodyBytesPerResponse == 13' \
	'1.label == "slow"' "1.url == \"$b\"" '1.compare.index == 1' \
	'1.compare.count == 2' '1.requests.ok == 100' '1.requests.errors == 0' \
	'1.rxHeaderBytes == 6400' '1.rxBodyBytes == 100' \
	'1.rxHeaderBytesPerResponse == 64' '1.rxBodyBytesPerResponse == 1' \
	'1.latencySeconds.percentiles.p50 >= 0.02' \
	'0.latencySeconds.percentiles.p50 < 0.02'
# Exactly two documents, and the runs did not overlap: the second
# started after the first one's load ended.
python3 - "$E2E_TMP/cmp.json" <<'EOF' || { show_run cmp; fail "cmp: array checks failed"; }
import datetime, json, sys
d = json.load(open(sys.argv[1]))
assert isinstance(d, list) and len(d) == 2, "not an array of 2"
t = [datetime.datetime.strptime(x["startTime"], "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()
     for x in d]
end0 = t[0] + d[0]["setupSeconds"] + d[0]["durationSeconds"]
assert t[1] + 0.0015 >= end0, f"run 2 started at {t[1]}, run 1 ended at {end0}"
EOF
# Each document of the array is valid against the report's schema.
here=$(dirname "$0")
python3 "$here/../report/check_schema.py" "$here/../../docs/shb-report.schema.json" \
	"$E2E_TMP/cmp.json" || { show_run cmp; fail "cmp: the schema rejects the report"; }
# shb merge takes runs, not a comparison's array.
rc=0
"$SHB" merge "$E2E_TMP/cmp.json" >/dev/null 2>"$E2E_TMP/merge.err" || rc=$?
[[ $rc -eq 2 && $(cat "$E2E_TMP/merge.err") == "shb: $E2E_TMP/cmp.json: a comparison's report (an array of runs); merge takes one run per file" ]] ||
	{ cat "$E2E_TMP/merge.err" >&2; fail "merge of a comparison: exit $rc"; }
stop_server "$fast_PID"
stop_server "$slow_PID"
check_file "$fast_STATS" 'requests == 100' 'accepted == 2'
check_file "$slow_STATS" 'requests == 100' 'accepted == 2'

note "csv: one header, then one row per run in order"
csv="$E2E_TMP/cmp.csv"
[[ $(wc -l <"$csv") -eq 3 ]] || { cat "$csv" >&2; fail "csv: expected 3 lines"; }
col=$(head -n 1 "$csv" | tr ',' '\n' | grep -nx label | cut -d: -f1)
[[ -n "$col" ]] || fail "csv: no label column"
[[ $(sed -n 2p "$csv" | cut -d, -f"$col") == fast &&
   $(sed -n 3p "$csv" | cut -d, -f"$col") == slow ]] ||
	{ cat "$csv" >&2; fail "csv: rows are not fast then slow"; }
[[ $(sed -n 2p "$csv" | cut -d, -f1) == "$a" && $(sed -n 3p "$csv" | cut -d, -f10) == 100 ]] ||
	{ cat "$csv" >&2; fail "csv: wrong url or requests_ok"; }

note "text: each run's report, then the table with one column per run"
txt="$E2E_TMP/cmp.txt"
grep -qx '== Run 1 of 2 ==' "$txt" && grep -qx '== Run 2 of 2 ==' "$txt" ||
	{ cat "$txt" >&2; fail "text: run headings missing"; }
grep -qE '^Comparison \(2 runs, one after another\):$' "$txt" ||
	{ cat "$txt" >&2; fail "text: no comparison table"; }
grep -qE '^ +fast +slow$' "$txt" &&
	grep -qE '^  OK +100 +100$' "$txt" &&
	grep -qE '^  Errors +0 +0$' "$txt" &&
	grep -qE '^  Header B/resp +65\.0 +64\.0$' "$txt" &&
	grep -qE '^  Body B/resp +13\.0 +1\.0$' "$txt" &&
	grep -qE '^  Requests/s +[0-9]+\.[0-9] +[0-9]+\.[0-9]$' "$txt" ||
	{ cat "$txt" >&2; fail "text: wrong comparison table"; }

note "--slo per run: only the slow target fails it, exit 3, named"
start_testserver fast hello
start_testserver slow echo-len --delay-ms 20
a="http://127.0.0.1:$fast_PORT/"
b="http://127.0.0.1:$slow_PORT/"
run_shb slo -c 1 -n 20 --slo 'p50<10ms' "$a" "slow=$b"
expect_rc slo 3
check slo '0.label == null' '0.requests.ok == 20' '1.requests.ok == 20'
lines=$(grep '^shb: SLO failed' "$E2E_TMP/slo.stderr" || true)
[[ "$(wc -l <<<"$lines")" -eq 1 ]] &&
	grep -qE '^shb: SLO failed in run 2 of 2 \(slow\): p50 = [0-9.]+ms, wanted < 10ms$' <<<"$lines" ||
	{ show_run slo; fail "slo: expected one line naming run 2"; }

note "SIGINT during the second of three runs: the runs that ended, reported"
start_testserver isrv hello
i="http://127.0.0.1:$isrv_PORT/"
rc=0
timeout -k 5 -s INT --preserve-status 3 "$SHB" -q -c 2 -z 2s \
	--report "json:$E2E_TMP/int.json" --report "text:$E2E_TMP/int.txt" \
	"a=$i" "b=$i" "c=$i" >/dev/null 2>"$E2E_TMP/int.err" </dev/null || rc=$?
stop_server "$isrv_PID"
[[ $rc -eq 130 ]] || { cat "$E2E_TMP/int.err" >&2; fail "int: exit $rc, expected 130"; }
check_file "$E2E_TMP/int.json" '0.label == "a"' '0.interrupted == false' \
	'1.label == "b"' '1.interrupted == true' '1.compare.index == 1' \
	'1.compare.count == 3'
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert len(d) == 2, len(d)' \
	"$E2E_TMP/int.json" || fail "int: the array does not hold exactly the two runs"
grep -qE '^ +a +b$' "$E2E_TMP/int.txt" && grep -qx '(b was interrupted)' "$E2E_TMP/int.txt" ||
	{ cat "$E2E_TMP/int.txt" >&2; fail "int: no table of the two runs"; }

note "a bad target anywhere: exit 2 before any request"
run_shb bad -c 1 -n 5 "$a" "b=http://127.0.0.1:$slow_PORT/" "c=nope://x/"
expect_rc bad 2
grep -q '^shb: ' "$E2E_TMP/bad.stderr" || { show_run bad; fail "bad: no message"; }
[[ $(wc -l <"$E2E_TMP/bad.stderr") -eq 1 ]] || { show_run bad; fail "bad: more than one line"; }
run_shb badlabel -c 1 -n 5 "$a" "=$b"
expect_rc badlabel 2
[[ $(cat "$E2E_TMP/badlabel.stderr") == "shb: \"=$b\": the label before '=' is empty (give label=URL, or the URL alone) (see shb --help)" ]] ||
	{ show_run badlabel; fail "badlabel: wrong message"; }
stop_server "$fast_PID"
stop_server "$slow_PID"
check_file "$fast_STATS" 'requests == 20' 'accepted == 1'
check_file "$slow_STATS" 'requests == 20' 'accepted == 1'
note "passed"
