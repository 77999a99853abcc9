#!/usr/bin/env bash
# The example end to end: the installed shb, this build's plugin and the
# installed HTTP/2 plugin against a real gRPC server (grpc_server.py on
# Debian's python3-grpcio) on loopback, started and stopped here by PID.
#   e2e.sh GRPC_SERVER_PY
# Environment: GRPC_PLUGIN_DIR (this build), SHB (default: shb on PATH).
# Checks exact counts from the JSON report: 500 calls to Echo all ok with
# grpc-status 0; 500 calls to Fail all errors of kind application with
# grpc-status 3 and the server's message as the sample; 500 calls of each
# streaming kind (Stream, Collect, Chat) ok with the octets of exactly the
# messages the server sends; Stream as a unary call, 500 protocol errors;
# 4 calls to a stream that never ends, each ended by --timeout.
set -euo pipefail

server_py=$1
shb=${SHB:-$(command -v shb || true)}
# Debian's interpreter: python3-grpcio installs for it.
py=/usr/bin/python3
tmp=$(mktemp -d -t shb-grpc-e2e.XXXXXX)
pid=

cleanup() {
	if [[ -n "$pid" ]]; then
		kill -TERM "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
	echo "FAIL [grpc-e2e]: $*" >&2
	exit 1
}

[[ -n "$shb" && -x "$shb" ]] || fail "no shb to run: install shb or set SHB"
[[ -n "${GRPC_PLUGIN_DIR:-}" && -f "$GRPC_PLUGIN_DIR/shb-proto-grpc.so" ]] ||
	fail "GRPC_PLUGIN_DIR does not hold shb-proto-grpc.so"
"$py" -c 'import grpc' 2>/dev/null ||
	fail "python3-grpcio is not installed (scripts/setup.sh --with-test-servers installs it)"

"$py" "$server_py" --port-file "$tmp/port" 2>"$tmp/server.log" &
pid=$!
for _ in $(seq 100); do
	[[ -s "$tmp/port" ]] && break
	kill -0 "$pid" 2>/dev/null || fail "the gRPC server exited: $(cat "$tmp/server.log")"
	sleep 0.1
done
[[ -s "$tmp/port" ]] || fail "the gRPC server did not listen within 10 s"
port=$(cat "$tmp/port")

# run NAME METHOD [SHB-ARGS...]: 500 calls, 2 connections, 8 streams
# each, the message "hello", unless SHB-ARGS say otherwise (-n, -c, -p
# last win; a message-bytes option replaces -d); JSON report in
# $tmp/NAME.json. Exit status 0 (all ok) or 1 (errors) is fine here: the
# counts decide.
run() {
	local rc=0 name=$1 method=$2 data=(-d hello)
	shift 2
	[[ " $* " != *" message-bytes="* ]] || data=()
	timeout 120 "$shb" --plugin-dir "$GRPC_PLUGIN_DIR" --proto grpc \
		-n 500 -c 2 -p 8 -q "${data[@]}" --report "json:$tmp/$name.json" "$@" \
		"grpc://127.0.0.1:$port/shb.test.Echo/$method" >"$tmp/$name.out" 2>&1 || rc=$?
	if [[ $rc -gt 1 ]]; then
		cat "$tmp/$name.out" >&2
		fail "$method: shb exited with $rc"
	fi
	[[ -s "$tmp/$name.json" ]] || fail "$method: no JSON report: $(cat "$tmp/$name.out")"
}

# check NAME PYTHON-ASSERTIONS: evaluated with the report as `r`.
check() {
	"$py" - "$tmp/$1.json" "$2" <<'PY' || fail "$1: $(cat "$tmp/$1.json")"
import json, sys
r = json.load(open(sys.argv[1]))
for line in sys.argv[2].strip().splitlines():
    if not eval(line):
        print("check failed: " + line.strip(), file=sys.stderr)
        sys.exit(1)
PY
}

run echo Echo
check echo '
r["requests"]["total"] == 500
r["requests"]["ok"] == 500
r["requests"]["errors"] == 0
r["statusCodes"] == {"200": 500}
r["appOutcomes"] == [{"space": "grpc", "code": 0, "ok": True, "count": 500}]
r["rxBodyBytes"] == 500 * (5 + len("hello"))
r["metrics"]["grpc_msgs_sent"]["count"] == 500
r["metrics"]["grpc_msgs_received"]["count"] == 500
'
echo "# Echo: $("$py" -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["requestsPerSec"]))' "$tmp/echo.json" 2>/dev/null || echo '?') req/s"

run fail Fail
check fail '
r["requests"]["total"] == 500
r["requests"]["ok"] == 0
r["requests"]["errors"] == 500
r["errors"]["application"] == 500
sum(r["errors"].values()) == 500
r["errorSamples"]["application"] == "grpc: INVALID_ARGUMENT (3): fail on purpose"
r["appOutcomes"] == [{"space": "grpc", "code": 3, "ok": False, "count": 500}]
r["metrics"]["grpc_msgs_received"]["count"] == 0
'
echo "# Fail: 500 application errors with grpc-status 3"

# Server-streaming: each call answers "hello" 3 times.
run stream Stream --proto-opt call=server-stream
check stream '
r["requests"]["ok"] == 500
r["requests"]["errors"] == 0
r["appOutcomes"] == [{"space": "grpc", "code": 0, "ok": True, "count": 500}]
r["rxBodyBytes"] == 500 * 3 * (5 + len("hello"))
r["metrics"]["grpc_msgs_sent"]["count"] == 500
r["metrics"]["grpc_msgs_received"]["count"] == 1500
r["metrics"]["grpc_msg_latency"]["count"] == 1500
'
echo "# Stream: 500 calls of 3 messages"

# Client-streaming: 4 messages of 6 octets out, their 24 octets back as one.
run collect Collect --proto-opt call=client-stream --proto-opt messages=4 \
	--proto-opt message-bytes=6
check collect '
r["requests"]["ok"] == 500
r["requests"]["errors"] == 0
r["rxBodyBytes"] == 500 * (5 + 4 * 6)
r["metrics"]["grpc_msgs_sent"]["count"] == 2000
r["metrics"]["grpc_msgs_received"]["count"] == 500
'
echo "# Collect: 500 calls of 4 messages"

# Bidirectional: 5 messages out, each echoed.
run chat Chat --proto-opt call=bidi --proto-opt messages=5
check chat '
r["requests"]["ok"] == 500
r["requests"]["errors"] == 0
r["appOutcomes"] == [{"space": "grpc", "code": 0, "ok": True, "count": 500}]
r["rxBodyBytes"] == 500 * 5 * (5 + len("hello"))
r["metrics"]["grpc_msgs_sent"]["count"] == 2500
r["metrics"]["grpc_msgs_received"]["count"] == 2500
r["metrics"]["grpc_msg_latency"]["count"] == 2500
'
echo "# Chat: 500 calls of 5 messages each way"

# A server stream taken for a unary call: 3 messages is not a unary answer.
run unary_on_stream Stream
check unary_on_stream '
r["requests"]["ok"] == 0
r["errors"]["protocol"] == 500
r["errorSamples"]["protocol"] == "grpc: a unary response with more than one message"
'
echo "# Stream as unary: 500 protocol errors"

# A stream that never ends: --timeout ends each call, the run ends. The
# messages of an unfinished call are in bytesReceived (at least 20 of the
# 100 a second each call is sent), not in rxBodyBytes (a call's).
run forever Forever -n 4 -c 1 -p 4 --timeout 1s --proto-opt call=server-stream
check forever '
r["requests"]["total"] == 4
r["requests"]["ok"] == 0
r["errors"]["timeout"] == 4
r["bytesReceived"] >= 4 * 20 * (5 + len("hello"))
r["metrics"]["grpc_msgs_received"]["count"] >= 4 * 20
r["durationSeconds"] < 5
'
echo "# Forever: 4 calls ended by --timeout"
