#!/usr/bin/env bash
# End to end: the installed shb with this plugin against a real WebSocket
# server (tests/echo_server.py on Debian's python3-websockets) on
# loopback, over ws:// and wss://, with exact counts from the JSON report.
#
#   tests/e2e.sh [SHB [PLUGIN_DIR]]     (meson test runs it as ws-e2e)
#
# SHB is the shb binary (default: $SHB, else shb on PATH), PLUGIN_DIR the
# directory holding the built shb-proto-ws.so (default: $WS_PLUGIN_DIR).
# The servers are started and stopped here, by PID. A missing shb,
# python3-websockets or certificate tool fails the test.
# shellcheck disable=SC2154 # plain_PORT, tls_PORT: set by start_server
set -euo pipefail

shb=${1:-${SHB:-$(command -v shb || true)}}
plugdir=${2:-${WS_PLUGIN_DIR:-}}
[[ -n "$shb" && -x "$shb" ]] || { echo "FAIL [ws-e2e]: no shb to run: install shb or set SHB" >&2; exit 1; }
[[ -f "$plugdir/shb-proto-ws.so" ]] || { echo "FAIL [ws-e2e]: no shb-proto-ws.so in '$plugdir' (set WS_PLUGIN_DIR)" >&2; exit 1; }
plugdir=$(realpath "$plugdir")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d -t shb-ws-e2e.XXXXXX)
pids=()

cleanup() {
	local p
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
	echo "FAIL [ws-e2e]: $*" >&2
	exit 1
}

# A python3 that has the websockets module (Debian's lives in the system
# python3, which another python3 on PATH may shadow).
py=""
for c in python3 /usr/bin/python3; do
	if command -v "$c" >/dev/null && "$c" -c 'import websockets' 2>/dev/null; then
		py=$c
		break
	fi
done
[ -n "$py" ] || fail "no python3 with the websockets module (Debian package python3-websockets)"

# A throwaway certificate for 127.0.0.1.
if command -v openssl >/dev/null; then
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 2 -subj /CN=localhost \
		-addext 'subjectAltName=DNS:localhost,IP:127.0.0.1' >"$tmp/cert.log" 2>&1 ||
		{ cat "$tmp/cert.log" >&2; fail "openssl could not make a certificate"; }
elif command -v certtool >/dev/null; then
	printf '%s\n' 'cn = localhost' 'dns_name = localhost' 'ip_address = 127.0.0.1' \
		'expiration_days = 2' 'tls_www_server' 'signing_key' >"$tmp/cert.tmpl"
	{ certtool --generate-privkey --key-type ecdsa --outfile "$tmp/key.pem" &&
	  certtool --generate-self-signed --load-privkey "$tmp/key.pem" \
		--template "$tmp/cert.tmpl" --outfile "$tmp/cert.pem"; } >"$tmp/cert.log" 2>&1 ||
		{ cat "$tmp/cert.log" >&2; fail "certtool could not make a certificate"; }
else
	fail "neither openssl nor certtool is installed to make a certificate"
fi

# start_server NAME [CERT KEY]: sets NAME_PORT.
start_server() {
	local name=$1 pf=$tmp/$1.port pid _
	shift
	PYTHONDONTWRITEBYTECODE=1 "$py" "$here/echo_server.py" "$pf" "$@" \
		>"$tmp/$name.log" 2>&1 &
	pid=$!
	pids+=("$pid")
	for _ in $(seq 1 200); do
		[ -s "$pf" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	[ -s "$pf" ] || { cat "$tmp/$name.log" >&2; fail "the $name server did not start"; }
	printf -v "${name}_PORT" '%s' "$(cat "$pf")"
}

# run NAME RC ARGS...: one shb run that must exit with RC; its JSON report
# is $tmp/NAME.json.
run() {
	local name=$1 want=$2 rc=0
	shift 2
	timeout -k 5 60 "$shb" -q --plugin-dir "$plugdir" --proto ws \
		--report "json:$tmp/$name.json" "$@" \
		>"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null || rc=$?
	if [ "$rc" -ne "$want" ]; then
		cat "$tmp/$name.out" "$tmp/$name.err" >&2
		fail "$name: shb $* exited $rc, expected $want"
	fi
}

# check NAME EXPR...: each Python expression over the report `r` holds.
check() {
	local name=$1
	shift
	"$py" - "$tmp/$name.json" "$@" <<'PY' || fail "$name: see above"
import json, sys
r = json.load(open(sys.argv[1]))
def app(code):
    """(count, ok) of WebSocket close code `code` in appOutcomes."""
    for a in r.get("appOutcomes", []):
        if a["space"] == "websocket" and a["code"] == code:
            return (a["count"], a["ok"])
    return (0, None)
bad = [e for e in sys.argv[2:] if not eval(e)]
for e in bad:
    print("not true: %s" % e, file=sys.stderr)
if bad:
    print(json.dumps({k: r[k] for k in ("requests", "errors", "appOutcomes",
                                        "errorSamples") if k in r}),
          file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

rate() {
	"$py" -c 'import json, sys; r = json.load(open(sys.argv[1])); print("%.0f" % r["requestsPerSec"])' "$tmp/$1.json"
}

start_server plain
start_server tls "$tmp/cert.pem" "$tmp/key.pem"
ws="ws://127.0.0.1:$plain_PORT"
wss="wss://127.0.0.1:$tls_PORT"

# 1000 echoes over 4 connections, 4 messages in flight on each.
run plain 0 -n 1000 -c 4 -p 4 "$ws/"
check plain 'r["requests"]["total"] == 1000' 'r["requests"]["ok"] == 1000' \
	'r["requests"]["errors"] == 0' 'app(1000) == (1000, True)' \
	'len(r["appOutcomes"]) == 1' 'r["connectionsOpened"] == 4' \
	'r["rxBodyBytes"] == 1000' 'r["rxHeaderBytes"] == 2000' \
	"r[\"url\"] == \"$ws/\"" \
	"any(p[\"id\"] == \"org.shb.example.ws\" and p[\"path\"] == \"$plugdir/shb-proto-ws.so\" for p in r[\"plugins\"])" \
	'r["metrics"]["ws_msgs_sent"]["count"] == 1000' \
	'r["metrics"]["ws_msgs_received"]["count"] == 1000' \
	'r["metrics"]["ws_msg_latency"]["count"] == 1000' \
	'r["metrics"]["ws_msg_latency"]["kind"] == "latency"'
echo "# ws: 1000 echoes, $(rate plain) req/s"

# The same over TLS, the certificate checked.
run tls 0 -n 1000 -c 4 -p 4 --cacert "$tmp/cert.pem" "$wss/"
check tls 'r["requests"]["ok"] == 1000' 'r["requests"]["errors"] == 0' \
	'app(1000) == (1000, True)' 'r["connectionsOpened"] == 4'
echo "# wss: 1000 echoes, $(rate tls) req/s"

# The server pings before each answer and waits for the pong.
run ping 0 -n 200 -c 2 -p 1 "$ws/ping"
check ping 'r["requests"]["ok"] == 200' 'r["requests"]["errors"] == 0'

# A 70000-byte body (64-bit frame length), answered in fragments: 1 byte,
# 69999 bytes, and the empty final one websockets ends with (headers of 2,
# 10 and 2 bytes).
head -c 70000 /dev/zero | tr '\0' 'w' >"$tmp/body"
run frag 0 -n 100 -c 2 -p 2 -d "@$tmp/body" "$ws/frag"
check frag 'r["requests"]["ok"] == 100' 'r["requests"]["errors"] == 0' \
	'r["rxBodyBytes"] == 100 * 70000' 'r["rxHeaderBytes"] == 100 * (2 + 10 + 2)' \
	'r["bytesSent"] >= 100 * 70000'

# A close code other than 1000/1001 is the application's answer: an error.
run close1011 1 -n 20 -c 2 "$ws/close/1011"
check close1011 'r["requests"]["ok"] == 0' 'r["requests"]["errors"] == 20' \
	'r["errors"]["application"] == 20' 'app(1011) == (20, False)'
# A normal close leaves the message unanswered: refused and resent on a
# new connection. A server that refuses every request on 5 connections in
# a row, and never answered one, stops the run with one line naming it
# (shb's policy for connections that never succeed), exit 1; nothing was
# answered, so nothing is counted.
run close1001 1 -n 2 -c 1 "$ws/close/1001"
check close1001 'r["requests"]["total"] == 0' 'r["requests"]["retried"] == 5' \
	'r["appOutcomes"] == []'
grep -qE "^shb: no connection to .* ever succeeded: every connection failed 5 times in a row, the last with: every request refused by the server" \
	"$tmp/close1001.err" || { cat "$tmp/close1001.err" >&2; fail "close1001: no early-stop line"; }

# An answer longer than max-message is a protocol error, and ends its
# connection before any request succeeded: after 5 such connections in a
# row the run stops with one line (shb's policy for connections that never
# succeed), so 5 of the 10 requests are counted, each a protocol error.
run toobig 1 -n 10 -c 1 --proto-opt max-message=150 -d 0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz "$ws/double"
check toobig 'r["requests"]["ok"] == 0' 'r["requests"]["errors"] == 5' \
	'r["errors"]["protocol"] == 5'
grep -qE "^shb: no connection to .* ever succeeded: every connection failed 5 times in a row, the last with: ws: a message longer than max-message" \
	"$tmp/toobig.err" || { cat "$tmp/toobig.err" >&2; fail "toobig: no early-stop line"; }

# An unknown option: one line naming the known one, exit 2, no traffic.
rc=0
"$shb" -q --plugin-dir "$plugdir" --proto ws --proto-opt frame=1 -n 1 "$ws/" \
	>"$tmp/badopt.out" 2>"$tmp/badopt.err" </dev/null || rc=$?
[ "$rc" -eq 2 ] || fail "badopt: exit $rc, expected 2"
if [ "$(wc -l <"$tmp/badopt.err")" -ne 1 ] || ! grep -q 'max-message' "$tmp/badopt.err"; then
	cat "$tmp/badopt.err" >&2
	fail "badopt: not one line naming max-message"
fi

for p in "${pids[@]}"; do
	kill -TERM "$p"
	wait "$p" || fail "a server exited with status $?"
done
pids=()
echo "# passed"
