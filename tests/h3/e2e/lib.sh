# Helpers for the HTTP/3 end-to-end scripts: sourced, never run on its
# own. Builds on the general end-to-end helpers (tests/e2e/lib.sh: fail,
# note, run_shb, check, check_no_errors, E2E_TMP, ...) and adds real
# HTTP/3 servers (tests/h3/servers) and the lossy relay (shb-udp-relay).
#
#   start_caddy [NAME]        caddy: h1/h2 on TCP, h3 on UDP, same port
#   start_gtlsserver [NAME]   ngtcp2's gtlsserver: h3 only
#   start_bun [NAME]          bun (npm): h1/h2 on TCP, h3 on UDP
#   start_relay [--name NAME] UPSTREAM_PORT [RELAY OPTIONS...]
#                             shb-udp-relay on 127.0.0.1 in front of it
#   stop_h3 NAME, stop_relay NAME, stop_all (also runs on exit)
#
# Each start_* prints the port on stdout and sets NAME_PORT and NAME_PID
# (NAME defaults to caddy, gtlsserver, bun, relay); start_relay also sets
# NAME_STATS, the JSON stats file the relay writes when it stops
# ({"sessions", "up": {"in", "out", "dropped", "duplicated", "reordered",
# "sendErrors"}, "down": {...}}). Inside $(...) only the printed port
# reaches the caller; the server is still stopped at exit.
# All servers serve the same files: / (13 bytes "hello, world!"), /1m
# (H3_DOCROOT/1m, 1 MiB) and POST /echo; see tests/h3/servers/README.md.
# H3_CERT is the servers' self-signed certificate (PEM).
#
# A missing server package makes the whole script exit 77 (skipped),
# naming the package to install; no part of a test is ever left out
# while the test reports success.

# shellcheck source-path=SCRIPTDIR
H3_E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../e2e/lib.sh
source "$H3_E2E_DIR/../../e2e/lib.sh"
# shellcheck source=../servers/caddy.sh
source "$H3_E2E_DIR/../servers/caddy.sh"
# shellcheck source=../servers/gtlsserver.sh
source "$H3_E2E_DIR/../servers/gtlsserver.sh"
# shellcheck source=../servers/bun.sh
source "$H3_E2E_DIR/../servers/bun.sh"

H3_TMP=$E2E_TMP/h3
H3_PIDS=$H3_TMP/pids
# shellcheck disable=SC2034 # for the test scripts
H3_CERT=$H3_TMP/cert.pem
H3_DOCROOT=$H3_TMP/www
mkdir -p "$H3_PIDS"

# missing WHAT PACKAGE: skip (77).
h3_missing() {
	skip "$1 is not installed ($2)"
}

# need_h3 WHAT...: each of caddy, gtlsserver, gtlsclient, bun, relay is
# available; call it first so that a test skips before starting anything.
need_h3() {
	local w
	for w in "$@"; do
		case $w in
		caddy) h3srv_caddy_bin >/dev/null || h3_missing caddy "Debian package caddy" ;;
		gtlsserver) h3srv_gtlsserver_bin >/dev/null ||
			h3_missing gtlsserver "Debian package ngtcp2-server" ;;
		gtlsclient) command -v "${GTLSCLIENT:-gtlsclient}" >/dev/null ||
			h3_missing gtlsclient "Debian package ngtcp2-client" ;;
		bun) h3srv_bun_bin >/dev/null ||
			h3_missing bun "npm package bun, e.g. npm install -g bun" ;;
		relay) [[ -n "${SHB_UDP_RELAY:-}" && -x "$SHB_UDP_RELAY" ]] ||
			fail "SHB_UDP_RELAY is not set to the shb-udp-relay binary" ;;
		*) fail "need_h3: unknown '$w'" ;;
		esac
	done
}

# h3_register NAME PID PORT: remembered for stop_all (a file, so that a
# server started inside $(...) is stopped too), variables, printed port.
h3_register() {
	echo "$2" >"$H3_PIDS/$1.pid"
	printf -v "${1}_PID" '%s' "$2"
	printf -v "${1}_PORT" '%s' "$3"
	echo "$3"
}

# h3_instance_dir NAME: a directory of its own for one server, sharing
# the certificate and the files.
h3_instance_dir() {
	local d=$H3_TMP/$1
	[[ ! -e "$H3_PIDS/$1.pid" ]] || fail "a server named $1 is already running"
	h3srv_make_cert "$H3_TMP" >&2 || fail "cannot make a certificate"
	h3srv_make_docroot "$H3_DOCROOT" >&2 || fail "cannot write the server files"
	mkdir -p "$d"
	cp "$H3_TMP/cert.pem" "$H3_TMP/key.pem" "$d/"
	[[ -e "$d/www" ]] || ln -s "$H3_DOCROOT" "$d/www"
	echo "$d"
}

# h3_start KIND NAME: starts server KIND (caddy, gtlsserver, bun).
h3_start() {
	local kind=$1 name=$2 dir
	need_h3 "$kind"
	dir=$(h3_instance_dir "$name")
	"h3srv_start_$kind" "$dir" >&2 || fail "$kind did not start (log: $dir/$kind.log)"
	h3_register "$name" "$H3SRV_PID" "$H3SRV_PORT"
}

start_caddy() { h3_start caddy "${1:-caddy}"; }
start_gtlsserver() { h3_start gtlsserver "${1:-gtlsserver}"; }
start_bun() { h3_start bun "${1:-bun}"; }

# start_relay [--name NAME] UPSTREAM_PORT [RELAY OPTIONS...]: the relay
# listens on 127.0.0.1 (a free port) and forwards to 127.0.0.1:UPSTREAM
# _PORT; options given after it (--loss, --seed, --listen, ...) win.
start_relay() {
	local name=relay
	if [[ "${1:-}" == --name ]]; then
		name=$2
		shift 2
	fi
	local up=${1:?start_relay: UPSTREAM_PORT missing}
	shift
	need_h3 relay
	[[ ! -e "$H3_PIDS/$name.pid" ]] || fail "a relay named $name is already running"
	local pf=$H3_TMP/$name.port sf=$H3_TMP/$name.stats log=$H3_TMP/$name.log _
	rm -f "$pf" "$sf"
	"$SHB_UDP_RELAY" --listen 127.0.0.1:0 --upstream "127.0.0.1:$up" \
		--port-file "$pf" --stats-file "$sf" "$@" >"$log" 2>&1 </dev/null &
	local pid=$!
	for _ in $(seq 1 200); do
		[[ -s "$pf" ]] && break
		h3srv_alive "$pid" || break
		sleep 0.05
	done
	[[ -s "$pf" ]] || { cat "$log" >&2; kill "$pid" 2>/dev/null; fail "relay did not start"; }
	printf -v "${name}_STATS" '%s' "$sf"
	h3_register "$name" "$pid" "$(cat "$pf")"
}

# stop_h3 NAME: stops the server or relay NAME (SIGTERM, SIGKILL after
# 5 s).
stop_h3() {
	local f=$H3_PIDS/$1.pid
	[[ -f "$f" ]] || fail "stop_h3: nothing named $1 is running"
	h3srv_stop "$(cat "$f")"
	rm -f "$f"
}

# stop_relay NAME: stops relay NAME (default relay), which must exit
# cleanly (status 0 when it is this shell's child: a sanitizer build
# fails it on a leak) and have written its stats file.
stop_relay() {
	local name=${1:-relay}
	stop_h3 "$name"
	if [[ -n "$H3SRV_STATUS" && "$H3SRV_STATUS" != 0 ]]; then
		cat "$H3_TMP/$name.log" >&2 || true
		fail "relay $name exited with status $H3SRV_STATUS"
	fi
	[[ -s "$H3_TMP/$name.stats" ]] || { cat "$H3_TMP/$name.log" >&2 || true; fail "relay $name wrote no stats"; }
}

# stop_all: stops everything started here that is still running.
stop_all() {
	local f
	for f in "$H3_PIDS"/*.pid; do
		[[ -e "$f" ]] || continue
		h3srv_stop "$(cat "$f")"
		rm -f "$f"
	done
}

# h3_logs: the tail of every server and relay log, for a failure report.
h3_logs() {
	local f
	for f in "$H3_TMP"/*.log "$H3_TMP"/*/*.log; do
		[[ -f "$f" && "$f" != */cert.log ]] || continue
		echo "--- ${f#"$H3_TMP"/}:" >&2
		tail -n 20 "$f" >&2 || true
	done
}

# h3_stat FILE PATH: prints one value of a JSON file such as a relay's
# stats (PATH like up.dropped).
h3_stat() {
	"$SHB_JCHECK" --get "$1" "$2"
}

h3_on_exit() {
	local rc=$?
	stop_all
	[[ $rc -eq 0 || $rc -eq 77 ]] || h3_logs
	e2e_cleanup
	exit "$rc"
}
trap h3_on_exit EXIT

# h3_get PORT URL_PATH OUT [GTLSCLIENT OPTIONS...]: one request with
# gtlsclient to 127.0.0.1:PORT (authority localhost:PORT); the body goes
# to OUT, the status to H3_STATUS (empty when no response came). Never
# fails by itself. Options such as "-m POST -d FILE" make it a POST.
# shellcheck disable=SC2034 # H3_STATUS: read by the caller
h3_get() {
	local port=$1 path=$2 out=$3 dl=$H3_TMP/dl.$$ log=$H3_TMP/gtlsclient.log
	shift 3
	rm -rf "$dl" "$out"
	mkdir -p "$dl"
	H3_STATUS=
	timeout -k 2 30 "${GTLSCLIENT:-gtlsclient}" --no-quic-dump --no-http-dump \
		--download="$dl" --exit-on-all-streams-close "$@" \
		127.0.0.1 "$port" "https://localhost:$port$path" >"$log" 2>&1 || true
	H3_STATUS=$(sed -n 's/^http: stream 0x0 \[:status: \([0-9]*\)\]$/\1/p' "$log" | head -n 1)
	local f
	for f in "$dl"/*; do
		[[ -f "$f" ]] && mv "$f" "$out"
	done
	[[ -f "$out" ]] || : >"$out"
	rm -rf "$dl"
}
