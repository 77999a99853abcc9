#!/usr/bin/env bash
# What the end of a run costs: HTTP/1.1 against a local nginx at a few
# connection counts, for one shb build or two (--before: an earlier build,
# alternating with this one run by run). From the -z deadline to the exit
# of the process: its wall time, and its CPU (user + system of all its
# threads). At the deadline every connection is closed (its goodbye sent,
# its socket shut down, its receive ended) and the report written; what
# that costs must grow with the connections, not with their square.
#
# The process runs under a sampler that reads its CPU from /proc every
# 10 ms and takes its total from wait4() at the exit; the CPU at the
# deadline (loadStart + durationSeconds of the JSON report) is interpolated
# between the samples around it.
# Writes bench/results/DATE-close.md; see bench/README.md.
set -euo pipefail

prog=close.sh
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"

usage() {
	cat <<'EOF'
Usage: bench/close.sh [options]

Runs shb (HTTP/1.1 against nginx on loopback) at each connection count and
reports the wall time and CPU from the -z deadline to its exit; with
--before, an earlier build runs the same loads, alternating with this one.

Options:
  -r, --rounds N         rounds (default: 3)
  -d, --duration S       seconds of load per run (default: 3)
  -c, --conns LIST       connection counts (default: "50 1000 10000")
  -t, --threads N        shb threads (default: 1)
  -w, --workers N        nginx worker processes (default: 1; more listen
                         with reuseport, each holding its share of the
                         connections under the open-files limit)
      --source LIST      shb's --source (local addresses: past about
                         28,000 connections one address runs out of ports)
      --before PATH      an earlier shb binary to compare with (plugins
                         found next to it)
  -o, --output FILE      results file (default: bench/results/DATE-close.md)
      --shb PATH         use this shb binary instead of building one into
                         build-bench/ at the top of the repository
  -h, --help             print this help and exit
EOF
}

rounds=3
duration=3
conns="50 1000 10000"
before=""
out=""
shb=""
plugin_path=""
threads=1
workers=1
source=""

parse_options "-r|--rounds=rounds" "-d|--duration=duration" "-c|--conns=conns" \
	"-t|--threads=threads" "-w|--workers=workers" "--source=source" \
	"--before=before" "-o|--output=out" "--shb=shb" -- "$@"
check_int rounds "$rounds" 1 100
check_int threads "$threads" 1 64
check_int workers "$workers" 1 64
check_int duration "$duration" 1 3600
read -r -a conn_list <<<"$conns"
[ "${#conn_list[@]}" -gt 0 ] || die "--conns needs at least one count"
for c in "${conn_list[@]}"; do check_int connections "$c" 1 30000; done
[ -z "$before" ] || [ -x "$before" ] || die "--before $before is not an executable file"
command -v python3 >/dev/null || die "python3 is needed for the sampler and the report"

PATH=$PATH:/usr/sbin:/sbin
missing=()
bp=()
command -v nginx >/dev/null || missing+=(nginx-light)
[ -n "$shb" ] || read -r -a bp < <(shb_build_packages | tr '\n' ' ')
install_packages "${missing[@]}" "${bp[@]}"
setup_shb h1 reporters
builds=(after)
declare -A bin=([after]=$shb) ppath=([after]=$plugin_path)
if [ -n "$before" ]; then
	b=$(cd "$(dirname "$before")" && pwd)
	bin[before]=$b/$(basename "$before")
	b=$(dirname "$b")
	ppath[before]="$b/plugins/h1:$b/plugins/reporters"
	builds=(before after)
fi
raise_nofile

nginx_bin=$(command -v nginx)
max_conns=0
for c in "${conn_list[@]}"; do [ "$c" -le "$max_conns" ] || max_conns=$c; done
write_nginx_conf() { # port
	local rp=""
	[ "$workers" -eq 1 ] || rp=" reuseport"
	nginx_conf "listen 127.0.0.1:$1 backlog=4096$rp;" >"$tmp/nginx/nginx.conf"
}
scratch_dir bench-close
start_server nginx 1 "$workers" write_nginx_conf \
	"$nginx_bin" -p "$tmp/nginx" -e "$tmp/nginx/error.log" -c "$tmp/nginx/nginx.conf"
url="http://127.0.0.1:${srv_ports[nginx]}/"

runs="$tmp/runs.tsv"
: >"$runs"

# One run under the sampler; appends "conns build round end-wall-s end-cpu-s
# total-cpu-s ok errors" to $runs.
run_close() { # round build conns
	local r=$1 b=$2 c=$3 base
	base="$tmp/r$r-c$c-$b"
	local -a src=()
	[ -z "$source" ] || src=(--source "$source")
	SHB_PLUGIN_PATH=${ppath[$b]} python3 - "$base" "$c" "$b" "$r" "$duration" \
		"${bin[$b]}" -t "$threads" -c "$c" -z "${duration}s" -q "${src[@]}" \
		--report "json:$base.json" "$url" >>"$runs" <<'EOF' ||
import bisect, datetime, json, os, subprocess, sys, time
base, conns, build, rnd, dur = sys.argv[1:6]
cmd = sys.argv[6:]
tck = os.sysconf("SC_CLK_TCK")
out = open(base + ".out", "w")
p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=out)
samples = []
limit = time.time() + float(dur) + 120
while True:
    now = time.time()
    try:
        f = open("/proc/%d/stat" % p.pid).read().rsplit(")", 1)[1].split()
        samples.append((now, (int(f[11]) + int(f[12])) / tck))
    except (OSError, IndexError):
        pass
    pid, status, ru = os.wait4(p.pid, os.WNOHANG)
    if pid:
        end = time.time()
        break
    if now > limit:
        p.kill()
    time.sleep(0.01)
if status != 0:
    sys.exit("exit status %d" % status)
total = ru.ru_utime + ru.ru_stime
d = json.load(open(base + ".json"))
day, frac = d["loadStart"].rstrip("Z").split(".")
t = datetime.datetime.strptime(day, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc)
deadline = t.timestamp() + float("0." + frac) + d["durationSeconds"]
ts = [s[0] for s in samples]
i = bisect.bisect_left(ts, deadline)
if i == 0 or i == len(samples):
    sys.exit("no CPU samples around the deadline")
a, b = samples[i - 1], samples[i]
at = a[1] + (b[1] - a[1]) * (deadline - a[0]) / (b[0] - a[0])
print("%s\t%s\t%s\t%.3f\t%.3f\t%.3f\t%d\t%d" % (conns, build, rnd, end - deadline, total - at,
      total, d["requests"]["ok"], d["requests"]["errors"]))
EOF
		{ echo "$prog: round $r -c $c $b: no figures: $(tail -n 2 "$base.out")" >&2; return 0; }
	tail -n 1 "$runs" | awk -F '\t' '{ printf "  round %s  -c %-6s %-6s end: wall %6.3f s  CPU %6.3f s  (run CPU %.2f s, %d ok, %d errors)\n",
		$3, $1, $2, $4, $5, $6, $7, $8 }' >&2
}

started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
ab_rounds "$rounds" run_close "${conn_list[@]}" -- "${builds[@]}"
finished=$(date -u '+%Y-%m-%d %H:%M:%S UTC')

tables() {
	python3 - "$runs" "${builds[@]}" <<'EOF'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
builds = sys.argv[2:]
print("| -c | Build | Runs | end wall s (median) | min..max | end CPU s (median) | min..max | requests (median) | run CPU s | errors |")
print("|---:|---|---:|---:|---|---:|---|---:|---:|---:|")
for c in dict.fromkeys(r[0] for r in rows):
    for b in builds:
        s = [r for r in rows if r[0] == c and r[1] == b]
        if not s:
            continue
        w = [float(r[3]) for r in s]
        u = [float(r[4]) for r in s]
        print("| %s | %s | %d | %.3f | %.3f..%.3f | %.3f | %.3f..%.3f | %.0f | %.2f | %d |" % (
            c, b, len(s), statistics.median(w), min(w), max(w), statistics.median(u), min(u), max(u),
            statistics.median([int(r[6]) for r in s]), statistics.median([float(r[5]) for r in s]),
            sum(int(r[7]) for r in s)))
EOF
}

report() {
	echo "# The end of a run: wall time and CPU from the -z deadline to the exit"
	echo
	echo "$(host_line); shb $(version_of shb) ($(repo_state)), -t $threads -z ${duration}s,"
	echo "HTTP/1.1 against $(version_of nginx) ($workers worker(s)) on loopback${source:+, --source $source}; $rounds rounds, $started to $finished."
	[ -z "$before" ] || echo "before: ${bin[before]}; after: ${bin[after]}."
	echo
	tables
}
write_report close
