#!/usr/bin/env bash
# Memory per connection: the peak resident set (GNU time's maximum RSS) of
# shb and wrk at the same -c against the same local nginx, one after the
# other in the same run, and the state bytes per connection for HTTP/1.1,
# HTTP/1.1 over TLS, HTTP/2 over TLS (nginx) and HTTP/3 (caddy):
# (RSS at -c N - RSS at -c T) / (N - T), T the threads (both runs have the
# same threads, so a thread's own memory is not counted per connection).
# Writes bench/results/DATE-memory.md; see bench/README.md.
set -euo pipefail

prog=memory.sh
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"

usage() {
	cat <<'EOF'
Usage: bench/memory.sh [options]

Peak RSS of shb next to wrk at the same -c against a local nginx, and
shb's bytes per connection for h1, h1 over TLS, h2 and h3; writes a
Markdown report.

Options:
  -d, --duration S       seconds per run (default: 5)
  -c, --connections LIST -c values compared (default: "1000 10000")
      --h3-connections LIST  -c values for h3 against caddy (default: "1000")
  -t, --threads N        client threads, shb and wrk (default: 2)
      --protos LIST      from: h1 h1-tls h2 h3 (default: all four)
  -o, --output FILE      results file (default: bench/results/DATE-memory.md)
      --shb PATH         use this shb binary instead of building one into
                         build-bench/ at the top of the repository
      --plugin-path P    SHB_PLUGIN_PATH for --shb (default: derived from the
                         build directory holding PATH)
  -h, --help             print this help and exit

Missing packages (nginx-light, wrk, caddy, openssl, time and, to build
shb, its build dependencies) are installed with apt-get.
EOF
}

duration=5
conns="1000 10000"
h3conns="1000"
threads=2
protos="h1 h1-tls h2 h3"
out=""
shb=""
plugin_path=""

parse_options "-d|--duration=duration" "-c|--connections=conns" "--h3-connections=h3conns" \
	"-t|--threads=threads" "--protos=protos" "-o|--output=out" "--shb=shb" "--plugin-path=plugin_path" -- "$@"

check_int duration "$duration" 1 600
check_int threads "$threads" 1 256
check_words proto "$protos" h1 h1-tls h2 h3
read -r -a conn_list <<<"$conns"
read -r -a h3_list <<<"$h3conns"
for c in "${conn_list[@]}" "${h3_list[@]}"; do check_int "a connection count" "$c" $((threads + 1)) 60000; done
[ -z "$plugin_path" ] || [ -n "$shb" ] || die "--plugin-path goes with --shb"

PATH=$PATH:/usr/sbin:/sbin
missing=()
command -v nginx >/dev/null || missing+=(nginx-light)
command -v wrk >/dev/null || missing+=(wrk)
command -v openssl >/dev/null || missing+=(openssl)
[ -x /usr/bin/time ] || missing+=(time)
in_list h3 $protos && ! command -v caddy >/dev/null && missing+=(caddy)
if [ -z "$shb" ]; then mapfile -t -O "${#missing[@]}" missing < <(shb_build_packages); fi
install_packages "${missing[@]}"
repo=$(repo_state)
setup_shb h1 h2 h3/plugin reporters
nginx_bin=$(command -v nginx)

h3pid=""
stop_h3() {
	[ -z "$h3pid" ] || h3srv_stop "$h3pid"
}
scratch_dir memory stop_h3

# The largest -c and nginx's own need, with room to spare.
max=1
for c in "${conn_list[@]}" "${h3_list[@]}"; do [ "$c" -gt "$max" ] && max=$c; done
need=$((max + 1024))
if [ "$(ulimit -Hn)" != unlimited ] && [ "$(ulimit -Hn)" -lt "$need" ]; then
	ulimit -Hn "$need" 2>/dev/null || die "the open-files hard limit $(ulimit -Hn) is below $need: raise it (as root: ulimit -Hn $need)"
fi
ulimit -Sn "$(ulimit -Hn)"

# --- nginx: plain h1, and TLS with h1 and h2 on a second port ----------------

# shellcheck disable=SC2034 # read by nginx_conf
workers=1
# shellcheck disable=SC2034
max_conns=$max
make_cert
write_nginx_conf() { # plain-port tls-port
	nginx_conf "listen 127.0.0.1:$1 backlog=65535;" "listen 127.0.0.1:$2 ssl http2 backlog=65535;" \
		"ssl_certificate $tmp/tls/cert.pem;" "ssl_certificate_key $tmp/tls/key.pem;" \
		>"$tmp/nginx/nginx.conf"
}
start_server nginx 2 1 write_nginx_conf \
	"$nginx_bin" -p "$tmp/nginx" -e "$tmp/nginx/error.log" -c "$tmp/nginx/nginx.conf"
read -r -a np <<<"${srv_ports[nginx]}"

if in_list h3 $protos; then
	# shellcheck source=tests/h3/servers/caddy.sh
	source "$root/tests/h3/servers/caddy.sh"
	H3SRV_BIND=127.0.0.1 h3srv_start_caddy "$tmp/caddy" >&2 || die "caddy did not start"
	h3pid=$H3SRV_PID
fi

# --- one run: its peak RSS (KiB) and requests -------------------------------

rows="$tmp/rows.tsv"
: >"$rows"

# Appends "proto client c rss-KiB requests-ok exit" to $rows.
measure() { # proto client c cmd...
	local proto=$1 cl=$2 c=$3 base rc=0 rss ok
	shift 3
	base="$tmp/$proto-$cl-$c"
	/usr/bin/time -f '%M' -o "$base.time" \
		timeout -k 5 $((duration + 120)) "$@" >"$base.out" 2>&1 || rc=$?
	rss=$(tail -n 1 "$base.time")
	ok=-
	if [ "$cl" = shb ]; then
		ok=$(parse_shb "$base.json" | awk '{ print $1 }') || ok=-
	else
		ok=$(parse_wrk "$base.out" | awk '{ print $1 }') || ok=-
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$proto" "$cl" "$c" "$rss" "${ok:--}" "$rc" >>"$rows"
	printf '  %-7s %-4s -c %-6s peak RSS %8s KiB  requests %s  exit %s\n' "$proto" "$cl" "$c" "$rss" "${ok:--}" "$rc" >&2
	[ "$rc" -eq 0 ] || tail -n 3 "$base.out" >&2
}

shb_run() { # proto c url extra...
	local proto=$1 c=$2 url=$3 t=$threads
	shift 3
	measure "$proto" shb "$c" env "SHB_PLUGIN_PATH=$plugin_path" "$shb" -t "$t" -c "$c" \
		-z "${duration}s" --connect-timeout 60s -q --report "json:$tmp/$proto-shb-$c.json" "$@" "$url"
}

started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
plain="http://127.0.0.1:${np[0]}/"
tls="https://127.0.0.1:${np[1]}/"
for p in $protos; do
	case $p in
	h1)
		shb_run h1 "$threads" "$plain"
		measure h1 wrk "$threads" wrk -t "$threads" -c "$threads" -d "${duration}s" --timeout 60s "$plain"
		for c in "${conn_list[@]}"; do
			shb_run h1 "$c" "$plain"
			measure h1 wrk "$c" wrk -t "$threads" -c "$c" -d "${duration}s" --timeout 60s "$plain"
		done ;;
	h1-tls)
		shb_run h1-tls "$threads" "$tls" --proto h1 --insecure
		for c in "${conn_list[@]}"; do shb_run h1-tls "$c" "$tls" --proto h1 --insecure; done ;;
	h2)
		shb_run h2 "$threads" "$tls" --proto h2 --insecure
		for c in "${conn_list[@]}"; do shb_run h2 "$c" "$tls" --proto h2 --insecure; done ;;
	h3)
		shb_run h3 "$threads" "https://127.0.0.1:$H3SRV_PORT/" --proto h3 --insecure
		for c in "${h3_list[@]}"; do shb_run h3 "$c" "https://127.0.0.1:$H3SRV_PORT/" --proto h3 --insecure; done ;;
	esac
done
finished=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# --- the report --------------------------------------------------------------

rss_of() { awk -F '\t' -v p="$1" -v cl="$2" -v c="$3" '$1 == p && $2 == cl && $3 == c { print $4 }' "$rows"; }

report() {
	local p c one r w
	echo "# Memory per connection: shb next to wrk"
	echo
	echo "- Date: $started to $finished"
	echo "- Host: $(host_line), $(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
	echo "- Load average before / after: $load_before / $load_after"
	echo "- Repository: $repo"
	echo "- Clients: $(version_of shb); $(version_of wrk); -t $threads, ${duration} s per run, one after the other"
	echo "- Servers: $(version_of nginx), 1 worker (h1, h1 over TLS, h2 over TLS);"
	in_list h3 $protos && echo "  $("$(h3srv_caddy_bin)" version 2>/dev/null | awk '{ print "caddy", $1 }') (h3)"
	echo
	echo "## Peak RSS at the same -c (HTTP/1.1, nginx)"
	echo
	echo "| -c | shb peak RSS | wrk peak RSS | shb / wrk | shb bytes per connection | wrk bytes per connection |"
	echo "|---:|---:|---:|---:|---:|---:|"
	for c in "$threads" "${conn_list[@]}"; do
		r=$(rss_of h1 shb "$c")
		w=$(rss_of h1 wrk "$c")
		awk -v c="$c" -v t="$threads" -v r="${r:-0}" -v w="${w:-0}" -v r0="$(rss_of h1 shb "$threads")" \
			-v w0="$(rss_of h1 wrk "$threads")" 'BEGIN {
			printf "| %s | %.1f MiB | %.1f MiB | %s | %s | %s |\n", c, r / 1024, w / 1024,
				(w > 0 ? sprintf("%.2f", r / w) : "-"),
				(c > t ? sprintf("%.0f", (r - r0) * 1024 / (c - t)) : "-"),
				(c > t ? sprintf("%.0f", (w - w0) * 1024 / (c - t)) : "-") }'
	done
	echo
	echo "## shb's state per connection"
	echo
	echo "| Protocol | peak RSS at -c $threads | -c | peak RSS | bytes per connection |"
	echo "|---|---:|---:|---:|---:|"
	for p in $protos; do
		one=$(rss_of "$p" shb "$threads")
		local list=("${conn_list[@]}")
		[ "$p" = h3 ] && list=("${h3_list[@]}")
		for c in "${list[@]}"; do
			r=$(rss_of "$p" shb "$c")
			awk -v p="$p" -v c="$c" -v t="$threads" -v r="${r:-0}" -v o="${one:-0}" 'BEGIN {
				printf "| %s | %.1f MiB | %s | %.1f MiB | %.0f |\n", p, o / 1024, c, r / 1024, (r - o) * 1024 / (c - t) }'
		done
	done
	echo
	echo "Bytes per connection: (peak RSS at -c N - peak RSS at -c $threads) / (N - $threads), both runs at"
	echo "-t $threads, so that the threads' own memory is not counted per connection. Peak RSS is GNU"
	echo "time's maximum resident set size."
	echo "Kernel socket memory is not in it, for either client."
	echo
	echo "## All runs"
	echo
	echo "| Protocol | Client | -c | peak RSS KiB | requests | exit |"
	echo "|---|---|---:|---:|---:|---:|"
	awk -F '\t' '{ printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6 }' "$rows"
	echo
	echo "## Commands"
	echo
	echo '```'
	echo "shb -t $threads -c <c> -z ${duration}s --connect-timeout 60s -q --report json:REPORT.json [--proto P --insecure] <url>"
	echo "wrk -t $threads -c <c> -d ${duration}s --timeout 60s <url>"
	echo '```'
}

write_report memory
