#!/usr/bin/env bash
# shb over HTTP/3 against local HTTP/3 servers (caddy on quic-go, ngtcp2's
# gtlsserver): what the client costs per request and per datagram, next to
# what the server costs per request in the same run. Debian 12 has no other
# HTTP/3 load generator, so by default there is no side-by-side client: the
# server's CPU per request is the yardstick (see bench/README.md). With
# H2LOAD_H3=/path/to/h2load (an h2load built with ngtcp2), that h2load runs
# the same loads beside shb.
#
# Servers (and clients) alternate within a round and their order shifts
# every round; the table reports medians.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail

usage() {
	cat <<'EOF'
Usage: bench/h3.sh [options]

Runs shb --proto h3 against caddy and gtlsserver on loopback ("hello,
world!"), ROUNDS rounds of DURATION seconds per server and load shape, and
writes a Markdown table of medians.

Options:
  -r, --rounds N         rounds per pairing (default: 3)
  -d, --duration S       seconds per run (default: 5)
  -l, --loads LIST       load shapes CxP (connections x requests in flight
                         per connection), one pairing each
                         (default: "16x1 8x32")
  -t, --threads N        shb worker threads (default: 2)
      --servers LIST     servers, from: caddy gtlsserver
                         (default: "caddy gtlsserver")
  -o, --output FILE      results file (default: bench/results/DATE-h3.md)
      --shb PATH         use this shb binary instead of building one into
                         build-bench/ at the top of the repository
      --plugin-path P    SHB_PLUGIN_PATH for --shb (default: derived from the
                         build directory holding PATH)
  -h, --help             print this help and exit

Environment:
  H2LOAD_H3=PATH         an h2load built with HTTP/3 support: it runs the
                         same loads beside shb (h2load --alpn-list=h3 -m P)
                         and the tables compare the two; a server it cannot
                         complete requests against is skipped for it, with
                         the reason in the report

Missing packages (caddy, ngtcp2-server, time and, to build shb, its build
dependencies) are installed with apt-get, through sudo when not root.
EOF
}

prog=h3.sh
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"
rounds=3
duration=5
loads="16x1 8x32"
threads=2
servers="caddy gtlsserver"
out=""
shb=""
plugin_path=""

parse_options "-r|--rounds=rounds" "-d|--duration=duration" "-l|--loads=loads" "-t|--threads=threads" \
	"--servers=servers" "-o|--output=out" "--shb=shb" "--plugin-path=plugin_path" -- "$@"

check_int rounds "$rounds" 1 100
check_int duration "$duration" 1 3600
check_int threads "$threads" 1 256
read -r -a load_list <<<"$loads"
[ "${#load_list[@]}" -gt 0 ] || die "--loads needs at least one CxP shape"
for l in "${load_list[@]}"; do
	[[ "$l" =~ ^([0-9]+)x([0-9]+)$ ]] || die "load shape '$l' is not CxP (e.g. 8x32)"
	lc=${BASH_REMATCH[1]}
	lp=${BASH_REMATCH[2]}
	check_int "connections in $l" "$lc" 1 10000
	check_int "requests in flight in $l" "$lp" 1 1024
	[ "$lc" -ge "$threads" ] || die "load $l has fewer connections than -t $threads"
done
read -r -a server_list <<<"$servers"
[ "${#server_list[@]}" -gt 0 ] || die "--servers needs at least one server"
for s in "${server_list[@]}"; do
	case "$s" in
	caddy | gtlsserver) ;;
	*) die "unknown server '$s' (known: caddy gtlsserver)" ;;
	esac
done
[ -z "$plugin_path" ] || [ -n "$shb" ] || die "--plugin-path goes with --shb"
h2load_h3=${H2LOAD_H3:-}
client_list=(shb)
if [ -n "$h2load_h3" ]; then
	[ -x "$h2load_h3" ] || die "H2LOAD_H3=$h2load_h3 is not an executable file"
	client_list+=(h2load)
fi

# --- packages ----------------------------------------------------------------

PATH=$PATH:/usr/sbin:/sbin
missing=()
[ -x /usr/bin/time ] || missing+=(time)
command -v timeout >/dev/null || missing+=(coreutils)
command -v openssl >/dev/null || command -v certtool >/dev/null || missing+=(openssl)
for s in "${server_list[@]}"; do
	case "$s" in
	caddy) command -v caddy >/dev/null || missing+=(caddy) ;;
	gtlsserver) command -v gtlsserver >/dev/null || missing+=(ngtcp2-server) ;;
	esac
done
if [ -z "$shb" ]; then mapfile -t -O "${#missing[@]}" missing < <(shb_build_packages); fi
install_packages "${missing[@]}"

# --- shb ---------------------------------------------------------------------

setup_shb h3/plugin reporters

# --- servers -----------------------------------------------------------------

declare -A srv_pid=() srv_port=()

# shellcheck source=../tests/h3/servers/caddy.sh
source "$root/tests/h3/servers/caddy.sh"
# shellcheck source=../tests/h3/servers/gtlsserver.sh
source "$root/tests/h3/servers/gtlsserver.sh"

# The HTTP/3 servers are started by tests/h3/servers, not start_server:
# they are stopped their way, and forgotten before stop_servers runs.
stop_h3() {
	local s
	for s in "${!srv_pid[@]}"; do h3srv_stop "${srv_pid[$s]}"; done
	srv_pid=()
}
scratch_dir bench-h3 stop_h3

for s in "${server_list[@]}"; do
	mkdir -p "$tmp/$s"
	# caddy: IPv4 only, like gtlsserver, so both see the same client.
	H3SRV_BIND=127.0.0.1 "h3srv_start_$s" "$tmp/$s" >&2 || die "$s did not start"
	srv_pid[$s]=$H3SRV_PID
	srv_port[$s]=$H3SRV_PORT
	echo "h3.sh: $s (pid $H3SRV_PID) on https://127.0.0.1:$H3SRV_PORT/" >&2
done

# --- accounting --------------------------------------------------------------

clk_tck=$(getconf CLK_TCK)

# utime + stime of a server process (all its threads), in ticks.
h3_server_ticks() {
	local rest f
	rest=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
	rest=${rest##*) }
	read -r -a f <<<"$rest"
	echo $((f[11] + f[12]))
}

# UDP datagrams delivered to sockets plus those dropped at a receiver, for
# the whole network namespace. On loopback every datagram of a run has
# shb at one end, so the delta is shb's datagrams sent + received (other
# UDP traffic on the machine adds noise, normally negligible).
udp_counters() { # -> "delivered dropped"
	awk '$1 == "Udp:" && $2 ~ /^[0-9]+$/ { print $2, $4; exit }' /proc/net/snmp
}

client_cmd() { # client server C P jsonfile -> cmd[]
	local url="https://127.0.0.1:${srv_port[$2]:-PORT}/"
	case "$1" in
	shb) cmd=(env "SHB_PLUGIN_PATH=$plugin_path" "$shb" --proto h3 -t "$threads" -c "$3" -p "$4"
		-z "${duration}s" -q --report "json:$5" "$url") ;;
	h2load) cmd=("$h2load_h3" --alpn-list=h3 -t "$threads" -c "$3" -m "$4" -D "$duration" "$url") ;;
	esac
}

# h2load's summary -> "ok errors seconds": "done" requests, and "failed"
# (which counts errored ones and non-2xx/3xx statuses) as errors.
parse_h2load() {
	local t line
	t=$(sed -nE 's/^finished in ([0-9.]+)(m?s),.*/\1 \2/p' "$1")
	line=$(sed -nE 's/^requests: [0-9]+ total, [0-9]+ started, ([0-9]+) done, [0-9]+ succeeded, ([0-9]+) failed.*/\1 \2/p' "$1")
	[ -n "$t" ] && [ -n "$line" ] || return 1
	echo "$line $(awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%.6f", (a[2] == "ms") ? a[1] / 1000 : a[1] }')"
}

# Clients skipped against a server, with the reason ("server client").
declare -A skip=()

runs="$tmp/runs.tsv"
: >"$runs"

h3_run_one() { # round server load client
	local r=$1 s=$2 load=$3 cl=$4 c p base rc=0 s0 s1 b0 b1 w0 w1 u0 u1 user sys res ok errs secs
	c=${load%x*}
	p=${load#*x}
	base="$tmp/r$r-$s-$load-$cl"
	client_cmd "$cl" "$s" "$c" "$p" "$base.json"
	s0=$(h3_server_ticks "${srv_pid[$s]}")
	b0=$(busy_ticks)
	u0=$(udp_counters)
	w0=$(date +%s%N)
	/usr/bin/time -f '%U %S' -o "$base.time" \
		timeout --foreground -k 5 $((duration + 30)) "${cmd[@]}" >"$base.out" 2>&1 || rc=$?
	w1=$(date +%s%N)
	u1=$(udp_counters)
	b1=$(busy_ticks)
	s1=$(h3_server_ticks "${srv_pid[$s]}")
	read -r user sys < <(tail -n 1 "$base.time" 2>/dev/null) || true
	[[ "${user:-}" =~ ^[0-9.]+$ && "${sys:-}" =~ ^[0-9.]+$ ]] || { [ "$rc" -ne 0 ] || rc=1; }
	if [ "$cl" = shb ]; then res=$base.json; else res=$base.out; fi
	if [ "$rc" -eq 0 ] && res=$("parse_$cl" "$res") && read -r ok errs secs <<<"$res" &&
		[ "$ok" -gt 0 ]; then
		local d0 x0 d1 x1
		read -r d0 x0 <<<"$u0"
		read -r d1 x1 <<<"$u1"
		# load server round ok errors seconds user sys server-s busy-s
		# wall-s datagrams dropped client
		printf '%s\t%s\t%s\tok\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$load" "$s" "$r" \
			"$ok" "$errs" "$secs" "$user" "$sys" \
			"$(awk -v t=$((s1 - s0)) -v k="$clk_tck" 'BEGIN { printf "%.2f", t / k }')" \
			"$(awk -v t=$((b1 - b0)) -v k="$clk_tck" 'BEGIN { printf "%.2f", t / k }')" \
			"$(awk -v t=$((w1 - w0)) 'BEGIN { printf "%.3f", t / 1e9 }')" \
			$((d1 - d0 + x1 - x0)) $((x1 - x0)) "$cl" >>"$runs"
		tail -n 1 "$runs" | awk -F '\t' '{
			printf "  round %d  %-6s %-10s %-6s %8.0f req/s  client %6.2f us/req %5.2f us/dgram  server %6.2f us/req  %5.2f dgrams/req  dropped %d  errors %d\n",
				$3, $1, $2, $15, $5 / $7, ($8 + $9) * 1e6 / $5, ($8 + $9) * 1e6 / ($13 > 0 ? $13 : 1),
				$10 * 1e6 / $5, $13 / $5, $14, $6 }' >&2
	else
		printf '%s\t%s\t%s\tfailed\t\t\t\t\t\t\t\t\t\t\t%s\n' "$load" "$s" "$r" "$cl" >>"$runs"
		echo "  round $r $load $s $cl: FAILED (exit $rc); last output:" >&2
		tail -n 5 "$base.out" >&2
	fi
}

smoke() {
	local s rc
	for s in "${server_list[@]}"; do
		rc=0
		timeout -k 5 30 env "SHB_PLUGIN_PATH=$plugin_path" "$shb" --proto h3 -t 1 -c 1 -p 4 -n 1000 -q \
			--report "json:$tmp/smoke.json" "https://127.0.0.1:${srv_port[$s]}/" >"$tmp/smoke.out" 2>&1 || rc=$?
		if [ "$rc" -ne 0 ]; then
			echo "h3.sh: the warm-up against $s failed (exit $rc):" >&2
			tail -n 20 "$tmp/smoke.out" >&2
			exit 1
		fi
		[ -n "$h2load_h3" ] || continue
		# h2load with HTTP/3: a server it cannot complete requests
		# against is skipped for it, with the reason.
		rc=0
		timeout -k 5 30 "$h2load_h3" --alpn-list=h3 -t 1 -c 1 -m 4 -n 1000 \
			"https://127.0.0.1:${srv_port[$s]}/" >"$tmp/smoke-h2load.out" 2>&1 || rc=$?
		local res ok=0
		if [ "$rc" -eq 0 ] && res=$(parse_h2load "$tmp/smoke-h2load.out"); then ok=${res%% *}; fi
		if [ "$ok" -ne 1000 ] || ! grep -q '^Application protocol: h3' "$tmp/smoke-h2load.out"; then
			skip["$s h2load"]="warm-up (1000 requests) completed $ok over HTTP/3 (exit $rc): $(grep -m 1 -iE 'unrecognized|invalid|error|fail' "$tmp/smoke-h2load.out" || tail -n 1 "$tmp/smoke-h2load.out")"
			echo "h3.sh: skipping h2load against $s: ${skip["$s h2load"]}" >&2
		fi
	done
}

n_srv=${#server_list[@]}
n_cl=${#client_list[@]}
total_runs=$((rounds * ${#load_list[@]} * n_srv * n_cl))
echo "h3.sh: $total_runs runs of ${duration}s (about $(((total_runs * (duration + 1) + 59) / 60)) min)" >&2
smoke

started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
for ((r = 1; r <= rounds; r++)); do
	for l in "${load_list[@]}"; do
		for ((i = 0; i < n_srv; i++)); do
			s=${server_list[$(((i + r - 1) % n_srv))]}
			for ((k = 0; k < n_cl; k++)); do
				cl=${client_list[$(((k + r - 1) % n_cl))]}
				[ -z "${skip["$s $cl"]:-}" ] || continue
				h3_run_one "$r" "$s" "$l" "$cl"
				sleep 0.5
			done
		done
	done
done
finished=$(date -u '+%Y-%m-%d %H:%M:%S UTC')

# --- the report --------------------------------------------------------------

h3_version_of() {
	case "$1" in
	caddy) caddy version 2>/dev/null | head -n 1 | awk '{ print "caddy " $1 }' ;;
	gtlsserver) echo "gtlsserver (ngtcp2 $(dpkg-query -W -f='${Version}' ngtcp2-server 2>/dev/null || echo '?'))" ;;
	shb) "$shb" --version 2>&1 | head -n 1 ;;
	esac
}

h3_summary_table() {
	local l s cl
	echo "| Load | Server | Client | Runs | req/s | req/s min..max | client µs/req | user | sys | client µs/datagram | datagrams/req | server µs/req | client/server | other load | dropped | errors |"
	echo "|---|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for l in "${load_list[@]}"; do
		for s in "${server_list[@]}"; do
			for cl in "${client_list[@]}"; do
			awk -F '\t' -v l="$l" -v s="$s" -v cl="$cl" -v t="$threads" '
			function median(a, n,    i, j, x) {
				for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
				return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
			}
			function lo(a, n,    i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] < m) m = a[i]; return m }
			function hi(a, n,    i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] > m) m = a[i]; return m }
			$1 == l && $2 == s && $15 == cl {
				all++
				if ($4 != "ok") next
				n++
				rps[n] = $5 / $7
				us[n] = ($8 + $9) * 1e6 / $5; uu[n] = $8 * 1e6 / $5; ss[n] = $9 * 1e6 / $5
				ud[n] = ($8 + $9) * 1e6 / ($13 > 0 ? $13 : 1)
				dr[n] = $13 / $5
				sv[n] = $10 * 1e6 / $5
				ra[n] = (sv[n] > 0) ? us[n] / sv[n] : 0
				other[n] = ($11 - $8 - $9 - $10) / $12
				drop += $14; errs += $6
			}
			END {
				split(l, cp, "x")
				name = sprintf("-t%s -c%s -p%s", t, cp[1], cp[2])
				if (n == 0) { printf "| %s | %s | %s | 0/%d | - | - | - | - | - | - | - | - | - | - | - | - |\n", name, s, cl, all; exit }
				printf "| %s | %s | %s | %d/%d | %.0f | %.0f..%.0f | %.2f | %.2f | %.2f | %.3f | %.2f | %.2f | %.3f | %.2f | %d | %d |\n",
					name, s, cl, n, all, median(rps, n), lo(rps, n), hi(rps, n),
					median(us, n), median(uu, n), median(ss, n), median(ud, n), median(dr, n),
					median(sv, n), median(ra, n), median(other, n), drop, errs
			}' "$runs"
			done
		done
	done
}

h3_runs_table() {
	echo "| Round | Load | Server | Client | req/s | client µs/req | client µs/datagram | datagrams/req | server µs/req | other load | dropped | errors |"
	echo "|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	awk -F '\t' '
	$4 != "ok" { printf "| %s | %s | %s | %s | failed | | | | | | | |\n", $3, $1, $2, $15; next }
	{
		printf "| %s | %s | %s | %s | %.0f | %.2f | %.3f | %.2f | %.2f | %.2f | %d | %d |\n",
			$3, $1, $2, $15, $5 / $7, ($8 + $9) * 1e6 / $5, ($8 + $9) * 1e6 / ($13 > 0 ? $13 : 1),
			$13 / $5, $10 * 1e6 / $5, ($11 - $8 - $9 - $10) / $12, $14, $6
	}' "$runs"
}

report() {
	local s cpu cl k
	cpu=$(awk -F ': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
	echo "# shb over HTTP/3 against caddy and gtlsserver"
	echo
	echo "- Date: $started to $finished"
	echo "- Host: $(uname -srm), $(nproc) CPUs, ${cpu:-unknown CPU}"
	echo "- Repository: $(repo_state)"
	echo "- shb: $(h3_version_of shb), -t $threads"
	[ -z "$h2load_h3" ] || echo "- h2load (H2LOAD_H3): $("$h2load_h3" --version 2>&1 | head -n 1), -t $threads"
	for s in "${server_list[@]}"; do echo "- $s: $(h3_version_of "$s"), 13-byte \"hello, world!\" on 127.0.0.1"; done
	echo "- $rounds rounds × ${duration} s per load, server and client; servers and clients alternate, order rotated every round"
	echo
	echo "## Medians"
	echo
	h3_summary_table
	echo
	echo "client µs/req: the client's CPU (user + sys, GNU time) per completed request. client µs/datagram: the same"
	echo "CPU per UDP datagram the client sent or received (Udp InDatagrams + InErrors deltas of /proc/net/snmp: on"
	echo "loopback every datagram has the client at one end). server µs/req: utime + stime of the server process in"
	echo "the same run."
	echo "other load: CPUs kept busy by everything else, on average. dropped: datagrams dropped at a receiving"
	echo "socket (either side), summed over the runs. errors: the sum over all runs, 4xx/5xx included."
	if [ "${#skip[@]}" -gt 0 ]; then
		echo
		echo "## Skipped"
		echo
		for k in "${!skip[@]}"; do echo "- $k: ${skip[$k]}"; done | sort
	fi
	echo
	echo "## Commands"
	echo
	echo '```'
	for cl in "${client_list[@]}"; do
		client_cmd "$cl" "${server_list[0]}" C P REPORT.json
		echo "/usr/bin/time -f '%U %S' ${cmd[*]}" | sed -e "s/ -c C -p P / -c <conns> -p <in flight> /" \
			-e "s/ -c C -m P / -c <conns> -m <in flight> /" \
			-e "s|SHB_PLUGIN_PATH=[^ ]*|SHB_PLUGIN_PATH=$plugin_path|" -e "s|$root/||g" \
			-e "s|https://127.0.0.1:[0-9]*/|https://127.0.0.1:<port>/|"
	done
	echo '```'
	echo
	echo "Servers are started by tests/h3/servers/caddy.sh and gtlsserver.sh (see tests/h3/servers/README.md)."
	echo
	echo "## Every run"
	echo
	h3_runs_table
}

write_report h3
