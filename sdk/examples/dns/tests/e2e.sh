#!/usr/bin/env bash
# End to end: the installed shb with this plugin against a real dnsmasq
# (Debian's dnsmasq-base) on a free loopback port, with a throwaway
# configuration of local records and no upstream: exact counts by outcome
# from the JSON report, and from dnsmasq's own query log (one line per
# query it received). Every outcome a local server can give is asked for:
# noerror, nodata, nxdomain (with {seq} names, each asked once), refused
# (a name it is not authoritative for), truncated (a TXT record over 512
# bytes without EDNS, whole with edns=1232).
#
#   tests/e2e.sh [SHB [PLUGIN_DIR]]     (meson test runs it as dns-e2e)
#
# SHB is the shb binary (default: $SHB, else shb on PATH), PLUGIN_DIR the
# directory holding the built shb-proto-dns.so (default: $DNS_PLUGIN_DIR).
# dnsmasq is started and stopped here, by PID. A missing shb, dnsmasq or
# python3 fails the test.
set -euo pipefail

shb=${1:-${SHB:-$(command -v shb || true)}}
plugdir=${2:-${DNS_PLUGIN_DIR:-}}
[[ -n "$shb" && -x "$shb" ]] || { echo "FAIL [dns-e2e]: no shb to run: install shb or set SHB" >&2; exit 1; }
[[ -f "$plugdir/shb-proto-dns.so" ]] || { echo "FAIL [dns-e2e]: no shb-proto-dns.so in '$plugdir' (set DNS_PLUGIN_DIR)" >&2; exit 1; }
plugdir=$(realpath "$plugdir")
tmp=$(mktemp -d -t shb-dns-e2e.XXXXXX)
chmod 755 "$tmp" # dnsmasq drops to its own user to write the log
pids=()

cleanup() {
	local p
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
	echo "FAIL [dns-e2e]: $*" >&2
	exit 1
}

dnsmasq=$(command -v dnsmasq || true)
[[ -n $dnsmasq ]] || [[ ! -x /usr/sbin/dnsmasq ]] || dnsmasq=/usr/sbin/dnsmasq
[[ -n $dnsmasq ]] || fail "no dnsmasq (Debian package dnsmasq-base)"
command -v python3 >/dev/null || fail "no python3"

# A UDP port nothing uses now (the kernel's choice, released at once).
port=$(python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# Local records only: shb.test is dnsmasq's own (a name it does not know
# there is NXDOMAIN), anything else REFUSED (no upstream). big.shb.test's
# TXT record is 600 bytes: over 512 without EDNS.
big=$(python3 -c 'print(",".join(["\"" + "x" * 200 + "\""] * 3))')
cat >"$tmp/dnsmasq.conf" <<CONF
no-resolv
no-hosts
no-poll
bind-interfaces
listen-address=127.0.0.1
port=$port
local=/shb.test/
host-record=a.shb.test,127.0.0.8
txt-record=t.shb.test,"hello"
txt-record=big.shb.test,$big
log-queries
log-facility=$tmp/dnsmasq.log
CONF
touch "$tmp/dnsmasq.log"
chmod 666 "$tmp/dnsmasq.log"
"$dnsmasq" --no-daemon --conf-file="$tmp/dnsmasq.conf" --pid-file= \
	</dev/null >"$tmp/dnsmasq.out" 2>&1 &
pids+=("$!")
for _ in $(seq 1 100); do
	grep -q "started, version" "$tmp/dnsmasq.log" 2>/dev/null && break
	kill -0 "${pids[0]}" 2>/dev/null || break
	sleep 0.05
done
grep -q "started, version" "$tmp/dnsmasq.log" ||
	{ cat "$tmp/dnsmasq.out" "$tmp/dnsmasq.log" >&2; fail "dnsmasq did not start on 127.0.0.1:$port"; }
url="dns://127.0.0.1:$port"

# run NAME RC ARGS...: one shb run that must exit with RC; its JSON report
# is $tmp/NAME.json. The log's lines before it are skipped by `queries`.
run() {
	local name=$1 want=$2 rc=0
	shift 2
	wc -l <"$tmp/dnsmasq.log" >"$tmp/$name.mark"
	timeout -k 5 60 "$shb" -q --plugin-dir "$plugdir" --proto dns \
		--report "json:$tmp/$name.json" "$@" \
		>"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null || rc=$?
	if [ "$rc" -ne "$want" ]; then
		cat "$tmp/$name.out" "$tmp/$name.err" >&2
		fail "$name: shb $* exited $rc, expected $want"
	fi
}

# queries NAME PATTERN: dnsmasq's query lines during run NAME that match
# the extended regex PATTERN (after "query[TYPE] ").
queries() {
	tail -n +"$(($(cat "$tmp/$1.mark") + 1))" "$tmp/dnsmasq.log" |
		grep -cE "query\\[$2 from 127\\.0\\.0\\.1\$" || true
}

# check NAME EXPR...: each Python expression over the report `r` holds;
# app(NAME) is (count, ok) of that dns outcome.
check() {
	local name=$1
	shift
	python3 - "$tmp/$name.json" "$@" <<'PY' || fail "$name: see above"
import json, sys
r = json.load(open(sys.argv[1]))
def app(name):
    for a in r.get("appOutcomes", []):
        if a["space"] == "dns" and a.get("name") == name:
            return (a["count"], a["ok"])
    return (0, None)
bad = [e for e in sys.argv[2:] if not eval(e)]
for e in bad:
    print("not true: %s" % e, file=sys.stderr)
if bad:
    print(json.dumps({k: r[k] for k in ("requests", "errors", "appOutcomes",
                                        "errorSamples", "setupSeconds") if k in r}),
          file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

rate() {
	python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print("%.0f" % r["requestsPerSec"])' "$tmp/$1.json"
}

# 2000 A queries on 4 sockets, 8 in flight on each: every one answered
# NOERROR, and dnsmasq logged exactly 2000. No handshake: the load starts
# at once.
run a 0 -n 2000 -c 4 -p 8 --proto-opt name=a.shb.test "$url"
check a 'r["requests"]["total"] == 2000' 'r["requests"]["ok"] == 2000' \
	'r["requests"]["errors"] == 0' 'app("noerror") == (2000, True)' \
	'len(r["appOutcomes"]) == 1' 'r["connectionsOpened"] == 4' \
	'r["bytesSent"] == 2000 * (12 + 12 + 4)' 'r["setupSeconds"] < 0.05'
n=$(queries a 'A\] a\.shb\.test'); [ "$n" = 2000 ] || fail "a: dnsmasq logged $n queries, not 2000"
echo "# A: 2000 on 4 sockets -p 8, $(rate a) queries/s"

# AAAA of a name with an A record only: NOERROR without an answer, nodata.
run aaaa 0 -n 300 -c 2 -p 4 --proto-opt name=a.shb.test --proto-opt type=AAAA "$url"
check aaaa 'r["requests"]["ok"] == 300' 'app("nodata") == (300, True)' 'len(r["appOutcomes"]) == 1'
n=$(queries aaaa 'AAAA\] a\.shb\.test'); [ "$n" = 300 ] || fail "aaaa: dnsmasq logged $n queries, not 300"

# {seq} names under shb.test: each of h0 .. h499 asked once, each
# NXDOMAIN, an error reply by default (exit 1), a success when asked for.
run nx 1 -n 500 -c 2 -p 16 --proto-opt 'name=h{seq}.shb.test' "$url"
check nx 'r["requests"]["errors"] == 500' 'r["errors"]["application"] == 500' \
	'r["requests"]["answered"] == 500' 'app("nxdomain") == (500, False)' \
	'r["errorSamples"]["application"] == "NXDOMAIN"'
n=$(queries nx 'A\] h[0-9]+\.shb\.test'); [ "$n" = 500 ] || fail "nx: dnsmasq logged $n queries, not 500"
distinct=$(tail -n +"$(($(cat "$tmp/nx.mark") + 1))" "$tmp/dnsmasq.log" |
	grep -oE 'query\[A\] h[0-9]+\.shb\.test' | sort -u | wc -l)
[ "$distinct" = 500 ] || fail "nx: $distinct distinct names, not 500"
run nxok 0 -n 100 --success nxdomain --proto-opt 'name=h{rand}.shb.test' \
	--proto-opt range=10 "$url"
check nxok 'r["requests"]["ok"] == 100' 'app("nxdomain") == (100, True)'

# Not dnsmasq's to answer, and no upstream: REFUSED.
run refused 1 -n 200 -c 2 -p 4 --proto-opt name=www.example.org "$url"
check refused 'app("refused") == (200, False)' 'r["errorSamples"]["application"] == "REFUSED"'
n=$(queries refused 'A\] www\.example\.org'); [ "$n" = 200 ] || fail "refused: dnsmasq logged $n queries, not 200"

# 600 bytes of TXT: truncated in 512 bytes without EDNS, whole with it.
run tc 1 -n 100 -c 1 -p 4 --proto-opt name=big.shb.test --proto-opt type=TXT "$url"
check tc 'app("truncated") == (100, False)' 'r["errorSamples"]["application"] == "TC"'
run edns 0 -n 100 -c 1 -p 4 --proto-opt name=big.shb.test --proto-opt type=TXT \
	--proto-opt edns=1232 "$url"
check edns 'app("noerror") == (100, True)' 'r["bytesReceived"] > 100 * 600'
n=$(queries edns 'TXT\] big\.shb\.test'); [ "$n" = 100 ] || fail "edns: dnsmasq logged $n queries, not 100"

# A duration run: every query it counts was logged by dnsmasq (those of
# the warm-up included), and none failed.
run dur 0 -z 1s --warmup 0 -c 4 -p 16 --proto-opt name=t.shb.test --proto-opt type=TXT "$url"
check dur 'r["requests"]["errors"] == 0' 'r["requests"]["ok"] > 1000' \
	'app("noerror")[0] == r["requests"]["ok"]'
ok=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["requests"]["ok"])' "$tmp/dur.json")
n=$(queries dur 'TXT\] t\.shb\.test')
[ "$n" -ge "$ok" ] || fail "dur: dnsmasq logged $n queries, fewer than the $ok answered"
echo "# -z 1s: $(rate dur) queries/s, $ok answered, $n logged by dnsmasq"

# Bad input: one line, exit 2, before any query.
run badtype 2 -n 1 --proto-opt type=BOGUS "$url"
grep -qxF "shb: protocol dns: type must be a type name (A, AAAA, MX, TXT...) or a number up to 65535, not 'BOGUS'" \
	"$tmp/badtype.err" || { cat "$tmp/badtype.err" >&2; fail "badtype: not the one line expected"; }
run method 2 -n 1 -m POST "$url"
grep -qF -- '-m is an HTTP option; protocol "dns" takes no HTTP request' "$tmp/method.err" ||
	{ cat "$tmp/method.err" >&2; fail "method: -m was not refused"; }
n=$(queries badtype '.*'); [ "$n" = 0 ] || fail "badtype: $n queries reached dnsmasq"
echo "ok: dns-e2e"
