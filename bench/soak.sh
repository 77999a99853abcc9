#!/usr/bin/env bash
# Soak: shb runs for a long time (an hour by default) at -c 1000 against
# local servers, over HTTP/1.1 (nginx), HTTP/2 (h2o or nginx, TLS or h2c) and
# HTTP/3 (gtlsserver or caddy), one protocol after the other or all at once,
# while its resident memory (VmRSS) is sampled every few seconds. The
# question is whether shb's memory stays flat once the connections are up:
# anything that grows per request or per reconnect shows as a slope.
#
# Writes a CSV of samples per protocol and a Markdown summary; see
# bench/README.md. Running it under `nice -n 19` keeps a shared machine
# usable; the report records the niceness it ran at.
set -euo pipefail

prog=soak.sh
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"

usage() {
	cat <<'EOF'
Usage: bench/soak.sh [options]

Runs shb for DURATION at -c CONNS per protocol against local servers with
--interval INTERVAL, samples its VmRSS and CPU every INTERVAL; writes two
CSVs per protocol (samples, and shb's intervals with their CPU) and a
Markdown summary: RSS and CPU per request of the first interval after the
first minute, the last, the max; RSS PASS when every sample after the
first minute is within 5 % of the first, CPU PASS when the trend of CPU
per request over the run stays within 15 %.

Options:
  -d, --duration T       length of each run: seconds, or with s, m or h
                         (default: 1h)
  -c, --connections N    connections per shb (default: 1000)
  -t, --threads N        threads per shb (default: 1)
  -p, --parallel N       requests in flight per connection on h2 and h3
                         (default: 1)
  -i, --interval S       seconds between RSS samples, and shb's --interval
                         (default: 10)
  -R, --rate SPEC        open loop at a fixed rate instead of as fast as the
                         servers answer: N req/s for every protocol, or per
                         protocol as h1=N,h2=N,h3=N (a protocol left out runs
                         closed loop). A fixed rate keeps the work per interval
                         the same all run long, so CPU per request is compared
                         like with like; with nice -n -10 on a shared machine
                         it also keeps the run's share of the cores
      --protos LIST      protocols, from: h1 h2 h3 (default: "h1 h2 h3")
      --together         run the protocols at the same time (the default
                         with more than one)
      --in-turn          run them one after the other
      --h2 SERVER:MODE   h2 server (h2o or nginx) and mode (tls or h2c)
                         (default: h2o:tls)
      --h3 SERVER        h3 server: gtlsserver or caddy (default: gtlsserver)
      --tolerance PCT    RSS flatness bound after the first minute
                         (default: 5)
      --cpu-tolerance PCT  bound on the trend of CPU per request over the
                         run (default: 15)
      --no-progress      do not run shb on a pseudo-terminal: then only RSS
                         is sampled, not the requests done so far
  -o, --output FILE      summary file (default: bench/results/DATE-soak.md;
                         CSVs next to it, FILE without .md + -PROTO.csv)
      --shb PATH         use this shb binary instead of building one into
                         build-bench/ at the top of the repository
      --plugin-path P    SHB_PLUGIN_PATH for --shb (default: derived from the
                         build directory holding PATH)
  -h, --help             print this help and exit

Every shb run is bounded by `timeout` (DURATION + 2 min); servers run as
children of the script and are stopped by pid on exit and on Ctrl-C.
Missing packages (nginx-light, h2o, caddy, ngtcp2-server, openssl and, to
build shb, its build dependencies) are installed with apt-get.
EOF
}

duration=1h
conns=1000
threads=1
streams=1
rate=""
interval=10
protos="h1 h2 h3"
together=""
h2spec="h2o:tls"
h3server=gtlsserver
tolerance=5
cpu_tolerance=15
progress=1
out=""
shb=""
plugin_path=""

parse_options "-d|--duration=duration" "-c|--connections=conns" "-t|--threads=threads" \
	"-p|--parallel=streams" "-R|--rate=rate" "-i|--interval=interval" "--protos=protos" "--together=together:1" \
	"--in-turn=together:0" "--h2=h2spec" "--h3=h3server" "--tolerance=tolerance" \
	"--cpu-tolerance=cpu_tolerance" "--no-progress=progress:0" "-o|--output=out" "--shb=shb" \
	"--plugin-path=plugin_path" -- "$@"

# "90", "90s", "30m", "1h" -> seconds.
case "$duration" in
*h) secs=${duration%h}; mult=3600 ;;
*m) secs=${duration%m}; mult=60 ;;
*s) secs=${duration%s}; mult=1 ;;
*) secs=$duration; mult=1 ;;
esac
[[ "$secs" =~ ^[0-9]+$ ]] || die "--duration must be seconds or a number with s, m or h, not '$duration'"
duration=$((secs * mult))
check_int "--duration (seconds)" "$duration" 10 86400
check_int "-c" "$conns" 1 60000
check_int "-t" "$threads" 1 256
check_int "-p" "$streams" 1 256
check_int "--interval" "$interval" 1 3600
check_int "--tolerance" "$tolerance" 1 100
check_int "--cpu-tolerance" "$cpu_tolerance" 1 100
check_words proto "$protos" h1 h2 h3
read -r -a proto_list <<<"$protos"
declare -A rate_of=()
if [[ "$rate" =~ ^[0-9]+$ ]]; then
	for p in "${proto_list[@]}"; do rate_of[$p]=$rate; done
elif [ -n "$rate" ]; then
	IFS=, read -r -a rate_parts <<<"$rate"
	for part in "${rate_parts[@]}"; do
		[[ "$part" =~ ^(h1|h2|h3)=([0-9]+)$ ]] ||
			die "--rate must be N or h1=N,h2=N,h3=N, not '$rate'"
		rate_of[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
	done
fi
for p in "${!rate_of[@]}"; do check_int "--rate ($p)" "${rate_of[$p]}" 1 10000000; done
[ -n "$together" ] || { [ "${#proto_list[@]}" -gt 1 ] && together=1 || together=0; }
h2server=${h2spec%%:*}
h2mode=${h2spec#*:}
[ "$h2spec" != "$h2server" ] || die "--h2 must be SERVER:MODE, e.g. h2o:tls, not '$h2spec'"
in_list "$h2server" h2o nginx || die "--h2 server must be h2o or nginx, not '$h2server'"
in_list "$h2mode" tls h2c || die "--h2 mode must be tls or h2c, not '$h2mode'"
in_list "$h3server" gtlsserver caddy || die "--h3 must be gtlsserver or caddy, not '$h3server'"
[ -z "$plugin_path" ] || [ -n "$shb" ] || die "--plugin-path goes with --shb"
if [ "$progress" -eq 1 ] && ! command -v script >/dev/null; then
	echo "$prog: no script(1): sampling RSS only" >&2
	progress=0
fi

doing() { in_list "$1" "${proto_list[@]}"; }

# --- packages ----------------------------------------------------------------

PATH=$PATH:/usr/sbin:/sbin
missing=()
if doing h1 || { doing h2 && [ "$h2server" = nginx ]; }; then
	command -v nginx >/dev/null || missing+=(nginx-light)
fi
if doing h2 && [ "$h2server" = h2o ]; then command -v h2o >/dev/null || missing+=(h2o); fi
if doing h3; then
	case "$h3server" in
	gtlsserver) command -v gtlsserver >/dev/null || missing+=(ngtcp2-server) ;;
	caddy) command -v caddy >/dev/null || missing+=(caddy) ;;
	esac
fi
command -v openssl >/dev/null || missing+=(openssl)
command -v timeout >/dev/null || missing+=(coreutils)
if [ -z "$shb" ]; then
	mapfile -t -O "${#missing[@]}" missing < <(shb_build_packages)
	doing h3 && ! pkg_installed nettle-dev && missing+=(nettle-dev)
fi
install_packages "${missing[@]}"
nginx_bin=$(command -v nginx || true)

# --- shb ---------------------------------------------------------------------

repo=$(repo_state)
plugin_dirs=(reporters)
doing h1 && plugin_dirs+=(h1)
doing h2 && plugin_dirs+=(h2)
doing h3 && plugin_dirs+=(h3/plugin)
setup_shb "${plugin_dirs[@]}"

# --- scratch space and clean-up ----------------------------------------------

declare -A runner_pid=()

# The runners first (they stop sampling), then the shb processes they
# started (pids in $tmp/PROTO.pid); the servers after them (scratch_dir).
stop_runners() {
	local p f
	for p in "${runner_pid[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	for f in "$tmp"/*.pid; do
		[ -e "$f" ] || continue
		p=$(cat "$f")
		if [ -n "$p" ]; then kill -TERM "$p" 2>/dev/null || true; fi
	done
	for p in "${runner_pid[@]}"; do wait "$p" 2>/dev/null || true; done
}
scratch_dir soak stop_runners

raise_nofile

# --- servers -----------------------------------------------------------------

# shellcheck source=tests/h3/servers/common.sh
source "$root/tests/h3/servers/common.sh"
h3srv_make_cert "$tmp/tls" || die "could not make a test certificate"

# Read by nginx_conf in lib.sh.
# shellcheck disable=SC2034
workers=1
# shellcheck disable=SC2034
max_conns=$((conns * ${#proto_list[@]}))

# nginx: ports for h1, h2c and h2 over TLS (unused ones cost nothing).
write_nginx_conf() { # h1-port h2c-port tls-port
	nginx_conf "listen 127.0.0.1:$1;" "listen 127.0.0.1:$2 http2;" "listen 127.0.0.1:$3 ssl http2;" \
		"ssl_certificate $tmp/tls/cert.pem;" "ssl_certificate_key $tmp/tls/key.pem;" \
		"http2_max_concurrent_streams 256;" >"$tmp/nginx/nginx.conf"
}

write_h2o_conf() { # h2c-port tls-port
	write_h2o_conf_with 1 "$((2 * conns + 64))" "$1" "$2"
}

declare -A url=() server_of=()

if doing h1 || { doing h2 && [ "$h2server" = nginx ]; }; then
	start_server nginx 3 1 write_nginx_conf \
		"$nginx_bin" -p "$tmp/nginx" -e "$tmp/nginx/error.log" -c "$tmp/nginx/nginx.conf"
	read -r -a np <<<"${srv_ports[nginx]}"
	url[h1]="http://127.0.0.1:${np[0]}/"
	server_of[h1]="nginx"
	if [ "$h2server" = nginx ]; then
		[ "$h2mode" = h2c ] && url[h2]="http://127.0.0.1:${np[1]}/" || url[h2]="https://127.0.0.1:${np[2]}/"
		server_of[h2]="nginx"
	fi
fi
if doing h2 && [ "$h2server" = h2o ]; then
	start_server h2o 2 0 write_h2o_conf h2o -c "$tmp/h2o/h2o.conf"
	read -r -a hp <<<"${srv_ports[h2o]}"
	[ "$h2mode" = h2c ] && url[h2]="http://127.0.0.1:${hp[0]}/" || url[h2]="https://127.0.0.1:${hp[1]}/"
	server_of[h2]="h2o"
fi
if doing h3; then
	# shellcheck source=tests/h3/servers/gtlsserver.sh
	source "$root/tests/h3/servers/$h3server.sh"
	mkdir -p "$tmp/$h3server"
	cp "$tmp/tls/cert.pem" "$tmp/tls/key.pem" "$tmp/$h3server/"
	H3SRV_BIND=127.0.0.1 "h3srv_start_$h3server" "$tmp/$h3server" >&2 || die "$h3server did not start"
	srv_pid[$h3server]=$H3SRV_PID
	url[h3]="https://127.0.0.1:$H3SRV_PORT/"
	server_of[h3]="$h3server"
	echo "$prog: $h3server (pid $H3SRV_PID) on udp port $H3SRV_PORT" >&2
fi

# ", -R 10000 on h1, ..." for the summary, empty when closed loop.
rate_line() {
	local p out=""
	for p in "${proto_list[@]}"; do
		[ -z "${rate_of[$p]:-}" ] || out+=", -R ${rate_of[$p]} on $p"
	done
	printf '%s' "$out"
}

# --- one sampled run ---------------------------------------------------------

shb_cmd() { # proto jsonfile -> cmd[]
	local extra=()
	[ "$1" = h1 ] || extra=(-p "$streams")
	[ -z "${rate_of[$1]:-}" ] || extra+=(-R "${rate_of[$1]}")
	cmd=(env "SHB_PLUGIN_PATH=$plugin_path" "$shb" --proto "$1" -t "$threads" -c "$conns" "${extra[@]}"
		-z "${duration}s" --interval "${interval}s" --report "json:$2" "${url[$1]}")
}

# The shb process under PID (itself, or a descendant when it runs under
# script, a shell and timeout).
find_shb() { # pid
	local p q
	for p in $1 $(pgrep -P "$1" || true); do
		if [ "$(cat "/proc/$p/comm" 2>/dev/null)" = shb ]; then
			echo "$p"
			return 0
		fi
		if [ "$p" != "$1" ] && q=$(find_shb "$p"); then
			echo "$q"
			return 0
		fi
	done
	return 1
}

# "ok errors" from the last progress line shb drew on its terminal.
progress_counts() { # typescript
	tail -c 400 "$1" 2>/dev/null | tr '\r' '\n' |
		sed -nE 's/^\[ *[0-9.]+s\] ([0-9]+) ok, ([0-9]+) errors.*/\1 \2/p' | tail -n 1
}

# Runs shb for one protocol, bounded by timeout, and writes
# $tmp/PROTO.csv: seconds since start, VmRSS and VmHWM (KiB), threads,
# the ok and error counts of the progress line when there is one, shb's
# CPU (utime + stime, ticks) and the machine's 1-minute load average.
# Every pass (about a second) also appends "unix-ns ticks" to PROTO.cpu,
# from which intervals_csv gets the CPU of each of shb's intervals.
run_proto() { # proto
	local p=$1 base="$tmp/$1" t0 tn now pid="" top rc=0 rss hwm thr counts ok errs next ticks load
	shb_cmd "$p" "$base.json"
	local bound=$((duration + 120))
	echo "t_s,rss_kib,hwm_kib,threads,ok,errors,cpu_ticks,load1" >"$base.csv"
	: >"$base.cpu"
	t0=$(date +%s%N)
	echo "$t0" >"$base.t0"
	if [ "$progress" -eq 1 ]; then
		# A pseudo-terminal makes shb draw its progress line, which
		# gives the requests done so far at each sample.
		script -qefc "$(printf '%q ' timeout -k 10 "$bound" "${cmd[@]}")" "$base.typescript" \
			</dev/null >/dev/null 2>&1 &
	else
		timeout -k 10 "$bound" "${cmd[@]}" </dev/null >"$base.typescript" 2>&1 &
	fi
	top=$!
	for _ in $(seq 1 100); do
		pid=$(find_shb "$top") && break
		sleep 0.1
	done
	[ -n "$pid" ] || { echo "$prog: $p: shb did not start" >&2; wait "$top" || true; echo 1 >"$base.rc"; return; }
	echo "$pid" >"$base.pid"
	echo "$prog: $p: shb pid $pid -> ${url[$p]}" >&2
	next=0
	while kill -0 "$pid" 2>/dev/null; do
		tn=$(date +%s%N)
		now=$(((tn - t0) / 1000000000))
		ticks=$(pid_ticks "$pid") || break
		echo "$tn $ticks" >>"$base.cpu"
		if [ "$now" -ge "$next" ]; then
			read -r rss hwm thr < <(awk '/^VmRSS:/ { r = $2 } /^VmHWM:/ { h = $2 } /^Threads:/ { t = $2 }
				END { print r, h, t }' "/proc/$pid/status" 2>/dev/null) || true
			if [ -n "${rss:-}" ]; then
				ok="" errs=""
				if [ "$progress" -eq 1 ]; then
					counts=$(progress_counts "$base.typescript")
					read -r ok errs <<<"${counts:-}" || true
				fi
				read -r load _ </proc/loadavg
				echo "$now,$rss,$hwm,$thr,${ok:-},${errs:-},$ticks,$load" >>"$base.csv"
			fi
			next=$((next + interval))
		fi
		sleep 1
	done
	wait "$top" || rc=$?
	echo "$rc" >"$base.rc"
	rm -f "$base.pid"
	echo "$prog: $p: shb exited with status $rc" >&2
}

# --- the runs ----------------------------------------------------------------

# The machine's busy ticks and the servers' around the runs: what is left
# after shb's and theirs is the other work on a shared machine.
all_server_ticks() {
	local n total=0
	for n in "${!srv_pid[@]}"; do total=$((total + $(server_ticks "$n"))); done
	echo "$total"
}
busy0=$(busy_ticks)
srv0=$(all_server_ticks)
wall0=$(date +%s%N)
started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
nice_level=$(awk '{ print $19 }' /proc/self/stat)
echo "$prog: ${#proto_list[@]} run(s) of ${duration}s at -c $conns, $([ "$together" -eq 1 ] && echo together || echo in turn), niceness $nice_level" >&2
if [ "$together" -eq 1 ]; then
	for p in "${proto_list[@]}"; do
		run_proto "$p" &
		runner_pid[$p]=$!
	done
	for p in "${proto_list[@]}"; do wait "${runner_pid[$p]}" || true; done
else
	for p in "${proto_list[@]}"; do run_proto "$p"; done
fi
runner_pid=()
finished=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
wall1=$(date +%s%N)
srv1=$(all_server_ticks)
busy1=$(busy_ticks)
shb_ticks=0
for p in "${proto_list[@]}"; do
	t=$(tail -n 1 "$tmp/$p.cpu" | awk '{ print $2 + 0 }')
	shb_ticks=$((shb_ticks + t))
done

# --- the report --------------------------------------------------------------

# "ok total errors-by-kind" from shb's JSON report.
json_summary() { # file
	python3 - "$1" <<'EOF' 2>/dev/null || echo "- - (no report)"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["requests"]
kinds = ", ".join(f"{k} {v}" for k, v in d["errors"].items() if v) or "none"
codes = ", ".join(f"{k}: {v}" for k, v in sorted(d["statusCodes"].items()))
print(r["ok"], sum(d["errors"].values()), kinds + " (statuses " + codes + ")")
EOF
}

# One summary row from a CSV: first sample at or after 60 s, last, max,
# min after the first minute, and PASS when every sample from the first
# minute on is within the tolerance of that first one. Samples from the
# end of the duration on catch shb closing its connections and freeing
# memory: they stay in the CSV but are not counted.
rss_row() { # proto csv
	awk -F, -v p="$1" -v tol="$tolerance" -v end="$duration" 'NR > 1 && $1 < end {
		n++; if ($2 > max) { max = $2; tmax = $1 }
		if ($1 >= 60) {
			if (f == "") { f = $2; tf = $1; lo = $2; hi = $2 }
			if ($2 < lo) lo = $2; if ($2 > hi) hi = $2
		}
		last = $2; tl = $1
	}
	END {
		if (f == "") { printf "| %s | %d | - | %s KiB at %ss | %s KiB at %ss | - | - | no sample after the first minute |\n", p, n, last, tl, max, tmax; exit }
		dev = (hi - f > f - lo ? hi - f : f - lo) * 100 / f
		printf "| %s | %d | %d KiB at %ds | %d KiB at %ds | %d KiB at %ds | %d..%d KiB | %+.1f %% / %.1f %% | %s |\n",
			p, n, f, tf, last, tl, max, tmax, lo, hi, (last - f) * 100 / f, dev,
			(dev <= tol) ? "PASS" : "FAIL"
	}' "$2"
}

# shb's intervals (JSON report) with the CPU shb spent in each, as a CSV
# (index, start_s, duration_s, ok, errors, cpu_ms, cpu_us_per_req, rss_kib)
# in $tmp/PROTO-intervals.csv, and the summary row of CPU per request over
# the full intervals that start after the first minute. An interval's CPU
# is the difference of shb's ticks at its two ends, each interpolated
# between the passes (about a second apart) of run_proto around it; its
# RSS is the last sample taken by its end. PASS when the least-squares
# trend of CPU per request over the run stays within the CPU tolerance.
cpu_row() { # proto
	local b="$tmp/$1"
	python3 - "$1" "$b.json" "$b.cpu" "$b.csv" "$(cat "$b.t0")" "$b-intervals.csv" \
		"$interval" "$clk_tck" "$cpu_tolerance" <<'EOF' 2>"$b.cpu-err" ||
import bisect, csv, datetime, json, statistics, sys
p, js, cpuf, samples, t0, out, ivlen, tck, tol = sys.argv[1:10]
t0, ivlen, tck, tol = int(t0), float(ivlen), float(tck), float(tol)
d = json.load(open(js))
day, frac = d["loadStart"].rstrip("Z").split(".")
t = datetime.datetime.strptime(day, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc)
start = int(t.timestamp()) * 10**9 + int(frac.ljust(9, "0")[:9]) + round((d.get("warmupSeconds") or 0) * 1e9)
cpu = [tuple(map(int, l.split())) for l in open(cpuf) if l.strip()]
cns = [c[0] for c in cpu]
rss = [(t0 + int(r["t_s"]) * 10**9, int(r["rss_kib"])) for r in csv.DictReader(open(samples))]


def ticks_at(ns):
    i = bisect.bisect_left(cns, ns)
    if i == 0 or i == len(cpu):
        return None
    (a, ta), (b, tb) = cpu[i - 1], cpu[i]
    return ta + (tb - ta) * (ns - a) / (b - a)


def rss_at(ns):
    return max((r for r in rss if r[0] <= ns), default=(0, ""))[1]


rows, keep = [], []
for v in d.get("intervals") or []:
    s0 = start + round(v["startSeconds"] * 1e9)
    s1 = s0 + round(v["durationSeconds"] * 1e9)
    a, b = ticks_at(s0), ticks_at(s1)
    ms = (b - a) * 1000 / tck if a is not None and b is not None else None
    us = ms * 1000 / v["ok"] if ms is not None and v["ok"] else None
    rows.append([v["index"], "%.3f" % v["startSeconds"], "%.3f" % v["durationSeconds"], v["ok"], v["errors"],
                 "" if ms is None else "%.0f" % ms, "" if us is None else "%.3f" % us, rss_at(s1)])
    if us is not None and v["startSeconds"] >= 60 and v["durationSeconds"] >= 0.99 * ivlen:
        keep.append((v["startSeconds"], us))
with open(out, "w") as f:
    f.write("index,start_s,duration_s,ok,errors,cpu_ms,cpu_us_per_req,rss_kib\n")
    for r in rows:
        f.write(",".join(map(str, r)) + "\n")
if len(keep) < 2:
    sys.exit("fewer than two full intervals after the first minute")
ts, us = [k[0] for k in keep], [k[1] for k in keep]
med = statistics.median(us)
mt, mu = statistics.mean(ts), statistics.mean(us)
slope = sum((x - mt) * (y - mu) for x, y in zip(ts, us)) / sum((x - mt) ** 2 for x in ts)
trend = slope * (ts[-1] - ts[0]) * 100 / (mu + slope * (ts[0] - mt))
dev = max(abs(y - med) for y in us) * 100 / med
hi = max(keep, key=lambda k: k[1])
print("| %s | %d | %.2f at %.0fs | %.2f at %.0fs | %.2f at %.0fs | %.2f..%.2f | %.2f | %+.1f %% | %.1f %% | %s |" % (
    p, len(keep), us[0], ts[0], us[-1], ts[-1], hi[1], hi[0], min(us), hi[1], med, trend, dev,
    "PASS" if abs(trend) <= tol else "FAIL"))
EOF
		echo "| $1 | 0 | - | - | - | - | - | - | - | no figures: $(tail -n 1 "$b.cpu-err") |"
}

# Requests, errors and CPU per request every 5 minutes, from the intervals.
cpu_curve() {
	local p ivfiles=()
	for p in "${proto_list[@]}"; do ivfiles+=("$tmp/$p-intervals.csv"); done
	printf '| from |'
	for p in "${proto_list[@]}"; do printf ' %s ok | %s errors | %s CPU µs/req |' "$p" "$p" "$p"; done
	echo
	printf '|---:|'
	for p in "${proto_list[@]}"; do printf -- '---:|---:|---:|'; done
	echo
	awk -F, -v n="${#proto_list[@]}" '
	FNR == 1 { k++; next }
	{
		b = int($2 / 300); ok[k, b] += $4; er[k, b] += $5; if (b > bmax) bmax = b
		if ($6 != "") { ms[k, b] += $6; okc[k, b] += $4 }
	}
	END {
		for (b = 0; b <= bmax; b++) {
			printf "| %ds |", b * 300
			for (j = 1; j <= n; j++)
				printf " %d | %d | %s |", ok[j, b], er[j, b], okc[j, b] ? sprintf("%.2f", ms[j, b] * 1000 / okc[j, b]) : "-"
			print ""
		}
	}' "${ivfiles[@]}"
}

# The 1-minute load average over the samples of the duration: mean and max.
load_line() { # csv
	awk -F, -v end="$duration" 'NR > 1 && $1 < end && $8 != "" { n++; s += $8; if ($8 > m) m = $8 }
		END { if (n) printf "mean %.2f, max %.2f over %d samples", s / n, m, n; else print "not sampled" }' "$1"
}

# RSS every 5 minutes (and the first samples), so the curve reads at a glance.
curve_table() {
	local p
	printf '| t |'
	for p in "${proto_list[@]}"; do printf ' %s RSS KiB | %s ok |' "$p" "$p"; done
	echo
	printf '|---:|'
	for p in "${proto_list[@]}"; do printf -- '---:|---:|'; done
	echo
	awk -F, -v n="${#proto_list[@]}" '
	FNR == 1 { k++; next }
	{ t = $1 - $1 % 10; rss[k, t] = $2; ok[k, t] = $5; ts[t] = 1 }
	END {
		for (t in ts) { if (t + 0 <= 60 || t % 300 == 0) keep[t + 0] = 1; if (t + 0 > tmax) tmax = t + 0 }
		keep[tmax] = 1
		m = 0; for (t in keep) tl[++m] = t + 0
		for (i = 2; i <= m; i++) { x = tl[i]; for (j = i - 1; j >= 1 && tl[j] > x; j--) tl[j + 1] = tl[j]; tl[j + 1] = x }
		for (i = 1; i <= m; i++) {
			t = tl[i]; printf "| %ds |", t
			for (j = 1; j <= n; j++) printf " %s | %s |", ((j, t) in rss) ? rss[j, t] : "", ((j, t) in ok) ? ok[j, t] : ""
			print ""
		}
	}' "${proto_list[@]/#/$tmp/}"
}

server_desc() {
	case "$1" in
	h1) echo "$(version_of nginx), 1 worker, \`return 200\`, plain HTTP/1.1" ;;
	h2) if [ "$h2server" = nginx ]; then echo "$(version_of nginx), 1 worker, $h2mode"; else
		echo "$(version_of h2o), 1 thread, static file, $h2mode"; fi ;;
	h3) if [ "$h3server" = caddy ]; then echo "caddy $(caddy version 2>/dev/null | awk '{ print $1; exit }')"; else
		echo "gtlsserver (ngtcp2 $(dpkg-query -W -f='${Version}' ngtcp2-server 2>/dev/null || echo '?'))"; fi ;;
	esac
}

if [ -z "$out" ]; then
	out=$(results_path soak)
else
	mkdir -p "$(dirname "$out")"
fi
outbase=${out%.md}

# The curve table reads $tmp/PROTO as files: give it the CSVs there.
for p in "${proto_list[@]}"; do cp "$tmp/$p.csv" "$tmp/$p"; cp "$tmp/$p.csv" "$outbase-$p.csv"; done
# cpu_row writes the intervals' CSVs that cpu_curve reads.
declare -A cpu_rows=()
for p in "${proto_list[@]}"; do
	cpu_rows[$p]=$(cpu_row "$p")
	[ ! -e "$tmp/$p-intervals.csv" ] || cp "$tmp/$p-intervals.csv" "$outbase-$p-intervals.csv"
done

# Cores kept busy on average: "shb servers others".
cores_line() {
	awk -v b=$((busy1 - busy0)) -v s=$((srv1 - srv0)) -v c="$shb_ticks" -v w=$((wall1 - wall0)) -v k="$clk_tck" \
		'BEGIN { w /= 1e9; printf "shb %.2f, servers %.2f, everything else %.2f", c / k / w, s / k / w, (b - s - c) / k / w }'
}

verdict() { # rss-row cpu-row
	case "$1$2" in
	*FAIL*) echo FAIL ;;
	*"| PASS |"*"| PASS |") echo PASS ;;
	*) echo "no verdict" ;;
	esac
}

report() {
	local p res ok errs kinds cmdline
	local rrow
	echo "# shb soak: VmRSS and CPU per request over ${duration} s at -c $conns"
	echo
	echo "- Date: $started to $finished"
	echo "- Host: $(host_line)"
	echo "- Repository: $repo"
	echo "- shb: $(version_of shb), -t $threads -c $conns$( [ "$streams" -gt 1 ] && echo " -p $streams on h2/h3")$(rate_line)"
	echo "- Runs: $([ "$together" -eq 1 ] && echo "all protocols at the same time" || echo "one protocol after the other"), ${duration} s each"
	echo "- Niceness: $nice_level (clients and servers$([ "$nice_level" -gt 0 ] && echo ", so that other work on the machine goes first"))"
	echo "- RSS sampled every ${interval} s from /proc/PID/status (VmRSS); ok counts from shb's progress line;"
	echo "  the table counts samples taken before the end of the duration only (later ones see shb shutting down)"
	echo "- CPU: shb's utime + stime from /proc/PID/stat about every second, interpolated at the ends of shb's"
	echo "  ${interval} s intervals (\`--interval\`, JSON report), divided by the interval's ok requests"
	echo "- Machine: shared with other work; 1-minute load average $(load_line "$tmp/${proto_list[0]}.csv");"
	echo "  cores busy on average: $(cores_line)"
	for p in "${proto_list[@]}"; do echo "- $p server: $(server_desc "$p") on 127.0.0.1"; done
	echo
	echo "## RSS"
	echo
	echo "| Protocol | Samples | First after 1 min | Last | Max | Range after 1 min | Last vs first / largest deviation | Flat within ${tolerance} % |"
	echo "|---|---:|---:|---:|---:|---:|---:|---|"
	for p in "${proto_list[@]}"; do rss_row "$p" "$tmp/$p.csv"; done
	echo
	echo "## CPU per request"
	echo
	echo "Client CPU (µs) per ok request, per ${interval} s interval, over the full intervals that start after the first"
	echo "minute. Trend: the least-squares line's change from the first of them to the last, relative to its start."
	echo "PASS when the trend stays within ${cpu_tolerance} %: single intervals on a shared machine move with the other"
	echo "work (cache and core contention, a busy neighbour taking the core mid-interval), by more than RSS pages"
	echo "do; a cost that grows per request or per reconnect shows as a trend, which the fit sees through that noise."
	echo
	echo "| Protocol | Intervals | First after 1 min | Last | Max | Range | Median | Trend | Largest deviation from median | Trend within ${cpu_tolerance} % |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
	for p in "${proto_list[@]}"; do echo "${cpu_rows[$p]}"; done
	echo
	echo "## Verdict"
	echo
	echo "| Protocol | RSS | CPU per request | Soak |"
	echo "|---|---|---|---|"
	for p in "${proto_list[@]}"; do
		rrow=$(rss_row "$p" "$tmp/$p.csv")
		echo "| $p | $(verdict "$rrow" "$rrow") | $(verdict "${cpu_rows[$p]}" "${cpu_rows[$p]}") | $(verdict "$rrow" "${cpu_rows[$p]}") |"
	done
	echo
	echo "## Requests"
	echo
	echo "| Protocol | shb exit | ok | errors | errors by kind |"
	echo "|---|---:|---:|---:|---|"
	for p in "${proto_list[@]}"; do
		res=$(json_summary "$tmp/$p.json")
		read -r ok errs kinds <<<"$res"
		echo "| $p | $(cat "$tmp/$p.rc" 2>/dev/null || echo '?') | $ok | $errs | $kinds |"
	done
	echo
	echo "## Curve"
	echo
	curve_table
	echo
	echo "## Every 5 minutes"
	echo
	cpu_curve
	echo
	echo "CSV per protocol (t_s, rss_kib, hwm_kib, threads, ok, errors, cpu_ticks, load1): $(for p in "${proto_list[@]}"; do printf "\`%s\` " "$(basename "$outbase-$p.csv")"; done)"
	echo
	echo "CSV of intervals per protocol (index, start_s, duration_s, ok, errors, cpu_ms, cpu_us_per_req, rss_kib):"
	for p in "${proto_list[@]}"; do printf "\`%s\` " "$(basename "$outbase-$p-intervals.csv")"; done
	echo
	echo
	echo "## Commands"
	echo
	echo '```'
	for p in "${proto_list[@]}"; do
		shb_cmd "$p" REPORT.json
		cmdline="${cmd[*]}"
		# Where shb was built is a detail of this machine: <build>.
		cmdline=${cmdline//$(dirname "$(dirname "$shb")")/<build>}
		cmdline=${cmdline//$root\//}
		echo "${cmdline%http*}<${server_of[$p]} url>"
	done
	echo '```'
}

report >"$out"
cat "$out"
echo "$prog: results written to $out" >&2
