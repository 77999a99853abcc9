#!/usr/bin/env bash
# Client CPU per request at few and at many connections: HTTP/1.1 against a
# local nginx at -c 50 and -c 10000 (each with and without --timeout) and
# HTTP/3 against gtlsserver at -c 8 and -c 1000, for one shb build or two
# (--before: the same loads with an earlier build, alternating with it run
# by run). What a pass of a worker's loop costs must not grow with the
# connections it holds: the figure to read is, per build, the CPU per
# request at the high count divided by the one at the low count.
#
# The kernel's cost per request grows with the connections too (TCP and
# io_uring per socket), for any client: bench/http_floor, the least an
# HTTP/1.1 client can do, runs the h1 loads beside shb (without --timeout,
# which it has not), and shb's CPU per request over the floor's, at the
# high count against the low one, says what grows in shb itself. User CPU
# (utime) per request is given apart: the kernel's part is not in it.
#
# The CPU is taken over the load only: shb runs with --interval 1s, its
# utime + stime (and the server's) are sampled about every 0.1 s, and the
# CPU per request is the CPU between the start of its second interval and
# the end of its last full one but one (interpolated between samples), divided by
# the requests those intervals completed. Setting up 10,000 connections
# (or 1,000 QUIC handshakes) is left out that way. The floor measures its
# own window (--warmup 1: from 1 s into its load to its end, before its
# teardown) from its threads' getrusage; the server's CPU is interpolated
# over the same window.
# Writes bench/results/DATE-timers.md; see bench/README.md.
set -euo pipefail

prog=timers.sh
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"

usage() {
	cat <<'EOF'
Usage: bench/timers.sh [options]

Runs shb at a low and a high connection count (HTTP/1.1 against nginx,
HTTP/3 against gtlsserver, on loopback) and reports its CPU per request
over the load, the high count's against the low one's; with --before, an
earlier build runs the same loads, alternating with this one.

Options:
  -r, --rounds N         rounds (default: 3)
  -d, --duration S       seconds of load per run (default: 8)
  -t, --threads N        shb threads (default: 1)
  -l, --loads LIST       loads, from h1:50 h1:50:t h1:10000 h1:10000:t
                         h3:8 h3:1000 (PROTO:CONNECTIONS, :t adds
                         --timeout 2s; default: all six)
      --before PATH      an earlier shb binary to compare with (plugins
                         found next to it)
      --no-floor         leave bench/http_floor out (it runs the h1 loads
                         without :t, built next to shb)
  -o, --output FILE      results file (default: bench/results/DATE-timers.md)
      --shb PATH         use this shb binary instead of building one into
                         build-bench/ at the top of the repository
  -h, --help             print this help and exit
EOF
}

rounds=3
duration=8
threads=1
loads="h1:50 h1:50:t h1:10000 h1:10000:t h3:8 h3:1000"
before=""
out=""
shb=""
plugin_path=""
with_floor=1

while [ "$#" -gt 0 ]; do
	case "$1" in
	-r | --rounds) need_arg "$@"; rounds=$2; shift 2 ;;
	-d | --duration) need_arg "$@"; duration=$2; shift 2 ;;
	-t | --threads) need_arg "$@"; threads=$2; shift 2 ;;
	-l | --loads) need_arg "$@"; loads=$2; shift 2 ;;
	--before) need_arg "$@"; before=$2; shift 2 ;;
	--no-floor) with_floor=0; shift ;;
	-o | --output) need_arg "$@"; out=$2; shift 2 ;;
	--shb) need_arg "$@"; shb=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown option '$1' (try --help)" ;;
	esac
done

check_int rounds "$rounds" 1 100
check_int duration "$duration" 4 3600
check_int threads "$threads" 1 64
read -r -a load_list <<<"$loads"
check_words load "$loads" h1:50 h1:50:t h1:10000 h1:10000:t h3:8 h3:1000
[ -z "$before" ] || [ -x "$before" ] || die "--before $before is not an executable file"
command -v python3 >/dev/null || die "python3 is needed for the report"

PATH=$PATH:/usr/sbin:/sbin
missing=()
bp=()
command -v nginx >/dev/null || missing+=(nginx-light)
command -v gtlsserver >/dev/null || missing+=(ngtcp2-server)
[ -n "$shb" ] || read -r -a bp < <(shb_build_packages | tr '\n' ' ')
install_packages "${missing[@]}" "${bp[@]}"
setup_shb h1 h3/plugin reporters
builds=(after)
declare -A bin=([after]=$shb) ppath=([after]=$plugin_path)
if [ -n "$before" ]; then
	b=$(cd "$(dirname "$before")" && pwd)
	bin[before]=$b/$(basename "$before")
	b=$(dirname "$b")
	ppath[before]="$b/plugins/h1:$b/plugins/h3/plugin:$b/plugins/reporters"
	builds=(before after)
fi
floor=""
if [ "$with_floor" -eq 1 ]; then
	setup_floor
	builds+=(floor)
fi
raise_nofile

# --- servers -----------------------------------------------------------------

nginx_bin=$(command -v nginx)
workers=1
max_conns=10000
write_nginx_conf() { # port
	# Set-up opens up to 1024 connections at once per thread: more than
	# the default backlog of 511 takes.
	nginx_conf "listen 127.0.0.1:$1 backlog=4096;" >"$tmp/nginx/nginx.conf"
}
# shellcheck source=tests/h3/servers/gtlsserver.sh
source "$root/tests/h3/servers/gtlsserver.sh"
h3_pid=""
stop_h3() { [ -z "$h3_pid" ] || h3srv_stop "$h3_pid"; }
scratch_dir bench-timers stop_h3
start_server nginx 1 1 write_nginx_conf \
	"$nginx_bin" -p "$tmp/nginx" -e "$tmp/nginx/error.log" -c "$tmp/nginx/nginx.conf"
mkdir -p "$tmp/h3"
H3SRV_BIND=127.0.0.1 h3srv_start_gtlsserver "$tmp/h3" >&2 || die "gtlsserver did not start"
h3_pid=$H3SRV_PID
h1_url="http://127.0.0.1:${srv_ports[nginx]}/"
h3_url="https://127.0.0.1:$H3SRV_PORT/"

# --- one run -----------------------------------------------------------------

# utime + stime of a process, and its utime alone, read without a fork
# (the sampler must not cost the machine more than it measures).
ticks_nofork() { # pid -> $tk $tu
	local line f
	tk=0
	tu=0
	{ read -r line <"/proc/$1/stat"; } 2>/dev/null || return 1
	line=${line##*) }
	read -r -a f <<<"$line"
	tk=$((f[11] + f[12]))
	tu=${f[11]}
}

runs="$tmp/runs.tsv"
: >"$runs"

run_load() { # round build load
	local r=$1 b=$2 load=$3 proto c t="" base pid sp now tk tu st="" su p
	local -a srv cmd
	IFS=: read -r proto c t <<<"$load"
	base="$tmp/r$r-${load//:/-}-$b"
	cmd=("${bin[$b]:-}" -t "$threads" -c "$c" -z "${duration}s" -q
		--interval 1s --report "json:$base.json")
	[ -z "$t" ] || cmd+=(--timeout 2s)
	if [ "$b" = floor ]; then
		[ "$proto" = h1 ] && [ -z "$t" ] || return 0
		cmd=("$floor" -t "$threads" -c "$c" -d "$duration" --warmup 1 "$h1_url")
		mapfile -t srv < <(server_pids nginx)
	elif [ "$proto" = h3 ]; then
		cmd+=(--proto h3 "$h3_url")
		srv=("$h3_pid")
	else
		cmd+=("$h1_url")
		mapfile -t srv < <(server_pids nginx)
	fi
	cut -d' ' -f1 /proc/loadavg >>"$tmp/loadavg"
	SHB_PLUGIN_PATH=${ppath[$b]:-} "${cmd[@]}" </dev/null >"$base.out" 2>&1 &
	pid=$!
	: >"$base.cpu"
	local end=$((${EPOCHREALTIME/./} + (duration + 60) * 1000000))
	while ticks_nofork "$pid"; do
		now=${EPOCHREALTIME/./}
		st=$tk
		su=$tu
		sp=0
		for p in "${srv[@]}"; do ticks_nofork "$p" && sp=$((sp + tk)); done
		echo "$now $st $sp $su" >>"$base.cpu"
		if [ "$now" -gt "$end" ]; then
			kill -TERM "$pid" 2>/dev/null || true
			break
		fi
		sleep 0.1
	done
	# One more sample of the server once the client is gone (its last
	# figures kept): the floor's window ends just before it exits.
	if [ -n "${st:-}" ]; then
		sp=0
		for p in "${srv[@]}"; do ticks_nofork "$p" && sp=$((sp + tk)); done
		echo "${EPOCHREALTIME/./} $st $sp $su" >>"$base.cpu"
	fi
	local rc=0
	wait "$pid" || rc=$?
	python3 - "$base" "$clk_tck" "$load" "$b" "$r" "$rc" >>"$runs" <<'EOF' ||
import bisect, datetime, json, sys
base, tck, load, build, rnd, rc = sys.argv[1:7]
tck = float(tck)
if rc != "0":
    sys.exit("exit status " + rc)
cpu = [tuple(map(int, l.split())) for l in open(base + ".cpu") if l.strip()]
us = [c[0] for c in cpu]


def at(ts, k):
    i = bisect.bisect_left(us, ts)
    if i == 0 or i == len(cpu):
        raise SystemExit("no CPU samples around %d" % ts)
    a, b = cpu[i - 1], cpu[i]
    return a[k] + (b[k] - a[k]) * (ts - a[0]) / (b[0] - a[0])


if build == "floor":
    # "window START_US END_US requests N user U sys S ...", its own threads'
    # CPU over its load but the first second.
    w = [l.split() for l in open(base + ".out") if l.startswith("window ")]
    if not w:
        raise SystemExit("no window line")
    w = w[-1]
    t0, t1, ok = int(w[1]), int(w[2]), int(w[4])
    user, sys_ = float(w[6]), float(w[8])
    sv = (at(t1, 2) - at(t0, 2)) / tck * 1e6 / ok
    print("%s\t%s\t%s\t%d\t%.3f\t%.3f\t%.3f\t%d\t%.3f" % (load, build, rnd, ok, (t1 - t0) / 1e6,
          (user + sys_) * 1e6 / ok, sv, 0, user * 1e6 / ok))
    sys.exit(0)
d = json.load(open(base + ".json"))
day, frac = d["loadStart"].rstrip("Z").split(".")
t = datetime.datetime.strptime(day, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc)
start = int(t.timestamp()) * 10**6 + int(frac.ljust(6, "0")[:6])  # microseconds

# The first interval may hold the end of the set-up, and the last ends
# when shb stops sampling: both left out.
iv = [v for v in d["intervals"] if v["durationSeconds"] >= 0.99][1:-1]
if len(iv) < 2:
    raise SystemExit("fewer than four full intervals")
t0 = start + round(iv[0]["startSeconds"] * 1e6)
t1 = start + round((iv[-1]["startSeconds"] + iv[-1]["durationSeconds"]) * 1e6)
ok = sum(v["ok"] for v in iv)
errs = sum(v["errors"] for v in iv)
cl = (at(t1, 1) - at(t0, 1)) / tck * 1e6 / ok
sv = (at(t1, 2) - at(t0, 2)) / tck * 1e6 / ok
ucl = (at(t1, 3) - at(t0, 3)) / tck * 1e6 / ok
print("%s\t%s\t%s\t%d\t%.3f\t%.3f\t%.3f\t%d\t%.3f" % (load, build, rnd, ok, (t1 - t0) / 1e6, cl, sv, errs, ucl))
EOF
		{ echo "$prog: round $r $load $b: no figures (exit $rc): $(tail -n 2 "$base.out")" >&2; return 0; }
	tail -n 1 "$runs" | awk -F '\t' '{ printf "  round %s  %-11s %-6s %8.0f req/s  client %6.2f us/req (user %5.2f)  server %6.2f us/req  errors %d\n",
		$3, $1, $2, $4 / $5, $6, $9, $7, $8 }' >&2
}

started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
ab_rounds "$rounds" run_load "${load_list[@]}" -- "${builds[@]}"
finished=$(date -u '+%Y-%m-%d %H:%M:%S UTC')

# --- the report --------------------------------------------------------------

tables() {
	python3 "$root/bench/timers_tables.py" "$runs" "${builds[@]}"
}

report() {
	echo "# shb client CPU per request at few and many connections"
	echo
	echo "- Date: $started to $finished"
	echo "- Host: $(host_line)"
	echo "- Repository: $(repo_state)"
	echo "- Builds: ${builds[*]} ($(for b in "${builds[@]}"; do [ "$b" = floor ] || printf '%s: %s; ' "$b" "$("${bin[$b]}" --version 2>&1 | head -n 1)"; done))"
	echo "- Servers: $(version_of nginx), 1 worker, \`return 200\`, on 127.0.0.1; gtlsserver (ngtcp2) on 127.0.0.1"
	echo "- Runs: $rounds rounds × ${duration} s per load and build, builds alternating, -t $threads, -p 1;"
	echo "  :t adds --timeout 2s. CPU over shb's full 1 s intervals but the first and the last (set-up and exit left out)"
	[ -z "$floor" ] || echo "- Floor: bench/http_floor --warmup 1 (its load but the first second, its teardown left out), h1 loads without :t"
	echo "- Load average at the start: $load_start; at the end: $(cut -d' ' -f1-3 /proc/loadavg);"
	echo "  1-minute load average as each run started: $(sort -n "$tmp/loadavg" | awk '{ v[NR] = $1 } END { printf "min %s, median %s, max %s", v[1], v[int((NR + 1) / 2)], v[NR] }')"
	echo
	tables
}
write_report timers
