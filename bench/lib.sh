# shellcheck shell=bash
# shellcheck disable=SC2034,SC2154 # variables set or read by the sourcing script
# Shared by the benchmark scripts in bench/ (sourced, never run): option
# checks, packages, building shb, servers as child processes, CPU accounting,
# output parsers, one timed run, and the Markdown tables of the report.
#
# A script that sources this sets `prog` (its name, for messages) and `root`
# (the top of the repository) first, and before calling run_one or the
# tables: tmp, duration, threads, client_list, shb, plugin_path.
# Runs are kept one a line in $runs, tab-separated:
#   label client round status completed errors seconds user sys
#   server-CPU-s machine-busy-CPU-s wall-seconds-of-the-window
# where label names the pairing ("HTTP/1.1 -t2 -c50", "h2o h2c -c8 -p32").

die() {
	echo "$prog: $*" >&2
	exit 2
}

need_arg() {
	[ "$#" -ge 2 ] || die "option $1 needs a value"
}

# Whole numbers in a range, so that a typo cannot start a run of hours.
check_int() { # name value min max
	if ! [[ "$2" =~ ^[0-9]+$ ]] || [ "$2" -lt "$3" ] || [ "$2" -gt "$4" ]; then
		die "$1 must be a whole number in $3..$4, not '$2'"
	fi
}

# Checks every word of a list against the known ones.
check_words() { # what "list" known...
	local what=$1 w k ok
	local -a words
	read -r -a words <<<"$2"
	shift 2
	[ "${#words[@]}" -gt 0 ] || die "--${what}s needs at least one $what"
	for w in "${words[@]}"; do
		ok=0
		for k in "$@"; do [ "$w" = "$k" ] && ok=1; done
		[ "$ok" -eq 1 ] || die "unknown $what '$w' (known: $*)"
	done
}

# Parses the script's options from a table, one word per option: "FORMS=VAR"
# for an option that takes a value, "FORMS=VAR:VALUE" for a flag that sets
# VAR to VALUE; FORMS are the spellings, separated by "|" (for example
# "-r|--rounds=rounds", "--no-lab=lab:0"). -h and --help print the script's
# usage and exit; any other word is refused with one line, exit 2.
parse_options() { # table... -- "$@"
	local -a _po_table=()
	local _po_e _po_var _po_hit
	while [ "$1" != -- ]; do
		_po_table+=("$1")
		shift
	done
	shift
	while [ "$#" -gt 0 ]; do
		case "$1" in -h | --help) usage; exit 0 ;; esac
		_po_hit=0
		for _po_e in "${_po_table[@]}"; do
			case "|${_po_e%%=*}|" in *"|$1|"*) ;; *) continue ;; esac
			_po_hit=1
			_po_var=${_po_e#*=}
			if [[ "$_po_var" == *:* ]]; then
				printf -v "${_po_var%%:*}" '%s' "${_po_var#*:}"
				shift
			else
				need_arg "$@"
				printf -v "$_po_var" '%s' "$2"
				shift 2
			fi
			break
		done
		[ "$_po_hit" -eq 1 ] || die "unknown option '$1' (try --help)"
	done
}

# Sets conn_list from a list of connection counts, each in 1..MAX and at
# least the thread count; WHY ends the message when one is below it.
check_conn_list() { # list threads max [why]
	local c
	read -r -a conn_list <<<"$1"
	[ "${#conn_list[@]}" -gt 0 ] || die "-c needs at least one connection count"
	for c in "${conn_list[@]}"; do
		check_int "a connection count" "$c" 1 "$3"
		[ "$c" -ge "$2" ] || die "-c $c is below -t $2${4:+ ($4)}"
	done
}

in_list() { # word list...
	local w=$1
	shift
	case " $* " in *" $w "*) return 0 ;; esac
	return 1
}

# --- packages ----------------------------------------------------------------

pkg_installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

# What building shb needs, for scripts that build it.
shb_build_packages() {
	local p
	for p in gcc meson ninja-build pkgconf liburing-dev libgnutls28-dev nettle-dev libjansson-dev; do
		pkg_installed "$p" || echo "$p"
	done
}

install_packages() { # package...
	[ "$#" -gt 0 ] || return 0
	echo "$prog: installing $*" >&2
	local sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null || die "not root and no sudo: install $* first"
		sudo="sudo"
	fi
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq
	$sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# --- shb ---------------------------------------------------------------------

# Sets shb and plugin_path. Without --shb, builds into build-bench/ at the top
# of the repository; the arguments are the plugin directories (under
# plugins/) the runs need, and plugin_path lists them.
setup_shb() { # plugin-dir...
	local b d
	if [ -z "$shb" ]; then
		b="$root/build-bench"
		if [ ! -f "$b/build.ninja" ]; then
			echo "$prog: configuring $b (release)" >&2
			meson setup "$b" "$root" -Dtests=false --buildtype=release -Db_lto=true >/dev/null
		fi
		echo "$prog: building shb" >&2
		ninja -C "$b" >/dev/null
		shb="$b/core/shb"
	else
		[ -x "$shb" ] || die "--shb $shb is not an executable file"
		shb=$(cd "$(dirname "$shb")" && pwd)/$(basename "$shb")
		[ -z "$plugin_path" ] || return 0
		# A build tree keeps core/shb next to plugins/<name>/.
		b=$(dirname "$(dirname "$shb")")
		for d in "$@"; do
			if [ ! -d "$b/plugins/$d" ]; then
				plugin_path=${SHB_PLUGIN_PATH:-}
				return 0
			fi
		done
	fi
	plugin_path=""
	for d in "$@"; do plugin_path="${plugin_path:+$plugin_path:}$b/plugins/$d"; done
}

# --- the floor ---------------------------------------------------------------

# Sets floor to bench/http_floor (the least a client can do for a request,
# see bench/http_floor.c), built in the build directory of $shb when that
# is a build tree, else in build-bench/ at the top of the repository.
setup_floor() {
	local b
	b=$(dirname "$(dirname "${shb:-$root/build-bench/core/shb}")")
	if [ ! -f "$b/build.ninja" ]; then
		b="$root/build-bench"
		if [ ! -f "$b/build.ninja" ]; then
			echo "$prog: configuring $b (release)" >&2
			meson setup "$b" "$root" -Dtests=false --buildtype=release -Db_lto=true >/dev/null
		fi
	fi
	echo "$prog: building bench/http_floor in $b" >&2
	ninja -C "$b" bench/http_floor >/dev/null || die "building bench/http_floor in $b failed"
	floor="$b/bench/http_floor"
}

# --- servers -----------------------------------------------------------------

# A throwaway self-signed ECDSA P-256 certificate for 127.0.0.1 in
# $tmp/tls: cert.pem, key.pem, and both.pem (haproxy's form); clients do not
# verify it.
make_cert() {
	mkdir -p "$tmp/tls"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
		-subj /CN=localhost -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
		-keyout "$tmp/tls/key.pem" -out "$tmp/tls/cert.pem" >"$tmp/tls/openssl.log" 2>&1 ||
		{ cat "$tmp/tls/openssl.log" >&2; die "could not make a test certificate"; }
	cat "$tmp/tls/cert.pem" "$tmp/tls/key.pem" >"$tmp/tls/both.pem"
}
#
# Each server keeps its configuration and logs (*.log) in $tmp/NAME/ and runs
# as a child of the script, in the foreground, so that it can be watched and
# stopped by pid.

declare -A srv_pid=()
declare -A srv_ports=()

# The server's process and its children (nginx workers).
server_pids() { # name
	local p=${srv_pid[$1]:-}
	[ -n "$p" ] || return 0
	echo "$p"
	pgrep -P "$p" || true
}

stop_server() { # name
	local p=${srv_pid[$1]:-} kids i
	[ -n "$p" ] || return 0
	kids=$(pgrep -P "$p" || true)
	if kill -0 "$p" 2>/dev/null; then
		kill -TERM "$p" 2>/dev/null || true
		for ((i = 0; i < 50; i++)); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$p" 2>/dev/null || true
	fi
	wait "$p" 2>/dev/null || true
	# Children leave with their parent; these are only left if it was killed.
	for i in $kids; do kill -KILL "$i" 2>/dev/null || true; done
	unset 'srv_pid[$1]'
}

stop_servers() {
	local n
	for n in "${!srv_pid[@]}"; do stop_server "$n"; done
}

port_open() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# Prints N distinct loopback ports nobody listens on right now.
free_ports() { # n
	local -A seen=()
	local n=0 p
	while [ "$n" -lt "$1" ]; do
		p=$((20000 + RANDOM % 40000))
		if [ -n "${seen[$p]:-}" ] || port_open "$p"; then continue; fi
		seen[$p]=1
		echo "$p"
		n=$((n + 1))
	done
}

# Ready: alive, every port accepts, and children exist when asked for.
wait_ready() { # name need-children port...
	local name=$1 kids=$2 i p ok
	shift 2
	for ((i = 0; i < 200; i++)); do
		kill -0 "${srv_pid[$name]}" 2>/dev/null || return 1
		ok=1
		for p in "$@"; do port_open "$p" || { ok=0; break; }; done
		if [ "$ok" -eq 1 ] && { [ "$kids" -eq 0 ] || [ -n "$(pgrep -P "${srv_pid[$name]}")" ]; }; then
			return 0
		fi
		sleep 0.05
	done
	return 1
}

# Starts a server on NPORTS random free ports: conf-fn PORT... writes its
# configuration, then cmd runs it. If another process takes a port first, the
# server fails to bind and the next try picks others. Sets srv_ports[name].
start_server() { # name nports need-children conf-fn cmd...
	local name=$1 nports=$2 kids=$3 conf=$4 try ports
	shift 4
	mkdir -p "$tmp/$name"
	for ((try = 0; try < 20; try++)); do
		mapfile -t ports < <(free_ports "$nports")
		"$conf" "${ports[@]}"
		rm -f "$tmp/$name"/*.log
		"$@" </dev/null >"$tmp/$name/stdout.log" 2>&1 &
		srv_pid[$name]=$!
		if wait_ready "$name" "$kids" "${ports[@]}"; then
			srv_ports[$name]="${ports[*]}"
			echo "$prog: $name (pid ${srv_pid[$name]}) on ports ${ports[*]}" >&2
			return 0
		fi
		stop_server "$name"
		grep -qis "address already in use" "$tmp/$name"/*.log && continue
		echo "$prog: $name did not start:" >&2
		cat "$tmp/$name"/*.log >&2
		exit 1
	done
	die "found no free loopback ports for $name"
}

# h2o serves a file: a fixed response would need mruby, which costs it
# about twice the CPU per request. index.txt makes it text/plain. Writes
# $tmp/h2o/h2o.conf (h2c on the first port, TLS with $tmp/tls on the
# second) and the 13-byte body.
write_h2o_conf_with() { # threads max-connections h2c-port tls-port
	local user=""
	[ "$(id -u)" -eq 0 ] && user="user: root"
	mkdir -p "$tmp/h2o/www"
	printf 'hello, world!' >"$tmp/h2o/www/index.txt"
	cat >"$tmp/h2o/h2o.conf" <<EOF
$user
pid-file: $tmp/h2o/h2o.pid
error-log: $tmp/h2o/error.log
num-threads: $1
max-connections: $2
http2-max-concurrent-requests-per-connection: 256
http2-idle-timeout: 300
listen:
  host: 127.0.0.1
  port: $3
listen:
  host: 127.0.0.1
  port: $4
  ssl:
    certificate-file: $tmp/tls/cert.pem
    key-file: $tmp/tls/key.pem
    ocsp-update-interval: 0
hosts:
  default:
    paths:
      /:
        file.dir: $tmp/h2o/www
        file.index: ['index.txt']
EOF
}

# nginx.conf for a fixed 13-byte "hello, world!" from $tmp/nginx/, with
# keep-alive limits far above what a run reaches; the arguments are lines of
# the server block (its listen directives). Reads workers, max_conns and
# nginx_bin.
nginx_conf() { # server-line...
	local conns=$((2 * max_conns + 64)) user="" v m line
	[ "$conns" -lt 1024 ] && conns=1024
	[ "$(id -u)" -eq 0 ] && user="user root;"
	cat <<EOF
daemon off;
master_process on;
worker_processes $workers;
worker_rlimit_nofile $((2 * conns));
$user
pid $tmp/nginx/nginx.pid;
error_log $tmp/nginx/error.log warn;
events {
    worker_connections $conns;
}
http {
    access_log off;
    default_type text/plain;
    keepalive_requests 100000000;
    keepalive_timeout 300s;
EOF
	# Temp paths of modules this nginx lacks would be unknown directives.
	v=$("$nginx_bin" -V 2>&1)
	echo "    client_body_temp_path $tmp/nginx/body;"
	for m in proxy fastcgi uwsgi scgi; do
		case "$v" in
		*"--without-http_${m}_module"*) ;;
		*) echo "    ${m}_temp_path $tmp/nginx/$m;" ;;
		esac
	done
	echo "    server {"
	for line in "$@"; do echo "        $line"; done
	cat <<'EOF'
        location / {
            return 200 "hello, world!";
        }
    }
}
EOF
}

# Clients at hundreds of connections and the servers need a descriptor each.
raise_nofile() {
	local hard
	hard=$(ulimit -Hn)
	if [ "$hard" = unlimited ] || [ "$hard" -gt 65536 ]; then hard=65536; fi
	if [ "$(ulimit -Sn)" != unlimited ] && [ "$(ulimit -Sn)" -lt "$hard" ]; then
		ulimit -Sn "$hard"
	fi
}

# --- CPU accounting ----------------------------------------------------------

clk_tck=$(getconf CLK_TCK)

# utime + stime, in ticks, of one process (all its threads); fails when it
# is gone. The command name in /proc/PID/stat may hold spaces, so fields
# count from its last ')'.
pid_ticks() { # pid
	local rest f
	rest=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	rest=${rest##*) }
	read -r -a f <<<"$rest"
	echo $((f[11] + f[12]))
}

# The same summed over the server's processes.
server_ticks() { # name
	local p total=0 t
	for p in $(server_pids "$1"); do
		t=$(pid_ticks "$p") || continue
		total=$((total + t))
	done
	echo "$total"
}

# Busy ticks of the whole machine, to tell how much CPU others used meanwhile.
busy_ticks() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat
}

# --- parsers: each prints "completed errors seconds" or fails ----------------

# "5.00s", "812.34ms", "1.50m" as wrk and h2load print them -> seconds.
to_seconds() {
	awk -v t="$1" 'BEGIN {
		n = t + 0; u = t; sub(/^[0-9.]+/, "", u)
		f = (u == "us") ? 1e-6 : (u == "ms") ? 1e-3 : (u == "m") ? 60 : (u == "h") ? 3600 : 1
		printf "%.6f\n", n * f }'
}

parse_h2load() {
	local t line
	t=$(sed -nE 's/^finished in ([0-9.]+[a-z]+),.*/\1/p' "$1")
	line=$(sed -nE 's/^requests: ([0-9]+) total, ([0-9]+) started, ([0-9]+) done, ([0-9]+) succeeded, ([0-9]+) failed, ([0-9]+) errored.*/\3 \5/p' "$1")
	[ -n "$t" ] && [ -n "$line" ] || return 1
	# "failed" already includes "errored" and non-2xx/3xx responses.
	echo "$line $(to_seconds "$t")"
}

# wrk's summary: socket errors plus non-2xx/3xx responses count as errors.
parse_wrk() {
	local n t sock non2xx
	read -r n t < <(sed -nE 's/^ *([0-9]+) requests in ([0-9.]+[a-z]+),.*/\1 \2/p' "$1")
	[ -n "${n:-}" ] || return 1
	sock=$(sed -nE 's/^ *Socket errors: connect ([0-9]+), read ([0-9]+), write ([0-9]+), timeout ([0-9]+).*/\1 \2 \3 \4/p' "$1" |
		awk '{ print $1 + $2 + $3 + $4 }')
	non2xx=$(sed -nE 's/^ *Non-2xx or 3xx responses: ([0-9]+).*/\1/p' "$1")
	echo "$n $((${sock:-0} + ${non2xx:-0})) $(to_seconds "$t")"
}

# shb's JSON: completed = requests.ok (complete responses, any status);
# errors = every counted error kind plus 4xx/5xx responses, as for wrk.
# A protocol without HTTP requests (request model NONE) has no statusCodes.
parse_shb() {
	[ -s "$1" ] || return 1
	if command -v python3 >/dev/null 2>&1 && python3 - "$1" 2>/dev/null <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
errs = sum(d["errors"].values()) + sum(n for s, n in d.get("statusCodes", {}).items() if int(s) >= 400)
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

# bench/http_floor's line "requests N errors E seconds S ...".
parse_floor() {
	local line
	line=$(sed -nE 's/^requests ([0-9]+) errors ([0-9]+) seconds ([0-9.]+) .*/\1 \2 \3/p' "$1")
	[ -n "$line" ] || return 1
	echo "$line"
}

# --- one timed run -----------------------------------------------------------

# ab_rounds ROUNDS FN LOAD... -- BUILD...: FN ROUND BUILD LOAD for every
# round, load and build, half a second apart. The builds alternate and
# which goes first changes every round, so that no build always meets the
# machine first.
ab_rounds() {
	local rounds=$1 fn=$2 r k l
	shift 2
	local ab_loads=()
	while [[ $# -gt 0 && $1 != -- ]]; do
		ab_loads+=("$1")
		shift
	done
	shift
	local ab_builds=("$@")
	for ((r = 1; r <= rounds; r++)); do
		for l in "${ab_loads[@]}"; do
			for ((k = 0; k < ${#ab_builds[@]}; k++)); do
				"$fn" "$r" "${ab_builds[$(((k + r) % ${#ab_builds[@]}))]}" "$l"
				sleep 0.5
			done
		done
	done
}

# Where a run keeps its files: BASE.out (output), BASE.time, BASE.json (shb).
run_base() { # round label client
	local slug=${2//[^A-Za-z0-9]/-}
	echo "$tmp/r$1-$slug-$3"
}

# Runs cmd[] (set by the caller, writing shb's JSON to BASE.json) under GNU
# time and a timeout, measuring the named server's CPU and the machine's
# meanwhile; appends a line to $runs and prints a progress line.
run_one() { # round label client server base
	local r=$1 label=$2 cl=$3 srv=$4 base=$5 rc=0 s0 s1 b0 b1 w0 w1 user sys res completed errs secs in
	s0=$(server_ticks "$srv")
	b0=$(busy_ticks)
	w0=$(date +%s%N)
	/usr/bin/time -f '%U %S' -o "$base.time" \
		timeout --foreground -k 5 $((duration + 30)) "${cmd[@]}" >"$base.out" 2>&1 || rc=$?
	w1=$(date +%s%N)
	b1=$(busy_ticks)
	s1=$(server_ticks "$srv")
	read -r user sys < <(tail -n 1 "$base.time" 2>/dev/null) || true
	[[ "${user:-}" =~ ^[0-9.]+$ && "${sys:-}" =~ ^[0-9.]+$ ]] || { [ "$rc" -ne 0 ] || rc=1; }
	in=$base.out
	[ "$cl" = shb ] && in=$base.json
	if [ "$rc" -eq 0 ] && res=$("parse_$cl" "$in") &&
		read -r completed errs secs <<<"$res" && [ "$completed" -gt 0 ]; then
		printf '%s\t%s\t%s\tok\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$cl" "$r" \
			"$completed" "$errs" "$secs" "$user" "$sys" \
			"$(awk -v t=$((s1 - s0)) -v k="$clk_tck" 'BEGIN { printf "%.2f", t / k }')" \
			"$(awk -v t=$((b1 - b0)) -v k="$clk_tck" 'BEGIN { printf "%.2f", t / k }')" \
			"$(awk -v t=$((w1 - w0)) 'BEGIN { printf "%.3f", t / 1e9 }')" >>"$runs"
		tail -n 1 "$runs" | awk -F '\t' '{
			rps = $5 / $7; cl = ($8 + $9) * 1e6 / $5; sv = $10 * 1e6 / $5
			printf "  round %d  %-22s %-7s %9.0f req/s  client %5.2f us/req  server %5.2f us/req  ratio %.3f  other %.2f cores  errors %d\n",
				$3, $1, $2, rps, cl, sv, (sv > 0 ? cl / sv : 0), ($11 - $8 - $9 - $10) / $12, $6 }' >&2
	else
		printf '%s\t%s\t%s\tfailed\n' "$label" "$cl" "$r" >>"$runs"
		echo "  round $r  $label $cl: FAILED (exit $rc); last output:" >&2
		tail -n 5 "$base.out" >&2
	fi
}

# --base PATH: a second shb binary run as client "base" (the build before a
# change), its plugins in the DIRS of its build (plugins/DIR each): sets
# base_shb (absolute) and base_plugin_path, and puts base right after shb
# in client_list so that the two alternate most closely.
setup_base() { # dirs...
	local b d
	[ -x "$base_shb" ] || die "--base $base_shb is not an executable file"
	base_shb=$(cd "$(dirname "$base_shb")" && pwd)/$(basename "$base_shb")
	b=$(dirname "$(dirname "$base_shb")")
	base_plugin_path=""
	for d in "$@"; do base_plugin_path="${base_plugin_path:+$base_plugin_path:}$b/plugins/$d"; done
	in_list shb "${client_list[@]}" || die "--base goes with client shb"
	mapfile -t client_list < <(for cl in "${client_list[@]}"; do
		echo "$cl"
		[ "$cl" != shb ] || echo base
	done)
}

# The base client's runs: its JSON report beside BASE.out, as shb's.
parse_base() { parse_shb "${1%.out}.json"; }

# shb against base per pairing, from the medians: client CPU per request
# and its quotient, req/s, and the quotient of the client/server ratios
# (which cancels CPU-speed drift between the runs).
base_req_table() { # label...
	local label a b
	echo "| Pairing | shb µs/req | base µs/req | shb ÷ base | shb req/s | base req/s | client/server shb ÷ base |"
	echo "|---|---:|---:|---:|---:|---:|---:|"
	for label in "$@"; do
		a=$(median_row "$label" shb | cut -f 2-)
		b=$(median_row "$label" base | cut -f 2-)
		awk -v label="$label" -v a="$a" -v b="$b" 'BEGIN {
			split(a, s, "\t"); split(b, h, "\t")
			if (s[1] == 0 || h[1] == 0) { printf "| %s | - | - | - | - | - | - |\n", label; exit }
			printf "| %s | %.3f | %.3f | %.3f | %.0f | %.0f | %.3f |\n", label, s[3], h[3], s[3] / h[3],
				s[2], h[2], (h[5] > 0) ? s[5] / h[5] : 0
		}'
	done
}

# --- the report --------------------------------------------------------------

version_of() {
	case "$1" in
	nginx) "$nginx_bin" -v 2>&1 | sed 's/^nginx version: //' ;;
	h2o) h2o --version 2>&1 | head -n 1 ;;
	haproxy) haproxy -v 2>&1 | head -n 1 | awk '{ print $1, $2, $3 }' ;;
	wrk) (wrk -v 2>&1 || true) | head -n 1 | awk '{ print $1, $2 }' ;;
	h2load) h2load --version 2>&1 | head -n 1 ;;
	shb) "$shb" --version 2>&1 | head -n 1 ;;
	base) "$base_shb" --version 2>&1 | head -n 1 ;;
	floor) echo "bench/http_floor of this repository (io_uring, no parsing; see bench/http_floor.c)" ;;
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

host_line() {
	local cpu
	cpu=$(awk -F ': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
	echo "$(uname -srm), $(nproc) CPUs, ${cpu:-unknown CPU}"
}

# Medians of one pairing and client, as a row of the summary table; the
# tab-separated fields after the row are for scripts that compare clients:
# runs req/s client-µs/req errors client/server.
median_row() { # label client
	awk -F '\t' -v label="$1" -v cl="$2" '
	function median(a, n,    i, j, x) {
		for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
		return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	function lo(a, n,    i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] < m) m = a[i]; return m }
	function hi(a, n,    i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] > m) m = a[i]; return m }
	$1 == label && $2 == cl {
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
		if (n == 0) { printf "| %s | %s | 0/%d | - | - | - | - | - | - | - | - | - | - |\t0\t0\t0\t0\t0\n", label, cl, all; exit }
		# median() sorts in place; min and max do not mind.
		mr = median(rps, n); mu = median(us, n)
		printf "| %s | %s | %d/%d | %.0f | %.0f..%.0f | %.2f | %.2f | %.2f | %.2f | %.3f | %.3f..%.3f | %.2f | %d |\t%d\t%.0f\t%.4f\t%d\t%.4f\n",
			label, cl, n, all, mr, lo(rps, n), hi(rps, n),
			mu, median(uu, n), median(ss, n), median(sv, n),
			median(ra, n), lo(ra, n), hi(ra, n), median(other, n), errs,
			n, mr, mu, errs, median(ra, n)
	}' "$runs"
}

summary_table() { # label...
	local label cl
	echo "| Pairing | Client | Runs | req/s | req/s min..max | client µs/req | user | sys | server µs/req | client/server | ratio min..max | other load | errors |"
	echo "|---|---|---|---:|---|---:|---:|---:|---:|---:|---|---:|---:|"
	for label in "$@"; do
		for cl in "${client_list[@]}"; do
			median_row "$label" "$cl" | cut -f 1
		done
	done
}

# shb's client CPU per request as a multiple of the floor's (bench/http_floor)
# and of every other client's, per pairing, from the medians; the goal is
# shb within 1.15 times the floor. The same quotient from the client/server
# ratios cancels CPU-speed drift between runs.
floor_table() { # label...
	local label cl peers=() a f row
	for cl in "${client_list[@]}"; do
		case "$cl" in shb | floor | base) ;; *) peers+=("$cl") ;; esac
	done
	row="| Pairing | shb µs/req | floor µs/req | CPU shb ÷ floor | same, from client/server ratios |"
	for cl in "${peers[@]}"; do row="$row CPU shb ÷ $cl |"; done
	echo "$row req/s shb ÷ floor | within 1.15 × floor |"
	row="|---|---:|---:|---:|---:|"
	for cl in "${peers[@]}"; do row="$row---:|"; done
	echo "$row---:|---|"
	for label in "$@"; do
		a=$(median_row "$label" shb | cut -f 2-)
		f=$(median_row "$label" floor | cut -f 2-)
		row=$(awk -v label="$label" -v a="$a" -v f="$f" 'BEGIN {
			split(a, s, "\t"); split(f, l, "\t")
			if (s[1] == 0 || l[1] == 0) { printf "| %s | - | - | - | - |", label; exit }
			printf "| %s | %.2f | %.2f | %.2f | %s |", label, s[3], l[3], s[3] / l[3],
				(l[5] > 0) ? sprintf("%.2f", s[5] / l[5]) : "-" }')
		for cl in "${peers[@]}"; do
			row="$row $(awk -v a="$a" -v p="$(median_row "$label" "$cl" | cut -f 2-)" 'BEGIN {
				split(a, s, "\t"); split(p, q, "\t")
				print (s[1] == 0 || q[1] == 0) ? "-" : sprintf("%.2f", s[3] / q[3]) }') |"
		done
		row="$row $(awk -v a="$a" -v f="$f" 'BEGIN {
			split(a, s, "\t"); split(f, l, "\t")
			if (s[1] == 0 || l[1] == 0) { print "- | no runs to compare |"; exit }
			printf "%.2f | %s |\n", s[2] / l[2], (s[3] / l[3] <= 1.15) ? "yes" : "no" }')"
		echo "$row"
	done
}

runs_table() {
	echo "| Round | Pairing | Client | req/s | client µs/req | user | sys | server µs/req | client/server | other load | errors |"
	echo "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	awk -F '\t' '
	$4 != "ok" { printf "| %s | %s | %s | failed | | | | | | | |\n", $3, $1, $2; next }
	{
		cl = ($8 + $9) * 1e6 / $5; sv = $10 * 1e6 / $5
		printf "| %s | %s | %s | %.0f | %.2f | %.2f | %.2f | %.2f | %.3f | %.2f | %d |\n",
			$3, $1, $2, $5 / $7, cl, $8 * 1e6 / $5, $9 * 1e6 / $5, sv, (sv > 0 ? cl / sv : 0),
			($11 - $8 - $9 - $10) / $12, $6
	}' "$runs"
}

legend() { # what the server CPU covers
	echo "µs/req: CPU microseconds per completed request (client: user + sys from GNU time; server: utime + stime"
	echo "of $1). client/server: the ratio of those two in the same run. other load:"
	echo "CPUs kept busy by everything else on the machine during the run, on average (0.10 = a tenth of a core)."
	echo "errors: the sum over all runs. Runs: runs that completed / runs started."
}

# Default results file: bench/results/DATE-SUFFIX.md, never overwriting one.
results_path() { # suffix
	local f
	mkdir -p "$root/bench/results"
	f="$root/bench/results/$(date +%Y-%m-%d)-$1.md"
	[ -e "$f" ] && f="$root/bench/results/$(date +%Y-%m-%d-%H%M%S)-$1.md"
	echo "$f"
}

# Writes the script's report() to $out (default: results_path SUFFIX; a
# given path gets its directory made), shows it and says where it went.
write_report() { # suffix
	if [ -z "$out" ]; then
		out=$(results_path "$1")
	else
		mkdir -p "$(dirname "$out")"
	fi
	report >"$out"
	echo
	cat "$out"
	echo
	echo "$prog: results written to $out" >&2
}

# A fresh scratch directory in $tmp, removed at exit together with the
# servers start_server started; HOOK, a function of the script, runs first
# for whatever else it started. Ctrl-C and SIGTERM leave through the same
# clean-up, with status 130 and 143.
scratch_dir() { # name [hook]
	tmp=$(mktemp -d -t "shb-$1.XXXXXX")
	scratch_hook=${2:-}
	trap scratch_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

scratch_cleanup() {
	[ -z "$scratch_hook" ] || "$scratch_hook"
	stop_servers
	rm -rf "$tmp"
}
