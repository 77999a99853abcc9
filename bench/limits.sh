#!/usr/bin/env bash
# Limits: what shb does at the machine's edges, against a local nginx.
#  (a) connect storm: --disable-keepalive (one request per connection),
#      plain and TLS, at a few -c values: connections/s, errors by kind,
#      client and server CPU per connection;
#  (b) file descriptors: -c above `ulimit -n`. With a low hard limit shb
#      must stop before any traffic with one line (exit 2); with a low
#      soft limit under a high enough hard one it must raise the soft
#      limit and run;
#  (c) ephemeral ports: --disable-keepalive at the highest rate shb
#      reaches, first on the machine as it is, then (as root, with
#      unshare) in a private network namespace whose local port range is
#      narrowed and TIME_WAIT reuse is off, so that the ports do run out:
#      shb must report it (error kind and sample) and stop on time.
# Writes bench/results/DATE-limits.md; see bench/README.md.
set -euo pipefail

prog=limits.sh
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"

usage() {
	cat <<'EOF'
Usage: bench/limits.sh [options]

Connect storm, file-descriptor limits and ephemeral-port exhaustion
against a local nginx; writes a Markdown report.

Options:
  -d, --duration S       seconds per storm run (default: 5)
  -c, --connections LIST -c values of the connect storm (default: "50 200")
  -t, --threads N        shb threads in the storm and port runs (default: 2)
      --port-c N         -c of the ephemeral-port runs (default: 500)
      --port-duration S  seconds per ephemeral-port run (default: 15)
      --port-range LO-HI local port range inside the private namespace
                         (default: 40000-40499)
      --no-netns         skip the private-namespace port run
  -o, --output FILE      results file (default: bench/results/DATE-limits.md)
      --shb PATH         use this shb binary instead of building one into
                         build-bench/ at the top of the repository
      --plugin-path P    SHB_PLUGIN_PATH for --shb (default: derived from the
                         build directory holding PATH)
  -h, --help             print this help and exit

Missing packages (nginx-light, openssl, time, iproute2 and, to build shb,
its build dependencies) are installed with apt-get.
EOF
}

duration=5
conns="50 200"
threads=2
port_c=500
port_duration=15
port_range=40000-40499
netns=1
out=""
shb=""
plugin_path=""
inner=""

# --inner-ports is internal: the script runs itself in a private network
# namespace.
parse_options "-d|--duration=duration" "-c|--connections=conns" "-t|--threads=threads" \
	"--port-c=port_c" "--port-duration=port_duration" "--port-range=port_range" "--no-netns=netns:0" \
	"-o|--output=out" "--shb=shb" "--plugin-path=plugin_path" "--inner-ports=inner" -- "$@"

check_int duration "$duration" 1 600
check_int threads "$threads" 1 256
check_int "--port-c" "$port_c" 1 60000
check_int "--port-duration" "$port_duration" 1 600
read -r -a conn_list <<<"$conns"
[ "${#conn_list[@]}" -gt 0 ] || die "-c needs at least one connection count"
for c in "${conn_list[@]}"; do check_int "a connection count" "$c" 1 60000; done
if ! [[ "$port_range" =~ ^([0-9]+)-([0-9]+)$ ]] || [ "${BASH_REMATCH[1]}" -lt 1024 ] ||
	[ "${BASH_REMATCH[2]}" -gt 65535 ] || [ "${BASH_REMATCH[1]}" -ge "${BASH_REMATCH[2]}" ]; then
	die "--port-range must be LO-HI within 1024..65535, not '$port_range'"
fi
[ -z "$plugin_path" ] || [ -n "$shb" ] || die "--plugin-path goes with --shb"

PATH=$PATH:/usr/sbin:/sbin

# --- packages and shb (not again inside the namespace) -----------------------

if [ -z "$inner" ]; then
	missing=()
	command -v nginx >/dev/null || missing+=(nginx-light)
	command -v openssl >/dev/null || missing+=(openssl)
	[ -x /usr/bin/time ] || missing+=(time)
	command -v ss >/dev/null || missing+=(iproute2)
	if [ -z "$shb" ]; then mapfile -t -O "${#missing[@]}" missing < <(shb_build_packages); fi
	install_packages "${missing[@]}"
	repo=$(repo_state)
	setup_shb h1 reporters
fi
nginx_bin=$(command -v nginx)

scratch_dir limits

raise_nofile
# What the runs of part (b) start from: this shell's limits, raised.
hard_nofile=$(ulimit -Hn)

# --- nginx: plain and TLS ports, and stub_status to count accepts ------------

# shellcheck disable=SC2034 # read by nginx_conf
workers=1
# Room for the fd cases' 2000 connections, and for the previous run's
# connections that nginx has not yet seen close: without it, nginx drops
# new ones ("worker_connections are not enough") and shb counts read errors.
max_conns=2000
[ "$port_c" -gt "$max_conns" ] && max_conns=$port_c
for c in "${conn_list[@]}"; do [ "$c" -gt "$max_conns" ] && max_conns=$c; done

write_nginx_conf() { # plain-port tls-port
	nginx_conf "listen 127.0.0.1:$1 backlog=4096;" "listen 127.0.0.1:$2 ssl backlog=4096;" \
		"ssl_certificate $tmp/tls/cert.pem;" "ssl_certificate_key $tmp/tls/key.pem;" \
		"location = /nginx_status { stub_status; }" >"$tmp/nginx/nginx.conf"
}

start_nginx() {
	make_cert
	start_server nginx 2 1 write_nginx_conf \
		"$nginx_bin" -p "$tmp/nginx" -e "$tmp/nginx/error.log" -c "$tmp/nginx/nginx.conf"
	read -r -a np <<<"${srv_ports[nginx]}"
	plain_url="http://127.0.0.1:${np[0]}/"
	tls_url="https://127.0.0.1:${np[1]}/"
}

# Connections nginx has accepted so far (stub_status), read with bash's
# /dev/tcp so that no other client is needed.
nginx_accepts() {
	local line
	exec 5<>"/dev/tcp/127.0.0.1/${np[0]}" || { echo 0; return; }
	printf 'GET /nginx_status HTTP/1.0\r\nHost: x\r\n\r\n' >&5
	line=$(sed -n '/^Active/{n;n;p;q}' <&5)
	exec 5<&-
	# " accepts handled requests": this status connection is one of them.
	awk '{ print $1 }' <<<"$line"
}

tw_count() {
	awk '$1 == "TCP:" { for (i = 2; i < NF; i++) if ($i == "tw") print $(i + 1) }' /proc/net/sockstat
}

# --- shb's JSON, flattened ---------------------------------------------------

# "ok total errors connectionsOpened duration kinds|samples" (| separates
# the two free-text parts).
json_fields() { # file
	python3 - "$1" <<'EOF' 2>/dev/null || echo "- - - - - no report|"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["requests"]
kinds = ", ".join(f"{k} {v}" for k, v in d["errors"].items() if v) or "none"
samples = "; ".join(d.get("errorSamples", {}).values())
print(r["ok"], r["total"], r["errors"], d.get("connectionsOpened", 0), d["durationSeconds"], kinds + "|" + samples)
EOF
}

shb_env() { echo "SHB_PLUGIN_PATH=$plugin_path"; }

# A storm-style run: shb --disable-keepalive under GNU time and a timeout,
# with nginx's CPU and TIME_WAIT sampled around it. Appends a TSV line to
# $1: label c ok total errors conns dur user sys server-s wall-s tw-max rc
# kinds|samples.
storm_run() { # tsv label url c secs
	local tsv=$1 label=$2 url=$3 c=$4 secs=$5 base rc=0 s0 s1 w0 w1 user sys f twmax=0 tw pid
	base="$tmp/storm-${label//[^A-Za-z0-9]/-}-$c"
	s0=$(server_ticks nginx)
	w0=$(date +%s%N)
	/usr/bin/time -f '%U %S' -o "$base.time" timeout -k 5 $((secs + 30)) \
		env "$(shb_env)" "$shb" -t "$threads" -c "$c" -z "${secs}s" --disable-keepalive -q \
		--report "json:$base.json" "$url" >"$base.out" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		tw=$(tw_count)
		[ "${tw:-0}" -gt "$twmax" ] && twmax=$tw
		sleep 0.5
	done
	wait "$pid" || rc=$?
	w1=$(date +%s%N)
	s1=$(server_ticks nginx)
	read -r user sys < <(tail -n 1 "$base.time") || true
	f=$(json_fields "$base.json")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$c" "${f%% *}" \
		"$(cut -d' ' -f2-5 <<<"$f" | tr ' ' '\t')" "${user:-0}" "${sys:-0}" \
		"$(awk -v t=$((s1 - s0)) -v k="$clk_tck" 'BEGIN { printf "%.2f", t / k }')" \
		"$(awk -v t=$((w1 - w0)) 'BEGIN { printf "%.1f", t / 1e9 }')" "$twmax" \
		"$rc	$(cut -d' ' -f6- <<<"$f")" >>"$tsv"
	tail -n 1 "$tsv" | awk -F '\t' '{ printf "  %-22s -c %-5s %8.0f conn/s  errors %s  exit %s\n", $1, $2, ($7 > 0 ? $6 / $7 : 0), $5, $13 }' >&2
}

storm_table() { # tsv
	echo "| Run | -c | conn/s | requests ok | errors | errors by kind | client µs/conn (user + sys) | server µs/conn | TIME_WAIT peak | wall s | exit | samples |"
	echo "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---|"
	awk -F '\t' '{
		n = $6; split($14, ks, "|")
		printf "| %s | %s | %.0f | %s | %s | %s | %.1f (%.1f + %.1f) | %.1f | %s | %s | %s | %s |\n",
			$1, $2, ($7 > 0 ? n / $7 : 0), $3, $5, ks[1],
			(n > 0 ? ($8 + $9) * 1e6 / n : 0), (n > 0 ? $8 * 1e6 / n : 0), (n > 0 ? $9 * 1e6 / n : 0),
			(n > 0 ? $10 * 1e6 / n : 0), $12, $11, $13, (ks[2] == "" ? "-" : ks[2])
	}' "$1"
}

# --- inside a private network namespace: narrow ports, no TIME_WAIT reuse ----

if [ -n "$inner" ]; then
	ip link set lo up
	echo "${port_range%-*} ${port_range#*-}" >/proc/sys/net/ipv4/ip_local_port_range
	echo 0 >/proc/sys/net/ipv4/tcp_tw_reuse
	start_nginx
	storm_run "$inner" "private netns $port_range" "$plain_url" "$port_c" "$port_duration"
	exit 0
fi

start_nginx
started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

# --- (a) connect storm -------------------------------------------------------

echo "$prog: (a) connect storm" >&2
storm="$tmp/storm.tsv"
: >"$storm"
for c in "${conn_list[@]}"; do
	storm_run "$storm" "plain" "$plain_url" "$c" "$duration"
	storm_run "$storm" "TLS" "$tls_url" "$c" "$duration"
done

# --- (b) file descriptors ----------------------------------------------------

echo "$prog: (b) file descriptor limits" >&2
fdrows="$tmp/fd.md"
: >"$fdrows"

# Runs shb in a subshell with the given limits; records its exit status,
# what it printed on stderr, how long it took, the connections nginx
# accepted meanwhile and, while it runs, the open-files limit it has.
fd_case() { # what soft hard c
	local what=$1 soft=$2 hard=$3 c=$4 base rc=0 a0 a1 lim="-" pid p q f err ok rest
	base="$tmp/fd-$soft-$hard-$c"
	a0=$(nginx_accepts)
	(
		ulimit -Sn "$soft" && ulimit -Hn "$hard" || exit 99
		exec timeout -k 5 30 env "$(shb_env)" "$shb" -t "$threads" -c "$c" -z 3s -q \
			--report "json:$base.json" "$plain_url" >"$base.out" 2>"$base.err"
	) &
	pid=$!
	# The soft limit shb runs with, once it has had time to raise it.
	sleep 1
	for p in $pid $(pgrep -P "$pid" || true); do
		for q in $p $(pgrep -P "$p" || true); do
			[ "$(cat "/proc/$q/comm" 2>/dev/null)" = shb ] &&
				lim=$(awk '/^Max open files/ { print $4 "/" $5 }' "/proc/$q/limits")
		done
	done
	wait "$pid" || rc=$?
	sleep 0.2
	a1=$(nginx_accepts)
	f=$(json_fields "$base.json")
	ok=${f%% *}
	read -r _ _ errs opened _ rest <<<"$f"
	err=$(head -n 3 "$base.err" | tr '\n' ' ' | sed 's/|/\\|/g; s/ *$//')
	printf '| %s | %s / %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$what" "$soft" "$hard" "$c" "$rc" \
		"$(wc -l <"$base.err")" "${err:-(nothing)}" "$lim" "$((a1 - a0 - 1))" "$opened" "$ok" "$errs" "${rest%%|*}" >>"$fdrows"
	echo "  $what: exit $rc, accepted $((a1 - a0 - 1)), stderr: ${err:-(nothing)}" >&2
}

fd_case "hard limit below -c" 256 256 1000
fd_case "the issue's case: 1024 / 1024 at -c 2000" 1024 1024 2000
fd_case "just enough (-c + 33 + 2 x threads = 1024)" 1024 1024 $((1024 - 33 - 2 * threads))
fd_case "one more connection than that" 1024 1024 $((1024 - 32 - 2 * threads))
if [ "$hard_nofile" = unlimited ] || [ "$hard_nofile" -ge 1200 ]; then
	h=$hard_nofile
	[ "$h" = unlimited ] && h=65536
	fd_case "soft limit below -c, hard above" 256 "$h" 1000
else
	echo "| soft limit below -c, hard above | - | - | not run: this shell's hard limit is $hard_nofile | | | | | | | | |" >>"$fdrows"
fi

# --- (c) ephemeral ports -----------------------------------------------------

echo "$prog: (c) ephemeral ports" >&2
porttsv="$tmp/ports.tsv"
: >"$porttsv"
range_here=$(tr '\t' '-' </proc/sys/net/ipv4/ip_local_port_range)
reuse_here=$(cat /proc/sys/net/ipv4/tcp_tw_reuse)
tw_buckets=$(cat /proc/sys/net/ipv4/tcp_max_tw_buckets)
storm_run "$porttsv" "this machine ($range_here, tw_reuse $reuse_here)" "$plain_url" "$port_c" "$port_duration"
netns_note=""
if [ "$netns" -eq 1 ]; then
	if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null && command -v ip >/dev/null; then
		# The namespace has its own loopback, sysctls and nginx; the
		# machine's own settings are not touched.
		unshare -n -- bash "$root/bench/limits.sh" --inner-ports "$porttsv" -t "$threads" \
			--port-c "$port_c" --port-duration "$port_duration" --port-range "$port_range" \
			--shb "$shb" --plugin-path "$plugin_path" ||
			netns_note="The private-namespace run failed (exit $?)."
	else
		netns_note="The private-namespace run needs root, unshare and ip: not run."
	fi
fi
finished=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# --- the report --------------------------------------------------------------

report() {
	echo "# shb at the limits: connect storm, file descriptors, ephemeral ports"
	echo
	echo "- Date: $started to $finished"
	echo "- Host: $(host_line)"
	echo "- Load average before / after: $load_before / $load_after"
	echo "- Repository: $repo"
	echo "- shb: $(version_of shb), -t $threads"
	echo "- Server: $(version_of nginx), 1 worker process, \`return 200\` (13 bytes), plain and TLS on 127.0.0.1"
	echo "- Open-files limit of the script: soft $(ulimit -Sn), hard $hard_nofile"
	echo
	echo "## (a) Connect storm: --disable-keepalive, ${duration} s per run"
	echo
	storm_table "$storm"
	echo
	echo "conn/s: connections shb opened (connectionsOpened) per second of its run; each carries one request."
	echo "client µs/conn: shb's user + sys CPU (GNU time) per connection; server µs/conn: the nginx master and"
	echo "worker's. TIME_WAIT peak: TCP sockets in TIME_WAIT on the machine (/proc/net/sockstat), sampled twice a"
	echo "second. TLS: every connection makes a full handshake (shb does not resume sessions)."
	echo
	echo "## (b) File descriptors: -c above the open-files limit"
	echo
	echo "| Case | soft / hard limit | -c | exit | stderr lines | stderr | shb's limit while running (soft/hard) | connections nginx accepted | connections shb opened | requests ok | errors | errors by kind |"
	echo "|---|---|---:|---:|---:|---|---|---:|---:|---:|---:|---|"
	cat "$fdrows"
	echo
	echo "Each case runs shb for 3 s in a subshell with the limits set by \`ulimit\`. shb reserves"
	echo "\`-c + reporters + 2 × threads + 32\` descriptors; \"just enough\" and \"one more\" sit on either"
	echo "side of that bound at -t $threads with one reporter."
	echo
	echo "## (c) Ephemeral ports: --disable-keepalive -c $port_c, ${port_duration} s"
	echo
	storm_table "$porttsv"
	echo
	echo "The first run uses the machine as it is (ip_local_port_range $range_here, tcp_tw_reuse $reuse_here,"
	echo "tcp_max_tw_buckets $tw_buckets; tcp_tw_reuse 2 lets loopback connections reuse a port in TIME_WAIT)."
	echo "The second runs in a private network namespace"
	echo "(\`unshare -n\`, its own loopback and nginx) with \`ip_local_port_range\` narrowed to $port_range and"
	echo "\`tcp_tw_reuse\` 0, so that local ports run out: each new connection needs a free port while -c $port_c"
	echo "others are open and the last ones are still closing. ${netns_note}"
	echo
	echo "## Commands"
	echo
	echo '```'
	echo "SHB_PLUGIN_PATH=<build>/plugins/h1:<build>/plugins/reporters"
	echo "<build>/core/shb -t $threads -c <c> -z <s>s --disable-keepalive -q --report json:REPORT.json <url>"
	echo "(ulimit -Hn <hard>; ulimit -Sn <soft>; exec <build>/core/shb -t $threads -c <c> -z 3s -q --report json:REPORT.json <url>)"
	echo '```'
}

write_report limits
