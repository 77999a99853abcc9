#!/usr/bin/env bash
# Compares shb with wrk and h2load (--h1) on HTTP/1.1 against one local nginx,
# by CPU cost per request rather than by req/s alone. On a small box the
# client and the server share the cores, so req/s mostly says how much CPU the
# client left to the server; CPU microseconds per request, and the ratio of
# client to server CPU measured in the same run, say what the client costs.
#
# Clients are interleaved and their order rotated every round so that slow
# moments of the machine hit every client alike; the table reports medians.
# bench/http_floor, the least a client can do for the same requests, runs
# as one more client, and shb's CPU per request is given as a multiple of
# its.
# See bench/README.md for how to read it.
set -euo pipefail

prog=run.sh
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"

usage() {
	cat <<'EOF'
Usage: bench/run.sh [options]

Runs shb, wrk, h2load --h1 and the floor (bench/http_floor) against a
local nginx ("hello, world!"),
ROUNDS rounds of DURATION seconds per client and connection count, and
writes a Markdown table of medians.

Options:
  -r, --rounds N         rounds per pairing (default: 5)
  -d, --duration S       seconds per run (default: 5)
  -c, --connections LIST connection counts, one pairing each (default: "50 256")
  -t, --threads N        client threads, the same for every client (default: 2)
  -w, --workers N        nginx worker processes (default: 1)
      --clients LIST     clients to compare, from: shb wrk h2load floor
                         (default: "shb wrk h2load floor")
  -o, --output FILE      results file (default: bench/results/DATE-h1.md)
      --shb PATH         use this shb binary instead of building one into
                         build-bench/ at the top of the repository
      --plugin-path P    SHB_PLUGIN_PATH for --shb (default: derived from the
                         build directory holding PATH)
      --base PATH        a second shb binary, run as client "base" right after
                         shb (e.g. the build before a change); its plugins are
                         found next to it
  -h, --help             print this help and exit

Missing packages (nginx-light, wrk, nghttp2-client, time and, to build shb,
its build dependencies) are installed with apt-get, through sudo when not
root.
EOF
}

rounds=5
duration=5
conns="50 256"
threads=2
workers=1
clients="shb wrk h2load floor"
out=""
shb=""
plugin_path=""
base_shb=""

parse_options "-r|--rounds=rounds" "-d|--duration=duration" "-c|--connections=conns" \
	"-t|--threads=threads" "-w|--workers=workers" "--clients=clients" "-o|--output=out" \
	"--shb=shb" "--plugin-path=plugin_path" "--base=base_shb" -- "$@"

check_int rounds "$rounds" 1 100
check_int duration "$duration" 1 3600
check_int threads "$threads" 1 256
check_int workers "$workers" 1 64
check_conn_list "$conns" "$threads" 10000 "wrk needs a connection per thread"
check_words client "$clients" shb wrk h2load floor
read -r -a client_list <<<"$clients"
[ -z "$plugin_path" ] || [ -n "$shb" ] || die "--plugin-path goes with --shb"
[ -z "$base_shb" ] || setup_base h1 reporters

have() { in_list "$1" "${client_list[@]}"; }

# --- packages ----------------------------------------------------------------

missing=()
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
[ -x /usr/bin/time ] || missing+=(time)
command -v timeout >/dev/null || missing+=(coreutils)
if have wrk; then command -v wrk >/dev/null || missing+=(wrk); fi
if have h2load; then command -v h2load >/dev/null || missing+=(nghttp2-client); fi
if { have shb && [ -z "$shb" ]; } || have floor; then
	mapfile -t -O "${#missing[@]}" missing < <(shb_build_packages)
fi
install_packages "${missing[@]}"
PATH=$PATH:/usr/sbin:/sbin
nginx_bin=$(command -v nginx)

# --- shb ---------------------------------------------------------------------

# The state shb is built from, before others can change it during the runs.
repo=$(repo_state)
if have shb; then setup_shb h1 reporters; fi
if have floor; then setup_floor; fi

# --- scratch space and clean-up ----------------------------------------------

scratch_dir bench


raise_nofile

# --- nginx -------------------------------------------------------------------

max_conns=0
for c in "${conn_list[@]}"; do [ "$c" -gt "$max_conns" ] && max_conns=$c; done

write_nginx_conf() { # port
	nginx_conf "listen 127.0.0.1:$1;" >"$tmp/nginx/nginx.conf"
}

start_server nginx 1 1 write_nginx_conf \
	"$nginx_bin" -p "$tmp/nginx" -e "$tmp/nginx/error.log" -c "$tmp/nginx/nginx.conf"
url="http://127.0.0.1:${srv_ports[nginx]}/"

# --- clients -----------------------------------------------------------------

client_cmd() { # client conns jsonfile -> sets cmd[]
	case "$1" in
	shb) cmd=(env "SHB_PLUGIN_PATH=$plugin_path" "$shb" -t "$threads" -c "$2" -z "${duration}s" -q
		--report "json:$3" "$url") ;;
	base) cmd=(env "SHB_PLUGIN_PATH=$base_plugin_path" "$base_shb" -t "$threads" -c "$2"
		-z "${duration}s" -q --report "json:$3" "$url") ;;
	wrk) cmd=(wrk -t "$threads" -c "$2" -d "${duration}s" "$url") ;;
	h2load) cmd=(h2load --h1 -t "$threads" -c "$2" -D "$duration" "$url") ;;
	floor) cmd=("$floor" -t "$threads" -c "$2" -d "$duration" "$url") ;;
	esac
}

# A short warm-up that also checks each client can reach the server.
smoke() {
	local cl rc
	for cl in "${client_list[@]}"; do
		case "$cl" in
		shb) cmd=(env "SHB_PLUGIN_PATH=$plugin_path" "$shb" -t 1 -c 1 -n 1000 -q
			--report "json:$tmp/smoke.json" "$url") ;;
		base) cmd=(env "SHB_PLUGIN_PATH=$base_plugin_path" "$base_shb" -t 1 -c 1 -n 1000 -q
			--report "json:$tmp/smoke.json" "$url") ;;
		wrk) cmd=(wrk -t 1 -c 1 -d 1s "$url") ;;
		h2load) cmd=(h2load --h1 -t 1 -c 1 -n 1000 "$url") ;;
		floor) cmd=("$floor" -t 1 -c 1 -d 1 "$url") ;;
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

label_of() { echo "HTTP/1.1 -t$threads -c$1"; }

runs="$tmp/runs.tsv"
: >"$runs"
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
			cl=${client_list[$(((i + r - 1) % n_cl))]}
			base=$(run_base "$r" "$(label_of "$c")" "$cl")
			client_cmd "$cl" "$c" "$base.json"
			run_one "$r" "$(label_of "$c")" "$cl" nginx "$base"
			sleep 0.5
		done
	done
done
finished=$(date -u '+%Y-%m-%d %H:%M:%S UTC')

# --- the report --------------------------------------------------------------

report() {
	local cl c labels=()
	for c in "${conn_list[@]}"; do labels+=("$(label_of "$c")"); done
	echo "# shb vs wrk vs h2load on HTTP/1.1 against nginx"
	echo
	echo "- Date: $started to $finished"
	echo "- Host: $(host_line)"
	echo "- Repository: $repo"
	echo "- Server: $(version_of nginx), $workers worker process(es), 13-byte \"hello, world!\" on 127.0.0.1"
	for cl in "${client_list[@]}"; do echo "- $cl: $(version_of "$cl")"; done
	echo "- $rounds rounds × ${duration} s per pairing and client; clients alternate, order rotated every round"
	echo
	echo "## Medians"
	echo
	summary_table "${labels[@]}"
	echo
	legend "the nginx master and workers"
	if have shb && have floor; then
		echo
		echo "## Against the floor: shb's client CPU per request ≤ 1.15 × bench/http_floor's"
		echo
		floor_table "${labels[@]}"
		echo
		echo "Medians of each client's runs. bench/http_floor sends the same request bytes on the same keep-alive"
		echo "connections with io_uring and counts responses by their size, without parsing: the least a client"
		echo "can do for these requests. \"same, from client/server ratios\" divides shb's median client/server"
		echo "ratio by the floor's: CPU-speed drift during the sitting cancels out of it."
	fi
	if [ -n "$base_shb" ]; then
		echo
		echo "## shb against base (before and after)"
		echo
		base_req_table "${labels[@]}"
	fi
	echo
	echo "## Commands"
	echo
	echo '```'
	for cl in "${client_list[@]}"; do
		client_cmd "$cl" C REPORT.json
		echo "/usr/bin/time -f '%U %S' ${cmd[*]}" | sed -e "s/ -c C / -c <conns> /" \
			-e "s|SHB_PLUGIN_PATH=[^ ]*|SHB_PLUGIN_PATH=<plugins>|" -e "s|$root/||g" \
			-e "s|${base_shb:-/nonexistent} |<base> |"
	done
	echo '```'
	echo
	echo "Paths are relative to the top of the repository; <plugins> is the h1 and reporters plugin directories of"
	echo "that binary's build; <base> is the binary given with --base; REPORT.json is a file in a temporary directory."
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

write_report h1
