#!/usr/bin/env bash
# Connection churn: one request per connection (shb --disable-keepalive), so
# what is measured is the cost of opening, using and closing connections,
# over plain TCP and over TLS 1.3, against one local nginx. The peers are
# the HTTP/1.1 clients that can do the same: wrk with a `Connection: close`
# header (it reconnects after every response) and ab (ApacheBench, one
# request per connection unless -k). h2load is not one: with
# `Connection: close` its -D mode never ends, and its -n mode reconnects
# with pauses of hundreds of milliseconds (see bench/README.md).
#
# The figure that matters is the client's CPU per connection (user + sys);
# connections per second follow from it on a machine where client and
# server share the cores. nginx has session tickets and its session cache
# off, so every connection of every client is a full TLS handshake. Same
# method as run.sh: clients interleaved, order rotated every round,
# medians. --base runs a second shb build beside the first (before and
# after a change).
set -euo pipefail

prog=churn.sh
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"

usage() {
	cat <<'EOF'
Usage: bench/churn.sh [options]

Opens a new connection for every request (shb --disable-keepalive, wrk
-H 'Connection: close', ab) against a local nginx, over plain TCP and
TLS 1.3, ROUNDS rounds of DURATION seconds per client, and writes a
Markdown table of medians: connections/s and client CPU per connection.

Options:
  -r, --rounds N         rounds per pairing (default: 5)
  -d, --duration S       seconds per run (default: 5)
  -c, --connections LIST concurrent connections, one pairing each
                         (default: "16")
  -t, --threads N        threads of shb and wrk; ab has one (default: 2)
  -w, --workers N        nginx worker processes (default: 1)
      --modes LIST       tcp and/or tls (default: "tcp tls")
      --clients LIST     clients, from: shb wrk ab (default: "shb wrk ab")
  -o, --output FILE      results file (default: bench/results/DATE-churn.md)
      --shb PATH         use this shb binary instead of building one into
                         build-bench/ at the top of the repository
      --plugin-path P    SHB_PLUGIN_PATH for --shb (default: derived from the
                         build directory holding PATH)
      --base PATH        a second shb binary, run as client "base" (e.g. the
                         build before a change); its plugins are found next
                         to it
  -h, --help             print this help and exit

Missing packages (nginx-light, wrk, apache2-utils, openssl, time and, to
build shb, its build dependencies) are installed with apt-get, through
sudo when not root.
EOF
}

rounds=5
duration=5
conns="16"
threads=2
workers=1
modes="tcp tls"
clients="shb wrk ab"
out=""
shb=""
plugin_path=""
base_shb=""

parse_options "-r|--rounds=rounds" "-d|--duration=duration" "-c|--connections=conns" \
	"-t|--threads=threads" "-w|--workers=workers" "--modes=modes" "--clients=clients" \
	"-o|--output=out" "--shb=shb" "--plugin-path=plugin_path" "--base=base_shb" -- "$@"

check_int rounds "$rounds" 1 100
check_int duration "$duration" 1 3600
check_int threads "$threads" 1 256
check_int workers "$workers" 1 64
check_conn_list "$conns" "$threads" 10000 "wrk needs a connection per thread"
check_words mode "$modes" tcp tls
check_words client "$clients" shb wrk ab
read -r -a mode_list <<<"$modes"
read -r -a client_list <<<"$clients"
[ -z "$plugin_path" ] || [ -n "$shb" ] || die "--plugin-path goes with --shb"
if [ -n "$base_shb" ]; then
	[ -x "$base_shb" ] || die "--base $base_shb is not an executable file"
	base_shb=$(cd "$(dirname "$base_shb")" && pwd)/$(basename "$base_shb")
	b=$(dirname "$(dirname "$base_shb")")
	base_plugin_path="$b/plugins/h1:$b/plugins/reporters"
	in_list shb "${client_list[@]}" || die "--base goes with client shb"
	# base right after shb, so the two alternate most closely.
	mapfile -t client_list < <(for cl in "${client_list[@]}"; do
		echo "$cl"
		[ "$cl" != shb ] || echo base
	done)
fi

have() { in_list "$1" "${client_list[@]}"; }

# --- packages ----------------------------------------------------------------

PATH=$PATH:/usr/sbin:/sbin
missing=()
command -v nginx >/dev/null || missing+=(nginx-light)
command -v openssl >/dev/null || missing+=(openssl)
[ -x /usr/bin/time ] || missing+=(time)
command -v timeout >/dev/null || missing+=(coreutils)
if have wrk; then command -v wrk >/dev/null || missing+=(wrk); fi
if have ab; then command -v ab >/dev/null || missing+=(apache2-utils); fi
if have shb && [ -z "$shb" ]; then mapfile -t -O "${#missing[@]}" missing < <(shb_build_packages); fi
install_packages "${missing[@]}"
nginx_bin=$(command -v nginx)

# --- shb ---------------------------------------------------------------------

# The state shb is built from, before others can change it during the runs.
repo=$(repo_state)
if have shb; then setup_shb h1 reporters; fi

# --- scratch space, certificate, nginx ---------------------------------------

scratch_dir bench-churn


raise_nofile

max_conns=0
for c in "${conn_list[@]}"; do [ "$c" -gt "$max_conns" ] && max_conns=$c; done

make_cert

# Plain on the first port, TLS 1.3 on the second. No session tickets and no
# session cache: no client can resume, every TLS connection is a full
# handshake whatever the client would try.
write_nginx_conf() { # tcp-port tls-port
	nginx_conf "listen 127.0.0.1:$1;" "listen 127.0.0.1:$2 ssl;" \
		"ssl_certificate $tmp/tls/cert.pem;" "ssl_certificate_key $tmp/tls/key.pem;" \
		"ssl_protocols TLSv1.3;" "ssl_session_tickets off;" "ssl_session_cache off;" \
		>"$tmp/nginx/nginx.conf"
}

start_server nginx 2 1 write_nginx_conf \
	"$nginx_bin" -p "$tmp/nginx" -e "$tmp/nginx/error.log" -c "$tmp/nginx/nginx.conf"

url_of() { # mode
	local p
	read -r -a p <<<"${srv_ports[nginx]}"
	if [ "$1" = tcp ]; then echo "http://127.0.0.1:${p[0]}/"; else echo "https://127.0.0.1:${p[1]}/"; fi
}

# --- clients -----------------------------------------------------------------

# ab needs a request count even with -t: more than any run can reach.
ab_max=$((duration * 200000))

client_cmd() { # client conns url jsonfile -> sets cmd[]
	case "$1" in
	shb) cmd=(env "SHB_PLUGIN_PATH=$plugin_path" "$shb" -t "$threads" -c "$2" -z "${duration}s"
		--disable-keepalive -q --report "json:$4" "$3") ;;
	base) cmd=(env "SHB_PLUGIN_PATH=$base_plugin_path" "$base_shb" -t "$threads" -c "$2"
		-z "${duration}s" --disable-keepalive -q --report "json:$4" "$3") ;;
	wrk) cmd=(wrk -t "$threads" -c "$2" -d "${duration}s" -H "Connection: close" "$3") ;;
	ab) cmd=(ab -q -c "$2" -t "$duration" -n "$ab_max" "$3") ;;
	esac
}


# ab: complete requests; failed ones and non-2xx responses are errors.
parse_ab() {
	local n t failed non2xx
	n=$(sed -nE 's/^Complete requests: +([0-9]+).*/\1/p' "$1")
	t=$(sed -nE 's/^Time taken for tests: +([0-9.]+) seconds.*/\1/p' "$1")
	[ -n "$n" ] && [ -n "$t" ] || return 1
	failed=$(sed -nE 's/^Failed requests: +([0-9]+).*/\1/p' "$1")
	non2xx=$(sed -nE 's/^Non-2xx responses: +([0-9]+).*/\1/p' "$1")
	echo "$n $((${failed:-0} + ${non2xx:-0})) $t"
}

# What each client negotiated over TLS, from the warm-up.
declare -A tls_seen=()

# A short warm-up per client and mode that also checks it gets answers.
smoke() {
	local m cl url rc f in
	for m in "${mode_list[@]}"; do
		url=$(url_of "$m")
		for cl in "${client_list[@]}"; do
			f="$tmp/smoke-$m-$cl"
			case "$cl" in
			shb) cmd=(env "SHB_PLUGIN_PATH=$plugin_path" "$shb" -t 1 -c 1 -n 200
				--disable-keepalive -q --report "json:$f.json" "$url") ;;
			base) cmd=(env "SHB_PLUGIN_PATH=$base_plugin_path" "$base_shb" -t 1 -c 1 -n 200
				--disable-keepalive -q --report "json:$f.json" "$url") ;;
			wrk) cmd=(wrk -t 1 -c 1 -d 1s -H "Connection: close" "$url") ;;
			ab) cmd=(ab -c 1 -n 200 "$url") ;;
			esac
			rc=0
			timeout -k 5 30 "${cmd[@]}" >"$f.out" 2>&1 || rc=$?
			in=$f.out
			[ "$cl" != shb ] || in=$f.json
			if [ "$rc" -ne 0 ] || ! "parse_${cl}" "$in" >/dev/null; then
				echo "$prog: $cl failed its warm-up against $m (exit $rc):" >&2
				tail -n 20 "$f.out" >&2
				exit 1
			fi
			if [ "$cl" = ab ] && [ "$m" = tls ]; then
				tls_seen[ab]=$(sed -nE 's/^SSL\/TLS Protocol: +//p' "$f.out")
			fi
		done
	done
}

# --- the runs ----------------------------------------------------------------

label_of() { # mode conns
	if [ "$1" = tcp ]; then echo "TCP -c$2"; else echo "TLS 1.3 -c$2"; fi
}

runs="$tmp/runs.tsv"
: >"$runs"
n_cl=${#client_list[@]}
total_runs=$((rounds * ${#mode_list[@]} * ${#conn_list[@]} * n_cl))
echo "$prog: $total_runs runs of ${duration}s (about $(((total_runs * (duration + 1) + 59) / 60)) min)" >&2
smoke

started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
for ((r = 1; r <= rounds; r++)); do
	for m in "${mode_list[@]}"; do
		url=$(url_of "$m")
		for c in "${conn_list[@]}"; do
			label=$(label_of "$m" "$c")
			for ((i = 0; i < n_cl; i++)); do
				cl=${client_list[$(((i + r - 1) % n_cl))]}
				base=$(run_base "$r" "$label" "$cl")
				client_cmd "$cl" "$c" "$url" "$base.json"
				run_one "$r" "$label" "$cl" nginx "$base"
				sleep 0.5
			done
		done
	done
done
finished=$(date -u '+%Y-%m-%d %H:%M:%S UTC')

# --- the report --------------------------------------------------------------

all_labels() {
	local m c
	for m in "${mode_list[@]}"; do
		for c in "${conn_list[@]}"; do label_of "$m" "$c"; done
	done
}

# Medians per pairing and client, in connections: every completed request
# had a connection of its own.
churn_table() {
	local label cl
	echo "| Pairing | Client | Runs | conn/s | conn/s min..max | client µs/conn | user | sys | conn per client CPU-s | server µs/conn | client/server | other load | errors |"
	echo "|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	while IFS= read -r label; do
		for cl in "${client_list[@]}"; do
			median_row "$label" "$cl" | cut -f 1 | awk -F ' \\| ' -v OFS=' | ' '{
				# median_row: | label | client | runs | req/s | min..max | client µs | user | sys | server µs | ratio | ratio range | other | errors |
				if ($6 == "-") { print $1, $2, $3, $4, $5, "-", "-", "-", "-", "-", "-", "-", $13; next }
				printf "%s | %s | %s | %s | %s | %s | %s | %s | %.0f | %s | %s | %s | %s\n",
					$1, $2, $3, $4, $5, $6, $7, $8, ($6 > 0 ? 1e6 / $6 : 0), $9, $10, $12, $13 }'
		done
	done < <(all_labels)
}

# Per pairing: shb next to the peer that spends the least CPU per
# connection (and "base", when given, next to shb).
peer_table() {
	local label a b cl best bu bn v
	echo "| Pairing | shb conn/s | best peer | peer conn/s | shb µs/conn | peer µs/conn | CPU shb ÷ peer | conn per CPU-s shb ÷ peer | conn/s shb ÷ peer | shb ahead per CPU-s |"
	echo "|---|---:|---|---:|---:|---:|---:|---:|---:|---|"
	while IFS= read -r label; do
		a=$(median_row "$label" shb | cut -f 2-)
		best="" bu=0
		for cl in "${client_list[@]}"; do
			case "$cl" in shb | base) continue ;; esac
			v=$(median_row "$label" "$cl" | cut -f 2-)
			read -r bn _ <<<"$v"
			[ "$bn" -gt 0 ] || continue
			if [ -z "$best" ] || awk -v x="$(cut -f 3 <<<"$v")" -v y="$bu" 'BEGIN { exit !(x < y) }'; then
				best=$cl b=$v bu=$(cut -f 3 <<<"$v")
			fi
		done
		if [ -z "$best" ]; then
			echo "| $label | - | - | - | - | - | - | - | - | no peer ran |"
			continue
		fi
		awk -v label="$label" -v peer="$best" -v a="$a" -v b="$b" 'BEGIN {
			split(a, s, "\t"); split(b, h, "\t")
			if (s[1] == 0) { printf "| %s | - | %s | %.0f | - | %.2f | - | - | - | shb did not run |\n", label, peer, h[2], h[3]; exit }
			cr = s[3] / h[3]
			printf "| %s | %.0f | %s | %.0f | %.2f | %.2f | %.2f | %.2f | %.2f | %s |\n", label, s[2], peer, h[2],
				s[3], h[3], cr, 1 / cr, s[2] / h[2], (cr < 1 && s[4] == 0) ? "yes" : "no"
		}'
	done < <(all_labels)
}

base_table() {
	local label a b
	echo "| Pairing | shb µs/conn | base µs/conn | shb ÷ base | shb conn/s | base conn/s | client/server shb ÷ base |"
	echo "|---|---:|---:|---:|---:|---:|---:|"
	while IFS= read -r label; do
		a=$(median_row "$label" shb | cut -f 2-)
		b=$(median_row "$label" base | cut -f 2-)
		awk -v label="$label" -v a="$a" -v b="$b" 'BEGIN {
			split(a, s, "\t"); split(b, h, "\t")
			if (s[1] == 0 || h[1] == 0) { printf "| %s | - | - | - | - | - | - |\n", label; exit }
			printf "| %s | %.2f | %.2f | %.2f | %.0f | %.0f | %.2f |\n", label, s[3], h[3], s[3] / h[3],
				s[2], h[2], (h[5] > 0) ? s[5] / h[5] : 0
		}'
	done < <(all_labels)
}

# A binary's path as the report shows it: relative inside the repository,
# a placeholder outside (paths of one machine mean nothing elsewhere).
shown_path() { # path placeholder
	case "$1" in
	"$root"/*) echo "${1#"$root"/}" ;;
	*) echo "$2" ;;
	esac
}

version_line() { # client
	case "$1" in
	ab) ab -V 2>&1 | head -n 1 | sed 's/^This is //' ;;
	base) "$base_shb" --version 2>&1 | head -n 1 ;;
	*) version_of "$1" ;;
	esac
}

report() {
	local cl
	echo "# Connection churn: shb --disable-keepalive vs wrk (Connection: close) and ab, plain TCP and TLS 1.3"
	echo
	echo "- Date: $started to $finished"
	echo "- Host: $(host_line)"
	echo "- Repository: $repo"
	echo "- Server: $(version_of nginx), $workers worker process(es), 13-byte \"hello, world!\" on 127.0.0.1;"
	echo "  TLS 1.3 only, ECDSA P-256 certificate, session tickets and session cache off (every handshake is full)"
	for cl in "${client_list[@]}"; do echo "- $cl: $(version_line "$cl")"; done
	[ -z "${tls_seen[ab]:-}" ] || echo "- TLS that ab negotiated: ${tls_seen[ab]}"
	echo "- Clients: -t $threads for shb and wrk (ab has one thread), one request per connection"
	echo "- $rounds rounds × ${duration} s per pairing and client; clients alternate, order rotated every round"
	echo
	echo "## Medians"
	echo
	churn_table
	echo
	echo "conn/s: completed requests per second, each on a connection of its own. µs/conn: CPU microseconds per"
	echo "connection (client: user + sys from GNU time; server: utime + stime of the nginx master and workers)."
	echo "conn per client CPU-s: connections per second of client CPU (1e6 ÷ client µs/conn). client/server: the ratio"
	echo "of the two CPU figures in the same run. other load: CPUs kept busy by everything else meanwhile (0.10 = a"
	echo "tenth of a core). errors: the sum over all runs. Runs: runs that completed / runs started."
	if have wrk || have ab; then
		echo
		echo "## shb against the best peer"
		echo
		peer_table
		echo
		echo "The best peer of a pairing is the one with the least client CPU per connection. \"shb ahead per CPU-s\":"
		echo "shb makes more connections per second of its own CPU than that peer, without errors."
	fi
	if [ -n "$base_shb" ]; then
		echo
		echo "## shb against base (before and after)"
		echo
		base_table
	fi
	echo
	echo "## Commands"
	echo
	echo '```'
	for cl in "${client_list[@]}"; do
		client_cmd "$cl" C URL REPORT.json
		echo "/usr/bin/time -f '%U %S' ${cmd[*]}" | sed -e "s/ -c C / -c <conns> /" -e "s| URL$| <url>|" \
			-e "s|-H Connection: close|-H 'Connection: close'|" \
			-e "s|SHB_PLUGIN_PATH=[^ ]*|SHB_PLUGIN_PATH=<plugins>|" -e "s|$root/||g" \
			-e "s|$shb |$(shown_path "$shb" "<shb>") |" -e "s|${base_shb:-/nonexistent} |<base> |"
	done
	echo '```'
	echo
	echo "<url> is http://127.0.0.1:PORT/ (TCP) or https://127.0.0.1:PORT/ (TLS 1.3). Paths are relative to the top of"
	echo "the repository; <plugins> is the h1 and reporters plugin directories of that build; <shb> and <base> are"
	echo "the binaries given with --shb and --base when they are outside the repository."
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

write_report churn
