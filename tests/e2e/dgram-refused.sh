#!/bin/bash
# A datagram protocol against a closed UDP port (shb-proto-fxquery, a
# query per datagram, built from fxdgram_plugin.c with FX_QUERY): every
# connection's queries fail with "recv: Connection refused". Connections
# that fail before any response follow the one policy of TCP and TLS:
# each slot backs off, and once every slot failed 5 times in a row with
# no response ever, the run stops early with one line. -t 1 -c 2 -p 4:
# exactly 2 x 5 sockets, each failing its 4 queries (462,343 sockets and
# 1,849,364 errors in 8.8 s of system time before).
# Environment: FX_PLUGIN_DIR (the built fixtures), besides lib.sh's.
source "$(dirname "$0")/lib.sh"
need SHB SHB_JCHECK FX_PLUGIN_DIR

# A free UDP port below the ephemeral range, so that no socket of the run
# can be given it as its own port and answer itself.
low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range)
port=$(python3 - "$low" <<'PY'
import socket, sys
low = int(sys.argv[1])
for p in range(min(low, 32768) - 1, 1024, -1):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.bind(("127.0.0.1", p))
    except OSError:
        continue
    finally:
        s.close()
    print(p)
    break
PY
)
[[ -n $port ]] || fail "no free UDP port below $low"

run_shb refused -t 1 --proto "$FX_PLUGIN_DIR/shb-proto-fxquery.so" -c 2 -p 4 -z 5s \
	"http://127.0.0.1:$port/"
expect_rc refused 1
check refused 'requests.ok == 0' 'connectionsOpened == 10' 'errors.connect == 40' \
	'requests.errors == 40'
[[ $ELAPSED_MS -lt 3000 ]] || fail "refused: the run took ${ELAPSED_MS} ms, expected an early stop"
grep -qxF "shb: no connection to 127.0.0.1:$port ever succeeded: every connection failed 5 times in a row, the last with: recv: Connection refused (nothing listens on this UDP port: fxdgram runs over UDP, not TCP)" \
	"$E2E_TMP/refused.stderr" || { show_run refused; fail "refused: no early-stop line"; }

# A datagram protocol that is not QUIC is told so in its own words: the
# transport is the descriptor's, and nothing says QUIC.
refused_usage proxy "shb: --proxy: protocol fxdgram runs over UDP, which an HTTP proxy does not carry; use --noproxy '*' or --proxy \"\" to connect directly" \
	--proto "$FX_PLUGIN_DIR/shb-proto-fxquery.so" -x http://127.0.0.1:1 -n 1 "http://127.0.0.1:$port/"
refused_usage unix "shb: --unix-socket: protocol fxdgram runs over UDP, and a Unix socket is a stream: only a protocol over TCP can use one" \
	--proto "$FX_PLUGIN_DIR/shb-proto-fxquery.so" --unix-socket /nonexistent.sock -n 1 "http://127.0.0.1:$port/"
note "passed"
