#!/usr/bin/env bash
# End to end: the installed shb with this plugin against a real
# redis-server (Debian's redis-server) on a free loopback port, plain and
# over TLS, with exact counts from the JSON report and from the server
# itself (redis-cli): 1000 INCRs leave the counter at 1000, 1000 SETs of
# {seq} keys leave 1000 keys in the database SELECTed, error replies and
# nils are answers counted by name, a refused AUTH never prints the
# password.
#
#   tests/e2e.sh [SHB [PLUGIN_DIR]]     (meson test runs it as redis-e2e)
#
# SHB is the shb binary (default: $SHB, else shb on PATH), PLUGIN_DIR the
# directory holding the built shb-proto-redis.so (default:
# $REDIS_PLUGIN_DIR). The servers are started and stopped here, by PID,
# without persistence (--save "" --appendonly no). A missing shb,
# redis-server, redis-cli or certificate tool fails the test.
set -euo pipefail

shb=${1:-${SHB:-$(command -v shb || true)}}
plugdir=${2:-${REDIS_PLUGIN_DIR:-}}
[[ -n "$shb" && -x "$shb" ]] || { echo "FAIL [redis-e2e]: no shb to run: install shb or set SHB" >&2; exit 1; }
[[ -f "$plugdir/shb-proto-redis.so" ]] || { echo "FAIL [redis-e2e]: no shb-proto-redis.so in '$plugdir' (set REDIS_PLUGIN_DIR)" >&2; exit 1; }
plugdir=$(realpath "$plugdir")
tmp=$(mktemp -d -t shb-redis-e2e.XXXXXX)
pids=()

cleanup() {
	local p
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
	echo "FAIL [redis-e2e]: $*" >&2
	exit 1
}

for t in redis-server redis-cli python3; do
	command -v "$t" >/dev/null ||
		fail "no $t (Debian packages redis-server, redis-tools, python3)"
done

# A throwaway certificate for 127.0.0.1.
if command -v openssl >/dev/null; then
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 2 -subj /CN=localhost \
		-addext 'subjectAltName=DNS:localhost,IP:127.0.0.1' >"$tmp/cert.log" 2>&1 ||
		{ cat "$tmp/cert.log" >&2; fail "openssl could not make a certificate"; }
else
	fail "no openssl to make a certificate"
fi

# A port nothing listens on now (the kernel's choice, released at once).
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_redis ARGS...: a redis-server on 127.0.0.1:$port (plus ARGS), no
# persistence, in the foreground as our child; waits for PING.
port=$(free_port)
tls_port=$(free_port)
start_redis() {
	local pid _
	redis-server --bind 127.0.0.1 --port "$port" --save "" --appendonly no \
		--dir "$tmp" --daemonize no --logfile "$tmp/redis.log" \
		--tls-port "$tls_port" --tls-cert-file "$tmp/cert.pem" \
		--tls-key-file "$tmp/key.pem" --tls-ca-cert-file "$tmp/cert.pem" \
		--tls-auth-clients no "$@" </dev/null >"$tmp/redis.out" 2>&1 &
	pid=$!
	pids+=("$pid")
	for _ in $(seq 1 100); do
		[ "$(redis-cli -p "$port" PING 2>/dev/null)" = PONG ] && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	cat "$tmp/redis.out" "$tmp/redis.log" >&2 2>/dev/null || true
	fail "redis-server did not start on 127.0.0.1:$port"
}

cli() {
	redis-cli -p "$port" "$@"
}

# run NAME RC ARGS...: one shb run that must exit with RC; its JSON report
# is $tmp/NAME.json.
run() {
	local name=$1 want=$2 rc=0
	shift 2
	timeout -k 5 60 "$shb" -q --plugin-dir "$plugdir" --proto redis \
		--report "json:$tmp/$name.json" "$@" \
		>"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null || rc=$?
	if [ "$rc" -ne "$want" ]; then
		cat "$tmp/$name.out" "$tmp/$name.err" >&2
		fail "$name: shb $* exited $rc, expected $want"
	fi
}

# check NAME EXPR...: each Python expression over the report `r` holds;
# app(NAME) is (count, ok) of that redis outcome.
check() {
	local name=$1
	shift
	python3 - "$tmp/$name.json" "$@" <<'PY' || fail "$name: see above"
import json, sys
r = json.load(open(sys.argv[1]))
CODES = {"ok": 0, "nil": 1, "error": 2}
def app(name):
    for a in r.get("appOutcomes", []):
        if a["space"] in ("redis", "private:6379") and a["code"] == CODES[name]:
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
	python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print("%.0f" % r["requestsPerSec"])' "$tmp/$1.json"
}

start_redis
url="redis://127.0.0.1:$port"

# 1000 INCRs over 4 connections, 8 in flight on each: the server's
# counter is 1000 after, every reply an ok.
run incr 0 -n 1000 -c 4 -p 8 --proto-opt command=INCR --proto-opt key=ctr "$url"
check incr 'r["requests"]["total"] == 1000' 'r["requests"]["ok"] == 1000' \
	'r["requests"]["errors"] == 0' 'app("ok") == (1000, True)' \
	'len(r["appOutcomes"]) == 1' 'r["connectionsOpened"] == 4' \
	'r["bytesReceived"] == sum(len(":%d\r\n" % i) for i in range(1, 1001))' \
	'r["metrics"]["redis_pipeline_depth"]["count"] == 1000' \
	'1 <= r["metrics"]["redis_pipeline_depth"]["p50"] <= r["metrics"]["redis_pipeline_depth"]["max"] <= 8'
[ "$(cli GET ctr)" = 1000 ] || fail "incr: the counter is $(cli GET ctr), not 1000"
echo "# INCR: 1000 on 4 connections -p 8, $(rate incr) req/s"

# One connection, 16 in flight.
run pipe 0 -n 1000 -c 1 -p 16 --proto-opt command=INCR --proto-opt key=ctr2 "$url/"
check pipe 'r["requests"]["ok"] == 1000' 'r["connectionsOpened"] == 1'
[ "$(cli GET ctr2)" = 1000 ] || fail "pipe: the counter is $(cli GET ctr2), not 1000"

# {seq} keys in database 2 (SELECTed on connect): 1000 distinct keys,
# each holding its own number.
run seq 0 -n 1000 -c 4 -p 16 --proto-opt command=SET --proto-opt 'key=k:{seq}' \
	--proto-opt 'value={seq}' --proto-opt database=2 "$url"
check seq 'r["requests"]["ok"] == 1000' 'app("ok") == (1000, True)'
[ "$(cli -n 2 DBSIZE)" = 1000 ] || fail "seq: database 2 has $(cli -n 2 DBSIZE) keys, not 1000"
[ "$(cli -n 0 DBSIZE)" = 2 ] || fail "seq: database 0 has $(cli -n 0 DBSIZE) keys, not 2"
k=$(cli -n 2 RANDOMKEY)
[ "$(cli -n 2 GET "$k")" = "${k#k:}" ] || fail "seq: $k holds $(cli -n 2 GET "$k")"
# The URL's /3 selects database 3.
run url_db 0 -n 10 -c 1 --proto-opt command=SET --proto-opt 'key=u{seq}' \
	--proto-opt value=1 "$url/3"
[ "$(cli -n 3 DBSIZE)" = 10 ] || fail "url_db: database 3 has $(cli -n 3 DBSIZE) keys, not 10"

# nil: GET of a key nobody set is an answer, ok by default.
run nil 0 -n 200 -c 2 -p 4 --proto-opt command=GET --proto-opt key=nothing "$url"
check nil 'r["requests"]["ok"] == 200' 'app("nil") == (200, True)' \
	'r["requests"]["errors"] == 0'

# Error replies are answers that failed: INCR of a string, GET of a list.
cli SET word abc >/dev/null
cli RPUSH list a >/dev/null
run err 1 -n 300 -c 2 -p 4 --proto-opt command=INCR --proto-opt key=word "$url"
check err 'r["requests"]["total"] == 300' 'r["requests"]["ok"] == 0' \
	'r["requests"]["errors"] == 300' 'r["errors"]["application"] == 300' \
	'app("error") == (300, False)' \
	'r["errorSamples"].get("application") == "ERR"'
run wrongtype 1 -n 100 -c 1 --proto-opt command=GET --proto-opt key=list "$url"
check wrongtype 'r["errors"]["application"] == 100' 'app("error") == (100, False)' \
	'r["errorSamples"].get("application") == "WRONGTYPE"'
[ "$(cli GET word)" = abc ] || fail "err: word changed"

# TLS (rediss://), the certificate checked.
run tls 0 -n 500 -c 2 -p 4 --cacert "$tmp/cert.pem" "rediss://127.0.0.1:$tls_port"
check tls 'r["requests"]["ok"] == 500' 'app("ok") == (500, True)' \
	'r["connectionsOpened"] == 2'
echo "# PING over TLS: 500, $(rate tls) req/s"

# AUTH with an ACL user; a wrong password ends each connection with one
# line that names AUTH and WRONGPASS, never the password.
cli ACL SETUSER bob on '>s3cret-pw' '~*' '+@all' >/dev/null
run auth 0 -n 100 -c 2 --proto-opt user=bob --proto-opt auth=s3cret-pw \
	--proto-opt command=INCR --proto-opt key=bobs "$url"
[ "$(cli GET bobs)" = 100 ] || fail "auth: bob's counter is $(cli GET bobs), not 100"
run badauth 1 -n 10 -c 1 --proto-opt user=bob --proto-opt auth=Wr0ng-pw "$url"
grep -q "redis: AUTH refused: WRONGPASS" "$tmp/badauth.err" ||
	{ cat "$tmp/badauth.err" >&2; fail "badauth: no line naming AUTH and WRONGPASS"; }
if grep -rq "Wr0ng-pw" "$tmp/badauth.err" "$tmp/badauth.out" "$tmp/badauth.json"; then
	fail "badauth: the password is in the output"
fi

# An unknown option: one line naming the known ones, exit 2, no traffic.
rc=0
"$shb" -q --plugin-dir "$plugdir" --proto redis --proto-opt frame=1 -n 1 "$url" \
	>"$tmp/badopt.out" 2>"$tmp/badopt.err" </dev/null || rc=$?
[ "$rc" -eq 2 ] || fail "badopt: exit $rc, expected 2"
if [ "$(wc -l <"$tmp/badopt.err")" -ne 1 ] || ! grep -q 'command' "$tmp/badopt.err"; then
	cat "$tmp/badopt.err" >&2
	fail "badopt: not one line naming the options"
fi

stats=$(cli INFO stats | tr -d '\r')
echo "# server: $(echo "$stats" | grep -E '^total_commands_processed:')"
for p in "${pids[@]}"; do
	kill -TERM "$p"
	wait "$p" || fail "redis-server exited with status $?"
done
pids=()
echo "# passed"
