#!/usr/bin/env bash
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
# with the same phases and no stops. See bench/README.md.
set -euo pipefail

prog=h3_after.sh
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"

usage() {
	cat <<'USAGE'
Usage: bench/h3_after.sh --out DIR/NAME [options]

One open-loop shb h3 run against gtlsserver on loopback with a loss
episode in the middle (the server stopped and continued in a cycle);
writes NAME.json (shb's report), NAME.samples, NAME.csv (one row per
interval) and NAME.txt (the phases' means, also printed).

Options (whole numbers):
      --out PREFIX       path prefix of the four files (required)
      --rate N           requests per second, open loop (default: 1000)
      --conns N          connections (default: 300)
      --duration S       length of the run in seconds (default: 180)
      --at S             when the episode starts, seconds in (default: 60)
      --episode S        length of the episode in seconds (default: 20)
      --stop-ms MS       the server stopped this long each cycle (default: 400)
      --go-ms MS         then running this long (default: 600)
      --interval S       shb's --interval, seconds (default: 5)
      --build DIR        the build directory of shb (default: build)
      --control          the same run and phases without stopping the server
  -h, --help             print this help and exit
USAGE
}

out="" rate=1000 conns=300 duration=180 at=60 episode=20 stop_ms=400 go_ms=600
interval=5 build=$root/build control=0
parse_options --out=out --rate=rate --conns=conns --duration=duration --at=at \
	--episode=episode --stop-ms=stop_ms --go-ms=go_ms --interval=interval \
	--build=build --control=control:1 -- "$@"
[ -n "$out" ] || die "--out is required"
check_int --rate "$rate" 1 1000000
check_int --conns "$conns" 1 100000
check_int --duration "$duration" 10 86400
check_int --at "$at" 0 "$duration"
check_int --episode "$episode" 0 "$duration"
check_int --stop-ms "$stop_ms" 1 60000
check_int --go-ms "$go_ms" 1 60000
check_int --interval "$interval" 1 3600
shb=$build/core/shb
[ -x "$shb" ] || die "no $shb (build first)"

srv=""
stop_gtlsserver() { # the exit hook: a stopped server is continued first
	[ -n "$srv" ] || return 0
	kill -CONT "$srv" 2>/dev/null || true
	h3srv_stop "$srv" 2>/dev/null || true
}
scratch_dir h3-after stop_gtlsserver
# shellcheck source=tests/h3/servers/gtlsserver.sh
source "$root/tests/h3/servers/gtlsserver.sh"
mkdir -p "$tmp/srv"
h3srv_start_gtlsserver "$tmp/srv" >&2 || { echo "$prog: gtlsserver did not start" >&2; exit 1; }
srv=$H3SRV_PID

ms_to_s() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }
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
	echo "$(date +%s%N) $(pid_ticks "$pid" || echo -) $(pid_ticks "$srv" || echo -) $(drops "$H3SRV_PORT" || echo -)" \
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
python3 "$root/bench/h3_after.py" "$out.json" "$out.samples" "$at" "$episode" "$out.csv" | tee -a "$out.txt"
