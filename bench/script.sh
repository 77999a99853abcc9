#!/usr/bin/env bash
# Compares shb -s with wrk -s running the same Lua script against the same
# local nginx (HTTP/1.1): a request()-generating script (a new path and
# header per request, wrk.format each time) and a response()-counting
# script (statuses and body bytes counted in Lua), by req/s and by client
# CPU per request. Same method as run.sh: clients interleaved, their order
# rotated every round, medians reported; see bench/README.md.
set -euo pipefail

prog=script.sh
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"

usage() {
	cat <<'EOF'
Usage: bench/script.sh [options]

Runs shb -s and wrk -s with the same Lua script against one local nginx
(HTTP/1.1, one worker), ROUNDS rounds of about DURATION seconds per
script and client, and writes a Markdown table of medians.

Options:
  -r, --rounds N         rounds per script (default: 5)
  -d, --duration S       seconds per run (default: 5)
  -c, --connections N    connections (default: 50)
  -t, --threads N        client threads, both clients (default: 1)
      --scripts LIST     from: request response (default: "request response")
      --clients LIST     clients to compare, from: shb wrk (default: "shb wrk")
  -o, --output FILE      results file (default: bench/results/DATE-script.md)
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
scripts="request response"
clients="shb wrk"
out=""
shb=""
plugin_path=""
workers=1

parse_options "-r|--rounds=rounds" "-d|--duration=duration" "-c|--connections=conns" \
	"-t|--threads=threads" "--scripts=scripts" "--clients=clients" "-o|--output=out" \
	"--shb=shb" -- "$@"

check_int rounds "$rounds" 1 100
check_int duration "$duration" 1 3600
check_int connections "$conns" 1 10000
check_int threads "$threads" 1 64
check_words script "$scripts" request response
check_words client "$clients" shb wrk
read -r -a script_list <<<"$scripts"
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

# --- scratch space, scripts, nginx -------------------------------------------

scratch_dir bench-script
raise_nofile

# request(): a path and a header of its own per request, formatted each
# time (wrk's counter.lua, with the counter kept per thread).
cat >"$tmp/request.lua" <<'EOF'
counter = 0
request = function()
   counter = counter + 1
   wrk.headers["X-Counter"] = counter
   return wrk.format(nil, "/item/" .. counter)
end
EOF
# response(): counts statuses and body bytes; the request is the static one.
cat >"$tmp/response.lua" <<'EOF'
ok, other, bytes = 0, 0, 0
response = function(status, headers, body)
   if status == 200 then ok = ok + 1 else other = other + 1 end
   bytes = bytes + #body
end
EOF

write_nginx_conf() { # port
	nginx_conf "listen 127.0.0.1:$1;" >"$tmp/nginx/nginx.conf"
}
start_server nginx 1 1 write_nginx_conf \
	"$nginx_bin" -p "$tmp/nginx" -e "$tmp/nginx/error.log" -c "$tmp/nginx/nginx.conf"
url="http://127.0.0.1:${srv_ports[nginx]}/"

# --- clients -----------------------------------------------------------------

client_cmd() { # client script jsonfile -> sets cmd[]
	case "$1" in
	shb) cmd=(env "SHB_PLUGIN_PATH=$plugin_path" "$shb" -t "$threads" -c "$conns"
		-z "${duration}s" -q --report "json:$3" -s "$tmp/$2.lua" "$url") ;;
	wrk) cmd=(wrk -t "$threads" -c "$conns" -d "${duration}s" -s "$tmp/$2.lua" "$url") ;;
	esac
}

label_of() { echo "$1() -t$threads -c$conns"; } # script

# --- the runs ----------------------------------------------------------------

runs="$tmp/runs.tsv"
: >"$runs"
n_cl=${#client_list[@]}
total_runs=$((rounds * ${#script_list[@]} * n_cl))
echo "$prog: $total_runs runs of about ${duration}s (about $(((total_runs * (duration + 1) + 59) / 60)) min)" >&2
started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
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
	echo "| Script | shb req/s | wrk req/s | req/s shb ÷ wrk | shb µs/req | wrk µs/req | CPU shb ÷ wrk | shb errors |"
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
	echo "# shb -s vs wrk -s: the same Lua scripts against nginx"
	echo
	echo "- Date: $started to $finished"
	echo "- Host: $(host_line)"
	echo "- Repository: $repo"
	echo "- Server: $(version_of nginx), one worker, HTTP/1.1 on 127.0.0.1, \`return 200\` for every path"
	have shb && echo "- shb: $(version_of shb), its Lua engine on Debian's LuaJIT (interpreter: the JIT compiler is off, see docs/scripting.md)"
	have wrk && echo "- wrk: $(version_of wrk) (Debian's, LuaJIT with its JIT compiler)"
	echo "- Clients: -t $threads -c $conns; $rounds rounds × about ${duration} s per script and client; clients alternate, order rotated every round"
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
	echo "## The scripts"
	for s in "${script_list[@]}"; do
		echo
		echo "\`$s.lua\`:"
		echo
		echo '```lua'
		cat "$tmp/$s.lua"
		echo '```'
	done
	echo
	echo "## Commands"
	echo
	echo '```'
	for cl in "${client_list[@]}"; do
		client_cmd "$cl" SCRIPT REPORT.json
		echo "/usr/bin/time -f '%U %S' ${cmd[*]}" | sed -e "s|$root/||g" -e "s|$tmp/|<tmp>/|g" \
			-e "s|SHB_PLUGIN_PATH=[^ ]*|SHB_PLUGIN_PATH=<build>/plugins/...|"
	done
	echo '```'
	echo
	echo "## Every run"
	echo
	runs_table
}

write_report script
