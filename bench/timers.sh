#!/usr/bin/env bash
# Client CPU per request at few and at many connections: HTTP/1.1 against a
# local nginx at -c 50 and -c 10000 (each with and without --timeout) and
# HTTP/3 against gtlsserver at -c 8 and -c 1000, for one shb build or two
# (--before: the same loads with an earlier build, alternating with it run
# by run). What a pass of a worker's loop costs must not grow with the
# connections it holds: the figure to read is, per build, the CPU per
# request at the high count divided by the one at the low count.
#
# The CPU is taken over the load only: shb runs with --interval 1s, its
# utime + stime (and the server's) are sampled about every 0.1 s, and the
# CPU per request is the CPU between the start of its second interval and
# the end of its last full one but one (interpolated between samples), divided by
# the requests those intervals completed. Setting up 10,000 connections
# (or 1,000 QUIC handshakes) is left out that way.
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

while [ "$#" -gt 0 ]; do
	case "$1" in
	-r | --rounds) need_arg "$@"; rounds=$2; shift 2 ;;
	-d | --duration) need_arg "$@"; duration=$2; shift 2 ;;
	-t | --threads) need_arg "$@"; threads=$2; shift 2 ;;
	-l | --loads) need_arg "$@"; loads=$2; shift 2 ;;
	--before) need_arg "$@"; before=$2; shift 2 ;;
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

# utime + stime of a process, read without a fork (the sampler must not
# cost the machine more than it measures).
ticks_nofork() { # pid -> $tk
	local line f
	tk=0
	{ read -r line <"/proc/$1/stat"; } 2>/dev/null || return 1
	line=${line##*) }
	read -r -a f <<<"$line"
	tk=$((f[11] + f[12]))
}

runs="$tmp/runs.tsv"
: >"$runs"

run_load() { # round build load
	local r=$1 b=$2 load=$3 proto c t="" base pid sp now tk st p
	local -a srv
	IFS=: read -r proto c t <<<"$load"
	base="$tmp/r$r-${load//:/-}-$b"
	local -a cmd=("${bin[$b]}" -t "$threads" -c "$c" -z "${duration}s" -q
		--interval 1s --report "json:$base.json")
	[ -z "$t" ] || cmd+=(--timeout 2s)
	if [ "$proto" = h3 ]; then
		cmd+=(--proto h3 "$h3_url")
		srv=("$h3_pid")
	else
		cmd+=("$h1_url")
		mapfile -t srv < <(server_pids nginx)
	fi
	SHB_PLUGIN_PATH=${ppath[$b]} "${cmd[@]}" </dev/null >"$base.out" 2>&1 &
	pid=$!
	: >"$base.cpu"
	local end=$((${EPOCHREALTIME/./} + (duration + 60) * 1000000))
	while ticks_nofork "$pid"; do
		now=${EPOCHREALTIME/./}
		st=$tk
		sp=0
		for p in "${srv[@]}"; do ticks_nofork "$p" && sp=$((sp + tk)); done
		echo "$now $st $sp" >>"$base.cpu"
		if [ "$now" -gt "$end" ]; then
			kill -TERM "$pid" 2>/dev/null || true
			break
		fi
		sleep 0.1
	done
	local rc=0
	wait "$pid" || rc=$?
	python3 - "$base.json" "$base.cpu" "$clk_tck" "$load" "$b" "$r" "$rc" >>"$runs" <<'EOF' ||
import bisect, datetime, json, sys
js, cpuf, tck, load, build, rnd, rc = sys.argv[1:8]
tck = float(tck)
if rc != "0":
    sys.exit("exit status " + rc)
d = json.load(open(js))
day, frac = d["loadStart"].rstrip("Z").split(".")
t = datetime.datetime.strptime(day, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc)
start = int(t.timestamp()) * 10**6 + int(frac.ljust(6, "0")[:6])  # microseconds
cpu = [tuple(map(int, l.split())) for l in open(cpuf) if l.strip()]
us = [c[0] for c in cpu]


def at(ts, k):
    i = bisect.bisect_left(us, ts)
    if i == 0 or i == len(cpu):
        raise SystemExit("no CPU samples around %d" % ts)
    a, b = cpu[i - 1], cpu[i]
    return a[k] + (b[k] - a[k]) * (ts - a[0]) / (b[0] - a[0])


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
print("%s\t%s\t%s\t%d\t%.3f\t%.3f\t%.3f\t%d" % (load, build, rnd, ok, (t1 - t0) / 1e6, cl, sv, errs))
EOF
		{ echo "$prog: round $r $load $b: no figures (exit $rc): $(tail -n 2 "$base.out")" >&2; return 0; }
	tail -n 1 "$runs" | awk -F '\t' '{ printf "  round %s  %-11s %-6s %8.0f req/s  client %6.2f us/req  server %6.2f us/req  errors %d\n",
		$3, $1, $2, $4 / $5, $6, $7, $8 }' >&2
}

started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
ab_rounds "$rounds" run_load "${load_list[@]}" -- "${builds[@]}"
finished=$(date -u '+%Y-%m-%d %H:%M:%S UTC')

# --- the report --------------------------------------------------------------

tables() {
	python3 - "$runs" "${builds[@]}" <<'EOF'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
builds = sys.argv[2:]
loads = []
for r in rows:
    if r[0] not in loads:
        loads.append(r[0])
med = lambda xs: statistics.median(xs) if xs else float("nan")
def sel(load, b):
    return [r for r in rows if r[0] == load and r[1] == b]
print("### Medians\n")
print("| Load | Build | Runs | req/s | client µs/req | min..max | server µs/req | client/server | errors |")
print("|---|---|---:|---:|---:|---|---:|---:|---:|")
for l in loads:
    for b in builds:
        s = sel(l, b)
        if not s:
            continue
        cl = [float(r[5]) for r in s]
        sv = [float(r[6]) for r in s]
        print("| %s | %s | %d | %.0f | %.2f | %.2f..%.2f | %.2f | %.3f | %d |" % (
            l, b, len(s), med([int(r[3]) / float(r[4]) for r in s]), med(cl), min(cl), max(cl),
            med(sv), med([c / v for c, v in zip(cl, sv) if v > 0]), sum(int(r[7]) for r in s)))
pairs = [("h1:10000", "h1:50"), ("h1:10000:t", "h1:50:t"), ("h3:1000", "h3:8")]
print("\n### Many connections against few\n")
print("Client µs/req at the high count divided by the one at the low count: the quotient of the medians, and")
print("the median of the quotients of the same round (runs next to each other in time).\n")
print("| Build | Loads | quotient of medians | median of round quotients | round quotients |")
print("|---|---|---:|---:|---|")
for b in builds:
    for hi, lo in pairs:
        h, o = sel(hi, b), sel(lo, b)
        if not h or not o:
            continue
        byr = {r[2]: float(r[5]) for r in o}
        q = [float(r[5]) / byr[r[2]] for r in h if r[2] in byr]
        print("| %s | %s / %s | %.3f | %.3f | %s |" % (b, hi, lo, med([float(r[5]) for r in h]) /
              med([float(r[5]) for r in o]), med(q), " ".join("%.2f" % x for x in q)))
if len(builds) == 2:
    print("\n### after / before\n")
    print("Client µs/req of this build divided by the earlier one's, in the same round; and the same from the")
    print("client/server ratios, which cancel what slows both the client and the server in a run.\n")
    print("| Load | median of round quotients | from client/server ratios | round quotients |")
    print("|---|---:|---:|---|")
    for l in loads:
        a = {r[2]: r for r in sel(l, "after")}
        q, qr = [], []
        for r in sel(l, "before"):
            x = a.get(r[2])
            if not x:
                continue
            q.append(float(x[5]) / float(r[5]))
            if float(x[6]) > 0 and float(r[6]) > 0:
                qr.append((float(x[5]) / float(x[6])) / (float(r[5]) / float(r[6])))
        if q:
            print("| %s | %.3f | %.3f | %s |" % (l, med(q), med(qr), " ".join("%.2f" % v for v in q)))
print("\n### Every run\n")
print("| Round | Load | Build | req/s | client µs/req | server µs/req | errors |")
print("|---:|---|---|---:|---:|---:|---:|")
for r in rows:
    print("| %s | %s | %s | %.0f | %.2f | %.2f | %s |" % (r[2], r[0], r[1], int(r[3]) / float(r[4]),
          float(r[5]), float(r[6]), r[7]))
EOF
}

report() {
	echo "# shb client CPU per request at few and many connections"
	echo
	echo "- Date: $started to $finished"
	echo "- Host: $(host_line)"
	echo "- Repository: $(repo_state)"
	echo "- Builds: ${builds[*]} ($(for b in "${builds[@]}"; do printf '%s: %s; ' "$b" "$("${bin[$b]}" --version 2>&1 | head -n 1)"; done))"
	echo "- Servers: $(version_of nginx), 1 worker, \`return 200\`, on 127.0.0.1; gtlsserver (ngtcp2) on 127.0.0.1"
	echo "- Runs: $rounds rounds × ${duration} s per load and build, builds alternating, -t $threads, -p 1;"
	echo "  :t adds --timeout 2s. CPU over shb's full 1 s intervals but the first and the last (set-up and exit left out)"
	echo
	tables
}
write_report timers
