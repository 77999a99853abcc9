#!/bin/bash
# --priority (RFC 9218) against a server that honours it: nghttpd with
# --no-rfc7540-pri schedules HTTP/2 responses by the Priority header. Its
# verbose log gives, per stream, when the request arrived, its priority,
# and when the last DATA frame went out: the server-side latency per
# priority. Two 4 MB files, alternately requested two at a time on one
# connection (templates: the path and the Priority header take the lines
# of a file in turn), the later request always the more urgent: with the
# header, the urgent ones finish well before the others; without it, the
# order is the other way round. Also: --priority reaches the server as
# typed on every request; the PRIORITY_UPDATE frames before each HEADERS
# (RFC 9218 7.1), seen by a relay in front of nghttpd that logs the
# client's frames (nghttpd -v does not print the PRIORITY_UPDATE frames
# it receives): one per request with the server's
# SETTINGS_NO_RFC7540_PRIORITIES = 1, none with --proto-opt
# priority-update=off, and at most the requests sent before the SETTINGS
# of a server without the setting. Skipped (77) without nghttpd (Debian
# package nghttp2-server, scripts/setup.sh --with-test-servers).
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

NGHTTPD=$(command -v nghttpd || true)
[[ -n "$NGHTTPD" ]] || NGHTTPD=$(ls /usr/sbin/nghttpd 2>/dev/null || true)
[[ -n "$NGHTTPD" ]] || skip "nghttpd is not installed (Debian package nghttp2-server)"
command -v python3 >/dev/null || fail "python3 is needed to read nghttpd's log"

T=$E2E_TMP/prio
mkdir -p "$T/doc"
head -c 4000000 /dev/zero >"$T/doc/a"
cp "$T/doc/a" "$T/doc/b"
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

# shares NAME: for each /b stream of run NAME's one connection, in the
# order of the server's DATA frames on the wire (the tap's log): from
# its first to its last DATA frame with a payload, the fraction of the
# DATA bytes that are its own. A server that sends the urgent /b before
# the /a already under way gives ~1; one that interleaves the two
# round-robin, ~0.5. Prints "STREAM SHARE" per /b stream.
shares() {
	python3 - "$T/$1.log" "$T/$1.sframes" <<'PY'
import re, sys
path = {}
for line in open(sys.argv[1]):
    m = re.search(r'\[id=(\d+)\] \[\s*[\d.]+\] recv \(stream_id=(\d+)\) :path: (.*)', line)
    if m:
        path[(int(m[1]), int(m[2]))] = m[3].strip()
frames = [[int(x) for x in l.split()] for l in open(sys.argv[2])]
if {c for c, _ in path} != {1} or {f[0] for f in frames} != {1}:
    sys.exit("not one connection: %s in the server's log, %s in the tap's"
             % (sorted({c for c, _ in path}), sorted({f[0] for f in frames})))
data = [(s, n) for _, t, s, n, _ in frames if t == 0 and n > 0]
for sid in sorted(s for (_, s), p in path.items() if p == '/b'):
    at = [i for i, (s, _) in enumerate(data) if s == sid]
    if not at:
        sys.exit("no DATA on /b stream %d" % sid)
    win = data[at[0]:at[-1] + 1]
    print(sid, '%.3f' % (sum(n for s, n in win if s == sid) / sum(n for _, n in win)))
PY
}

# mean_ms FILE PATH: the mean latency of PATH's streams.
mean_ms() {
	awk -v p="$2" '$1 == p { s += $3; n++ } END { if (n) printf "%.3f\n", s / n; else print "none" }' "$1"
}

N=80
# With priorities: /a u=7 first, then /b u=0, two in flight.
nghttpd_run prio -c 1 -p 2 -n "$N" -H "Priority: u={{line:$T/urgency}}"
expect_rc prio 0
check prio "requests.ok == $N" "statusCodes.200 == $N"
check_no_errors prio
per_stream "$T/prio.log" >"$T/prio.lat"
[[ $(grep -c '^/a u=7 ' "$T/prio.lat") == $((N / 2)) && $(grep -c '^/b u=0 ' "$T/prio.lat") == $((N / 2)) ]] ||
	{ head "$T/prio.lat" >&2; fail "nghttpd did not see $((N / 2)) /a u=7 and /b u=0 streams"; }
# The same without the header.
nghttpd_run plain -c 1 -p 2 -n "$N"
expect_rc plain 0
check plain "requests.ok == $N"
per_stream "$T/plain.log" >"$T/plain.lat"
[[ $(grep -c ' - ' "$T/plain.lat") == "$N" ]] || fail "plain: streams with a priority"

pa=$(mean_ms "$T/prio.lat" /a) pb=$(mean_ms "$T/prio.lat" /b)
qa=$(mean_ms "$T/plain.lat" /a) qb=$(mean_ms "$T/plain.lat" /b)
note "server-side mean latency, ms: with priority /a (u=7) $pa, /b (u=0) $pb; without /a $qa, /b $qb"
# Honoured: the urgent later request beats the earlier one clearly ...
awk -v a="$pa" -v b="$pb" 'BEGIN { exit !(b < 0.7 * a) }' ||
	fail "with priorities /b (u=0) took $pb ms, not clearly less than /a (u=7) $pa ms"
# ... which it does not without the header.
awk -v a="$qa" -v b="$qb" 'BEGIN { exit !(b >= 0.7 * a) }' ||
	fail "without priorities /b took $qb ms, clearly less than /a $qa ms: the comparison shows nothing"

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
	local name=$1 flags=$2 sport tport spid tpid
	shift 2
	free_port sport
	tport=$sport
	while [[ $tport == "$sport" ]]; do free_port tport; done
	# shellcheck disable=SC2086 # flags: zero or one word
	"$NGHTTPD" --no-tls $flags -d "$T/doc" "$sport" >"$T/$name.nghttpd.log" 2>&1 &
	spid=$!
	E2E_PIDS+=("$spid")
	wait_port "$sport" "$spid" || fail "nghttpd did not start"
	python3 "$(dirname "$0")/h2_frame_tap.py" "$tport" "$sport" "$T/$name.frames" \
		2>"$T/$name.tap.log" &
	tpid=$!
	E2E_PIDS+=("$tpid")
	wait_port "$tport" "$tpid" || { cat "$T/$name.tap.log" >&2; fail "the frame tap did not start"; }
	run_shb "$name" --proto h2 "$@" "http://127.0.0.1:$tport/a"
	kill_quiet "$spid"
	kill_quiet "$tpid"
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
