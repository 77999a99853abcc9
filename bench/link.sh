#!/usr/bin/env bash
# shb over HTTP/3 and HTTP/2 on an emulated bottleneck link: two network
# namespaces joined by a veth pair, each end's egress limited by a tbf
# qdisc (netem is not needed: the queue of the token bucket is the only
# delay). A server in one namespace, shb in the other; 10 MB downloads
# and 10 MB uploads, one request at a time on one connection, over h3
# (caddy on quic-go, ngtcp2's gtlsserver) and h2 over TCP+TLS (caddy).
# The script refuses to run unless it is root.
#
# What it reports per run: goodput (HTTP bytes over the run's time) as a
# share of the link rate, and what was sent again:
#  - h3 uploads: shb's own count of stream bytes sent again after a loss
#    (SHB_DEBUG "QUIC totals" line), over the stream bytes sent;
#  - h3 downloads: the server's packets the bottleneck dropped (tbf
#    "dropped", times the mean packet size), over the body bytes: each
#    dropped packet's data must go again, so this is a floor for the
#    server's retransmissions;
#  - h2: the sender namespace's TCP RetransSegs times the MSS.
# Both builds given (--shb/--shb-base) run side by side, and the new one
# also with the old behaviour (--proto-opt initial-window=4M pacing=0).
#
# Needs root (network namespaces, tc). Benchmarks stay out of the test
# suite: nothing here asserts a figure.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail

usage() {
	cat <<'EOF'
Usage: bench/link.sh --shb PATH [options]   (as root)

Options:
  --shb PATH            shb to measure (a build tree's core/shb; plugins are
                        taken from the same tree)
  --shb-base PATH       a second build to compare with (e.g. before a change)
  --rate R              bottleneck rate, both directions (default: 50mbit)
  --burst B             tbf bucket (default: 32kb)
  --latency L           tbf queue bound (default: 30ms)
  --size BYTES          body size (default: 10000000)
  -n N                  requests per run, one after another (default: 3)
  --cases LIST          from: h3-caddy-down h3-caddy-up h3-gtls-down
                        h3-gtls-up h2-caddy-down h2-caddy-up (default: all)
  --no-lab              skip the runs with the old start (4 MiB, no pacing)
  -o, --output FILE     Markdown results (default: bench/results/DATE-link.md)
  -h, --help            this help
EOF
}

prog=link.sh
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"
shb=""
shb_base=""
rate=50mbit
burst=32kb
latency=30ms
size=10000000
nreq=3
cases="h3-caddy-down h3-caddy-up h3-gtls-down h3-gtls-up h2-caddy-down h2-caddy-up"
out=""
lab=1

parse_options "--shb=shb" "--shb-base=shb_base" "--rate=rate" "--burst=burst" "--latency=latency" \
	"--size=size" "-n=nreq" "--cases=cases" "--no-lab=lab:0" "-o|--output=out" -- "$@"

[ "$(id -u)" -eq 0 ] || die "needs root: it creates network namespaces and tc qdiscs"
[ -n "$shb" ] || die "--shb PATH is required"
for b in "$shb" ${shb_base:+"$shb_base"}; do
	[ -x "$b" ] || die "$b is not an executable file"
done
for c in ip tc caddy gtlsserver python3; do
	command -v "$c" >/dev/null || die "$c is not installed"
done
if ! [[ $size =~ ^[1-9][0-9]*$ ]]; then die "--size must be a number of bytes"; fi
if ! [[ $nreq =~ ^[1-9][0-9]*$ ]]; then die "-n must be a positive number"; fi
rate_bits=$(python3 - "$rate" <<'EOF'
import re, sys
m = re.fullmatch(r"(\d+(?:\.\d+)?)(bit|kbit|mbit|gbit)", sys.argv[1])
if not m:
    sys.exit(1)
print(int(float(m[1]) * {"bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9}[m[2]]))
EOF
) || die "--rate: expected a number and bit, kbit, mbit or gbit (e.g. 50mbit)"
[ -n "$out" ] || out="$root/bench/results/$(date -u +%Y-%m-%d)-link.md"

ns_s=shblink-srv
ns_c=shblink-cli
dev_s=shbl-s
dev_c=shbl-c
addr_s=10.203.0.1
addr_c=10.203.0.2
pids=()

# The servers (in the namespace) and the namespaces; scratch_dir removes
# $tmp after this.
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	ip netns del "$ns_s" 2>/dev/null || true
	ip netns del "$ns_c" 2>/dev/null || true
}
scratch_dir link cleanup

# --- the link -----------------------------------------------------------------

ip netns list | grep -qw "$ns_s" && die "namespace $ns_s exists (another run?)"
ip netns add "$ns_s"
ip netns add "$ns_c"
ip link add "$dev_s" netns "$ns_s" type veth peer name "$dev_c" netns "$ns_c"
ip -n "$ns_s" addr add "$addr_s/24" dev "$dev_s"
ip -n "$ns_c" addr add "$addr_c/24" dev "$dev_c"
for n in "$ns_s" "$ns_c"; do ip -n "$n" link set lo up; done
ip -n "$ns_s" link set "$dev_s" up
ip -n "$ns_c" link set "$dev_c" up
tc -n "$ns_s" qdisc add dev "$dev_s" root tbf rate "$rate" burst "$burst" latency "$latency"
tc -n "$ns_c" qdisc add dev "$dev_c" root tbf rate "$rate" burst "$burst" latency "$latency"

# --- servers --------------------------------------------------------------------

# shellcheck source=../tests/h3/servers/common.sh
source "$root/tests/h3/servers/common.sh"
h3srv_make_cert "$tmp" >/dev/null
mkdir -p "$tmp/www"
head -c "$size" /dev/zero | tr '\0' 'x' >"$tmp/www/body"
cp "$tmp/www/body" "$tmp/upload"
port=4433

# caddy: every file of www/ (h2 over TCP and h3), /echo reads the whole
# body and answers its length.
cat >"$tmp/Caddyfile" <<EOF
{
	admin off
	auto_https off
	skip_install_trust
	grace_period 2s
	storage file_system {
		root $tmp/caddy-state
	}
	servers {
		protocols h1 h2 h3
	}
	log {
		output stderr
		level ERROR
	}
}
https://:$port {
	bind $addr_s
	tls $tmp/cert.pem $tmp/key.pem
	handle /echo {
		request_body {
			max_size 64MB
		}
		templates {
			mime text/plain
		}
		respond \`{{len (placeholder "http.request.body")}}\` 200
	}
	handle {
		root * $tmp/www
		file_server
	}
}
EOF
mkdir -p "$tmp/caddy-state"
HOME=$tmp/caddy-state XDG_DATA_HOME=$tmp/caddy-state XDG_CONFIG_HOME=$tmp/caddy-state \
	ip netns exec "$ns_s" caddy run --config "$tmp/Caddyfile" --adapter caddyfile \
	>"$tmp/caddy.log" 2>&1 </dev/null &
pids+=($!)
# gtlsserver: GET /N sends N generated bytes; POST /echo reads the body.
printf 'ok' >"$tmp/www/echo"
ip netns exec "$ns_s" gtlsserver --quiet --htdocs="$tmp/www" --max-streams-bidi=16 \
	--timeout=60s "$addr_s" $((port + 1)) "$tmp/key.pem" "$tmp/cert.pem" \
	>"$tmp/gtlsserver.log" 2>&1 </dev/null &
pids+=($!)
sleep 2
for p in "${pids[@]}"; do
	kill -0 "$p" 2>/dev/null || { cat "$tmp"/*.log >&2; die "a server did not start"; }
done

# --- counters ---------------------------------------------------------------------

# tbf counters of a device: "bytes packets dropped".
qdisc_stats() { # ns dev
	tc -n "$1" -s qdisc show dev "$2" |
		awk '/Sent/ { b = $2; p = $4; d = $7; sub(/,/, "", d); print b, p, d; exit }'
}

snmp() { # ns proto field
	ip netns exec "$1" cat /proc/net/snmp |
		awk -v p="$2:" -v f="$3" '$1 == p { if (!h) { for (i = 1; i <= NF; i++) n[$i] = i; h = 1 } else print $n[f] }'
}

retrans_segs() { # ns
	snmp "$1" Tcp RetransSegs
}

# Datagrams the receiving socket had no room for: a loss that is not the
# link's (a busy server falls behind).
rcvbuf_errors() { # ns
	snmp "$1" Udp RcvbufErrors
}

# --- one run ----------------------------------------------------------------------

rows=()

run_case() { # label shb-path case extra-args...
	local label=$1 bin=$2 kase=$3
	shift 3
	local proto=${kase%%-*} rest=${kase#*-} server dir url data=() tree base
	server=${rest%-*}
	dir=${rest##*-}
	tree=$(dirname "$(dirname "$bin")")
	base="$tmp/${label}-${kase}${*:+-lab}"
	case $server in
	caddy) url="https://$addr_s:$port" ;;
	gtls) url="https://$addr_s:$((port + 1))" ;;
	esac
	if [ "$dir" = down ]; then
		if [ "$server" = gtls ]; then url="$url/$size"; else url="$url/body"; fi
	else
		url="$url/echo"
		data=(--data-binary "@$tmp/upload")
	fi
	local q0s q0c r0s r0c q1s q1c r1s r1c
	q0s=$(qdisc_stats "$ns_s" "$dev_s")
	q0c=$(qdisc_stats "$ns_c" "$dev_c")
	r0s=$(retrans_segs "$ns_s")
	r0c=$(retrans_segs "$ns_c")
	u0s=$(rcvbuf_errors "$ns_s")
	u0c=$(rcvbuf_errors "$ns_c")
	local envs=("SHB_PLUGIN_PATH=$tree/plugins/h3/plugin:$tree/plugins/h2:$tree/plugins/h1:$tree/plugins/reporters")
	# The "QUIC totals" trace counts what shb sent again.
	[ "$proto" != h3 ] || envs+=(SHB_DEBUG=1)
	env "${envs[@]}" ip netns exec "$ns_c" "$bin" --proto "$proto" -c 1 -n "$nreq" --timeout 120s \
		"${data[@]}" "$@" -q --report "json:$base.json" "$url" \
		>"$base.out" 2>"$base.err" || echo "link.sh: $label $kase: shb exited $?" >&2
	q1s=$(qdisc_stats "$ns_s" "$dev_s")
	q1c=$(qdisc_stats "$ns_c" "$dev_c")
	r1s=$(retrans_segs "$ns_s")
	r1c=$(retrans_segs "$ns_c")
	u1s=$(rcvbuf_errors "$ns_s")
	u1c=$(rcvbuf_errors "$ns_c")
	rows+=("$(python3 - "$base" "$label" "$kase" "$rate_bits" "$size" \
		"$q0s" "$q1s" "$q0c" "$q1c" "$r0s" "$r1s" "$r0c" "$r1c" \
		"$u0s" "$u1s" "$u0c" "$u1c" "$*" <<'EOF'
import json, re, sys
base, label, kase, rate, size = sys.argv[1:6]
q0s, q1s, q0c, q1c = (list(map(int, a.split())) for a in sys.argv[6:10])
r0s, r1s, r0c, r1c = map(int, sys.argv[10:14])
u0s, u1s, u0c, u1c = map(int, sys.argv[14:18])
extra = sys.argv[18]
rate, size = int(rate), int(size)
proto, server, direction = kase.split("-")
try:
    d = json.load(open(base + ".json"))
    ok = d["requests"]["ok"]
    secs = d["durationSeconds"]
except Exception:
    print(f"| {label} | {server} | {proto} | {direction} | run failed | | | | | | | |")
    sys.exit(0)
goodput = ok * size * 8 / secs if secs else 0
# The sender's side of the link: the server for downloads.
qs = (q0s, q1s) if direction == "down" else (q0c, q1c)
sent_b, sent_p, dropped = (qs[1][i] - qs[0][i] for i in range(3))
mean = sent_b / sent_p if sent_p else 0
payload = ok * size
resent = "?"
if proto == "h2":
    segs = (r1s - r0s) if direction == "down" else (r1c - r0c)
    resent = f"{100 * segs * 1448 / payload:.2f} % (TCP RetransSegs {segs})"
elif direction == "up":
    tot = [l for l in open(base + ".err") if "QUIC totals" in l]
    s = r = 0
    for l in tot:
        m = re.search(r"stream bytes sent (\d+) resent (\d+)", l)
        if m:
            s += int(m[1]); r += int(m[2])
    if s:
        resent = f"{100 * r / s:.2f} % (shb: {r} of {s} stream bytes)"
    else:  # a build without the counter
        resent = f">= {100 * dropped * mean / payload:.2f} % (bottleneck drops)"
else:
    resent = f">= {100 * dropped * mean / payload:.2f} % (bottleneck drops)"
wire = f"{100 * (sent_b + dropped * mean) / payload - 100:.1f} %"
# The receiver's socket: the server's for uploads.
sockdrops = (u1s - u0s) if direction == "up" else (u1c - u0c)
opts = f" `{extra}`" if extra else ""
print(f"| {label}{opts} | {server} | {proto} | {direction} | {ok} | {secs:.2f} | "
      f"{goodput / 1e6:.1f} | {100 * goodput / rate:.1f} % | {resent} | {dropped} | "
      f"{sockdrops} | {wire} |")
EOF
)")
	echo "${rows[-1]}" >&2
}

labels=()
[ -z "$shb_base" ] || labels+=("base:$shb_base")
labels+=("new:$shb")
for kase in $cases; do
	for lb in "${labels[@]}"; do
		run_case "${lb%%:*}" "${lb#*:}" "$kase"
		if [ "$lab" = 1 ] && [ "${lb%%:*}" = new ] && [ "${kase%%-*}" = h3 ]; then
			run_case new "${lb#*:}" "$kase" --proto-opt initial-window=4M --proto-opt pacing=0
		fi
	done
done

# --- results ----------------------------------------------------------------------

{
	echo "# shb on a ${rate} bottleneck ($(date -u +%Y-%m-%d))"
	echo
	echo "Two network namespaces joined by a veth pair; each end's egress is"
	echo "\`tc qdisc add dev DEV root tbf rate $rate burst $burst latency $latency\`."
	echo "No added propagation delay: the RTT is the queue's. One connection,"
	echo "$nreq requests of $size bytes one after another (\`-c 1 -n $nreq\`);"
	echo "goodput is body bytes over the run's time (set-up excluded)."
	echo "Machine: $(nproc) CPUs, $(uname -sr); caddy $(caddy version 2>/dev/null | awk '{print $1}'),"
	echo "gtlsserver $(dpkg-query -W -f='${Version}' ngtcp2-server 2>/dev/null || echo '?')."
	echo
	echo "| build | server | proto | direction | ok | seconds | goodput Mbit/s | of link | sent again | drops at bottleneck | receiver socket drops | wire bytes over payload |"
	echo "|---|---|---|---|---:|---:|---:|---:|---|---:|---:|---:|"
	printf '%s\n' "${rows[@]}"
	echo
	echo "\"sent again\": h3 uploads, shb's count of stream bytes sent again"
	echo "after a loss; h3 downloads, the server packets the bottleneck dropped"
	echo "(each must be sent again: a floor); h2, the sender's TCP RetransSegs"
	echo "times 1448. \"wire bytes over payload\": every byte the sender put on"
	echo "the link (dropped ones included) beyond the bodies: headers, ACKs"
	echo "the other way are not in it, retransmissions are. \"receiver socket"
	echo "drops\": UDP datagrams the receiving namespace's sockets had no room"
	echo "for (RcvbufErrors): losses that are not the link's."
} >"$out"
echo "link.sh: results in $out" >&2
