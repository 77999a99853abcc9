#!/bin/bash
# The prom reporter against a real Prometheus (Debian's package, started
# here on a loopback port with a throwaway configuration and data
# directory, with its remote-write receiver on, stopped by PID): a run with
# --interval 1s whose every series in Prometheus equals the JSON report of
# the same run (requests by result, errors by kind, statuses, bytes,
# connections, the latency histogram bucket by bucket, quantiles within
# the JSON percentile's bucket), one push per interval plus the final one;
# a run with errors of every kind it meets; two shards of one run summed
# in one query; the Grafana dashboard's every expression returning data;
# a receiver that refuses connections and one that never answers (one
# warning line per failure kind, the run unharmed and not held up); bad
# options refused before any traffic.
# shellcheck disable=SC2154 # srv_*, bad_*, mute_*: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK
here=$(cd "$(dirname "$0")" && pwd)
dashboard=$here/../../deploy/grafana/shb-dashboard.json
check_py() { python3 "$here/prom_check.py" "$@" || fail "prom_check.py $1 failed"; }

PROMETHEUS=$(command -v prometheus || true)
[[ -n "$PROMETHEUS" ]] || fail "prometheus is not installed (Debian package prometheus; scripts/setup.sh --with-test-servers)"

free_port pport
pdir=$E2E_TMP/prometheus
mkdir -p "$pdir/data"
printf 'global:\n  scrape_interval: 1h\nscrape_configs: []\n' >"$pdir/prometheus.yml"
"$PROMETHEUS" --config.file="$pdir/prometheus.yml" \
	--storage.tsdb.path="$pdir/data" --web.listen-address="127.0.0.1:$pport" \
	--web.enable-remote-write-receiver --log.level=warn \
	>"$pdir/log" 2>&1 &
ppid=$!
E2E_PIDS+=("$ppid")
E2E_LOGS[$ppid]=$pdir/log
purl=http://127.0.0.1:$pport
python3 "$here/prom_check.py" ready "$purl" || { cat "$pdir/log" >&2; fail "prometheus did not start"; }
write=$purl/api/v1/write

# prom_run NAME RUN_ID ARGS...: run_shb with the prom reporter to
# NAME.prom, pushing to our Prometheus as RUN_ID.
prom_run() {
	local name=$1 id=$2
	shift 2
	run_shb "$name" --report "prom:$E2E_TMP/$name.prom" \
		--report-opt "prom.url=$write" --report-opt "prom.run=$id" "$@"
}
# compare NAME RUN_ID MIN: the reporter's last line says at least MIN
# pushes were taken, none failed or was dropped, and the totals arrived;
# Prometheus holds that many samples of each series, the last ones equal
# to the JSON report's numbers.
compare() {
	local n
	n=$(sed -n "s/^prom: \([0-9]*\) pushes taken, 0 failed, 0 dropped; the run's totals are in Prometheus$/\1/p" \
		"$E2E_TMP/$1.prom")
	[[ -n "$n" && $n -ge $3 ]] || { cat "$E2E_TMP/$1.prom" >&2; fail "$1: not $3 pushes taken"; }
	check_py compare "$purl" "$2" "$E2E_TMP/$1.json" "$n"
}

start_testserver srv hello
url="http://127.0.0.1:$srv_PORT/"

note "-z 3s --interval 1s: every series equals the JSON report"
prom_run ok ok-1 -c 4 -z 3s --interval 1s "$url"
expect_rc ok 0
check ok 'requests.ok > 0'
grep -qF "as run_id=\"ok-1\" target=\"$url\" protocol=\"h1\" shard=\"0\", every 1000 ms" \
	"$E2E_TMP/ok.prom" || { cat "$E2E_TMP/ok.prom" >&2; fail "ok: no run_id line"; }
[[ ! -s "$E2E_TMP/ok.stderr" ]] || { show_run ok; fail "ok: warnings"; }
compare ok ok-1 4

note "the dashboard's expressions against that run"
check_py dashboard "$purl" ok-1 "$url" "$dashboard"

note "without --interval: every second, the default"
prom_run dflt dflt-1 -c 2 -z 2s "$url"
expect_rc dflt 0
grep -qF 'every 1000 ms' "$E2E_TMP/dflt.prom" || fail "dflt: not every second"
compare dflt dflt-1 3
stop_server "$srv_PID"

note "errors: a server that closes mid-response, and a refused port"
start_testserver bad midclose
prom_run bad bad-1 -c 2 -n 40 --interval 1s "http://127.0.0.1:$bad_PORT/"
expect_rc bad 1
check bad 'errors.read > 0' 'requests.ok == 0'
compare bad bad-1 1
stop_server "$bad_PID"
free_port closed
prom_run refused refused-1 -c 2 -n 10 --interval 1s "http://127.0.0.1:$closed/"
check refused 'errors.connect > 0'
compare refused refused-1 1

note "two shards of one run (--start-at): one run_id, summed in one query"
start_testserver srv hello
url="http://127.0.0.1:$srv_PORT/"
at=$(( $(date +%s) + 2 ))
for i in 0 1; do
	timeout -k 5 "$E2E_RUN_LIMIT" "$SHB" -q --shard "$i/2" --start-at "$at" \
		-c 4 -z 2s --report "json:$E2E_TMP/sh$i.json,prom:$E2E_TMP/sh$i.prom" \
		--report-opt "prom.url=$write" "$url" \
		>"$E2E_TMP/sh$i.stdout" 2>"$E2E_TMP/sh$i.stderr" </dev/null &
	E2E_PIDS+=("$!")
	eval "sh${i}_pid=$!"
done
# shellcheck disable=SC2154 # sh0_pid, sh1_pid: set by eval
for pid in "$sh0_pid" "$sh1_pid"; do
	wait "$pid" || fail "a shard failed: $(cat "$E2E_TMP"/sh*.stderr)"
	pid_forget "$pid"
done
want_id="shb-${at}000"
for i in 0 1; do
	grep -qF "as run_id=\"$want_id\" target=\"$url\" protocol=\"h1\" shard=\"$i\"" \
		"$E2E_TMP/sh$i.prom" || { cat "$E2E_TMP/sh$i.prom" >&2; fail "shard $i: run_id"; }
done
check_py shards "$purl" "$want_id" "$E2E_TMP/sh0.json" "$E2E_TMP/sh1.json"
stop_server "$srv_PID"

# A receiver that is down or mute: one warning line per failure kind (and
# one that the totals did not arrive), exit 0, the load as without it, and
# end() waits at most for the final push's tries.
start_testserver srv hello
url="http://127.0.0.1:$srv_PORT/"
note "a receiver that refuses connections"
run_shb down -c 2 -z 2s --interval 500ms --report "prom:$E2E_TMP/down.prom" \
	--report-opt "prom.url=http://127.0.0.1:$closed/api/v1/write" "$url"
expect_rc down 0
check down 'requests.ok > 0' 'requests.errors == 0'
[[ $(grep -c 'org.shb.report.prom' "$E2E_TMP/down.stderr") -eq 2 ]] || { show_run down; fail "down: not two warning lines"; }
grep -qF "push to http://127.0.0.1:$closed/api/v1/write failed: connect: Connection refused (further connect failures are counted, not shown)" \
	"$E2E_TMP/down.stderr" || { show_run down; fail "down: no connect warning"; }
grep -qF "the final push failed: Prometheus lacks the run's totals" "$E2E_TMP/down.stderr" ||
	{ show_run down; fail "down: no final warning"; }
# every interval and the final push's 3 tries refused; at most one
# dropped: a -z run's last interval is held until the run's end, so its
# body may wait beside the final one when the sender closes, and after a
# failed push only the final body is tried then (drop_before_final)
grep -qxE "prom: 0 pushes taken, [0-9]+ failed, [01] dropped; the run's totals did NOT reach Prometheus" \
	"$E2E_TMP/down.prom" || { cat "$E2E_TMP/down.prom" >&2; fail "down: counts"; }
[[ $ELAPSED_MS -lt 5000 ]] || fail "down: a 2 s run took $ELAPSED_MS ms"

note "a receiver that accepts and never answers (timeout=300ms)"
start_testserver mute silent
run_shb mute -c 2 -z 2s --interval 500ms --report "prom:$E2E_TMP/mute.prom" \
	--report-opt "prom.url=http://127.0.0.1:$mute_PORT/api/v1/write" \
	--report-opt prom.timeout=300ms "$url"
expect_rc mute 0
check mute 'requests.ok > 0' 'requests.errors == 0'
[[ $(grep -c 'org.shb.report.prom' "$E2E_TMP/mute.stderr") -eq 2 ]] || { show_run mute; fail "mute: not two warning lines"; }
grep -qF "failed: no answer within the timeout (answer) (further timeout failures are counted, not shown)" \
	"$E2E_TMP/mute.stderr" || { show_run mute; fail "mute: no timeout warning"; }
grep -q "^prom: 0 pushes taken, [0-9]* failed, [0-9]* dropped; the run's totals did NOT reach Prometheus$" \
	"$E2E_TMP/mute.prom" || { cat "$E2E_TMP/mute.prom" >&2; fail "mute: counts"; }
# the load is not held up: 2 s of load, then at most one push in flight
# (0.3 s) and the final push's tries (3 x 0.3 s + 0.75 s of backoff)
[[ $ELAPSED_MS -lt 6000 ]] || fail "mute: a 2 s run took $ELAPSED_MS ms"
stop_server "$mute_PID"

note "a receiver that answers 204 and keeps the connection open"
python3 "$here/prom_linger.py" "$E2E_TMP/linger.port" >"$E2E_TMP/linger.log" 2>&1 &
linger_pid=$!
E2E_PIDS+=("$linger_pid")
for _ in $(seq 1 100); do
	[[ -s "$E2E_TMP/linger.port" ]] && break
	sleep 0.05
done
[[ -s "$E2E_TMP/linger.port" ]] || fail "prom_linger.py did not start"
run_shb linger -c 2 -z 2s --interval 250ms --report "prom:$E2E_TMP/linger.prom" \
	--report-opt "prom.url=http://127.0.0.1:$(cat "$E2E_TMP/linger.port")/api/v1/write" \
	--report-opt prom.timeout=5s "$url"
expect_rc linger 0
# each 204 taken as it arrives: no push waits for the close, none dropped
grep -q "^prom: [0-9]* pushes taken, 0 failed, 0 dropped; the run's totals are in Prometheus$" \
	"$E2E_TMP/linger.prom" || { cat "$E2E_TMP/linger.prom" >&2; fail "linger: pushes waited"; }
# a final push that waited for the close would hold the end for the 5 s
# timeout: 2 s of load and a 4.5 s margin for a loaded machine between
[[ $ELAPSED_MS -lt 6500 ]] || fail "linger: a 2 s run took $ELAPSED_MS ms"
kill_quiet "$linger_pid"
stop_server "$srv_PID"

note "bad options: one line, exit 2, before any traffic"
refused_usage https 'reporter prom: url "https://127.0.0.1/": expected http://HOST[:PORT][/PATH]' \
	-n 1 --report prom --report-opt prom.url=https://127.0.0.1/ "http://127.0.0.1:$closed/"
refused_usage timeout 'reporter prom: option "timeout=soon"' \
	-n 1 --report prom --report-opt prom.timeout=soon "http://127.0.0.1:$closed/"
refused_usage runid 'reporter prom: option "run=a/b"' \
	-n 1 --report prom --report-opt prom.run=a/b "http://127.0.0.1:$closed/"
refused_usage unknown 'foo' \
	-n 1 --report prom --report-opt prom.foo=1 "http://127.0.0.1:$closed/"
refused_usage unresolved 'cannot resolve no-such-host.invalid' \
	-n 1 --report prom --report-opt prom.url=http://no-such-host.invalid/ "http://127.0.0.1:$closed/"

stop_server "$ppid"
note "prom: ok"
