#!/usr/bin/env bash
# How honest shb's latency is. Two parts, clients interleaved with their
# order rotated every round, medians reported (same method as run.sh):
#   peers  shb next to wrk --latency (HTTP/1.1, nginx) and h2load (h2c, h2o)
#          at the same concurrency: p50 and p99 side by side, with req/s and
#          client CPU per request;
#   delay  the same clients against a server that answers every request
#          after a known fixed delay (bench/delay_server.go, HTTP/1.1 and
#          h2c): an honest client reports the delay plus a small loopback
#          and server cost, the same for every client; what one reports
#          beyond the others is its own bias.
# --base runs a second shb build beside the first (before and after a
# change). See bench/README.md.
set -euo pipefail

prog=timing.sh
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"

usage() {
	cat <<'EOF'
Usage: bench/timing.sh [options]

Compares the latency shb reports with wrk's (HTTP/1.1) and h2load's (h2c)
against the same local servers at the same concurrency, and against a
server that answers after a fixed delay; writes a Markdown report.

Options:
  -r, --rounds N         rounds per pairing (default: 3)
  -d, --duration S       seconds per run (default: 3)
  -t, --threads N        client threads, at most one per connection
                         (default: 2)
  -c, --connections LIST connection counts against nginx and h2o
                         (default: "1 8 64")
  -p, --parallel N       h2c requests in flight per connection against h2o:
                         shb -p, h2load -m (default: 32)
      --delays LIST      delays of the fixed-delay server, Go durations
                         (default: "1ms 10ms")
      --delay-c LIST     HTTP/1.1 connection counts against it (default: "1 8")
      --delay-h2c LIST   h2c loads against it, CxP: C connections with P
                         requests in flight each (default: "1x8 8x1")
      --delay-t N        client threads against it (default: 1; kept low so
                         that the server is never the bottleneck)
      --parts LIST       peers and/or delay (default: "peers delay")
      --protos LIST      h1 and/or h2c (default: "h1 h2c")
  -o, --output FILE      results file (default: bench/results/DATE-timing.md)
      --shb PATH         use this shb binary instead of building one into
                         build-bench/ at the top of the repository
      --plugin-path P    SHB_PLUGIN_PATH for --shb (default: derived from the
                         build directory holding PATH)
      --base PATH        a second shb binary, run as client "base" (e.g. the
                         build before a change); its plugins are found next
                         to it
  -h, --help             print this help and exit

Missing packages (nginx-light, h2o, wrk, nghttp2-client, golang-go,
golang-golang-x-net-dev, time and, to build shb, its build dependencies)
are installed with apt-get, through sudo when not root.
EOF
}

rounds=3
duration=3
threads=2
conns="1 8 64"
streams=32
delays="1ms 10ms"
delay_conns="1 8"
delay_h2c="1x8 8x1"
delay_threads=1
parts="peers delay"
protos="h1 h2c"
out=""
shb=""
plugin_path=""
base_shb=""

parse_options "-r|--rounds=rounds" "-d|--duration=duration" "-t|--threads=threads" \
	"-c|--connections=conns" "-p|--parallel=streams" "--delays=delays" "--delay-c=delay_conns" \
	"--delay-h2c=delay_h2c" "--delay-t=delay_threads" "--parts=parts" "--protos=protos" \
	"-o|--output=out" "--shb=shb" "--plugin-path=plugin_path" "--base=base_shb" -- "$@"

check_int rounds "$rounds" 1 100
check_int duration "$duration" 1 3600
check_int threads "$threads" 1 256
check_int "-p" "$streams" 1 256
check_int "--delay-t" "$delay_threads" 1 256
read -r -a conn_list <<<"$conns"
read -r -a delay_h1_list <<<"$delay_conns"
delay_conn_list=("${delay_h1_list[@]}")
read -r -a delay_list <<<"$delays"
read -r -a delay_h2c_list <<<"$delay_h2c"
for l in "${delay_h2c_list[@]}"; do
	[[ "$l" =~ ^[0-9]+x[0-9]+$ ]] || die "an h2c load is CxP, e.g. 1x8, not '$l'"
	check_int "a connection count" "${l%x*}" 1 10000
	check_int "requests in flight" "${l#*x}" 1 256
	delay_conn_list+=("${l%x*}")
done
[ "${#conn_list[@]}" -gt 0 ] || die "-c needs at least one connection count"
[ "${#delay_h1_list[@]}" -gt 0 ] || die "--delay-c needs at least one connection count"
for c in "${conn_list[@]}" "${delay_conn_list[@]}"; do check_int "a connection count" "$c" 1 10000; done
for d in "${delay_list[@]}"; do
	[[ "$d" =~ ^[0-9]+(us|ms|s)$ ]] || die "a delay is a whole number of us, ms or s, not '$d'"
done
check_words part "$parts" peers delay
check_words proto "$protos" h1 h2c
read -r -a part_list <<<"$parts"
read -r -a proto_list <<<"$protos"
[ -z "$plugin_path" ] || [ -n "$shb" ] || die "--plugin-path goes with --shb"
if [ -n "$base_shb" ]; then
	[ -x "$base_shb" ] || die "--base $base_shb is not an executable file"
	base_shb=$(cd "$(dirname "$base_shb")" && pwd)/$(basename "$base_shb")
	b=$(dirname "$(dirname "$base_shb")")
	base_plugin_path="$b/plugins/h1:$b/plugins/h2:$b/plugins/reporters"
fi

doing() { in_list "$1" "${part_list[@]}"; }
proto_on() { in_list "$1" "${proto_list[@]}"; }

# The clients of each protocol, shb first; "base" when --base is given.
client_list=(shb)
[ -z "$base_shb" ] || client_list+=(base)
proto_on h1 && client_list+=(wrk)
# h2load prints no percentiles: "h2loadlog" is h2load writing one line per
# request (--log-file), which the latency comes from; that costs it CPU
# and req/s at high rates, so against h2o plain "h2load" runs too, for
# the throughput.
proto_on h2c && client_list+=(h2load h2loadlog)

# --- packages ----------------------------------------------------------------

PATH=$PATH:/usr/sbin:/sbin
go_gopath=/usr/share/gocode
missing=()
[ -x /usr/bin/time ] || missing+=(time)
command -v timeout >/dev/null || missing+=(coreutils)
if doing peers && proto_on h1; then command -v nginx >/dev/null || missing+=(nginx-light); fi
if doing peers && proto_on h2c; then command -v h2o >/dev/null || missing+=(h2o); fi
if proto_on h1; then command -v wrk >/dev/null || missing+=(wrk); fi
if proto_on h2c; then command -v h2load >/dev/null || missing+=(nghttp2-client); fi
if doing delay; then
	command -v go >/dev/null || missing+=(golang-go)
	[ -d "$go_gopath/src/golang.org/x/net/http2/h2c" ] || missing+=(golang-golang-x-net-dev)
fi
[ -n "$shb" ] || mapfile -t -O "${#missing[@]}" missing < <(shb_build_packages)
install_packages "${missing[@]}"
nginx_bin=$(command -v nginx || true)

# --- shb ---------------------------------------------------------------------

# The state shb is built from, before others can change it during the runs.
repo=$(repo_state)
setup_shb h1 h2 reporters

# --- scratch space and clean-up ----------------------------------------------

scratch_dir bench-timing


raise_nofile

max_conns=0
workers=1 # nginx worker processes
for c in "${conn_list[@]}" "${delay_conn_list[@]}"; do [ "$c" -gt "$max_conns" ] && max_conns=$c; done

# --- servers -----------------------------------------------------------------

write_nginx_conf() { # port
	nginx_conf "listen 127.0.0.1:$1;" >"$tmp/nginx/nginx.conf"
}

# The shared h2o configuration also listens for TLS (second port): it
# needs a certificate, which nothing here connects to.
write_h2o_conf() { # h2c-port tls-port
	[ -f "$tmp/tls/key.pem" ] || make_cert
	write_h2o_conf_with 1 $((2 * max_conns + 64)) "$1" "$2"
}

# The delay server takes its port on the command line: the configuration
# step leaves it in a file that the command reads.
write_delay_port() { # port
	echo "$1" >"$tmp/$delay_name/port"
}

# bench/delay_server.go, built offline in GOPATH mode over Debian's
# golang.org/x/net sources.
build_delay_server() {
	mkdir -p "$tmp/go"
	(cd "$tmp/go" && env GO111MODULE=off GOPATH="$go_gopath" GOPROXY=off GOFLAGS= \
		GOCACHE="$tmp/go/cache" GOTOOLCHAIN=local CGO_ENABLED=0 \
		go build -o "$tmp/go/delay_server" "$root/bench/delay_server.go") >"$tmp/go/build.log" 2>&1 ||
		{ cat "$tmp/go/build.log" >&2; die "could not build bench/delay_server.go"; }
}

declare -A url_of=()
if doing peers; then
	if proto_on h1; then
		start_server nginx 1 1 write_nginx_conf \
			"$nginx_bin" -p "$tmp/nginx" -e "$tmp/nginx/error.log" -c "$tmp/nginx/nginx.conf"
		url_of[nginx]="http://127.0.0.1:${srv_ports[nginx]}/"
	fi
	if proto_on h2c; then
		command -v openssl >/dev/null || die "h2o needs openssl for its certificate"
		start_server h2o 2 0 write_h2o_conf h2o -c "$tmp/h2o/h2o.conf"
		url_of[h2o]="http://127.0.0.1:${srv_ports[h2o]%% *}/"
	fi
fi
if doing delay; then
	build_delay_server
	for d in "${delay_list[@]}"; do
		delay_name=delay-$d
		# exec: the server keeps the pid start_server records.
		# shellcheck disable=SC2016 # expanded by the inner bash
		start_server "$delay_name" 1 0 write_delay_port bash -c \
			'exec "$0" -addr "127.0.0.1:$(cat "$1")" -delay "$2" 2>"${1%/port}/server.log"' \
			"$tmp/go/delay_server" "$tmp/$delay_name/port" "$d"
		url_of[$delay_name]="http://127.0.0.1:${srv_ports[$delay_name]}/"
	done
fi

# --- clients -----------------------------------------------------------------

# cmd[] for one run: client proto conns streams url base threads (files
# BASE.*).
client_cmd() {
	local cl=$1 proto=$2 c=$3 p=$4 url=$5 base=$6 t=$7
	[ "$c" -ge "$t" ] || t=$c
	case "$cl" in
	shb | base)
		local bin=$shb pp=$plugin_path
		[ "$cl" = shb ] || { bin=$base_shb; pp=$base_plugin_path; }
		cmd=(env "SHB_PLUGIN_PATH=$pp" "$bin" -t "$t" -c "$c" -z "${duration}s" -q --report "json:$base.json")
		[ "$proto" = h1 ] || cmd+=(--proto h2 -p "$p")
		cmd+=("$url") ;;
	wrk) cmd=(wrk -t "$t" -c "$c" -d "${duration}s" --latency "$url") ;;
	h2load) cmd=(h2load -t "$t" -c "$c" -m "$p" -D "$duration" "$url") ;;
	h2loadlog) cmd=(h2load -t "$t" -c "$c" -m "$p" -D "$duration" --log-file="$base.log" "$url") ;;
	esac
}

parse_h2loadlog() { parse_h2load "$@"; }


# "p50 p99" in microseconds, from one run's files, or fails.
latency_of() { # client base
	case "$1" in
	shb | base)
		# The report is pretty-printed: the first p50 and p99 keys are
		# those of latencySeconds.percentiles.
		awk '/"p50":/ && !a { v = $2; sub(/,$/, "", v); a = v * 1e6 }
			/"p99":/ && !b { v = $2; sub(/,$/, "", v); b = v * 1e6 }
			END { if (a == "" || b == "") exit 1; printf "%.1f %.1f\n", a, b }' "$2.json" ;;
	wrk)
		awk 'function us(t,    n, u) { n = t + 0; u = t; sub(/^[0-9.]+/, "", u)
				return (u == "us") ? n : (u == "ms") ? n * 1e3 : (u == "s") ? n * 1e6 : n * 6e7 }
			$1 == "50%" { a = us($2) } $1 == "99%" { b = us($2) }
			END { if (a == "" || b == "") exit 1; printf "%.1f %.1f\n", a, b }' "$2.out" ;;
	h2load) return 1 ;;
	h2loadlog)
		# One line per request: start (us since the epoch), status,
		# duration (us).
		[ -s "$2.log" ] || return 1
		cut -f 3 "$2.log" | sort -n | awk '{ v[NR] = $1 }
			END { if (NR == 0) exit 1
				i = int(NR * 0.50 + 0.5); if (i < 1) i = 1
				j = int(NR * 0.99 + 0.5); if (j < 1) j = 1
				printf "%.1f %.1f\n", v[i], v[j] }' ;;
	esac
}

# The pairings: label, protocol, connections, streams, server, threads.
pairings=()
if doing peers; then
	for c in "${conn_list[@]}"; do
		proto_on h1 && pairings+=("h1 nginx -c$c|h1|$c|1|nginx|$threads")
		proto_on h2c && pairings+=("h2c h2o -c$c -p$streams|h2c|$c|$streams|h2o|$threads")
	done
fi
if doing delay; then
	for d in "${delay_list[@]}"; do
		if proto_on h1; then
			for c in "${delay_h1_list[@]}"; do
				pairings+=("h1 delay $d -c$c|h1|$c|1|delay-$d|$delay_threads")
			done
		fi
		if proto_on h2c; then
			for l in "${delay_h2c_list[@]}"; do
				pairings+=("h2c delay $d -c${l%x*} -p${l#*x}|h2c|${l%x*}|${l#*x}|delay-$d|$delay_threads")
			done
		fi
	done
fi

clients_of() { # proto server
	local cl
	for cl in "${client_list[@]}"; do
		case "$1:$cl" in h1:h2load* | h2c:wrk) continue ;; esac
		[ "$cl:$2" != h2load:delay-"${2#delay-}" ] || continue
		echo "$cl"
	done
}

# --- the runs ----------------------------------------------------------------

runs="$tmp/runs.tsv"
lat="$tmp/latency.tsv"
: >"$runs"
: >"$lat"
n=0
for pr in "${pairings[@]}"; do
	IFS='|' read -r _ proto _ _ srv _ <<<"$pr"
	n=$((n + $(clients_of "$proto" "$srv" | wc -l)))
done
echo "$prog: $((n * rounds)) runs of ${duration}s (about $(((n * rounds * (duration + 2) + 59) / 60)) min)" >&2

started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
for ((r = 1; r <= rounds; r++)); do
	for pr in "${pairings[@]}"; do
		IFS='|' read -r label proto c p srv t <<<"$pr"
		mapfile -t cls < <(clients_of "$proto" "$srv")
		for ((i = 0; i < ${#cls[@]}; i++)); do
			cl=${cls[$(((i + r - 1) % ${#cls[@]}))]}
			base=$(run_base "$r" "$label" "$cl")
			client_cmd "$cl" "$proto" "$c" "$p" "${url_of[$srv]}" "$base" "$t"
			run_one "$r" "$label" "$cl" "$srv" "$base"
			if [ "$(tail -n 1 "$runs" | cut -f 4)" = ok ] && l=$(latency_of "$cl" "$base"); then
				printf '%s\t%s\t%s\t%s\n' "$label" "$cl" "$r" "${l// /$'\t'}" >>"$lat"
			fi
			rm -f "$base.log"
			sleep 0.3
		done
	done
done
finished=$(date -u '+%Y-%m-%d %H:%M:%S UTC')

# --- the report --------------------------------------------------------------

# Median p50 and p99 (us) of one pairing and client: "n p50 p99".
lat_median() { # label client
	awk -F '\t' -v label="$1" -v cl="$2" '
	function median(a, n,    i, j, x) {
		for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
		return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	$1 == label && $2 == cl { n++; a[n] = $4; b[n] = $5 }
	END { if (n == 0) { print "0 0 0"; exit } ; printf "%d %.1f %.1f\n", n, median(a, n), median(b, n) }' "$lat"
}

# A Go duration in microseconds.
delay_us() {
	case "$1" in
	*us) echo "${1%us}" ;;
	*ms) echo $((${1%ms} * 1000)) ;;
	*s) echo $((${1%s} * 1000000)) ;;
	esac
}

latency_table() {
	local pr label proto srv cl row m us
	echo "| Pairing | Client | Runs | req/s | client µs/req | p50 µs | p99 µs | p50 − delay µs |"
	echo "|---|---|---:|---:|---:|---:|---:|---:|"
	for pr in "${pairings[@]}"; do
		IFS='|' read -r label proto _ _ srv _ <<<"$pr"
		us=""
		case "$srv" in delay-*) us=$(delay_us "${srv#delay-}") ;; esac
		while IFS= read -r cl; do
			row=$(median_row "$label" "$cl" | cut -f 2-)
			read -r -a m <<<"$(lat_median "$label" "$cl")"
			awk -v label="$label" -v cl="$cl" -v row="$row" -v n="${m[0]}" -v a="${m[1]}" -v b="${m[2]}" -v d="$us" 'BEGIN {
				split(row, s, "\t")
				if (s[1] == 0) { printf "| %s | %s | 0 | - | - | - | - | - |\n", label, cl; exit }
				if (n == 0) { printf "| %s | %s | %d | %.0f | %.2f | - | - | - |\n", label, cl, s[1], s[2], s[3]; exit }
				printf "| %s | %s | %d | %.0f | %.2f | %.0f | %.0f | %s |\n", label, cl, s[1], s[2], s[3], a, b,
					(d == "") ? "" : sprintf("%.0f", a - d)
			}'
		done < <(clients_of "$proto" "$srv")
	done
}

report() {
	echo "# shb's latency next to wrk and h2load, and against a fixed-delay server"
	echo
	echo "- Date: $started to $finished"
	echo "- Host: $(host_line)"
	echo "- Repository: $repo"
	echo "- shb: $(version_of shb) ($shb)"
	[ -z "$base_shb" ] || echo "- base: $("$base_shb" --version 2>&1 | head -n 1) ($base_shb)"
	proto_on h1 && echo "- wrk: $(version_of wrk), with --latency"
	proto_on h2c && echo "- h2load: $(version_of h2load); h2loadlog: the same with --log-file (one line per request), the source of its percentiles"
	if doing peers; then
		proto_on h1 && echo "- nginx: $(version_of nginx), 1 worker, \`return 200\` (13 bytes)"
		proto_on h2c && echo "- h2o: $(version_of h2o), 1 thread, h2c (prior knowledge), a 13-byte static file"
	fi
	doing delay && echo "- Fixed-delay server: bench/delay_server.go (Go $(go version | awk '{ print $3 }')), HTTP/1.1 and h2c on one port, delays ${delay_list[*]}"
	echo "- Clients: -t $threads against nginx and h2o, -t $delay_threads against the delay server (at most one per"
	echo "  connection); h2c: -p $streams against h2o (shb -p, h2load -m)"
	echo "- $rounds rounds × ${duration} s per pairing and client; clients alternate, order rotated every round"
	echo
	echo "## Latency"
	echo
	latency_table
	echo
	echo "Medians over the runs of each client. p50 − delay: what the client reports beyond the server's fixed"
	echo "delay; every client pays the same loopback and server cost, so the difference between clients is"
	echo "their own timing bias. req/s and client µs/req (CPU, user + sys, per request) are medians too."
	echo
	legend "the server's processes"
	echo
	echo "## Every run"
	echo
	runs_table
}

[ -n "$out" ] || out=$(results_path timing)
report | tee "$out"
echo "$prog: wrote $out" >&2
