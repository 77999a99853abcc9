#!/usr/bin/env bash
# Compares HTTP/1.1 pipelining: shb -p N against wrk -s with a
# pipeline.lua-style script of N requests in one string (wrk's pipeline),
# against the same local nginx, by req/s and by client CPU per request;
# and shb running that same script with -p N, and without -p (the string
# is then the pipeline, as in wrk). Same method as run.sh:
# clients interleaved, their order rotated every round, medians reported;
# see bench/README.md.
set -euo pipefail

prog=h1pipe.sh
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"

usage() {
	cat <<'EOF'
Usage: bench/h1pipe.sh [options]

Runs shb -p DEPTH, shb -p DEPTH -s pipeline.lua, shb -s pipeline.lua (no
-p: the string is the pipeline) and wrk -s pipeline.lua (DEPTH requests in
one string) against one local nginx (HTTP/1.1, one
worker), ROUNDS rounds of about DURATION seconds per pairing and client,
and writes a Markdown table of medians.

Options:
  -r, --rounds N         rounds per pairing (default: 5)
  -d, --duration S       seconds per run (default: 5)
  -c, --connections N    connections (default: 50)
  -t, --threads N        client threads, both clients (default: 1)
  -p, --depth N          requests per pipeline (default: 16)
      --clients LIST     clients to compare, from: shb wrk (default: "shb wrk")
  -o, --output FILE      results file (default: bench/results/DATE-h1-pipeline.md)
      --shb PATH         use this shb binary (a build tree's core/shb, whose
                         plugins/lua holds the engine) instead of building
                         one into build-bench/ at the top of the repository
  -h, --help             print this help and exit

Missing packages (nginx-light, wrk, time and, to build shb, its build
dependencies and libluajit-5.1-dev) are installed with apt-get, through
sudo when not root.
EOF
}

rounds=5
duration=5
conns=50
threads=1
depth=16
clients="shb wrk"
out=""
shb=""
plugin_path=""
workers=1

parse_options "-r|--rounds=rounds" "-d|--duration=duration" "-c|--connections=conns" \
	"-t|--threads=threads" "-p|--depth=depth" "--clients=clients" "-o|--output=out" \
	"--shb=shb" -- "$@"

check_int rounds "$rounds" 1 100
check_int duration "$duration" 1 3600
check_int connections "$conns" 1 10000
check_int threads "$threads" 1 64
check_int depth "$depth" 1 1024
check_words client "$clients" shb wrk
# Three pairings: shb's own requests against wrk's script, and the same
# script in both, with -p and without (wrk's command line).
script_list=(plain script nop)
read -r -a client_list <<<"$clients"
max_conns=$conns

have() { in_list "$1" "${client_list[@]}"; }

# --- packages ----------------------------------------------------------------

PATH=$PATH:/usr/sbin:/sbin
missing=()
command -v nginx >/dev/null || missing+=(nginx-light)
[ -x /usr/bin/time ] || missing+=(time)
command -v timeout >/dev/null || missing+=(coreutils)
if have wrk; then command -v wrk >/dev/null || missing+=(wrk); fi
if have shb && [ -z "$shb" ]; then
	mapfile -t -O "${#missing[@]}" missing < <(shb_build_packages)
	pkg_installed libluajit-5.1-dev || missing+=(libluajit-5.1-dev)
fi
install_packages "${missing[@]}"
nginx_bin=$(command -v nginx)

# --- shb ---------------------------------------------------------------------

repo=$(repo_state)
if have shb; then setup_shb h1 reporters lua; fi

# --- scratch space, the script, nginx -------------------------------------------

scratch_dir bench-h1pipe
raise_nofile

# wrk's pipeline.lua with DEPTH requests in the string.
cat >"$tmp/pipeline.lua" <<EOF
init = function(args)
   local r = {}
   for i = 1, $depth do
      r[i] = wrk.format(nil, "/")
   end
   req = table.concat(r)
end

request = function()
   return req
end
EOF

write_nginx_conf() { # port
	nginx_conf "listen 127.0.0.1:$1;" >"$tmp/nginx/nginx.conf"
}
start_server nginx 1 1 write_nginx_conf \
	"$nginx_bin" -p "$tmp/nginx" -e "$tmp/nginx/error.log" -c "$tmp/nginx/nginx.conf"
url="http://127.0.0.1:${srv_ports[nginx]}/"

# --- clients -----------------------------------------------------------------

client_cmd() { # client pairing jsonfile -> sets cmd[]
	local s=()
	local p=(-p "$depth")
	[ "$2" = plain ] || s=(-s "$tmp/pipeline.lua")
	[ "$2" != nop ] || p=()
	case "$1" in
	shb) cmd=(env "SHB_PLUGIN_PATH=$plugin_path" "$shb" -t "$threads" -c "$conns"
		"${p[@]}" -z "${duration}s" -q --report "json:$3" "${s[@]}" "$url") ;;
	wrk) cmd=(wrk -t "$threads" -c "$conns" -d "${duration}s" -s "$tmp/pipeline.lua" "$url") ;;
	esac
}

# plain: shb -p DEPTH; script: shb -p DEPTH -s pipeline.lua; nop: shb -s
# pipeline.lua, no -p (wrk runs the script in all three).
label_of() { # pairing
	case "$1" in
	plain) echo "-p$depth -t$threads -c$conns" ;;
	script) echo "-p$depth -s -t$threads -c$conns" ;;
	nop) echo "-s -t$threads -c$conns" ;;
	esac
}

# --- the runs ----------------------------------------------------------------

runs="$tmp/runs.tsv"
: >"$runs"
n_cl=${#client_list[@]}
total_runs=$((rounds * ${#script_list[@]} * n_cl))
echo "$prog: $total_runs runs of about ${duration}s (about $(((total_runs * (duration + 1) + 59) / 60)) min)" >&2
started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
load_start=$(cut -d ' ' -f 1-3 /proc/loadavg)
for ((r = 1; r <= rounds; r++)); do
	for s in "${script_list[@]}"; do
		label=$(label_of "$s")
		for ((i = 0; i < n_cl; i++)); do
			cl=${client_list[$(((i + r - 1) % n_cl))]}
			base=$(run_base "$r" "$label" "$cl")
			client_cmd "$cl" "$s" "$base.json"
			run_one "$r" "$label" "$cl" nginx "$base"
			sleep 0.5
		done
	done
done
finished=$(date -u '+%Y-%m-%d %H:%M:%S UTC')

# --- the report --------------------------------------------------------------

all_labels() {
	local s
	for s in "${script_list[@]}"; do label_of "$s"; done
}

compare_table() {
	local label a b
	echo "| Pairing | shb req/s | wrk req/s | req/s shb ÷ wrk | shb µs/req | wrk µs/req | CPU shb ÷ wrk | shb errors |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|"
	while IFS= read -r label; do
		a=$(median_row "$label" shb | cut -f 2-)
		b=$(median_row "$label" wrk | cut -f 2-)
		awk -v label="$label" -v a="$a" -v b="$b" 'BEGIN {
			split(a, s, "\t"); split(b, w, "\t")
			if (s[1] == 0 || w[1] == 0) { printf "| %s | - | - | - | - | - | - | - |\n", label; exit }
			printf "| %s | %.0f | %.0f | %.2f | %.2f | %.2f | %.2f | %d |\n", label, s[2], w[2],
				s[2] / w[2], s[3], w[3], s[3] / w[3], s[4]
		}'
	done < <(all_labels)
}

report() {
	local cl s labels
	mapfile -t labels < <(all_labels)
	echo "# HTTP/1.1 pipelining: shb -p $depth vs wrk with a $depth-request pipeline.lua, against nginx"
	echo
	echo "- Date: $started to $finished"
	echo "- Host: $(host_line)"
	echo "- Repository: $repo"
	echo "- Server: $(version_of nginx), one worker, HTTP/1.1 on 127.0.0.1, \`return 200\` for every path"
	have shb && echo "- shb: $(version_of shb): \`-p $depth\` (pairing -p$depth), \`-p $depth -s pipeline.lua\` (pairing -p$depth -s), and \`-s pipeline.lua\` with no -p, the string the pipeline as in wrk (pairing -s)"
	have wrk && echo "- wrk: $(version_of wrk), \`-s pipeline.lua\` in every pairing ($depth requests per string: wrk's pipeline)"
	echo "- Clients: -t $threads -c $conns, so $((conns * depth)) requests in flight; $rounds rounds × about ${duration} s per pairing and client; clients alternate, order rotated every round"
	echo "- Load average at the start: $load_start; at the end: $(cut -d ' ' -f 1-3 /proc/loadavg) (the machine is shared: compare the ratios)"
	echo
	echo "## Medians"
	echo
	summary_table "${labels[@]}"
	echo
	legend "nginx (its master and worker)"
	if have shb && have wrk; then
		echo
		echo "## shb against wrk"
		echo
		compare_table
	fi
	echo
	echo "## The script"
	echo
	echo '```lua'
	cat "$tmp/pipeline.lua"
	echo '```'
	echo
	echo "## Commands"
	echo
	echo '```'
	for cl in "${client_list[@]}"; do
		for s in "${script_list[@]}"; do
			[ "$cl" = shb ] || [ "$s" = script ] || continue
			client_cmd "$cl" "$s" REPORT.json
			echo "/usr/bin/time -f '%U %S' ${cmd[*]}" | sed -e "s|$root/||g" -e "s|$tmp/|<tmp>/|g" \
				-e "s|SHB_PLUGIN_PATH=[^ ]*|SHB_PLUGIN_PATH=<build>/plugins/...|"
		done
	done
	echo '```'
	echo
	echo "## Every run"
	echo
	runs_table
}

write_report h1-pipeline
