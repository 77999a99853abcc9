#!/bin/bash
# h3_after.sh: does an h3 connection cost shb more per request after a
# loss episode? One open-loop shb h3 run against gtlsserver on loopback;
# in the middle the server is stopped and continued in a cycle
# (SIGSTOP for --stop-ms, SIGCONT for --go-ms) for --episode seconds, so
# that its socket buffer overflows and datagrams are dropped as in a
# loaded soak. shb's and the server's CPU (utime + stime) are sampled
# every 0.2 s and divided by each interval's ok requests; shb's VmRSS
# and the server socket's receive drops are sampled with them. Writes
# OUT.csv (one row per interval) and prints the means of the phases:
# before, during and after the episode. --control makes the same run
# with the same phases and no stops.
#
#   bench/h3_after.sh --out DIR/NAME [--rate 1000] [--conns 300]
#       [--duration 180] [--at 60] [--episode 20] [--stop-ms 400]
#       [--go-ms 600] [--interval 5] [--build build] [--control]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out="" rate=1000 conns=300 duration=180 at=60 episode=20 stop_ms=400 go_ms=600 interval=5
build=$root/build control=0
while [ $# -gt 0 ]; do
	case $1 in
	--control) control=1; shift; continue ;;
	--out | --rate | --conns | --duration | --at | --episode | --stop-ms | --go-ms | --interval | --build)
		[ $# -ge 2 ] || { echo "h3_after.sh: $1 needs a value" >&2; exit 2; } ;;
	*) echo "h3_after.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
	case $1 in
	--out) out=$2 ;;
	--rate) rate=$2 ;;
	--conns) conns=$2 ;;
	--duration) duration=$2 ;;
	--at) at=$2 ;;
	--episode) episode=$2 ;;
	--stop-ms) stop_ms=$2 ;;
	--go-ms) go_ms=$2 ;;
	--interval) interval=$2 ;;
	--build) build=$2 ;;
	esac
	shift 2
done
[ -n "$out" ] || { echo "h3_after.sh: --out is required" >&2; exit 2; }
whole() { # name value low high
	[[ "$2" =~ ^[0-9]+$ ]] && [ "$2" -ge "$3" ] && [ "$2" -le "$4" ] ||
		{ echo "h3_after.sh: --$1 must be a whole number in $3..$4, not '$2'" >&2; exit 2; }
}
whole rate "$rate" 1 1000000
whole conns "$conns" 1 100000
whole duration "$duration" 10 86400
whole at "$at" 0 "$duration"
whole episode "$episode" 0 "$duration"
whole stop-ms "$stop_ms" 1 60000
whole go-ms "$go_ms" 1 60000
whole interval "$interval" 1 3600
shb=$build/core/shb
[ -x "$shb" ] || { echo "h3_after.sh: no $shb (build first)" >&2; exit 2; }

tmp=$(mktemp -d)
# shellcheck source=tests/h3/servers/gtlsserver.sh
source "$root/tests/h3/servers/gtlsserver.sh"
mkdir -p "$tmp/srv"
h3srv_start_gtlsserver "$tmp/srv" >&2 || { echo "h3_after.sh: gtlsserver did not start" >&2; exit 1; }
srv=$H3SRV_PID
cleanup() {
	kill -CONT "$srv" 2>/dev/null || true
	h3srv_stop "$srv" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

ms_to_s() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }
ticks() { # pid -> utime+stime
	awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null
}
drops() { # udp port -> the socket's receive drops (ss skmem d<N>)
	ss -uamn "sport = :$1" 2>/dev/null | sed -nE 's/.*,d([0-9]+)\).*/\1/p' | head -n 1
}

SHB_PLUGIN_PATH=$build/plugins/h3/plugin:$build/plugins/reporters \
	"$shb" --proto h3 -t 1 -c "$conns" -p 1 -R "$rate" -z "${duration}s" \
	--interval "${interval}s" --report "json:$tmp/r.json" \
	"https://127.0.0.1:$H3SRV_PORT/" </dev/null >"$tmp/shb.log" 2>&1 &
pid=$!
t0=$(date +%s%N)

if [ "$control" -eq 0 ] && [ "$episode" -gt 0 ]; then
	(
		sleep "$at"
		end=$(($(date +%s%N) + episode * 1000000000))
		while [ "$(date +%s%N)" -lt "$end" ]; do
			kill -STOP "$srv"
			sleep "$(ms_to_s "$stop_ms")"
			kill -CONT "$srv"
			sleep "$(ms_to_s "$go_ms")"
		done
		kill -CONT "$srv"
	) &
	ep=$!
fi

: >"$tmp/samples"
while kill -0 "$pid" 2>/dev/null; do
	echo "$(date +%s%N) $(ticks "$pid" || echo -) $(ticks "$srv" || echo -) $(drops "$H3SRV_PORT" || echo -)" \
		"$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo -)" \
		>>"$tmp/samples"
	sleep 0.2
done
rc=0
wait "$pid" || rc=$?
[ -z "${ep:-}" ] || wait "$ep" || true
cp "$tmp/r.json" "$out.json" 2>/dev/null || { cat "$tmp/shb.log" >&2; exit 1; }
cp "$tmp/samples" "$out.samples"
echo "shb exit $rc, control $control, episode ${episode}s from ${at}s (stop ${stop_ms} ms / go ${go_ms} ms), t0 $t0" >"$out.txt"
python3 "$here/h3_after.py" "$out.json" "$out.samples" "$at" "$episode" "$out.csv" | tee -a "$out.txt"
