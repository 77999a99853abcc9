#!/usr/bin/env bash
# Compares shb with h2load on HTTP/2, cleartext (h2c, prior knowledge) and
# over TLS (ALPN h2), against local h2o, haproxy and nginx serving the same
# 13-byte body, by CPU cost per request as well as req/s. h2o and haproxy
# cost the server only a few microseconds per request, so the client's own
# cost shows; nginx costs more and shows how the figures move with a slower
# server. Same method as run.sh: clients interleaved, their order rotated
# every round, medians reported; see bench/README.md. bench/http_floor,
# the least a client can do for the same requests (h2c only), runs as one
# more client, and shb's CPU per request is given as a multiple of its.
set -euo pipefail

prog=h2.sh
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"

usage() {
	cat <<'EOF'
Usage: bench/h2.sh [options]

Runs shb --proto h2 and h2load against local HTTP/2 servers ("hello,
world!"), over h2c and TLS, ROUNDS rounds of DURATION seconds per pairing
and client, and writes a Markdown table of medians.

Options:
  -r, --rounds N         rounds per pairing (default: 5)
  -d, --duration S       seconds per run (default: 5)
  -c, --connections LIST connection counts, one pairing each (default: "8 32")
  -p, --parallel N       requests in flight per connection: shb -p, h2load -m
                         (default: 32)
  -t, --threads N        client threads, the same for both clients (default: 2)
  -w, --workers N        server threads (h2o, haproxy) or worker processes
                         (nginx) (default: 1)
      --servers LIST     servers, from: h2o haproxy nginx
                         (default: "h2o haproxy nginx")
      --modes LIST       h2c (cleartext) and/or tls (default: "h2c tls")
      --clients LIST     clients to compare, from: shb h2load floor
                         (default: "shb h2load floor"; floor, which is
                         bench/http_floor, runs over h2c only)
  -o, --output FILE      results file (default: bench/results/DATE-h2.md)
      --shb PATH         use this shb binary instead of building one into
                         build-bench/ at the top of the repository
      --plugin-path P    SHB_PLUGIN_PATH for --shb (default: derived from the
                         build directory holding PATH)
      --base PATH        a second shb binary, run as client "base" right after
                         shb (e.g. the build before a change); its plugins are
                         found next to it
  -h, --help             print this help and exit

Missing packages (h2o, haproxy, nginx-light, nghttp2-client, openssl, time
and, to build shb, its build dependencies) are installed with apt-get,
through sudo when not root.
EOF
}

rounds=5
duration=5
conns="8 32"
streams=32
threads=2
workers=1
servers="h2o haproxy nginx"
modes="h2c tls"
clients="shb h2load floor"
out=""
shb=""
plugin_path=""
base_shb=""

parse_options "-r|--rounds=rounds" "-d|--duration=duration" "-c|--connections=conns" \
	"-p|--parallel=streams" "-t|--threads=threads" "-w|--workers=workers" "--servers=servers" \
	"--modes=modes" "--clients=clients" "-o|--output=out" "--shb=shb" "--plugin-path=plugin_path" \
	"--base=base_shb" -- "$@"

check_int rounds "$rounds" 1 100
check_int duration "$duration" 1 3600
check_int threads "$threads" 1 256
check_int workers "$workers" 1 64
# The servers are set to allow 256 concurrent streams.
check_int "-p" "$streams" 1 256
# h2load gives each thread at least one connection.
check_conn_list "$conns" "$threads" 10000
check_words server "$servers" h2o haproxy nginx
check_words mode "$modes" h2c tls
check_words client "$clients" shb h2load floor
read -r -a server_list <<<"$servers"
read -r -a mode_list <<<"$modes"
read -r -a client_list <<<"$clients"
[ -z "$plugin_path" ] || [ -n "$shb" ] || die "--plugin-path goes with --shb"
[ -z "$base_shb" ] || setup_base h2 reporters

have() { in_list "$1" "${client_list[@]}"; }
serving() { in_list "$1" "${server_list[@]}"; }

# --- packages ----------------------------------------------------------------

PATH=$PATH:/usr/sbin:/sbin
missing=()
if serving nginx; then command -v nginx >/dev/null || missing+=(nginx-light); fi
if serving h2o; then command -v h2o >/dev/null || missing+=(h2o); fi
if serving haproxy; then command -v haproxy >/dev/null || missing+=(haproxy); fi
# Every server listens for TLS too, whatever --modes says.
command -v openssl >/dev/null || missing+=(openssl)
[ -x /usr/bin/time ] || missing+=(time)
command -v timeout >/dev/null || missing+=(coreutils)
if have h2load; then command -v h2load >/dev/null || missing+=(nghttp2-client); fi
if { have shb && [ -z "$shb" ]; } || have floor; then
	mapfile -t -O "${#missing[@]}" missing < <(shb_build_packages)
fi
install_packages "${missing[@]}"
nginx_bin=$(command -v nginx || true)

# --- shb ---------------------------------------------------------------------

# The state shb is built from, before others can change it during the runs.
repo=$(repo_state)
if have shb; then setup_shb h2 reporters; fi
if have floor; then setup_floor; fi

# --- scratch space and clean-up ----------------------------------------------

scratch_dir bench-h2


raise_nofile

max_conns=0
for c in "${conn_list[@]}"; do [ "$c" -gt "$max_conns" ] && max_conns=$c; done
max_fds=$((2 * max_conns + 64))
[ "$max_fds" -lt 1024 ] && max_fds=1024

# --- servers: each listens on two ports, h2c first, then TLS -----------------

write_h2o_conf() { # h2c-port tls-port
	write_h2o_conf_with "$workers" "$max_fds" "$1" "$2"
}

write_haproxy_conf() { # h2c-port tls-port
	cat >"$tmp/haproxy/haproxy.cfg" <<EOF
global
    nbthread $workers
    maxconn $max_fds
    tune.h2.max-concurrent-streams 256
defaults
    mode http
    timeout connect 5s
    timeout client 300s
    timeout server 300s
    timeout http-keep-alive 300s
frontend hello
    bind 127.0.0.1:$1 proto h2
    bind 127.0.0.1:$2 ssl crt $tmp/tls/both.pem alpn h2
    http-request return status 200 content-type text/plain string "hello, world!"
EOF
}

# h2c needs a port of its own on nginx: `listen ... http2` without ssl
# speaks prior knowledge only.
write_nginx_conf() { # h2c-port tls-port
	nginx_conf "listen 127.0.0.1:$1 http2;" "listen 127.0.0.1:$2 ssl http2;" \
		"ssl_certificate $tmp/tls/cert.pem;" "ssl_certificate_key $tmp/tls/key.pem;" \
		"http2_max_concurrent_streams 256;" >"$tmp/nginx/nginx.conf"
}

start_servers() {
	local s
	for s in "${server_list[@]}"; do
		case "$s" in
		h2o) start_server h2o 2 0 write_h2o_conf h2o -c "$tmp/h2o/h2o.conf" ;;
		haproxy) start_server haproxy 2 0 write_haproxy_conf haproxy -f "$tmp/haproxy/haproxy.cfg" ;;
		nginx) start_server nginx 2 1 write_nginx_conf \
			"$nginx_bin" -p "$tmp/nginx" -e "$tmp/nginx/error.log" -c "$tmp/nginx/nginx.conf" ;;
		esac
	done
}

conf_file() {
	case "$1" in
	h2o) echo "$tmp/h2o/h2o.conf" ;;
	haproxy) echo "$tmp/haproxy/haproxy.cfg" ;;
	nginx) echo "$tmp/nginx/nginx.conf" ;;
	esac
}

url_of() { # server mode
	local p
	read -r -a p <<<"${srv_ports[$1]}"
	if [ "$2" = h2c ]; then echo "http://127.0.0.1:${p[0]}/"; else echo "https://127.0.0.1:${p[1]}/"; fi
}

label_of() { echo "$1 $2 -c$3 -p$streams"; } # server mode conns

make_cert
start_servers

# --- clients -----------------------------------------------------------------

client_cmd() { # client conns url jsonfile -> sets cmd[]
	case "$1" in
	shb) cmd=(env "SHB_PLUGIN_PATH=$plugin_path" "$shb" --proto h2 -t "$threads" -c "$2" -p "$streams"
		-z "${duration}s" -q --report "json:$4" "$3") ;;
	base) cmd=(env "SHB_PLUGIN_PATH=$base_plugin_path" "$base_shb" --proto h2 -t "$threads" -c "$2"
		-p "$streams" -z "${duration}s" -q --report "json:$4" "$3") ;;
	h2load) cmd=(h2load -t "$threads" -c "$2" -m "$streams" -D "$duration" "$3") ;;
	floor) cmd=("$floor" --h2c -t "$threads" -c "$2" -p "$streams" -d "$duration" "$3") ;;
	esac
}

# Clients that cannot complete requests against a server and mode are
# skipped there, with the reason, rather than ending the whole sitting.
declare -A skip=()
declare -A tls_seen=()

# Why a warm-up failed: the first error shb or h2load printed.
smoke_reason() { # client outfile rc
	local why
	if [ "$3" -eq 124 ]; then
		echo "warm-up did not finish within 30 s (2000 requests)"
		return
	fi
	if [ "$1" = shb ] || [ "$1" = base ]; then
		why=$(sed -n '/^Errors:/{n;p;q}' "$2" | sed -E 's/^ +([a-z]+) +[0-9]+ +/\1: /')
	else
		why=$(grep -m 1 -iE 'error|fail' "$2" || true)
	fi
	echo "warm-up failed (exit $3): ${why:-$(tail -n 1 "$2")}"
}

# A short warm-up per server, mode and client, which also checks that the
# client completes requests there; records what TLS h2load negotiated.
smoke() {
	local s m cl url rc f ok
	for s in "${server_list[@]}"; do
		for m in "${mode_list[@]}"; do
			url=$(url_of "$s" "$m")
			for cl in "${client_list[@]}"; do
				if [ "$cl" = floor ] && [ "$m" = tls ]; then
					skip["$s $m $cl"]="bench/http_floor speaks h2c only"
					continue
				fi
				case "$cl" in
				shb) cmd=(env "SHB_PLUGIN_PATH=$plugin_path" "$shb" --proto h2 -t 1 -c 1 -p 8 -n 2000
					--timeout 5s -q "$url") ;;
				base) cmd=(env "SHB_PLUGIN_PATH=$base_plugin_path" "$base_shb" --proto h2 -t 1 -c 1
					-p 8 -n 2000 --timeout 5s -q "$url") ;;
				h2load) cmd=(h2load -t 1 -c 1 -m 8 -n 2000 "$url") ;;
				floor) cmd=("$floor" --h2c -t 1 -c 1 -p 8 -d 1 "$url") ;;
				esac
				f="$tmp/smoke-$s-$m-$cl.out"
				rc=0
				timeout -k 5 30 "${cmd[@]}" >"$f" 2>&1 || rc=$?
				ok=0
				if [ "$cl" = shb ] || [ "$cl" = base ]; then
					ok=$(sed -nE 's/^Requests: .*\(([0-9]+) ok.*/\1/p' "$f")
				elif [ "$cl" = floor ]; then
					ok=$(sed -nE 's/^requests ([0-9]+) .*/\1/p' "$f")
				elif [ "$rc" -eq 0 ]; then
					ok=$(sed -nE 's/^requests: .* ([0-9]+) succeeded.*/\1/p' "$f")
				fi
				if [ "$rc" -ne 0 ] || [ "${ok:-0}" -eq 0 ]; then
					skip["$s $m $cl"]=$(smoke_reason "$cl" "$f" "$rc")
					echo "$prog: skipping $cl against $s $m: ${skip["$s $m $cl"]}" >&2
				fi
				if [ "$cl" = h2load ] && [ "$m" = tls ]; then
					tls_seen[$s]=$(awk -F ': ' '/^TLS Protocol:/ { v = $2 } /^Cipher:/ { c = $2 }
						END { if (v != "") print v ", " c }' "$f")
				fi
			done
		done
	done
}

# --- the runs ----------------------------------------------------------------

runs="$tmp/runs.tsv"
: >"$runs"
n_cl=${#client_list[@]}
total_runs=$((rounds * ${#server_list[@]} * ${#mode_list[@]} * ${#conn_list[@]} * n_cl))
echo "$prog: $total_runs runs of ${duration}s (about $(((total_runs * (duration + 1) + 59) / 60)) min)" >&2
smoke

started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
# Rounds outermost: every pairing spreads over the whole sitting. Within a
# pairing the client order shifts by one every round. All servers run all
# the time; an idle one costs next to nothing, and "other load" shows it.
for ((r = 1; r <= rounds; r++)); do
	for s in "${server_list[@]}"; do
		for m in "${mode_list[@]}"; do
			url=$(url_of "$s" "$m")
			for c in "${conn_list[@]}"; do
				label=$(label_of "$s" "$m" "$c")
				for ((i = 0; i < n_cl; i++)); do
					cl=${client_list[$(((i + r - 1) % n_cl))]}
					[ -z "${skip["$s $m $cl"]:-}" ] || continue
					base=$(run_base "$r" "$label" "$cl")
					client_cmd "$cl" "$c" "$url" "$base.json"
					run_one "$r" "$label" "$cl" "$s" "$base"
					sleep 0.5
				done
			done
		done
	done
done
finished=$(date -u '+%Y-%m-%d %H:%M:%S UTC')

# --- the report --------------------------------------------------------------

all_labels() {
	local s m c
	for s in "${server_list[@]}"; do
		for m in "${mode_list[@]}"; do
			for c in "${conn_list[@]}"; do label_of "$s" "$m" "$c"; done
		done
	done
}

# The issue's target, per pairing: shb's client CPU per request at most 0.7
# times h2load's, more req/s, and no errors. The ratio of client/server
# ratios says the same as the CPU ratio while cancelling CPU-speed drift.
target_table() {
	local label a b
	echo "| Pairing | shb req/s | h2load req/s | req/s shb ÷ h2load | shb µs/req | h2load µs/req | CPU shb ÷ h2load | same, from client/server ratios | shb errors | target met |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
	while IFS= read -r label; do
		a=$(median_row "$label" shb | cut -f 2-)
		b=$(median_row "$label" h2load | cut -f 2-)
		awk -v label="$label" -v a="$a" -v b="$b" 'BEGIN {
			split(a, s, "\t"); split(b, h, "\t")
			if (s[1] == 0 || h[1] == 0) { printf "| %s | - | - | - | - | - | - | - | - | no runs to compare |\n", label; exit }
			rr = s[2] / h[2]; cr = s[3] / h[3]; qr = (h[5] > 0) ? s[5] / h[5] : 0
			why = ""
			if (cr > 0.7) why = why ", CPU"
			if (rr <= 1) why = why ", req/s"
			if (s[4] > 0) why = why ", errors"
			printf "| %s | %.0f | %.0f | %.2f | %.2f | %.2f | %.2f | %.2f | %d | %s |\n", label, s[2], h[2], rr,
				s[3], h[3], cr, qr, s[4], (why == "") ? "yes" : "no (" substr(why, 3) ")"
		}'
	done < <(all_labels)
}

server_line() {
	local s
	for s in "${server_list[@]}"; do
		case "$s" in
		h2o) echo "- h2o: $(version_of h2o), num-threads $workers, static file (file.dir)" ;;
		haproxy) echo "- haproxy: $(version_of haproxy), nbthread $workers, \`http-request return\`" ;;
		nginx) echo "- nginx: $(version_of nginx), $workers worker process(es), \`return 200\`" ;;
		esac
		if [ -n "${tls_seen[$s]:-}" ]; then echo "  - TLS negotiated by h2load: ${tls_seen[$s]}"; fi
	done
}

report() {
	local cl s k labels
	mapfile -t labels < <(all_labels)
	echo "# shb vs h2load on HTTP/2 (h2c and TLS)"
	echo
	echo "- Date: $started to $finished"
	echo "- Host: $(host_line)"
	echo "- Repository: $repo"
	echo "- Servers, 13-byte \"hello, world!\" on 127.0.0.1, h2c (prior knowledge) and TLS (ALPN h2) ports:"
	server_line
	for cl in "${client_list[@]}"; do echo "- $cl: $(version_of "$cl")"; done
	echo "- Clients: -t $threads, $streams requests in flight per connection (shb -p, h2load -m)"
	echo "- $rounds rounds × ${duration} s per pairing and client; clients alternate, order rotated every round"
	echo
	echo "## Medians"
	echo
	summary_table "${labels[@]}"
	echo
	legend "the server's processes, all threads"
	if have shb && have h2load; then
		echo
		echo "## Target: shb's client CPU per request ≤ 0.7 × h2load's, more req/s, no errors"
		echo
		target_table
		echo
		echo "Medians of each client's runs. \"same, from client/server ratios\" divides shb's median client/server"
		echo "ratio by h2load's: CPU-speed drift during the sitting cancels out of it."
	fi
	if have shb && have floor && in_list h2c "${mode_list[@]}"; then
		echo
		echo "## Against the floor: shb's client CPU per request ≤ 1.15 × bench/http_floor's (h2c)"
		echo
		mapfile -t labels < <(all_labels | grep ' h2c ')
		floor_table "${labels[@]}"
		echo
		echo "Medians of each client's runs. bench/http_floor sends the connection preface, SETTINGS and"
		echo "pre-encoded HEADERS frames on the same connections with io_uring, and counts responses by END_STREAM"
		echo "in a walk of frame headers (acknowledging SETTINGS and PING, replenishing the connection window):"
		echo "the least a client can do for these requests. It has no TLS, so TLS pairings have no floor."
		echo "\"same, from client/server ratios\" divides shb's median client/server ratio by the floor's."
	fi
	if [ -n "$base_shb" ]; then
		echo
		echo "## shb against base (before and after)"
		echo
		mapfile -t labels < <(all_labels)
		base_req_table "${labels[@]}"
	fi
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
		client_cmd "$cl" C URL REPORT.json
		echo "/usr/bin/time -f '%U %S' ${cmd[*]}" | sed -e "s/ -c C / -c <conns> /" -e "s| URL$| <url>|" \
			-e "s|SHB_PLUGIN_PATH=[^ ]*|SHB_PLUGIN_PATH=<plugins>|" -e "s|$root/||g" \
			-e "s|${base_shb:-/nonexistent} |<base> |"
	done
	echo '```'
	echo
	echo "<url> is http://127.0.0.1:PORT/ (h2c) or https://127.0.0.1:PORT/ (TLS). Paths are relative to the top of"
	echo "the repository; <plugins> is the h2 and reporters plugin directories of that binary's build; <base> is"
	echo "the binary given with --base; REPORT.json is a file in a temporary directory."
	for s in "${server_list[@]}"; do
		echo
		echo "$s configuration (<tmp> is a fresh temporary directory):"
		echo
		echo '```'
		sed -e "s|$tmp/|<tmp>/|g" -e '/^$/d' "$(conf_file "$s")"
		echo '```'
	done
	echo
	echo "## Every run"
	echo
	runs_table
}

write_report h2
