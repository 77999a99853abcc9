#!/usr/bin/env bash
# Compares shb with the DNS example plugin (sdk/examples/dns) and dnsperf
# against the same local dnsmasq, answering A queries for one local
# record from its configuration, at -c 8 sockets with 1 and 16 queries in
# flight on each (shb -p; dnsperf -c 8 -q 8 x depth, its outstanding
# queries in total), by queries/s and by client CPU per query. Same
# method as run.sh: clients interleaved, their order rotated every round,
# medians reported; see bench/README.md.
set -euo pipefail

prog=dns.sh
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"

usage() {
	cat <<'EOF'
Usage: bench/dns.sh [options]

Runs shb --proto dns (the plugin of sdk/examples/dns, built here against
the SDK of the shb under test) and dnsperf against one local dnsmasq,
ROUNDS rounds of DURATION seconds per pairing and client, and writes a
Markdown table of medians.

Options:
  -r, --rounds N         rounds per pairing (default: 5)
  -d, --duration S       seconds per run (default: 5)
  -c, --connections N    sockets (default: 8): shb -c, dnsperf -c
  -p, --pipeline LIST    queries in flight per socket, one pairing each:
                         shb -p, dnsperf -q N x depth (default: "1 16")
      --clients LIST     clients to compare, from: shb dnsperf
                         (default: "shb dnsperf")
  -o, --output FILE      results file (default: bench/results/DATE-dns.md)
      --shb PATH         use this shb binary (an installed prefix's bin/shb,
                         whose SDK builds the plugin) instead of installing
                         one into build-bench-dns/ at the top of the
                         repository
  -h, --help             print this help and exit

Both clients run one thread: dnsmasq is single-threaded. Missing packages
(dnsmasq-base, dnsperf, time and, to build shb, its build dependencies)
are installed with apt-get, through sudo when not root.
EOF
}

rounds=5
duration=5
conns=8
pipes="1 16"
clients="shb dnsperf"
out=""
shb=""

while [ "$#" -gt 0 ]; do
	case "$1" in
	-r | --rounds) need_arg "$@"; rounds=$2; shift 2 ;;
	-d | --duration) need_arg "$@"; duration=$2; shift 2 ;;
	-c | --connections) need_arg "$@"; conns=$2; shift 2 ;;
	-p | --pipeline) need_arg "$@"; pipes=$2; shift 2 ;;
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
[ "${#pipe_list[@]}" -gt 0 ] || die "-p needs at least one depth"
for p in "${pipe_list[@]}"; do check_int "a depth" "$p" 1 1024; done
check_words client "$clients" shb dnsperf
read -r -a client_list <<<"$clients"

have() { in_list "$1" "${client_list[@]}"; }

# --- packages ----------------------------------------------------------------

PATH=$PATH:/usr/sbin:/sbin
missing=()
command -v dnsmasq >/dev/null || missing+=(dnsmasq-base)
command -v dnsperf >/dev/null || missing+=(dnsperf)
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
setup_dns_plugin() {
	local b=$root/build-bench-dns pc
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
	echo "$prog: building sdk/examples/dns against $(dirname "$pc")" >&2
	rm -rf "$b/dns"
	PKG_CONFIG_PATH=$(dirname "$pc") meson setup "$b/dns" "$root/sdk/examples/dns" \
		--buildtype=release >/dev/null
	ninja -C "$b/dns" shb-proto-dns.so >/dev/null
	plugdir=$b/dns
}
if have shb; then setup_dns_plugin; fi

# --- scratch space, the server -----------------------------------------------

scratch_dir bench-dns
raise_nofile

# Local records only, no upstream, no query log (it would cost the
# server more than the answers); dnsmasq also listens on TCP, which is
# how start_server sees it is up.
write_dnsmasq_conf() { # port
	cat >"$tmp/dnsmasq/dnsmasq.conf" <<EOF
no-resolv
no-hosts
no-poll
bind-interfaces
listen-address=127.0.0.1
port=$1
local=/shb.test/
host-record=a.shb.test,127.0.0.8
cache-size=1000
EOF
}

start_server dnsmasq 1 0 write_dnsmasq_conf dnsmasq --no-daemon --pid-file= \
	--log-facility=- --conf-file="$tmp/dnsmasq/dnsmasq.conf"
port=${srv_ports[dnsmasq]}
printf 'a.shb.test A\n' >"$tmp/queries.txt"

# --- clients -----------------------------------------------------------------

# dnsperf's statistics: queries answered NOERROR, errors (lost, and
# answers other than NOERROR), run time.
parse_dnsperf() {
	awk '
	/^ *Queries completed:/ { n = $3 }
	/^ *Queries lost:/ { lost = $3 }
	/^ *Response codes:/ { for (i = 3; i <= NF; i += 3) if ($i != "NOERROR") bad += $(i + 1) }
	/^ *Run time \(s\):/ { secs = $4 }
	END { if (n == "" || secs == "") exit 1; print n - bad, lost + bad, secs }' "$1"
}

client_cmd() { # client depth jsonfile -> sets cmd[]
	case "$1" in
	shb) cmd=("$shb" --plugin-dir "$plugdir" --proto dns -t 1 -c "$conns" -p "$2"
		-z "${duration}s" --proto-opt name=a.shb.test -q --report "json:$3"
		"dns://127.0.0.1:$port") ;;
	dnsperf) cmd=(dnsperf -s 127.0.0.1 -p "$port" -d "$tmp/queries.txt" -T 1
		-c "$conns" -q $((conns * $2)) -l "$duration") ;;
	esac
}

label_of() { echo "A -c$conns -p$1"; } # depth

# A warm-up second of shb, which also checks the plugin works.
warm_up() {
	local f=$tmp/warm
	have shb || return 0
	timeout -k 5 30 "$shb" --plugin-dir "$plugdir" --proto dns -t 1 -c "$conns" \
		-p 1 -z 1s --proto-opt name=a.shb.test -q --report "json:$f.json" \
		"dns://127.0.0.1:$port" >"$f.out" 2>&1 ||
		{ cat "$f.out" >&2; die "the warm-up of shb --proto dns failed"; }
}

# --- the runs ----------------------------------------------------------------

runs="$tmp/runs.tsv"
: >"$runs"
n_cl=${#client_list[@]}
total_runs=$((rounds * ${#pipe_list[@]} * n_cl))
echo "$prog: $total_runs runs of ${duration}s (about $(((total_runs * (duration + 1) + 59) / 60)) min)" >&2
warm_up

started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
for ((r = 1; r <= rounds; r++)); do
	for p in "${pipe_list[@]}"; do
		label=$(label_of "$p")
		for ((i = 0; i < n_cl; i++)); do
			cl=${client_list[$(((i + r - 1) % n_cl))]}
			base=$(run_base "$r" "$label" "$cl")
			client_cmd "$cl" "$p" "$base.json"
			run_one "$r" "$label" "$cl" dnsmasq "$base"
			sleep 0.5
		done
	done
done
finished=$(date -u '+%Y-%m-%d %H:%M:%S UTC')

# --- the report --------------------------------------------------------------

all_labels() {
	local p
	for p in "${pipe_list[@]}"; do label_of "$p"; done
}

compare_table() {
	local label a b
	echo "| Pairing | shb q/s | dnsperf q/s | q/s shb ÷ dnsperf | shb µs/q | dnsperf µs/q | CPU shb ÷ dnsperf | shb errors |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|"
	while IFS= read -r label; do
		a=$(median_row "$label" shb | cut -f 2-)
		b=$(median_row "$label" dnsperf | cut -f 2-)
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
	echo "# shb (sdk/examples/dns) vs dnsperf against dnsmasq"
	echo
	echo "- Date: $started to $finished"
	echo "- Host: $(host_line)"
	echo "- Repository: $repo"
	echo "- Server: $(dnsmasq --version | head -n 1 | awk '{ print $1, $2, $3 }') on 127.0.0.1, local records, no upstream, no query log"
	echo "- shb: $(version_of shb), the plugin built from sdk/examples/dns against its SDK"
	echo "- dnsperf: $(dpkg-query -W -f='dnsperf ${Version}' dnsperf 2>/dev/null || echo dnsperf)"
	echo "- Clients: one thread each, $conns sockets; in flight: shb -p per socket, dnsperf -q for all"
	echo "- $rounds rounds × ${duration} s per pairing and client; clients alternate, order rotated every round"
	echo
	echo "## Medians"
	echo
	summary_table "${labels[@]}"
	echo
	legend "dnsmasq (one process)"
	if have shb && have dnsperf; then
		echo
		echo "## shb against dnsperf"
		echo
		compare_table
	fi
	echo
	echo "## Commands"
	echo
	echo '```'
	for cl in "${client_list[@]}"; do
		client_cmd "$cl" 1 REPORT.json
		echo "/usr/bin/time -f '%U %S' ${cmd[*]}" | sed -e "s|$root/||g" -e "s|$tmp/|<tmp>/|g" \
			-e "s| -p 1 | -p <depth> |" -e "s| -q $conns | -q <sockets x depth> |"
	done
	echo '```'
	echo
	echo "The query file holds one line, \`a.shb.test A\`; dnsmasq answers it from its configuration."
	echo
	echo "## Every run"
	echo
	runs_table
}

write_report dns
