#!/usr/bin/env bash
# Compares shb with wrk and h2load (--h1) on HTTP/1.1 against one local nginx,
# by CPU cost per request rather than by req/s alone. On a small box the
# client and the server share the cores, so req/s mostly says how much CPU the
# client left to the server; CPU microseconds per request, and the ratio of
# client to server CPU measured in the same run, say what the client costs.
#
# Clients are interleaved and their order rotated every round so that slow
# moments of the machine hit every client alike; the table reports medians.
# See bench/README.md for how to read it.
set -euo pipefail

usage() {
	cat <<'EOF'
Usage: bench/run.sh [options]

Runs shb, wrk and h2load --h1 against a local nginx ("hello, world!"),
ROUNDS rounds of DURATION seconds per client and connection count, and
writes a Markdown table of medians.

Options:
  -r, --rounds N         rounds per pairing (default: 5)
  -d, --duration S       seconds per run (default: 5)
  -c, --connections LIST connection counts, one pairing each (default: "50 256")
  -t, --threads N        client threads, the same for every client (default: 2)
  -w, --workers N        nginx worker processes (default: 1)
      --clients LIST     clients to compare, from: shb wrk h2load
                         (default: "shb wrk h2load")
  -o, --output FILE      results file (default: bench/results/DATE-h1.md)
      --shb PATH         use this shb binary instead of building one into
                         build-bench/ at the top of the repository
      --plugin-path P    SHB_PLUGIN_PATH for --shb (default: derived from the
                         build directory holding PATH)
  -h, --help             print this help and exit

Missing packages (nginx-light, wrk, nghttp2-client, time and, to build shb,
its build dependencies) are installed with apt-get, through sudo when not
root.
EOF
}

die() {
	echo "run.sh: $*" >&2
	exit 2
}

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
rounds=5
duration=5
conns="50 256"
threads=2
workers=1
clients="shb wrk h2load"
out=""
shb=""
plugin_path=""

need_arg() {
	[ "$#" -ge 2 ] || die "option $1 needs a value"
}

while [ "$#" -gt 0 ]; do
	case "$1" in
	-r | --rounds) need_arg "$@"; rounds=$2; shift 2 ;;
	-d | --duration) need_arg "$@"; duration=$2; shift 2 ;;
	-c | --connections) need_arg "$@"; conns=$2; shift 2 ;;
	-t | --threads) need_arg "$@"; threads=$2; shift 2 ;;
	-w | --workers) need_arg "$@"; workers=$2; shift 2 ;;
	--clients) need_arg "$@"; clients=$2; shift 2 ;;
	-o | --output) need_arg "$@"; out=$2; shift 2 ;;
	--shb) need_arg "$@"; shb=$2; shift 2 ;;
	--plugin-path) need_arg "$@"; plugin_path=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown option '$1' (try --help)" ;;
	esac
done

# Whole numbers in a range, so that a typo cannot start a run of hours.
check_int() { # name value min max
	if ! [[ "$2" =~ ^[0-9]+$ ]] || [ "$2" -lt "$3" ] || [ "$2" -gt "$4" ]; then
		die "$1 must be a whole number in $3..$4, not '$2'"
	fi
}
check_int rounds "$rounds" 1 100
check_int duration "$duration" 1 3600
check_int threads "$threads" 1 256
check_int workers "$workers" 1 64
read -r -a conn_list <<<"$conns"
[ "${#conn_list[@]}" -gt 0 ] || die "-c needs at least one connection count"
for c in "${conn_list[@]}"; do
	check_int "a connection count" "$c" 1 10000
	[ "$c" -ge "$threads" ] || die "-c $c is below -t $threads (wrk needs a connection per thread)"
done
read -r -a client_list <<<"$clients"
[ "${#client_list[@]}" -gt 0 ] || die "--clients needs at least one client"
for cl in "${client_list[@]}"; do
	case "$cl" in
	shb | wrk | h2load) ;;
	*) die "unknown client '$cl' (known: shb wrk h2load)" ;;
	esac
done
[ -z "$plugin_path" ] || [ -n "$shb" ] || die "--plugin-path goes with --shb"

have() {
	case " ${client_list[*]} " in *" $1 "*) return 0 ;; esac
	return 1
}

# --- packages ----------------------------------------------------------------

pkg_installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

missing=()
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
[ -x /usr/bin/time ] || missing+=(time)
command -v timeout >/dev/null || missing+=(coreutils)
if have wrk; then command -v wrk >/dev/null || missing+=(wrk); fi
if have h2load; then command -v h2load >/dev/null || missing+=(nghttp2-client); fi
if have shb && [ -z "$shb" ]; then
	for p in gcc meson ninja-build pkgconf liburing-dev libgnutls28-dev libjansson-dev; do
		pkg_installed "$p" || missing+=("$p")
	done
fi
if [ "${#missing[@]}" -gt 0 ]; then
	echo "run.sh: installing ${missing[*]}" >&2
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null || die "not root and no sudo: install ${missing[*]} first"
		sudo="sudo"
	fi
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq
	$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
PATH=$PATH:/usr/sbin:/sbin
nginx_bin=$(command -v nginx)

# --- shb ---------------------------------------------------------------------

if have shb; then
	if [ -z "$shb" ]; then
		bdir="$root/build-bench"
		if [ ! -f "$bdir/build.ninja" ]; then
			echo "run.sh: configuring $bdir (release)" >&2
			meson setup "$bdir" "$root" -Dtests=false --buildtype=release >/dev/null
		fi
		echo "run.sh: building shb" >&2
		ninja -C "$bdir" >/dev/null
		shb="$bdir/core/shb"
		plugin_path="$bdir/plugins/h1:$bdir/plugins/reporters"
	else
		[ -x "$shb" ] || die "--shb $shb is not an executable file"
		shb=$(cd "$(dirname "$shb")" && pwd)/$(basename "$shb")
		if [ -z "$plugin_path" ]; then
			# A build tree keeps core/shb next to plugins/<name>/.
			b=$(dirname "$(dirname "$shb")")
			if [ -d "$b/plugins/h1" ] && [ -d "$b/plugins/reporters" ]; then
				plugin_path="$b/plugins/h1:$b/plugins/reporters"
			else
				plugin_path=${SHB_PLUGIN_PATH:-}
			fi
		fi
	fi
fi

# --- scratch space and clean-up ----------------------------------------------

tmp=$(mktemp -d -t shb-bench.XXXXXX)
ngx_pid=""

server_children() {
	[ -n "$ngx_pid" ] || return 0
	pgrep -P "$ngx_pid" || true
}

stop_nginx() {
	[ -n "$ngx_pid" ] || return 0
	local kids i
	kids=$(server_children)
	if kill -0 "$ngx_pid" 2>/dev/null; then
		kill -TERM "$ngx_pid" 2>/dev/null || true
		for ((i = 0; i < 50; i++)); do
			kill -0 "$ngx_pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$ngx_pid" 2>/dev/null || true
	fi
	wait "$ngx_pid" 2>/dev/null || true
	# Workers leave with their master; these are only left if it was killed.
	for i in $kids; do kill -KILL "$i" 2>/dev/null || true; done
	ngx_pid=""
}

cleanup() {
	stop_nginx
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Clients at -c 256 and nginx both need a descriptor per connection.
hard=$(ulimit -Hn)
if [ "$hard" = unlimited ] || [ "$hard" -gt 65536 ]; then hard=65536; fi
[ "$(ulimit -Sn)" != unlimited ] && [ "$(ulimit -Sn)" -lt "$hard" ] && ulimit -Sn "$hard"

# --- nginx -------------------------------------------------------------------

max_c=0
for c in "${conn_list[@]}"; do [ "$c" -gt "$max_c" ] && max_c=$c; done
worker_conns=$((2 * max_c + 64))
[ "$worker_conns" -lt 1024 ] && worker_conns=1024

# Temp paths of modules this nginx lacks would be unknown directives.
temp_paths() {
	local v m
	v=$("$nginx_bin" -V 2>&1)
	echo "    client_body_temp_path $tmp/nginx/body;"
	for m in proxy fastcgi uwsgi scgi; do
		case "$v" in
		*"--without-http_${m}_module"*) ;;
		*) echo "    ${m}_temp_path $tmp/nginx/$m;" ;;
		esac
	done
}

write_nginx_conf() { # port
	local user=""
	[ "$(id -u)" -eq 0 ] && user="user root;"
	mkdir -p "$tmp/nginx"
	cat >"$tmp/nginx/nginx.conf" <<EOF
daemon off;
master_process on;
worker_processes $workers;
worker_rlimit_nofile $((2 * worker_conns));
$user
pid $tmp/nginx/nginx.pid;
error_log $tmp/nginx/error.log warn;
events {
    worker_connections $worker_conns;
}
http {
    access_log off;
    default_type text/plain;
    keepalive_requests 100000000;
    keepalive_timeout 300s;
$(temp_paths)
    server {
        listen 127.0.0.1:$1;
        location / {
            return 200 "hello, world!";
        }
    }
}
EOF
}

port_open() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# A random free port; if another process takes it first, nginx fails to bind
# and the next try picks another.
start_nginx() {
	local try port i
	for ((try = 0; try < 20; try++)); do
		port=$((20000 + RANDOM % 40000))
		port_open "$port" && continue
		write_nginx_conf "$port"
		: >"$tmp/nginx/error.log"
		"$nginx_bin" -p "$tmp/nginx" -e "$tmp/nginx/error.log" -c "$tmp/nginx/nginx.conf" \
			</dev/null >>"$tmp/nginx/stdout.log" 2>&1 &
		ngx_pid=$!
		for ((i = 0; i < 100; i++)); do
			kill -0 "$ngx_pid" 2>/dev/null || break
			if port_open "$port" && [ -n "$(server_children)" ]; then
				nginx_port=$port
				return 0
			fi
			sleep 0.05
		done
		stop_nginx
		grep -q "Address already in use" "$tmp/nginx/error.log" "$tmp/nginx/stdout.log" 2>/dev/null && continue
		echo "run.sh: nginx did not start:" >&2
		cat "$tmp/nginx/error.log" "$tmp/nginx/stdout.log" >&2
		exit 1
	done
	die "found no free loopback port for nginx"
}

start_nginx
url="http://127.0.0.1:$nginx_port/"
echo "run.sh: nginx (pid $ngx_pid) on $url" >&2

# --- CPU accounting ----------------------------------------------------------

clk_tck=$(getconf CLK_TCK)

# utime + stime, in ticks, of the nginx master and its workers. The command
# name in /proc/PID/stat may hold spaces, so fields count from its last ')'.
server_ticks() {
	local p total=0 rest f
	for p in "$ngx_pid" $(server_children); do
		rest=$(cat "/proc/$p/stat" 2>/dev/null) || continue
		rest=${rest##*) }
		read -r -a f <<<"$rest"
		total=$((total + f[11] + f[12]))
	done
	echo "$total"
}

# Busy ticks of the whole machine, to tell how much CPU others used meanwhile.
busy_ticks() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat
}

# --- clients -----------------------------------------------------------------

client_cmd() { # client conns jsonfile -> sets cmd[]
	case "$1" in
	shb) cmd=(env "SHB_PLUGIN_PATH=$plugin_path" "$shb" -t "$threads" -c "$2" -z "${duration}s" -q
		--report "json:$3" "$url") ;;
	wrk) cmd=(wrk -t "$threads" -c "$2" -d "${duration}s" "$url") ;;
	h2load) cmd=(h2load --h1 -t "$threads" -c "$2" -D "$duration" "$url") ;;
	esac
}

# "5.00s", "812.34ms", "1.50m" as wrk and h2load print them -> seconds.
to_seconds() {
	awk -v t="$1" 'BEGIN {
		n = t + 0; u = t; sub(/^[0-9.]+/, "", u)
		f = (u == "us") ? 1e-6 : (u == "ms") ? 1e-3 : (u == "m") ? 60 : (u == "h") ? 3600 : 1
		printf "%.6f\n", n * f }'
}

# Prints "completed errors seconds" or fails.
parse_wrk() {
	local n t sock non2xx
	read -r n t < <(sed -nE 's/^ *([0-9]+) requests in ([0-9.]+[a-z]+),.*/\1 \2/p' "$1")
	[ -n "${n:-}" ] || return 1
	sock=$(sed -nE 's/^ *Socket errors: connect ([0-9]+), read ([0-9]+), write ([0-9]+), timeout ([0-9]+).*/\1 \2 \3 \4/p' "$1" |
		awk '{ print $1 + $2 + $3 + $4 }')
	non2xx=$(sed -nE 's/^ *Non-2xx or 3xx responses: ([0-9]+).*/\1/p' "$1")
	echo "$n $((${sock:-0} + ${non2xx:-0})) $(to_seconds "$t")"
}

parse_h2load() {
	local t line
	t=$(sed -nE 's/^finished in ([0-9.]+[a-z]+),.*/\1/p' "$1")
	line=$(sed -nE 's/^requests: ([0-9]+) total, ([0-9]+) started, ([0-9]+) done, ([0-9]+) succeeded, ([0-9]+) failed, ([0-9]+) errored.*/\3 \5/p' "$1")
	[ -n "$t" ] && [ -n "$line" ] || return 1
	# "failed" already includes "errored" and non-2xx/3xx responses.
	echo "$line $(to_seconds "$t")"
}

# shb's JSON: completed = requests.ok (complete responses, any status);
# errors = every counted error kind plus 4xx/5xx responses, as for wrk.
parse_shb() {
	[ -s "$1" ] || return 1
	if command -v python3 >/dev/null 2>&1 && python3 - "$1" 2>/dev/null <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
errs = sum(d["errors"].values()) + sum(n for s, n in d["statusCodes"].items() if int(s) >= 400)
print(d["requests"]["ok"], errs, d["durationSeconds"])
EOF
	then
		return 0
	else
		# The report is pretty-printed with one key per line: follow the
		# path of keys and pick the leaves needed.
		awk '
		function key(s) { sub(/^[ \t]*"/, "", s); sub(/".*/, "", s); return s }
		/^[ \t]*"[^"]*": *[{]/ { path[++depth] = key($0); next }
		/^[ \t]*[}]/ { depth--; next }
		/^[ \t]*"[^"]*": *[-0-9]/ {
			k = key($0); v = $0; sub(/^[^:]*: */, "", v); sub(/,$/, "", v)
			if (depth == 0 && k == "durationSeconds") dur = v
			else if (depth == 1 && path[1] == "requests" && k == "ok") ok = v
			else if (depth == 1 && path[1] == "errors") errs += v
			else if (depth == 1 && path[1] == "statusCodes" && k + 0 >= 400) errs += v
		}
		END { if (ok == "" || dur == "") exit 1; print ok, errs + 0, dur }' "$1"
	fi
}

runs="$tmp/runs.tsv"
: >"$runs"

# One timed run; appends a line to $runs and prints a progress line.
run_one() { # round client conns
	local r=$1 cl=$2 c=$3 base rc=0 s0 s1 b0 b1 w0 w1 user sys res completed errs secs
	base="$tmp/r$r-c$c-$cl"
	client_cmd "$cl" "$c" "$base.json"
	s0=$(server_ticks)
	b0=$(busy_ticks)
	w0=$(date +%s%N)
	/usr/bin/time -f '%U %S' -o "$base.time" \
		timeout --foreground -k 5 $((duration + 30)) "${cmd[@]}" >"$base.out" 2>&1 || rc=$?
	w1=$(date +%s%N)
	b1=$(busy_ticks)
	s1=$(server_ticks)
	read -r user sys < <(tail -n 1 "$base.time" 2>/dev/null) || true
	[[ "${user:-}" =~ ^[0-9.]+$ && "${sys:-}" =~ ^[0-9.]+$ ]] || { [ "$rc" -ne 0 ] || rc=1; }
	if [ "$rc" -eq 0 ] && res=$("parse_$cl" "$( [ "$cl" = shb ] && echo "$base.json" || echo "$base.out")") &&
		read -r completed errs secs <<<"$res" && [ "$completed" -gt 0 ]; then
		# Fields: conns client round status completed errors seconds user sys
		# server-CPU-s machine-busy-CPU-s wall-seconds-of-the-window.
		printf '%s\t%s\t%s\tok\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$c" "$cl" "$r" \
			"$completed" "$errs" "$secs" "$user" "$sys" \
			"$(awk -v t=$((s1 - s0)) -v k="$clk_tck" 'BEGIN { printf "%.2f", t / k }')" \
			"$(awk -v t=$((b1 - b0)) -v k="$clk_tck" 'BEGIN { printf "%.2f", t / k }')" \
			"$(awk -v t=$((w1 - w0)) 'BEGIN { printf "%.3f", t / 1e9 }')" >>"$runs"
		tail -n 1 "$runs" | awk -F '\t' '{
			rps = $5 / $7; cl = ($8 + $9) * 1e6 / $5; sv = $10 * 1e6 / $5
			printf "  round %d  -c %-5s %-7s %9.0f req/s  client %5.2f us/req  server %5.2f us/req  ratio %.3f  other %.2f cores  errors %d\n",
				$3, $1, $2, rps, cl, sv, (sv > 0 ? cl / sv : 0), ($11 - $8 - $9 - $10) / $12, $6 }' >&2
	else
		printf '%s\t%s\t%s\tfailed\n' "$c" "$cl" "$r" >>"$runs"
		echo "  round $r  -c $c $cl: FAILED (exit $rc); last output:" >&2
		tail -n 5 "$base.out" >&2
	fi
}

# A short warm-up that also checks each client can reach the server.
smoke() {
	local cl rc
	for cl in "${client_list[@]}"; do
		case "$cl" in
		shb) cmd=(env "SHB_PLUGIN_PATH=$plugin_path" "$shb" -t 1 -c 1 -n 1000 -q
			--report "json:$tmp/smoke.json" "$url") ;;
		wrk) cmd=(wrk -t 1 -c 1 -d 1s "$url") ;;
		h2load) cmd=(h2load --h1 -t 1 -c 1 -n 1000 "$url") ;;
		esac
		rc=0
		timeout -k 5 30 "${cmd[@]}" >"$tmp/smoke.out" 2>&1 || rc=$?
		if [ "$rc" -ne 0 ]; then
			echo "run.sh: $cl failed its warm-up run (exit $rc):" >&2
			tail -n 20 "$tmp/smoke.out" >&2
			exit 1
		fi
	done
}

# --- the runs ----------------------------------------------------------------

n_cl=${#client_list[@]}
total_runs=$((rounds * ${#conn_list[@]} * n_cl))
echo "run.sh: $total_runs runs of ${duration}s (about $(((total_runs * (duration + 1) + 59) / 60)) min)" >&2
smoke

started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
# Rounds outermost: every pairing spreads over the whole sitting. Within a
# round the client order shifts by one, so each client takes each slot.
for ((r = 1; r <= rounds; r++)); do
	for c in "${conn_list[@]}"; do
		for ((i = 0; i < n_cl; i++)); do
			run_one "$r" "${client_list[$(((i + r - 1) % n_cl))]}" "$c"
			sleep 0.5
		done
	done
done
finished=$(date -u '+%Y-%m-%d %H:%M:%S UTC')

# --- the report --------------------------------------------------------------

version_of() {
	case "$1" in
	nginx) "$nginx_bin" -v 2>&1 | sed 's/^nginx version: //' ;;
	wrk) (wrk -v 2>&1 || true) | head -n 1 | awk '{ print $1, $2 }' ;;
	h2load) h2load --version 2>&1 | head -n 1 ;;
	shb) "$shb" --version 2>&1 | head -n 1 ;;
	esac
}

repo_state() {
	local rev
	rev=$(git -C "$root" rev-parse --short HEAD 2>/dev/null) || { echo "unknown"; return; }
	# --no-optional-locks: reading the state must not rewrite the index.
	if [ -n "$(git -C "$root" --no-optional-locks status --porcelain --untracked-files=no 2>/dev/null)" ]; then
		rev="$rev (with uncommitted changes)"
	fi
	echo "$rev"
}

# Medians per pairing and client; the order of rows follows the options.
summary_table() {
	local c cl
	echo "| Pairing | Client | Runs | req/s | req/s min..max | client µs/req | user | sys | server µs/req | client/server | ratio min..max | other load | errors |"
	echo "|---|---|---|---:|---|---:|---:|---:|---:|---:|---|---:|---:|"
	for c in "${conn_list[@]}"; do
		for cl in "${client_list[@]}"; do
			awk -F '\t' -v c="$c" -v cl="$cl" -v t="$threads" '
			function median(a, n,    i, j, x) {
				for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
				return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
			}
			function lo(a, n,    i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] < m) m = a[i]; return m }
			function hi(a, n,    i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] > m) m = a[i]; return m }
			$1 == c && $2 == cl {
				all++
				if ($4 != "ok") next
				n++
				rps[n] = $5 / $7
				us[n] = ($8 + $9) * 1e6 / $5; uu[n] = $8 * 1e6 / $5; ss[n] = $9 * 1e6 / $5
				sv[n] = $10 * 1e6 / $5
				ra[n] = (sv[n] > 0) ? us[n] / sv[n] : 0
				other[n] = ($11 - $8 - $9 - $10) / $12
				errs += $6
			}
			END {
				name = sprintf("HTTP/1.1 -t%s -c%s", t, c)
				if (n == 0) { printf "| %s | %s | 0/%d | - | - | - | - | - | - | - | - | - | - |\n", name, cl, all; exit }
				# median() sorts in place; min and max do not mind.
				printf "| %s | %s | %d/%d | %.0f | %.0f..%.0f | %.2f | %.2f | %.2f | %.2f | %.3f | %.3f..%.3f | %.2f | %d |\n",
					name, cl, n, all, median(rps, n), lo(rps, n), hi(rps, n),
					median(us, n), median(uu, n), median(ss, n), median(sv, n),
					median(ra, n), lo(ra, n), hi(ra, n), median(other, n), errs
			}' "$runs"
		done
	done
}

runs_table() {
	echo "| Round | Pairing | Client | req/s | client µs/req | user | sys | server µs/req | client/server | other load | errors |"
	echo "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	awk -F '\t' -v t="$threads" '
	$4 != "ok" { printf "| %s | HTTP/1.1 -t%s -c%s | %s | failed | | | | | | | |\n", $3, t, $1, $2; next }
	{
		cl = ($8 + $9) * 1e6 / $5; sv = $10 * 1e6 / $5
		printf "| %s | HTTP/1.1 -t%s -c%s | %s | %.0f | %.2f | %.2f | %.2f | %.2f | %.3f | %.2f | %d |\n",
			$3, t, $1, $2, $5 / $7, cl, $8 * 1e6 / $5, $9 * 1e6 / $5, sv, (sv > 0 ? cl / sv : 0),
			($11 - $8 - $9 - $10) / $12, $6
	}' "$runs"
}

report() {
	local cl cpu
	cpu=$(awk -F ': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
	echo "# shb vs wrk vs h2load on HTTP/1.1 against nginx"
	echo
	echo "- Date: $started to $finished"
	echo "- Host: $(uname -srm), $(nproc) CPUs, ${cpu:-unknown CPU}"
	echo "- Repository: $(repo_state)"
	echo "- Server: $(version_of nginx), $workers worker process(es), 13-byte \"hello, world!\" on 127.0.0.1"
	for cl in "${client_list[@]}"; do echo "- $cl: $(version_of "$cl")"; done
	echo "- $rounds rounds × ${duration} s per pairing and client; clients alternate, order rotated every round"
	echo
	echo "## Medians"
	echo
	summary_table
	echo
	echo "µs/req: CPU microseconds per completed request (client: user + sys from GNU time; server: utime + stime"
	echo "of the nginx master and workers). client/server: the ratio of those two in the same run. other load:"
	echo "CPUs kept busy by everything else on the machine during the run, on average (0.10 = a tenth of a core)."
	echo "errors: the sum over all runs. Runs: runs that completed / runs started."
	echo
	echo "## Commands"
	echo
	echo '```'
	for cl in "${client_list[@]}"; do
		client_cmd "$cl" C REPORT.json
		echo "/usr/bin/time -f '%U %S' ${cmd[*]}" | sed -e "s/ -c C / -c <conns> /" \
			-e "s|SHB_PLUGIN_PATH=[^ ]*|SHB_PLUGIN_PATH=$plugin_path|" -e "s|$root/||g"
	done
	echo '```'
	echo
	echo "Paths are relative to the top of the repository; REPORT.json is a file in a temporary directory."
	echo
	echo "nginx configuration (<tmp> is a fresh temporary directory):"
	echo
	echo '```nginx'
	sed -e "s|$tmp/|<tmp>/|g" -e '/^$/d' "$tmp/nginx/nginx.conf"
	echo '```'
	echo
	echo "## Every run"
	echo
	runs_table
}

if [ -z "$out" ]; then
	mkdir -p "$root/bench/results"
	out="$root/bench/results/$(date +%Y-%m-%d)-h1.md"
	[ -e "$out" ] && out="$root/bench/results/$(date +%Y-%m-%d-%H%M%S)-h1.md"
else
	mkdir -p "$(dirname "$out")"
fi
report >"$out"
echo
cat "$out"
echo
echo "run.sh: results written to $out" >&2
