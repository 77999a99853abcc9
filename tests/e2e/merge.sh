#!/bin/bash
# shb merge: two runs against shb-testserver (-n 300 and -n 200) merged
# into one report of exactly 500 requests whose histogram is the sum of
# the two, bucket for bucket, and whose percentiles are those of that sum
# (tests/e2e/hdr_check.py decodes the exports on its own); --slo on the
# merged data; the merged JSON read back by merge; a warning for runs
# that never loaded at the same time (these two, one after the other), none
# for two that did; error replies (ABI 1.4) summed and their histograms
# added; refusals.
# shellcheck disable=SC2154 # srv_PORT, srv_PID: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK
hdr_check="$(dirname "$0")/hdr_check.py"
pcts=50,75,90,99,99.9,99.99,100

start_testserver srv hello
url="http://127.0.0.1:$srv_PORT/"
note "two runs, then merged"
run_shb a -c 2 -n 300 "$url"
expect_rc a 0
run_shb b -c 2 -n 200 "$url"
expect_rc b 0
stop_server "$srv_PID"

# the warning for runs one after the other (a, then b)
apart='^shb: warning: these runs never loaded at the same time \(one started [0-9]+\.[0-9]{3} s after another had ended\); a merge sums shards of one run, whose loads overlap$'
merged="$E2E_TMP/m.json"
RC=0
"$SHB" merge --percentiles "$pcts" --report "json:$merged" \
	"$E2E_TMP/a.json" "$E2E_TMP/b.json" >"$E2E_TMP/m.stdout" 2>"$E2E_TMP/m.stderr" || RC=$?
[[ $RC -eq 0 ]] || { cat "$E2E_TMP/m.stderr" >&2; fail "merge: exit $RC"; }
check_file "$merged" 'requests.total == 500' 'requests.ok == 500' \
	'requests.errors == 0' 'statusCodes.200 == 500' 'requestsTarget == 500' \
	'requests.answered == 500' 'latencyErrorReplySeconds == null' \
	'connections == 4' 'connectionsOpened == 4' \
	'shards.0.requests == 300' 'shards.1.requests == 200' 'shards.0.shard == null' \
	'shards.0.errors == 0' 'startSkewSeconds > 0'
python3 "$hdr_check" "$merged" "$E2E_TMP/a.json" "$E2E_TMP/b.json" ||
	fail "the merged histogram is not the sum of the two"
# stderr: one line per report, then the spread of their start times, and
# the warning
if ! { grep -qE "$apart" "$E2E_TMP/m.stderr" &&
	grep -qE "^shb: merged $E2E_TMP/a.json: 300 requests \(300 ok\) in [0-9.]+s, started 20[0-9-]+T[0-9:.]+Z$" "$E2E_TMP/m.stderr" &&
	grep -qE "^shb: merged $E2E_TMP/b.json: 200 requests \(200 ok\) in [0-9.]+s, started 20[0-9-]+T[0-9:.]+Z$" "$E2E_TMP/m.stderr" &&
	grep -qE '^shb: merged 2 reports; their start times span [0-9]+\.[0-9]{3} ms$' "$E2E_TMP/m.stderr" &&
	[[ $(wc -l <"$E2E_TMP/m.stderr") -eq 4 ]]; }; then
	cat "$E2E_TMP/m.stderr" >&2
	fail "merge: not the three lines about the reports and the warning on stderr"
fi

note "the text report by default, and --slo on the merged data"
RC=0
"$SHB" merge -q --slo 'p50>=1h' --slo 'p99<1h' "$E2E_TMP/a.json" "$E2E_TMP/b.json" \
	>"$E2E_TMP/t.stdout" 2>"$E2E_TMP/t.stderr" || RC=$?
[[ $RC -eq 3 ]] || { cat "$E2E_TMP/t.stderr" >&2; fail "merge --slo: exit $RC, want 3"; }
grep -q '^Requests: *500 (500 ok, 0 errors)' "$E2E_TMP/t.stdout" ||
	{ cat "$E2E_TMP/t.stdout" >&2; fail "merge: no text report of 500 requests"; }
[[ $(grep -c '^shb: SLO failed: p50 = .*, wanted >= 1h$' "$E2E_TMP/t.stderr") -eq 1 &&
   $(grep -cE "$apart" "$E2E_TMP/t.stderr") -eq 1 &&
   $(wc -l <"$E2E_TMP/t.stderr") -eq 2 ]] ||
	{ cat "$E2E_TMP/t.stderr" >&2; fail "merge --slo: want one p50 line and the warning (even with -q)"; }

note "error replies (ABI 1.4): answered requests summed, their histograms added"
start_testserver er hello
# every 200 is outside --success 404: an answer, but an error reply
run_shb ea --success 404 -c 2 -n 30 "http://127.0.0.1:$er_PORT/"
expect_rc ea 1
run_shb eb --success 404 -c 2 -n 20 "http://127.0.0.1:$er_PORT/"
expect_rc eb 1
stop_server "$er_PID"
check ea 'requests.ok == 0' 'requests.answered == 30' 'errors.application == 30' \
	'latencyErrorReplySeconds.count == 30'
RC=0
"$SHB" merge -q --report "json:$E2E_TMP/er.json" "$E2E_TMP/ea.json" "$E2E_TMP/eb.json" \
	>/dev/null 2>"$E2E_TMP/er.stderr" || RC=$?
# no request ok: exit 1 like each of the runs, the report written all the same
[[ $RC -eq 1 ]] || { cat "$E2E_TMP/er.stderr" >&2; fail "merge of error replies: exit $RC, want 1"; }
check_file "$E2E_TMP/er.json" 'requests.total == 50' 'requests.ok == 0' \
	'requests.answered == 50' 'answeredPerSec > 0' 'errors.application == 50' \
	'latencyErrorReplySeconds.count == 50'
python3 - "$hdr_check" "$E2E_TMP/er.json" "$E2E_TMP/ea.json" "$E2E_TMP/eb.json" <<'PY' ||
import json, os, sys
sys.path.insert(0, os.path.dirname(sys.argv[1]))
from hdr_check import decode
m, a, b = (decode(json.load(open(f))["latencyErrorReplyHistogram"]) for f in sys.argv[2:])
want = dict(a)
for k, v in b.items():
    want[k] = want.get(k, 0) + v
assert m == want, (m, want)
assert sum(m.values()) == 50, sum(m.values())
PY
	fail "the merged error-reply histogram is not the sum of the two"

note "a merged report reads back as itself"
RC=0
"$SHB" merge --percentiles "$pcts" --report "json:$E2E_TMP/mm.json" "$merged" \
	>/dev/null 2>"$E2E_TMP/mm.stderr" || RC=$?
[[ $RC -eq 0 ]] || { cat "$E2E_TMP/mm.stderr" >&2; fail "merge again: exit $RC"; }
python3 "$hdr_check" "$E2E_TMP/mm.json" "$merged" >/dev/null ||
	fail "merge again: another histogram"

note "a directory stands for its .json files"
mkdir "$E2E_TMP/dir"
cp "$E2E_TMP/a.json" "$E2E_TMP/b.json" "$E2E_TMP/dir/"
RC=0
"$SHB" merge -q --percentiles "$pcts" --report "json:$E2E_TMP/d.json" "$E2E_TMP/dir" \
	>/dev/null 2>"$E2E_TMP/d.stderr" || RC=$?
[[ $RC -eq 0 && $(wc -l <"$E2E_TMP/d.stderr") -eq 1 ]] && grep -qE "$apart" "$E2E_TMP/d.stderr" ||
	{ cat "$E2E_TMP/d.stderr" >&2; fail "merge DIR: exit $RC, or more than the warning"; }
python3 "$hdr_check" "$E2E_TMP/d.json" "$E2E_TMP/a.json" "$E2E_TMP/b.json" >/dev/null ||
	fail "merge DIR: not the sum of the two"

note "two runs at the same time: no warning"
start_testserver ov hello
for k in 1 2; do
	timeout -k 5 30 "$SHB" -q -c 2 -z 1s --report "json:$E2E_TMP/o$k.json" \
		"http://127.0.0.1:$ov_PORT/" >/dev/null 2>&1 &
	pid_ov[k]=$!
done
wait "${pid_ov[1]}" && wait "${pid_ov[2]}" || fail "the two runs at the same time failed"
stop_server "$ov_PID"
RC=0
"$SHB" merge -q --report "json:$E2E_TMP/o.json" "$E2E_TMP/o1.json" "$E2E_TMP/o2.json" \
	>/dev/null 2>"$E2E_TMP/o.stderr" || RC=$?
[[ $RC -eq 0 && ! -s "$E2E_TMP/o.stderr" ]] ||
	{ cat "$E2E_TMP/o.stderr" >&2; fail "merge of runs at the same time: exit $RC, or a warning"; }

note "intervals aligned on the wall clock: shard 1 starts about 3 intervals after shard 0"
start_testserver iv hello
ivurl="http://127.0.0.1:$iv_PORT/"
run_shb s0 --shard 0/2 -c 4 -z 600ms --interval 200ms "$ivurl"
expect_rc s0 0
run_shb s1 --shard 1/2 -c 4 -z 600ms --interval 200ms "$ivurl"
expect_rc s1 0
stop_server "$iv_PID"
RC=0
"$SHB" merge -q --report "json:$E2E_TMP/iv.json" "$E2E_TMP/s0.json" "$E2E_TMP/s1.json" \
	>/dev/null 2>"$E2E_TMP/iv.stderr" || RC=$?
[[ $RC -eq 0 ]] || { cat "$E2E_TMP/iv.stderr" >&2; fail "merge of intervals: exit $RC"; }
python3 - "$hdr_check" "$E2E_TMP/iv.json" "$E2E_TMP/s0.json" "$E2E_TMP/s1.json" <<'PY' ||
import json, os, sys
sys.path.insert(0, os.path.dirname(sys.argv[1]))
from hdr_check import decode
m, a, b = (json.load(open(f)) for f in sys.argv[2:])
def ns(t):  # "2026-12-01T20:00:00.123456789Z" -> ns of the day is enough here
    hms, frac = t[11:-1].split(".")
    h, mi, s = (int(x) for x in hms.split(":"))
    return ((h * 60 + mi) * 60 + s) * 10**9 + int(frac.ljust(9, "0"))
step = 200_000_000
t0 = min(ns(a["loadStart"]), ns(b["loadStart"]))
bins = {}
for d in (a, b):
    for iv in d["intervals"]:
        w = ns(d["loadStart"]) + round(iv["startSeconds"] * 1e9)
        k = (w - t0 + step // 2) // step
        bins.setdefault(k, []).append(iv)
got = m["intervals"]
assert [g["index"] for g in got] == list(range(len(got))), got
assert max(bins) == len(got) - 1, (sorted(bins), len(got))
# by index alone, shard 1 would overlap shard 0: it must not
assert min(k for k, ivs in bins.items() if any(i in b["intervals"] for i in ivs)) >= 2
for g in got:
    want = bins.get(g["index"], [])
    assert g["ok"] == sum(i["ok"] for i in want), (g, want)
    assert g["errors"] == sum(i["errors"] for i in want), (g, want)
    if g["ok"]:
        c = decode(g["latencyHistogram"])
        w = {}
        for i in want:
            if not i["ok"]:
                continue
            for k, v in decode(i["latencyHistogram"]).items():
                w[k] = w.get(k, 0) + v
        assert c == w, "an interval's histogram is not the sum of its parts"
assert sum(g["ok"] for g in got) == m["requests"]["ok"] == a["requests"]["ok"] + b["requests"]["ok"]
assert abs(m["startSkewSeconds"] * 1e9 - abs(ns(b["loadStart"]) - ns(a["loadStart"]))) < 2
print(f"{len(got)} merged intervals from {len(a['intervals'])} + {len(b['intervals'])}")
PY
	fail "merged intervals are not the shards' placed on the wall clock"
# the merged reports, with their shards and intervals, are as documented
here=$(dirname "$0")
python3 "$here/../report/check_schema.py" "$here/../../docs/shb-report.schema.json" \
	"$E2E_TMP/iv.json" "$merged" "$E2E_TMP/s0.json" || fail "a merged report the schema refuses"

note "refusals: one line, exit 2"
refuse() {
	local want=$1
	shift
	RC=0
	"$SHB" merge "$@" >/dev/null 2>"$E2E_TMP/r.stderr" || RC=$?
	[[ $RC -eq 2 && $(cat "$E2E_TMP/r.stderr") == "$want" ]] ||
		{ cat "$E2E_TMP/r.stderr" >&2; fail "merge $*: exit $RC, want 2 and: $want"; }
}
sed 's/"method": "GET"/"method": "HEAD"/' "$E2E_TMP/b.json" >"$E2E_TMP/head.json"
refuse "shb: $E2E_TMP/head.json: method is \"HEAD\", but \"GET\" in $E2E_TMP/a.json (merge needs runs with the same options)" \
	"$E2E_TMP/a.json" "$E2E_TMP/head.json"
# a histogram whose runs of empty buckets wrap the index around to -1
# (this once wrote before the counts): one line naming the file and field
python3 - "$E2E_TMP/b.json" "$E2E_TMP/wrap.json" <<'PY'
import base64, json, struct, sys, zlib
def zz(v):  # ZigZag LEB128, the ninth byte whole
    u = ((v << 1) ^ (v >> 63)) & (2**64 - 1)
    out = bytearray()
    while len(out) < 8 and u >= 0x80:
        out.append(u & 0x7f | 0x80)
        u >>= 7
    return bytes(out + bytes([u]))
m = 2**63 - 1
counts = b"".join(zz(v) for v in (-m, -m, -1, 1))
raw = struct.pack(">IIIIqqd", 0x1c849313, len(counts), 0, 3, 1, 3600 * 10**9,
                  1.0) + counts
z = zlib.compress(raw, 0)  # level 0: stored blocks
d = json.load(open(sys.argv[1]))
d["latencyHistogram"] = base64.b64encode(
    struct.pack(">II", 0x1c849314, len(z)) + z).decode()
json.dump(d, open(sys.argv[2], "w"))
PY
refuse "shb: $E2E_TMP/wrap.json: latencyHistogram: a run of 9223372036854775807 empty buckets past the last bucket" \
	"$E2E_TMP/a.json" "$E2E_TMP/wrap.json"
refuse "shb: merge: no report files given (see shb merge --help)" --json
refuse "shb: merge: unknown option -n (see shb merge --help)" -n 5 "$E2E_TMP/a.json"
refuse "shb: merge: --percentiles: \"40\": percentiles must be ascending and distinct (see shb merge --help)" \
	--percentiles 50,40 "$E2E_TMP/a.json"
# an unknown reporter: its one line, and nothing about the reports
RC=0
"$SHB" merge --report nosuch "$E2E_TMP/a.json" >/dev/null 2>"$E2E_TMP/r.stderr" || RC=$?
if ! { [[ $RC -eq 2 && $(wc -l <"$E2E_TMP/r.stderr") -eq 1 ]] &&
	grep -q '^shb: unknown reporter "nosuch"' "$E2E_TMP/r.stderr"; }; then
	cat "$E2E_TMP/r.stderr" >&2
	fail "merge --report nosuch: exit $RC, want 2 and one line"
fi
mkdir "$E2E_TMP/empty"
refuse "shb: merge: no .json file in $E2E_TMP/empty" "$E2E_TMP/empty"
echo "ok"
