#!/usr/bin/env bash
# The HTTP/3 receive path next to its crypto floor: shb downloads 1 MiB
# responses over HTTP/3 from ngtcp2's gtlsserver on loopback (it sends GSO
# trains, so shb's UDP GRO path is the one measured) and the client's CPU
# per MB received is set beside what bench/crypto_floor measures for
# removing packet protection alone with the h3 plugin's own code.
# With --base, a second shb build runs beside the first, interleaved
# round by round (before / after a change, from the same sitting). With
# H2LOAD_H3=/path/to/h2load (an h2load built with HTTP/3), that h2load
# downloads the same files in the same rounds, and the table gives shb's
# CPU per MB as a ratio of h2load's.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail

usage() {
	cat <<'EOF'
Usage: bench/h3_rx.sh [options]

Options:
  -r, --rounds N       rounds (default: 9); each round runs every build once
  -n, --requests N     1 MiB requests per run (default: 300)
  -c, --connections N  connections (default: 4)
  -t, --threads N      shb threads (default: 1)
      --servers LIST   gtlsserver and/or bun (default: "gtlsserver bun";
                       gtlsserver sends GSO trains, bun does not)
      --shb PATH       the shb binary to measure (plugins next to it, as in
                       its build directory); default: build one in release
                       mode into build-bench/ at the top of the repository
      --base PATH      a second shb binary (e.g. a build of the commit before
                       a change), measured beside the first
  -o, --output FILE    results file (default: bench/results/DATE-h3-rx.md)
  -h, --help           print this help and exit

Environment:
  H2LOAD_H3=PATH       an h2load built with HTTP/3 support: it runs the same
                       downloads (--h3, same -c, -t and -n) in every round

The crypto floor is built in the build directory of --shb (ninja target
bench/crypto_floor). Needs gtlsserver (ngtcp2-server), GNU time and ninja.
EOF
}

prog=h3_rx.sh
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"
rounds=9
requests=300
conns=4
threads=1
servers="gtlsserver bun"
shb=""
base=""
out=""


parse_options "-r|--rounds=rounds" "-n|--requests=requests" "-c|--connections=conns" \
	"-t|--threads=threads" "--servers=servers" "--shb=shb" "--base=base" "-o|--output=out" -- "$@"

check_int rounds "$rounds" 1 100
check_int requests "$requests" 1 100000
check_int connections "$conns" 1 1000
check_int threads "$threads" 1 64
[ "$conns" -ge "$threads" ] || die "fewer connections than threads"
PATH=$PATH:/usr/sbin:/sbin
[ -x /usr/bin/time ] || die "GNU time (/usr/bin/time) is not installed"
for sv in $servers; do
	case $sv in
	gtlsserver) command -v gtlsserver >/dev/null || die "gtlsserver is not installed (Debian package ngtcp2-server)" ;;
	bun) command -v "${BUN:-bun}" >/dev/null || die "bun is not installed (npm package bun)" ;;
	*) die "--servers: unknown server '$sv' (gtlsserver, bun)" ;;
	esac
done
command -v ninja >/dev/null || die "ninja is not installed"
h2load_h3=${H2LOAD_H3:-}
[ -z "$h2load_h3" ] || [ -x "$h2load_h3" ] || die "H2LOAD_H3=$h2load_h3 is not an executable file"

# An shb binary's build directory: the parent of its core/.
build_of() {
	local b
	b=$(cd "$(dirname "$1")/.." && pwd)
	[ -d "$b/plugins/h3/plugin" ] || die "$1: no plugins/h3/plugin next to its core/ (not a build directory)"
	echo "$b"
}

plugin_path=""
[ -n "$shb" ] || setup_shb h3/plugin reporters
[ -x "$shb" ] || die "--shb $shb is not an executable file"
bdir=$(build_of "$shb")
shb="$bdir/core/shb"
if [ -n "$base" ]; then
	[ -x "$base" ] || die "--base $base is not an executable file"
	base_dir=$(build_of "$base")
	base="$base_dir/core/shb"
fi
ninja -C "$bdir" bench/crypto_floor >/dev/null || die "building bench/crypto_floor in $bdir failed"

H3SRV_PID=""
# shellcheck source=../tests/h3/servers/gtlsserver.sh
source "$root/tests/h3/servers/gtlsserver.sh"
# shellcheck source=../tests/h3/servers/bun.sh
source "$root/tests/h3/servers/bun.sh"
stop_h3() {
	[ -z "$H3SRV_PID" ] || h3srv_stop "$H3SRV_PID"
}
scratch_dir bench-h3rx stop_h3


echo "h3_rx.sh: crypto floor" >&2
"$bdir/bench/crypto_floor" -r 7 >"$tmp/floor.txt"
floor_ns=$(sed -n 's/^open + header protection: \([0-9.]*\) ns.*/\1/p' "$tmp/floor.txt")
floor_ms=$(sed -n 's/.*, \([0-9.]*\) ms\/MB of packets/\1/p' "$tmp/floor.txt")
if [ -z "$floor_ns" ] || [ -z "$floor_ms" ]; then
	die "could not read the crypto floor: $(cat "$tmp/floor.txt")"
fi

labels=(shb)
bins=("$shb")
[ -z "$base" ] || { labels=(base shb); bins=("$base" "$shb"); }
[ -z "$h2load_h3" ] || { labels+=(h2load); bins+=("$h2load_h3"); }

# Prints "ok bytesReceived" from shb's JSON report.
shb_ok_bytes() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d["requests"]["ok"], d["bytesReceived"])
PY
}

# h2load's bytes received: "traffic: ... (N) total" counts every byte
# of the responses, frames included, as shb's bytesReceived does.
parse_h2load() {
	sed -n 's/^traffic: .*(\([0-9]*\)) total.*/\1/p; s/^requests: .* \([0-9]*\) succeeded.*/ok \1/p' "$1" |
		awk '/^ok/ { ok = $2; next } { bytes = $1 } END { print ok + 0, bytes + 0 }'
}

run_client() { # round label binary
	local r=$1 label=$2 bin=$3 b rc=0 user sys ok bytes parsed
	if [ "$label" = h2load ]; then
		/usr/bin/time -f '%U %S' -o "$tmp/time" timeout -k 5 120 \
			"$bin" --h3 -c "$conns" -t "$threads" -n "$requests" "$url" >"$tmp/out" 2>&1 || rc=$?
		parsed=$(parse_h2load "$tmp/out")
	else
		b=$(dirname "$(dirname "$bin")")
		/usr/bin/time -f '%U %S' -o "$tmp/time" timeout -k 5 120 \
			env "SHB_PLUGIN_PATH=$b/plugins/h3/plugin:$b/plugins/reporters" \
			"$bin" --proto h3 -c "$conns" -t "$threads" -n "$requests" -q \
			--report "json:$tmp/run.json" "$url" >"$tmp/out" 2>&1 || rc=$?
		parsed=$(shb_ok_bytes "$tmp/run.json" 2>/dev/null || true)
	fi
	read -r user sys < <(tail -n 1 "$tmp/time") || true
	if [ "$rc" -eq 0 ] && read -r ok bytes <<<"$parsed" &&
		[ "$ok" -eq "$requests" ] && [ "$bytes" -gt 0 ]; then
		printf '%s\t%s\t%s\t%s\t%s\n' "$label" "$r" "$user" "$sys" "$bytes" >>"$runs"
		awk -v l="$label" -v r="$r" -v u="$user" -v s="$sys" -v b="$bytes" 'BEGIN {
			printf "  round %d %-6s user %.2f s sys %.2f s  %.3f ms/MB\n", r, l, u, s, (u + s) * 1e9 / b }' >&2
	else
		echo "  round $r $label: FAILED (exit $rc); last output:" >&2
		tail -n 5 "$tmp/out" >&2
		exit 1
	fi
}

# One server: its rounds into $tmp/runs-SERVER.tsv.
bench_server() {
	local sv=$1 r i k
	h3srv_start_"$sv" "$tmp/srv-$sv" >&2 || die "$sv did not start"
	url="https://127.0.0.1:$H3SRV_PORT/1m"
	echo "h3_rx.sh: $sv (pid $H3SRV_PID) on $url" >&2
	runs="$tmp/runs-$sv.tsv"
	: >"$runs"
	for ((r = 1; r <= rounds; r++)); do
		for ((i = 0; i < ${#labels[@]}; i++)); do
			k=$(((i + r) % ${#labels[@]})) # the order rotates every round
			run_client "$r" "${labels[$k]}" "${bins[$k]}"
		done
	done
	h3srv_stop "$H3SRV_PID"
	H3SRV_PID=""
}

for sv in $servers; do
	bench_server "$sv"
done

# The medians per label, "label runs median lo hi user sys".
medians() {
	awk -F '\t' '
	function median(a, n,    i, j, x) {
		for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
		return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{ l = $1; k = ++n[l]; t[l, k] = ($3 + $4) * 1e9 / $5; u[l, k] = $3 * 1e9 / $5; s[l, k] = $4 * 1e9 / $5
		if (k == 1 || t[l, k] < lo[l]) lo[l] = t[l, k]; if (k == 1 || t[l, k] > hi[l]) hi[l] = t[l, k] }
	END { for (l in n) { m = n[l]
		for (k = 1; k <= m; k++) { a[k] = t[l, k]; b[k] = u[l, k]; c[k] = s[l, k] }
		printf "%s %d %.3f %.3f %.3f %.3f %.3f\n", l, m, median(a, m), lo[l], hi[l], median(b, m), median(c, m) } }' "$runs"
}

table() {
	local peer_ms=""
	medians >"$tmp/medians"
	[ -z "$h2load_h3" ] || peer_ms=$(awk '$1 == "h2load" { print $3 }' "$tmp/medians")
	echo "| Client | Runs | CPU ms/MB (median) | min..max | user ms/MB | sys ms/MB | × crypto floor | ÷ h2load |"
	echo "|---|---:|---:|---|---:|---:|---:|---:|"
	for l in "${labels[@]}"; do
		awk -v l="$l" -v f="$floor_ms" -v p="$peer_ms" '$1 == l {
			printf "| %s | %d | %.3f | %.3f..%.3f | %.3f | %.3f | %.2f | %s |\n", l, $2, $3, $4, $5, $6, $7, $3 / f,
				(p != "" && p > 0 ? sprintf("%.2f", $3 / p) : "-") }' "$tmp/medians"
	done
}

date_s=$(date -u '+%Y-%m-%d')
out=${out:-$root/bench/results/$date_s-h3-rx.md}
mkdir -p "$(dirname "$out")"
{
	echo "# HTTP/3 receive path against its crypto floor"
	echo
	echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC'); host: $(uname -srm), $(nproc) CPUs, $(awk -F ': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
	echo "- Servers, on loopback, a 1 MiB file: gtlsserver (ngtcp2 $(dpkg-query -W -f='${Version}' ngtcp2-server 2>/dev/null || echo '?'); sends GSO trains, so shb's UDP GRO path is measured), bun $("$(h3srv_bun_bin)" --version 2>/dev/null || echo '?') (lsquic; no GSO trains)"
	echo "- Load: \`shb --proto h3 -c $conns -t $threads -n $requests https://127.0.0.1:PORT/1m\`, $rounds rounds, clients in turn, the order rotated every round"
	[ -z "$h2load_h3" ] || echo "- h2load (H2LOAD_H3): $("$h2load_h3" --version 2>&1 | head -n 1), \`h2load --h3 -c $conns -t $threads -n $requests https://127.0.0.1:PORT/1m\`; its bytes: the \"traffic ... total\" line"
	echo "- CPU: user + sys of the client (GNU time) per 10^6 bytes received (shb's bytesReceived)"
	echo "- Crypto floor (\`bench/crypto_floor\`, AES-128-GCM, 1200-byte packets): $floor_ns ns/packet, $floor_ms ms/MB of packets"
	for sv in $servers; do
		runs="$tmp/runs-$sv.tsv"
		echo
		echo "## $sv"
		echo
		table
	done
} >"$out"
cat "$out"
echo "h3_rx.sh: written to $out" >&2
