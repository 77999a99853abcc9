#!/bin/bash
# --shard and --start-at against real servers: four shards of -n 1000 -c 8
# run one after another send exactly 1000 requests in all (counted by the
# server), each report names its shard, and shb merge sums them; a
# --start-at 2 s ahead sets up first and sends the first request no
# earlier than the instant and within 200 ms after it, as seen by a
# server that notes when the first request arrives.
# shellcheck disable=SC2154 # srv_*, one_*, ol_*: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

start_testserver srv hello
url="http://127.0.0.1:$srv_PORT/"
for i in 0 1 2 3; do
	run_shb "s$i" --shard "$i/4" -n 1000 -c 8 "$url"
	expect_rc "s$i" 0
	check "s$i" "shard.index == $i" 'shard.count == 4' \
		'requests.total == 250' 'requests.ok == 250' \
		'requestsTarget == 250' 'connections == 2'
done
stop_server "$srv_PID"
check_file "$srv_STATS" 'requests == 1000' 'accepted == 8'

note "the four reports merge into the whole run"
RC=0
"$SHB" merge --report "json:$E2E_TMP/m.json" "$E2E_TMP"/s[0-3].json \
	>/dev/null 2>"$E2E_TMP/m.stderr" || RC=$?
[[ $RC -eq 0 ]] || { cat "$E2E_TMP/m.stderr" >&2; fail "merge: exit $RC"; }
check_file "$E2E_TMP/m.json" 'requests.total == 1000' 'requests.ok == 1000' \
	'connections == 8'

note "open loop: -R and a ramp split over 3 shards merge back to the whole"
start_testserver ol hello
for i in 0 1 2; do
	run_shb "r$i" --shard "$i/3" -n 301 -c 5 -R 3000.002 "http://127.0.0.1:$ol_PORT/"
	expect_rc "r$i" 0
done
check r0 'openLoop.rateTarget == 1000.001' 'requests.total == 101' 'connections == 2'
check r2 'openLoop.rateTarget == 1000' 'requests.total == 100' 'connections == 1'
for i in 0 1 2; do
	run_shb "g$i" --shard "$i/3" -z 300ms -c 3 -R 10:2000.002 "http://127.0.0.1:$ol_PORT/"
	expect_rc "g$i" 0
done
check g2 'openLoop.stages.0.rateFrom == 3.333' 'openLoop.stages.0.rateTo == 666.667'
stop_server "$ol_PID"
for set in r g; do
	RC=0
	"$SHB" merge --report "json:$E2E_TMP/m$set.json" "$E2E_TMP/${set}0.json" \
		"$E2E_TMP/${set}1.json" "$E2E_TMP/${set}2.json" >/dev/null 2>"$E2E_TMP/m.stderr" || RC=$?
	[[ $RC -eq 0 ]] || { cat "$E2E_TMP/m.stderr" >&2; fail "merge $set: exit $RC"; }
done
check_file "$E2E_TMP/mr.json" 'requests.total == 301' 'openLoop.rateTarget == 3000.002' \
	'connections == 5'
check_file "$E2E_TMP/mg.json" 'openLoop.stages.0.rateFrom == 10' \
	'openLoop.stages.0.rateTo == 2000.002' 'connections == 3'

note "without --shard the report has no shard; --shard 0/1 neither"
start_testserver one hello
run_shb plain -n 10 -c 1 "http://127.0.0.1:$one_PORT/"
expect_rc plain 0
check plain 'shard == null'
run_shb auto --shard 0/1 -n 10 -c 1 "http://127.0.0.1:$one_PORT/"
expect_rc auto 0
check auto 'shard == null' 'requests.total == 10'
note "--shard auto from Slurm's environment"
SLURM_PROCID=2 SLURM_NTASKS=3 run_shb slurm --shard auto -n 10 -c 3 \
	"http://127.0.0.1:$one_PORT/"
expect_rc slurm 0
check slurm 'shard.index == 2' 'shard.count == 3' 'requests.total == 3'
stop_server "$one_PID"
check_file "$one_STATS" 'requests == 23'

note "bad values: one line, exit 2, no traffic"
bad() {
	local want=$1
	shift
	RC=0
	env -u JOB_COMPLETION_INDEX -u SLURM_PROCID -u SLURM_NTASKS \
		"$SHB" "$@" http://127.0.0.1:1/ >/dev/null 2>"$E2E_TMP/bad.stderr" || RC=$?
	[[ $RC -eq 2 && $(cat "$E2E_TMP/bad.stderr") == "shb: $want (see shb --help)" ]] ||
		{ cat "$E2E_TMP/bad.stderr" >&2; fail "shb $*: exit $RC, want 2 and: shb: $want"; }
}
bad "--shard 4/4: shard 4 is not below the count 4 (shards are numbered from 0 to 3)" --shard 4/4
bad "--shard auto: no shard in the environment: neither JOB_COMPLETION_INDEX (Kubernetes Indexed Job) nor SLURM_PROCID and SLURM_NTASKS (Slurm) is set" --shard auto
RC=0
"$SHB" --start-at 1 http://127.0.0.1:1/ >/dev/null 2>"$E2E_TMP/bad.stderr" || RC=$?
if ! { [[ $RC -eq 2 && $(wc -l <"$E2E_TMP/bad.stderr") -eq 1 ]] &&
	grep -qE '^shb: --start-at 1: that is [0-9]+\.[0-9] s in the past; give a time ahead \(at most 1 s ago\) \(see shb --help\)$' "$E2E_TMP/bad.stderr"; }; then
	cat "$E2E_TMP/bad.stderr" >&2
	fail "--start-at 1: exit $RC, want 2 and one line"
fi

note "--start-at 2 s ahead, against a server noting the first request's time"
first="$E2E_TMP/first.ns"
pf="$E2E_TMP/py.port"
python3 - "$pf" "$first" >"$E2E_TMP/py.log" 2>&1 <<'PY' &
import http.server, os, sys, time
port_file, first_file = sys.argv[1], sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        if not os.path.exists(first_file):
            with open(first_file, "w") as f:
                f.write(str(time.time_ns()))
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")
    def log_message(self, *a):
        pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
with open(port_file + ".tmp", "w") as f:
    f.write(str(s.server_address[1]))
os.rename(port_file + ".tmp", port_file)
s.serve_forever()
PY
py_pid=$!
E2E_PIDS+=("$py_pid")
for _ in $(seq 1 100); do
	[[ -s "$pf" ]] && break
	sleep 0.05
done
[[ -s "$pf" ]] || { cat "$E2E_TMP/py.log" >&2; fail "the python server did not start"; }
at_ns=$(( ($(date +%s%N) / 1000000000 + 3) * 1000000000 ))
at=$(date -u -d "@$((at_ns / 1000000000))" +%Y-%m-%dT%H:%M:%SZ)
RC=0
timeout -k 5 "$E2E_RUN_LIMIT" "$SHB" --start-at "$at" -n 20 -c 2 \
	--report "json:$E2E_TMP/at.json" "http://127.0.0.1:$(cat "$pf")/" \
	>"$E2E_TMP/at.stdout" 2>"$E2E_TMP/at.stderr" </dev/null || RC=$?
[[ $RC -eq 0 ]] || { cat "$E2E_TMP/at.stderr" >&2; fail "--start-at $at: exit $RC"; }
kill_quiet "$py_pid"
[[ -s "$first" ]] || fail "--start-at: the server saw no request"
skew_ms=$(( ($(cat "$first") - at_ns) / 1000000 ))
note "--start-at $at: first request at the server $skew_ms ms after"
[[ $(cat "$first") -ge $at_ns ]] || fail "--start-at: the first request came $skew_ms ms before the instant"
[[ $skew_ms -le 200 ]] || fail "--start-at: the first request came $skew_ms ms after the instant"
# stderr (no -q): one line with the skew, which is under 200 ms too
grep -qE '^shb: --start-at: the load started 0\.[0-1][0-9]{5} s after the instant$' \
	"$E2E_TMP/at.stderr" || { cat "$E2E_TMP/at.stderr" >&2; fail "--start-at: no skew line"; }
check_file "$E2E_TMP/at.json" 'requests.total == 20' 'requests.ok == 20'
# The set-up (connections, then the wait) lasted until the instant.
setup=$("$SHB_JCHECK" --get "$E2E_TMP/at.json" setupSeconds)
python3 -c "import sys; sys.exit(not 1.0 <= float('$setup') <= 3.2)" ||
	fail "--start-at: setupSeconds $setup, want the wait for the instant in it"
