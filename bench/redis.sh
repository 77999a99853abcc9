#!/usr/bin/env bash
# Compares shb with the Redis example plugin (sdk/examples/redis) and
# redis-benchmark against the same local redis-server: PING (the
# multi-bulk form both send) and INCR of one key, at -c 8 with 1 and 16
# commands in flight per connection (shb -p, redis-benchmark -P), by
# req/s and by client CPU per request. Same method as run.sh: clients
# interleaved, their order rotated every round, medians reported; see
# bench/README.md.
set -euo pipefail

prog=redis.sh
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"

usage() {
	cat <<'EOF'
Usage: bench/redis.sh [options]

Runs shb --proto redis (the plugin of sdk/examples/redis, built here
against the SDK of the shb under test) and redis-benchmark against one
local redis-server, ROUNDS rounds of about DURATION seconds per pairing
and client, and writes a Markdown table of medians.

Options:
  -r, --rounds N         rounds per pairing (default: 5)
  -d, --duration S       seconds per run, about (default: 5); redis-benchmark
                         runs a request count: what shb reached in a warm-up
                         second, times S
  -c, --connections N    connections (default: 8)
  -p, --pipeline LIST    commands in flight per connection, one pairing each:
                         shb -p, redis-benchmark -P (default: "1 16")
      --commands LIST    from: ping incr (default: "ping incr")
      --clients LIST     clients to compare, from: shb redis-benchmark
                         (default: "shb redis-benchmark")
  -o, --output FILE      results file (default: bench/results/DATE-redis.md)
      --shb PATH         use this shb binary (an installed prefix's bin/shb,
                         whose SDK builds the plugin) instead of installing
                         one into build-bench-redis/ at the top of the
                         repository
  -h, --help             print this help and exit

Both clients run one thread: the server is single-threaded. Missing
packages (redis-server, redis-tools, time and, to build shb, its build
dependencies) are installed with apt-get, through sudo when not root.
EOF
}

rounds=5
duration=5
conns=8
pipes="1 16"
commands="ping incr"
clients="shb redis-benchmark"
out=""
shb=""
plugin_path=""

while [ "$#" -gt 0 ]; do
	case "$1" in
	-r | --rounds) need_arg "$@"; rounds=$2; shift 2 ;;
	-d | --duration) need_arg "$@"; duration=$2; shift 2 ;;
	-c | --connections) need_arg "$@"; conns=$2; shift 2 ;;
	-p | --pipeline) need_arg "$@"; pipes=$2; shift 2 ;;
	--commands) need_arg "$@"; commands=$2; shift 2 ;;
	--clients) need_arg "$@"; clients=$2; shift 2 ;;
	-o | --output) need_arg "$@"; out=$2; shift 2 ;;
	--shb) need_arg "$@"; shb=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown option '$1' (try --help)" ;;
	esac
done

check_int rounds "$rounds" 1 100
check_int duration "$duration" 1 3600
check_int connections "$conns" 1 10000
read -r -a pipe_list <<<"$pipes"
[ "${#pipe_list[@]}" -gt 0 ] || die "-p needs at least one pipeline depth"
for p in "${pipe_list[@]}"; do check_int "a pipeline depth" "$p" 1 1024; done
check_words command "$commands" ping incr
check_words client "$clients" shb redis-benchmark
read -r -a cmd_list <<<"$commands"
read -r -a client_list <<<"$clients"

have() { in_list "$1" "${client_list[@]}"; }

# --- packages ----------------------------------------------------------------

PATH=$PATH:/usr/sbin:/sbin
missing=()
command -v redis-server >/dev/null || missing+=(redis-server)
command -v redis-benchmark >/dev/null || missing+=(redis-tools)
[ -x /usr/bin/time ] || missing+=(time)
command -v timeout >/dev/null || missing+=(coreutils)
if have shb && [ -z "$shb" ]; then mapfile -t -O "${#missing[@]}" missing < <(shb_build_packages); fi
install_packages "${missing[@]}"

# --- shb and the plugin ------------------------------------------------------

# The state shb is built from, before others can change it during the runs.
repo=$(repo_state)
plugdir=""
# shb installed into a prefix (or the one given), then the example built
# out of tree against that prefix's SDK, as a plugin author builds it.
setup_redis_plugin() {
	local b=$root/build-bench-redis pc
	if [ -z "$shb" ]; then
		if [ ! -f "$b/shb/build.ninja" ]; then
			echo "$prog: configuring $b/shb (release)" >&2
			meson setup "$b/shb" "$root" -Dtests=false --buildtype=release -Db_lto=true \
				--prefix="$b/stage" >/dev/null
		fi
		echo "$prog: building and installing shb into $b/stage" >&2
		ninja -C "$b/shb" >/dev/null
		meson install -C "$b/shb" --no-rebuild >/dev/null
		shb=$b/stage/bin/shb
	fi
	[ -x "$shb" ] || die "--shb $shb is not an executable file"
	pc=$(find "$(dirname "$(dirname "$shb")")" -name shb-plugin-1.pc -print -quit)
	[ -n "$pc" ] || die "no shb-plugin-1.pc next to $shb: --shb names an installed prefix's bin/shb"
	echo "$prog: building sdk/examples/redis against $(dirname "$pc")" >&2
	rm -rf "$b/redis"
	PKG_CONFIG_PATH=$(dirname "$pc") meson setup "$b/redis" "$root/sdk/examples/redis" \
		--buildtype=release >/dev/null
	ninja -C "$b/redis" shb-proto-redis.so >/dev/null
	plugdir=$b/redis
}
if have shb; then setup_redis_plugin; fi

# --- scratch space, the server -----------------------------------------------

scratch_dir bench-redis
raise_nofile

write_redis_conf() { # port
	cat >"$tmp/redis/redis.conf" <<EOF
bind 127.0.0.1
port $1
save ""
appendonly no
daemonize no
dir $tmp/redis
logfile $tmp/redis/redis.log
maxclients 10000
EOF
}

start_server redis 1 0 write_redis_conf redis-server "$tmp/redis/redis.conf"
port=${srv_ports[redis]}

# --- clients -----------------------------------------------------------------

# redis-benchmark's summary: completed requests, and seconds from its
# throughput line (its "completed in" has 10 ms steps). Error replies are
# printed as "Error from server", one line each at most.
parse_redis-benchmark() {
	local n rps errs
	n=$(sed -nE 's/^ *([0-9]+) requests completed in .*/\1/p' "$1" | tail -n 1)
	rps=$(sed -nE 's/^ *throughput summary: ([0-9.]+) requests per second.*/\1/p' "$1" | tail -n 1)
	[ -n "$n" ] && [ -n "$rps" ] || return 1
	errs=$(grep -c 'Error from server' "$1" || true)
	echo "$n $errs $(awk -v n="$n" -v r="$rps" 'BEGIN { printf "%.6f", n / r }')"
}

declare -A bench_n=()

# shb's options for a command: PING is the plugin's default.
shb_opts() { # command -> sets opt[]
	opt=()
	if [ "$1" = incr ]; then opt=(--proto-opt command=INCR --proto-opt key=counter); fi
}

client_cmd() { # client command pipeline jsonfile -> sets cmd[]
	case "$1" in
	shb) shb_opts "$2"
		cmd=("$shb" --plugin-dir "$plugdir" --proto redis -t 1 -c "$conns" -p "$3"
			-z "${duration}s" "${opt[@]}" -q --report "json:$4" "redis://127.0.0.1:$port") ;;
	redis-benchmark)
		cmd=(redis-benchmark -h 127.0.0.1 -p "$port" -c "$conns" -P "$3"
			-n "${bench_n["$2 $3"]:-100000}")
		if [ "$2" = ping ]; then cmd+=(-t ping_mbulk); else cmd+=(-t incr); fi ;;
	esac
}

label_of() { echo "$1 -c$conns -p$2"; } # command pipeline

# A warm-up second of shb per pairing, which also checks the plugin works
# and sets redis-benchmark's request count to DURATION seconds of it.
warm_incr=0
warm_up() {
	local c p rate f
	for c in "${cmd_list[@]}"; do
		for p in "${pipe_list[@]}"; do
			rate=50000
			if have shb; then
				f=$tmp/warm-$c-$p
				shb_opts "$c"
				timeout -k 5 30 "$shb" --plugin-dir "$plugdir" --proto redis -t 1 \
					-c "$conns" -p "$p" -z 1s "${opt[@]}" -q \
					--report "json:$f.json" "redis://127.0.0.1:$port" >"$f.out" 2>&1 ||
					{ cat "$f.out" >&2; die "the warm-up of shb --proto redis failed ($c -p $p)"; }
				rate=$(python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(int(r["requests"]["ok"] / r["durationSeconds"]))' "$f.json")
				[ "$c" != incr ] ||
					warm_incr=$((warm_incr + $(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["requests"]["ok"])' "$f.json")))
			fi
			bench_n["$c $p"]=$((rate * duration))
		done
	done
}

# --- the runs ----------------------------------------------------------------

runs="$tmp/runs.tsv"
: >"$runs"
n_cl=${#client_list[@]}
total_runs=$((rounds * ${#cmd_list[@]} * ${#pipe_list[@]} * n_cl))
echo "$prog: $total_runs runs of about ${duration}s (about $(((total_runs * (duration + 1) + 59) / 60)) min)" >&2
warm_up

started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
for ((r = 1; r <= rounds; r++)); do
	for c in "${cmd_list[@]}"; do
		for p in "${pipe_list[@]}"; do
			label=$(label_of "$c" "$p")
			for ((i = 0; i < n_cl; i++)); do
				cl=${client_list[$(((i + r - 1) % n_cl))]}
				base=$(run_base "$r" "$label" "$cl")
				client_cmd "$cl" "$c" "$p" "$base.json"
				run_one "$r" "$label" "$cl" redis "$base"
				sleep 0.5
			done
		done
	done
done
finished=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
# shb's INCRs on "counter" (redis-benchmark's go to counter:__rand_int__):
# those counted ok, and at most c x p per run more that the server did
# after shb's timed end had cancelled them.
counter=$(redis-cli -p "$port" GET counter)
shb_incr=$(awk -F '\t' -v w="$warm_incr" '$2 == "shb" && $4 == "ok" && $1 ~ /^incr / { s += $5 } END { print s + w }' "$runs")
in_flight=0
for p in "${pipe_list[@]}"; do in_flight=$((in_flight + (rounds + 1) * conns * p)); done

# --- the report --------------------------------------------------------------

all_labels() {
	local c p
	for c in "${cmd_list[@]}"; do
		for p in "${pipe_list[@]}"; do label_of "$c" "$p"; done
	done
}

compare_table() {
	local label a b
	echo "| Pairing | shb req/s | redis-benchmark req/s | req/s shb ÷ rb | shb µs/req | rb µs/req | CPU shb ÷ rb | shb errors |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|"
	while IFS= read -r label; do
		a=$(median_row "$label" shb | cut -f 2-)
		b=$(median_row "$label" redis-benchmark | cut -f 2-)
		awk -v label="$label" -v a="$a" -v b="$b" 'BEGIN {
			split(a, s, "\t"); split(b, h, "\t")
			if (s[1] == 0 || h[1] == 0) { printf "| %s | - | - | - | - | - | - | - |\n", label; exit }
			printf "| %s | %.0f | %.0f | %.2f | %.2f | %.2f | %.2f | %d |\n", label, s[2], h[2],
				s[2] / h[2], s[3], h[3], s[3] / h[3], s[4]
		}'
	done < <(all_labels)
}

report() {
	local cl labels
	mapfile -t labels < <(all_labels)
	echo "# shb (sdk/examples/redis) vs redis-benchmark against redis-server"
	echo
	echo "- Date: $started to $finished"
	echo "- Host: $(host_line)"
	echo "- Repository: $repo"
	echo "- Server: $(redis-server --version | awk '{ print $1, $2, $3 }') on 127.0.0.1, no persistence"
	echo "- shb: $(version_of shb), the plugin built from sdk/examples/redis against its SDK"
	echo "- redis-benchmark: from $(dpkg-query -W -f='redis-tools ${Version}' redis-tools 2>/dev/null || echo redis-tools)"
	echo "- Clients: one thread each, -c $conns; pipeline depth: shb -p, redis-benchmark -P"
	echo "- $rounds rounds × about ${duration} s per pairing and client; clients alternate, order rotated every round"
	if in_list incr "${cmd_list[@]}" && have shb; then
		echo "- After the runs the counter shb INCRed held ${counter:-nothing}; shb counted $shb_incr INCRs ok (warm-ups"
		echo "  included), the rest ($(( ${counter:-0} - shb_incr ))) were in flight when a timed run ended (at most $in_flight)"
	fi
	echo
	echo "## Medians"
	echo
	summary_table "${labels[@]}"
	echo
	legend "redis-server (one process)"
	if have shb && have redis-benchmark; then
		echo
		echo "## shb against redis-benchmark"
		echo
		compare_table
	fi
	echo
	echo "## Commands"
	echo
	echo '```'
	for cl in "${client_list[@]}"; do
		client_cmd "$cl" ping P REPORT.json
		echo "/usr/bin/time -f '%U %S' ${cmd[*]}" | sed -e "s|$root/||g" -e "s|$tmp/|<tmp>/|g" \
			-e "s| -p P | -p <depth> |" -e "s| -P P | -P <depth> |" -e "s| -n [0-9]* | -n <count> |"
	done
	echo '```'
	echo
	echo "INCR adds \`--proto-opt command=INCR --proto-opt key=counter\` (shb) or \`-t incr\` (redis-benchmark,"
	echo "whose key is the literal \`counter:__rand_int__\` without -r). redis-benchmark's -n is what shb"
	echo "completed in a warm-up second of that pairing, times the duration."
	echo
	echo "## Every run"
	echo
	runs_table
}

write_report redis
