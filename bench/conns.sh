#!/usr/bin/env bash
# Many connections: shb holds -c connections (default 100,000) against a
# local nginx for DURATION seconds (default 60), spread over several source
# addresses with --source, and reports shb's peak RSS, its set-up time
# (connect of every connection, before the load), req/s, errors, and the
# connections nginx saw open in the middle of the run.
#
# What a machine needs for it, and what the script does about it:
#  - open files: beyond the open-files limit shb holds its sockets in its
#    workers' io_uring file tables only, fewer than the limit per thread,
#    so one process does (without -t shb picks the threads); the hard limit
#    is raised to -c when allowed (root). nginx runs enough worker
#    processes (reuseport) for each to stay under the limit. --processes N
#    splits the run into shards instead (--shard I/N, one process each, a
#    common --start-at), merged with shb merge.
#  - local ports: one source address has ip_local_port_range's ports
#    towards one server port; the run uses enough addresses of 127.0.0.0/8
#    (--source) for -c at an eighth of that range each.
#  - fs.nr_open and net.core.somaxconn: raised when lower than needed
#    (root), and restored on exit; the report lists what was changed.
# Writes bench/results/DATE-conns.md; see bench/README.md.
set -euo pipefail

prog=conns.sh
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"

usage() {
	cat <<'EOF'
Usage: bench/conns.sh [options]

Holds -c connections to a local nginx for a while and reports shb's peak
RSS, set-up time and req/s; writes a Markdown report.

Options:
  -c, --connections N    connections to hold (default: 100000)
  -d, --duration S       seconds of load after set-up (default: 60)
  -t, --threads N        shb threads per process (default: shb's own
                         choice: one per CPU, more when -c is beyond the
                         open-files limit)
      --processes N      shb processes, each a shard of the run with its
                         part of -c (default: 1)
  -o, --output FILE      results file (default: bench/results/DATE-conns.md)
      --shb PATH         use this shb binary instead of building one into
                         build-bench/ at the top of the repository
      --plugin-path P    SHB_PLUGIN_PATH for --shb (default: derived from the
                         build directory holding PATH)
  -h, --help             print this help and exit

Missing packages (nginx-light, time and, to build shb, its build
dependencies) are installed with apt-get.
EOF
}

want_c=100000
procs=1
duration=60
threads=
out=""
shb=""
plugin_path=""

parse_options "-c|--connections=want_c" "-d|--duration=duration" "-t|--threads=threads" \
	"--processes=procs" "-o|--output=out" "--shb=shb" "--plugin-path=plugin_path" -- "$@"

check_int "-c" "$want_c" 1 1000000
check_int duration "$duration" 1 3600
[ -z "$threads" ] || check_int threads "$threads" 1 256
check_int "--processes" "$procs" 1 64
[ -z "$plugin_path" ] || [ -n "$shb" ] || die "--plugin-path goes with --shb"

PATH=$PATH:/usr/sbin:/sbin
missing=()
command -v nginx >/dev/null || missing+=(nginx-light)
[ -x /usr/bin/time ] || missing+=(time)
if [ -z "$shb" ]; then mapfile -t -O "${#missing[@]}" missing < <(shb_build_packages); fi
install_packages "${missing[@]}"
repo=$(repo_state)
setup_shb h1 reporters
nginx_bin=$(command -v nginx)

changed=()   # "name old new" of each sysctl changed
restore_sysctls() {
	local e name old
	for e in "${changed[@]+"${changed[@]}"}"; do
		read -r name old _ <<<"$e"
		echo "$old" >"/proc/sys/${name//.//}" 2>/dev/null ||
			echo "$prog: could not restore $name to $old" >&2
	done
}
scratch_dir conns restore_sysctls

# raise_sysctl NAME MIN: sets it to MIN when lower (root only).
raise_sysctl() {
	local f="/proc/sys/${1//.//}" cur
	cur=$(cat "$f")
	[ "$cur" -ge "$2" ] && return 0
	if echo "$2" >"$f" 2>/dev/null; then
		changed+=("$1 $cur $2")
		echo "$prog: $1 $cur -> $2 (restored on exit)" >&2
	else
		echo "$prog: $1 is $cur, below $2, and cannot be raised here" >&2
	fi
}

# --- how many connections this machine allows --------------------------------

shb_extra=64 # shb's own descriptors beyond -c (rings, reporters, stdio)
raise_sysctl fs.nr_open $((want_c + 4096))
raise_sysctl net.core.somaxconn 65535
hard=$(ulimit -Hn)
[ "$hard" = unlimited ] && hard=$(cat /proc/sys/fs/nr_open)
if [ "$hard" -lt $((want_c + shb_extra)) ]; then
	ulimit -Hn $((want_c + shb_extra)) 2>/dev/null || true
	hard=$(ulimit -Hn)
	[ "$hard" = unlimited ] && hard=$(cat /proc/sys/fs/nr_open)
fi
ulimit -Sn "$hard"
c=$want_c
[ "$procs" -le "$c" ] || die "--processes $procs is more than -c $c"
limit_note=""
if [ "$c" -gt $((hard - shb_extra)) ]; then
	limit_note="The open-files hard limit here is $hard and cannot be raised (no CAP_SYS_RESOURCE): beyond it shb holds each socket in its worker's io_uring file table only (registered, its descriptor closed), which is limited per thread, not per process, so one process holds all $c connections on as many threads as that takes."
	echo "$prog: $limit_note" >&2
fi

# Source addresses: an eighth of the local port range each. Fewer would
# do for the ports alone, but the kernel looks for a free port per
# connect by walking the range from a random point, so a nearly full
# range makes each connect slower (at -c 19000 from one address, set-up
# takes about ten times as long as from four).
read -r plo phi </proc/sys/net/ipv4/ip_local_port_range
per_addr=$(((phi - plo + 1) / 8))
nsrc=$(((c + per_addr - 1) / per_addr))
[ "$nsrc" -ge 1 ] || nsrc=1
[ "$nsrc" -le 200 ] || die "-c $c needs $nsrc source addresses; at most 200 here"
source_spec="127.0.0.2-127.0.0.$((nsrc + 1))"

# nginx: worker processes under the same descriptor limit, each taking an
# even share (reuseport) with half again as much room.
nginx_per_worker=$((hard - 256))
workers=$(((c * 3 / 2 + nginx_per_worker - 1) / nginx_per_worker))
[ "$workers" -ge 1 ] || workers=1
# shellcheck disable=SC2034 # read by nginx_conf
max_conns=$(((nginx_per_worker - 64) / 2))
write_nginx_conf() { # port
	nginx_conf "listen 127.0.0.1:$1 reuseport backlog=65535;" \
		"location = /nginx_status { stub_status; }" |
		sed "s/^worker_rlimit_nofile .*/worker_rlimit_nofile $hard;/" >"$tmp/nginx/nginx.conf"
}
start_server nginx 1 1 write_nginx_conf \
	"$nginx_bin" -p "$tmp/nginx" -e "$tmp/nginx/error.log" -c "$tmp/nginx/nginx.conf"
port=${srv_ports[nginx]}
url="http://127.0.0.1:$port/"

nginx_active() {
	local line
	exec 5<>"/dev/tcp/127.0.0.1/$port" || { echo 0; return; }
	printf 'GET /nginx_status HTTP/1.0\r\nHost: x\r\n\r\n' >&5
	line=$(sed -n 's/^Active connections: *\([0-9]*\).*/\1/p' <&5)
	exec 5<&-
	# This status connection is one of them.
	echo $((${line:-1} - 1))
}

# --- the run -----------------------------------------------------------------

started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "$prog: shb -c $c ($procs process(es)) over $source_spec against $url, nginx $workers workers" >&2
common=(-c "$c" -z "${duration}s" --source "$source_spec" --connect-timeout 30s -q)
[ -z "$threads" ] || common=(-t "$threads" "${common[@]}")
start_at=""
if [ "$procs" -gt 1 ]; then
	# Every shard sets up first and starts its load at the same instant:
	# room for all of them to connect on a shared machine.
	start_at=$(($(date +%s) + 10 + c / 10000))
	common+=(--start-at "$start_at")
fi
t0=$(date +%s%N)
pids=()
for ((i = 0; i < procs; i++)); do
	shard=()
	[ "$procs" -eq 1 ] || shard=(--shard "$i/$procs")
	/usr/bin/time -f '%M %U %S' -o "$tmp/shb-$i.time" \
		timeout -k 10 $((duration + 600)) env "SHB_PLUGIN_PATH=$plugin_path" "$shb" \
		"${common[@]}" "${shard[@]}" --report "json:$tmp/shb-$i.json" "$url" >"$tmp/shb-$i.out" 2>&1 &
	pids+=($!)
done
# nginx's open connections every half second: when they first reach -c
# (every connection is up), and the most seen.
peak_active=0
all_up=""
alive=1
while [ "$alive" -eq 1 ]; do
	alive=0
	for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
	a=$(nginx_active)
	[ "$a" -gt "$peak_active" ] && peak_active=$a
	if [ -z "$all_up" ] && [ "$a" -ge "$c" ]; then
		all_up=$(awk -v t=$(($(date +%s%N) - t0)) 'BEGIN { printf "%.1f", t / 1e9 }')
	fi
	sleep 0.5
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=$?; done
finished=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
rss=0 rss_max=0 user=0 sys=0
for ((i = 0; i < procs; i++)); do
	read -r r u s <"$tmp/shb-$i.time" || { r=0 u=0 s=0; }
	[[ "$r" =~ ^[0-9]+$ ]] || { r=0 u=0 s=0; }
	rss=$((rss + r))
	[ "$r" -gt "$rss_max" ] && rss_max=$r
	user=$(awk -v a="$user" -v b="$u" 'BEGIN { print a + b }')
	sys=$(awk -v a="$sys" -v b="$s" 'BEGIN { print a + b }')
	[ "$rc" -eq 0 ] || tail -n 3 "$tmp/shb-$i.out" >&2
done
[ "$rc" -eq 0 ] || echo "$prog: an shb process exited with $rc" >&2
report_json=$tmp/shb-0.json
if [ "$procs" -gt 1 ]; then
	report_json=$tmp/merged.json
	env "SHB_PLUGIN_PATH=$plugin_path" "$shb" merge --report "json:$report_json" "$tmp"/shb-*.json \
		>"$tmp/merge.out" 2>&1 || { cat "$tmp/merge.out" >&2; echo "$prog: shb merge failed" >&2; rc=1; }
fi

fields=$(python3 - "$report_json" <<'EOF' 2>/dev/null || echo "- - - - - - - -"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["requests"]
print(d.get("threads", "-"), r["ok"], r["errors"], d["durationSeconds"], d.get("setupSeconds", 0),
      d.get("connectionsOpened", 0), round(r["ok"] / d["durationSeconds"]) if d["durationSeconds"] else 0,
      ";".join(f"{k}={v}" for k, v in d["errors"].items() if v) or "none")
EOF
)
read -r nthreads ok errs secs setup opened rps kinds <<<"$fields"
echo "$prog: threads $nthreads, ok $ok errors $errs ($kinds) in ${secs}s, set-up ${setup}s, all up after ${all_up:-never}s, opened $opened, $rps req/s, peak RSS $rss KiB, nginx saw $peak_active open" >&2

report() {
	echo "# Many connections: shb holding -c $c against nginx"
	echo
	echo "- Date: $started to $finished"
	echo "- Host: $(host_line), $(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
	echo "- Load average before / after: $load_before / $load_after"
	echo "- Repository: $repo"
	echo "- shb: $(version_of shb), $procs process(es) of $nthreads threads (${threads:+-t $threads}${threads:-chosen by shb}), --source $source_spec ($nsrc addresses)"
	echo "- Server: $(version_of nginx), $workers worker processes (reuseport), \`return 200\` (13 bytes), 127.0.0.1:$port"
	echo "- Open-files hard limit: $hard; ip_local_port_range $plo-$phi"
	if [ "${#changed[@]}" -gt 0 ]; then
		echo "- Changed for the run and restored after it: $(printf '%s; ' "${changed[@]}" | sed 's/; $//')"
	else
		echo "- No sysctl changed"
	fi
	echo
	[ -z "$limit_note" ] || { echo "$limit_note"; echo; }
	echo "| -c | processes | set-up | all connected after | load | connections opened | held by nginx (peak) | requests ok | req/s | errors | shb peak RSS | RSS per connection | shb CPU (user + sys) | exit |"
	echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	awk -v c="$c" -v procs="$procs" -v setup="$setup" -v up="${all_up:--}" -v secs="$secs" \
		-v opened="$opened" -v held="$peak_active" -v ok="$ok" -v rps="$rps" -v errs="$errs" \
		-v kinds="$kinds" -v rss="$rss" -v rmax="$rss_max" -v user="$user" -v sys="$sys" -v rc="$rc" 'BEGIN {
		printf "| %d | %d | %.2f s | %s s | %.1f s | %s | %s | %s | %s | %s (%s) | %.1f MiB%s | %.0f B | %.1f + %.1f s | %s |\n",
			c, procs, setup, up, secs, opened, held, ok, rps, errs, kinds, rss / 1024,
			(procs > 1 ? sprintf(" (%d x at most %.1f)", procs, rmax / 1024) : ""),
			rss * 1024 / c, user, sys, rc }'
	echo
	if [ "$procs" -gt 1 ]; then
		echo "set-up: the merged report's (the longest shard's, from its start to the common start of the"
		echo "load, so it includes the wait for --start-at); all connected after: from the launch until nginx"
		echo "counted all -c connections open."
	else
		echo "set-up: from shb's start to the start of the load (every connection connected; setupSeconds);"
		echo "all connected after: from the launch until nginx counted all -c connections open."
	fi
	echo "load: the measured run after it (durationSeconds). held by nginx: its stub_status \"Active"
	echo "connections\" (minus the status request), sampled every 0.5 s, the largest. Peak RSS: GNU time's"
	echo "maximum resident set size of shb (the sum over the processes); kernel socket memory is not in it."
	echo
	echo "## Command"
	echo
	echo '```'
	if [ "$procs" -gt 1 ]; then
		echo "# I = 0 .. $((procs - 1)), all at once:"
		echo "shb ${common[*]} --shard I/$procs --report json:shard-I.json $url"
		echo "shb merge --report json:all.json shard-*.json"
	else
		echo "shb ${common[*]} --report json:REPORT.json $url"
	fi
	echo '```'
}

write_report conns
[ "$rc" -eq 0 ]
