#!/bin/bash
# --priority (RFC 9218) against a server that honours it: nghttpd with
# --no-rfc7540-pri schedules HTTP/2 responses by the Priority header.
# Two 4 MB files, requested as a pair on each of 20 connections, /a and
# then /b (templates: the path and the Priority header take the lines of
# a file in turn), the later request the more urgent. A relay in front
# of nghttpd (h2_frame_tap.py) logs the frames both ways; the order of
# the server's DATA frames shows the scheduling: with the header, /b
# goes out before /a; without it, in the order of the requests (RFC 9218
# default urgency, not incremental). nghttpd's verbose log gives each
# stream's path and priority as received, and its server-side latency,
# printed as a note only: timings on a loaded machine prove nothing.
# Also: --priority reaches the server as typed on every request; the
# PRIORITY_UPDATE frames before each HEADERS (RFC 9218 7.1), seen by the
# relay (nghttpd -v does not print the PRIORITY_UPDATE frames it
# receives): one per request with the server's
# SETTINGS_NO_RFC7540_PRIORITIES = 1, none with --proto-opt
# priority-update=off, and at most the requests sent before the SETTINGS
# of a server without the setting. Skipped (77) without nghttpd (Debian
# package nghttp2-server, scripts/setup.sh --with-test-servers).
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

NGHTTPD=$(command -v nghttpd || true)
[[ -n "$NGHTTPD" ]] || NGHTTPD=$(ls /usr/sbin/nghttpd 2>/dev/null || true)
[[ -n "$NGHTTPD" ]] || skip "nghttpd is not installed (Debian package nghttp2-server)"
command -v python3 >/dev/null || fail "python3 is needed for the frame tap and nghttpd's log"

T=$E2E_TMP/prio
mkdir -p "$T/doc"
head -c 4000000 /dev/zero >"$T/doc/a"
head -c 4000016 /dev/zero >"$T/doc/b"
printf 'a\nb\n' >"$T/paths"
printf '7\n0\n' >"$T/urgency"

# tap_start NAME SPORT: the frame tap in front of the server on SPORT;
# sets TPORT (where to connect) and TPID. The client's frames go to
# $T/NAME.frames, the server's to $T/NAME.sframes, in order.
tap_start() {
	local name=$1 sport=$2
	TPORT=$sport
	while [[ $TPORT == "$sport" ]]; do free_port TPORT; done
	python3 "$(dirname "$0")/h2_frame_tap.py" "$TPORT" "$sport" "$T/$name.frames" \
		"$T/$name.sframes" 2>"$T/$name.tap.log" &
	TPID=$!
	E2E_PIDS+=("$TPID")
	wait_port "$TPORT" "$TPID" || { cat "$T/$name.tap.log" >&2; fail "the frame tap did not start"; }
}

# nghttpd_run NAME ARGS...: a fresh nghttpd for one shb run, its verbose
# log in $T/NAME.log, the frame tap in front of it.
nghttpd_run() {
	local name=$1 port pid
	shift
	free_port port
	"$NGHTTPD" -v --no-tls --no-rfc7540-pri -d "$T/doc" "$port" >"$T/$name.log" 2>&1 &
	pid=$!
	E2E_PIDS+=("$pid")
	wait_port "$port" "$pid" || { cat "$T/$name.log" >&2; fail "nghttpd did not start"; }
	tap_start "$name" "$port"
	run_shb "$name" --proto h2 "$@" "http://127.0.0.1:$TPORT/{{line:$T/paths}}"
	kill_quiet "$pid"
	kill_quiet "$TPID"
}

# per_stream LOG: "path priority latency_ms" per finished stream (of any
# connection), from the request's :path line to its END_STREAM DATA
# frame.
per_stream() {
	python3 - "$1" <<'PY'
import re, sys
start, end, pri, path = {}, {}, {}, {}
for line in open(sys.argv[1]):
    m = re.search(r'\[id=(\d+)\] \[\s*([\d.]+)\] recv \(stream_id=(\d+)\) (:path|priority): (.*)', line)
    if m:
        t, sid, k, v = float(m[2]), (m[1], int(m[3])), m[4], m[5].strip()
        if k == ':path':
            start[sid], path[sid] = t, v
        else:
            pri[sid] = v.replace(' ', '')
        continue
    m = re.search(r'\[id=(\d+)\] \[\s*([\d.]+)\] send DATA frame <length=\d+, flags=0x01, stream_id=(\d+)>', line)
    if m:
        end[(m[1], int(m[3]))] = float(m[2])
for sid in sorted(start):
    if sid in end:
        print(path[sid], pri.get(sid, '-'), '%.3f' % ((end[sid] - start[sid]) * 1000))
PY
}

# ahead NAME: per connection of run NAME (the tap's numbers), in the
# order of the server's DATA frames on the wire, the share of /b's DATA
# bytes that went out while /a waited: from /b's first DATA frame to
# /a's next one (0 if /a had no DATA left by then). A server that sends
# the urgent /b before the rest of the /a under way gives 1; one that
# serves them in order gives 0, and round-robin about 1/245 (the frames
# are 16 KB). The two files differ in size by a few bytes, which tells
# the streams apart in the tap's log. Prints "CONN AHEAD" per connection
# with DATA (wait_port's probe has none); fails unless each has the two,
# complete, /a first.
ahead() {
	python3 - "$T/$1.sframes" "$(stat -c %s "$T/doc/a")" "$(stat -c %s "$T/doc/b")" <<'PY'
import sys
size = {int(sys.argv[2]): 'a', int(sys.argv[3]): 'b'}
data = {}
for line in open(sys.argv[1]):
    conn, ftype, sid, n, _ = map(int, line.split())
    if ftype == 0 and n > 0:
        data.setdefault(conn, []).append((sid, n))
for conn, frames in sorted(data.items()):
    total = {}
    for sid, n in frames:
        total[sid] = total.get(sid, 0) + n
    got = sorted((sid, size.get(n, n)) for sid, n in total.items())
    if [p for _, p in got] != ['a', 'b']:
        sys.exit("connection %d: not /a then /b, both complete: %s" % (conn, got))
    a, b = got[0][0], got[1][0]
    sids = [sid for sid, _ in frames]
    first_b = sids.index(b)
    resume = sids.index(a, first_b) if a in sids[first_b:] else first_b
    early = sum(n for sid, n in frames[first_b:resume] if sid == b)
    print(conn, '%.3f' % (early / total[b]))
PY
}

# mean_ms FILE PATH: the mean latency of PATH's streams.
mean_ms() {
	awk -v p="$2" '$1 == p { s += $3; n++ } END { if (n) printf "%.3f\n", s / n; else print "none" }' "$1"
}

N=40
# With priorities: on each of N/2 connections /a u=7 first, then /b u=0,
# both sent at once. One thread: {{seq}} numbers the requests as each
# connection issues its pair, so a connection gets lines 0 and 1.
nghttpd_run prio -t 1 -c $((N / 2)) -p 2 -n "$N" -H "Priority: u={{line:$T/urgency}}"
expect_rc prio 0
check prio "requests.ok == $N" "statusCodes.200 == $N"
check_no_errors prio
per_stream "$T/prio.log" >"$T/prio.lat"
[[ $(grep -c '^/a u=7 ' "$T/prio.lat") == $((N / 2)) && $(grep -c '^/b u=0 ' "$T/prio.lat") == $((N / 2)) ]] ||
	{ head "$T/prio.lat" >&2; fail "nghttpd did not see $((N / 2)) /a u=7 and /b u=0 streams"; }
# The same without the header.
nghttpd_run plain -t 1 -c $((N / 2)) -p 2 -n "$N"
expect_rc plain 0
check plain "requests.ok == $N"
per_stream "$T/plain.log" >"$T/plain.lat"
[[ $(grep -c ' - ' "$T/plain.lat") == "$N" ]] || fail "plain: streams with a priority"

pa=$(mean_ms "$T/prio.lat" /a) pb=$(mean_ms "$T/prio.lat" /b)
qa=$(mean_ms "$T/plain.lat" /a) qb=$(mean_ms "$T/plain.lat" /b)
note "server-side mean latency, ms: with priority /a (u=7) $pa, /b (u=0) $pb; without /a $qa, /b $qb"
# The order on the wire: with the header the urgent /b goes out before
# /a on (nearly) every connection, without it on (nearly) none. A pair's
# two requests leave shb together and nghttpd has so far always read
# them before sending any DATA; one it did not (/a all gone before /b
# came) is what the margin is for.
ahead prio >"$T/prio.ahead" || fail "prio: the server's DATA frames are not as expected"
ahead plain >"$T/plain.ahead" || fail "plain: the server's DATA frames are not as expected"
note "share of /b sent while /a waited, per connection: with priority$(awk '{ printf " %s", $2 }' "$T/prio.ahead")"
note "... without$(awk '{ printf " %s", $2 }' "$T/plain.ahead")"
[[ $(wc -l <"$T/prio.ahead") == $((N / 2)) && $(wc -l <"$T/plain.ahead") == $((N / 2)) ]] ||
	fail "not $((N / 2)) connections with DATA in each run"
won=$(awk '$2 >= 0.9 { n++ } END { print n + 0 }' "$T/prio.ahead")
(( 4 * won >= 3 * (N / 2) )) ||
	fail "with priorities /b (u=0) went out before /a (u=7) on only $won of $((N / 2)) connections"
won=$(awk '$2 > 0.1 { n++ } END { print n + 0 }' "$T/plain.ahead")
(( 4 * won <= N / 2 )) ||
	fail "without priorities /b went out before /a on $won of $((N / 2)) connections: the comparison shows nothing"

# --priority as typed on every request.
printf 'a\n' >"$T/paths"
nghttpd_run opt -c 2 -p 3 -n 30 --priority 'u=1, i'
expect_rc opt 0
check opt 'requests.ok == 30'
per_stream "$T/opt.log" >"$T/opt.lat"
[[ $(grep -c '^/a u=1,i ' "$T/opt.lat") == 30 ]] || { head "$T/opt.lat" >&2; fail "opt: not 30 requests with u=1, i"; }
[[ $(grep -c 'recv (stream_id=[0-9]*) priority: u=1, i$' "$T/opt.log") == 30 ]] ||
	fail "opt: the value was not sent as typed"
# PRIORITY_UPDATE through the frame tap: tap_run NAME NGHTTPD_FLAGS
# SHB_ARGS... runs nghttpd, the tap in front of it and shb through the
# tap; the client's frames are in $T/NAME.frames.
tap_run() {
	local name=$1 flags=$2 sport spid
	shift 2
	free_port sport
	# shellcheck disable=SC2086 # flags: zero or one word
	"$NGHTTPD" --no-tls $flags -d "$T/doc" "$sport" >"$T/$name.nghttpd.log" 2>&1 &
	spid=$!
	E2E_PIDS+=("$spid")
	wait_port "$sport" "$spid" || fail "nghttpd did not start"
	tap_start "$name" "$sport"
	run_shb "$name" --proto h2 "$@" "http://127.0.0.1:$TPORT/a"
	kill_quiet "$spid"
	kill_quiet "$TPID"
}

# frames NAME TYPE: how many frames of TYPE (decimal) the client sent.
frames() { awk -v t="$2" '$2 == t { n++ } END { print n + 0 }' "$T/$1.frames"; }

tap_run upd --no-rfc7540-pri -c 2 -p 3 -n 30 --priority 'u=1, i'
expect_rc upd 0
check upd 'requests.ok == 30'
[[ $(frames upd 1) == 30 && $(frames upd 16) == 30 ]] ||
	{ head -20 "$T/upd.frames" >&2; fail "upd: not 30 HEADERS with 30 PRIORITY_UPDATE"; }
# Each one on stream 0 for the stream whose HEADERS comes right after it,
# with the value as typed.
awk '$2 == 16 { want = $1 " " $5; ok += ($3 == 0 && $6 " " $7 == "u=1, i"); next }
     $2 == 1 && want != "" { good += ($1 " " $3 == want); want = "" }
     END { exit !(ok == 30 && good == 30) }' "$T/upd.frames" ||
	{ head -20 "$T/upd.frames" >&2; fail "upd: a PRIORITY_UPDATE not right before its own HEADERS"; }

tap_run off --no-rfc7540-pri -c 2 -p 3 -n 30 --priority 'u=1, i' \
	--proto-opt priority-update=off
expect_rc off 0
check off 'requests.ok == 30'
[[ $(frames off 1) == 30 && $(frames off 16) == 0 ]] ||
	fail "off: $(frames off 16) PRIORITY_UPDATE frames with priority-update=off"

# Without the setting: only requests sent before the server's SETTINGS
# (at most -p 3 on each of the 2 connections) carry one.
tap_run nosetting "" -c 2 -p 3 -n 30 --priority 'u=1, i'
expect_rc nosetting 0
check nosetting 'requests.ok == 30'
[[ $(frames nosetting 1) == 30 && $(frames nosetting 16) -le 6 ]] ||
	fail "nosetting: $(frames nosetting 16) PRIORITY_UPDATE frames, more than the 6 sent before SETTINGS"
note "PRIORITY_UPDATE frames: $(frames upd 16) of 30 with the setting, $(frames off 16) with off, $(frames nosetting 16) without the setting"
note "ok"
