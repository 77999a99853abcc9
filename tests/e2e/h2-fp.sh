#!/bin/bash
# The HTTP/2 fingerprint of shb's own connections, checked by a server
# that computes it from what it received (h2_fp_server.py, written apart
# from shb's C code): for the default and every --proto-opt profile, over
# TLS and h2c, the report's h2Fingerprint equals the Akamai string the
# server computed, and that string is the published one the profile
# copies (curl-impersonate's captures of Chrome 120 and Firefox 120,
# curl 7.88.1); over TLS the report's JA3/JA4 equal the server's, from the
# ClientHello records it received; the chrome and firefox profiles set the
# ClientHello's suites, groups and signature algorithms, unless --ciphers
# or --tls-version say otherwise. The request headers the server decoded
# are the profile's, in order, with -H in place; an unknown profile is one
# line, exit 2. Where Debian 12's curl 7.88.1 is installed, its own
# connection gives the curl profile's string.
# shellcheck source=lib.sh
# shellcheck disable=SC2034,SC2154 # lib_nginx.sh's variables; plain_PORT, plain_PID: set by start_testserver
source "$(dirname "$0")/lib.sh"
# shellcheck source=lib_nginx.sh
source "$(dirname "$0")/lib_nginx.sh"
need SHB SHB_JCHECK
HERE=$(dirname "$0")
PY=/usr/bin/python3
"$PY" -c 'import hpack' 2>/dev/null ||
	fail "python3-hpack is not installed (Debian package python3-hpack)"

declare -A WANT=(
	[shb]='2:0;4:2147483647|2147418112|0|m,s,a,p'
	[chrome]='1:65536;2:0;4:6291456;6:262144|15663105|0|m,a,s,p'
	[firefox]='1:65536;4:131072;5:16384|12517377|3:0:0:201,5:0:0:101,7:0:0:1,9:0:7:1,11:0:3:1,13:0:0:241|m,p,a,s'
	[curl]='3:100;4:33554432;2:0|33488897|0|m,p,s,a'
)
# The header names of the published captures, in order.
declare -A NAMES=(
	[shb]=''
	[chrome]='sec-ch-ua sec-ch-ua-mobile sec-ch-ua-platform upgrade-insecure-requests user-agent accept sec-fetch-site sec-fetch-mode sec-fetch-user sec-fetch-dest accept-encoding accept-language'
	[firefox]='user-agent accept accept-language accept-encoding upgrade-insecure-requests sec-fetch-dest sec-fetch-mode sec-fetch-site sec-fetch-user te'
	[curl]='user-agent accept'
)

# serve NAME [CERT KEY]: a fingerprinting server; sets PORT and OUT.
serve() {
	local name=$1 pf=$E2E_TMP/$1.port _
	shift
	OUT=$E2E_TMP/$name.seen
	"$PY" "$HERE/h2_fp_server.py" "$pf" "$OUT" "$@" >"$E2E_TMP/$name.srv.log" 2>&1 &
	E2E_PIDS+=("$!")
	for _ in $(seq 1 100); do
		[[ -s "$pf" ]] && break
		sleep 0.05
	done
	[[ -s "$pf" ]] || { cat "$E2E_TMP/$name.srv.log" >&2; fail "h2_fp_server did not start"; }
	PORT=$(cat "$pf")
}

# seen FILE KEY: KEY of the one connection the server recorded in FILE
# (headers as "name=value" lines).
seen() {
	"$PY" - "$1" "$2" <<'EOF'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
if len(recs) != 1:
    sys.exit("%d connections recorded, expected 1" % len(recs))
v = recs[0][sys.argv[2]]
print("\n".join("%s=%s" % tuple(h) for h in v) if sys.argv[2] == "headers" else v)
EOF
}

# fp NAME SCHEME PROFILE ARGS...: two requests on one connection; the
# report's h2Fingerprint is the server's and the published one.
fp() {
	local name=$1 scheme=$2 prof=$3 got srv port out
	shift 3
	port=$H2C_PORT out=$H2C_OUT
	[[ $scheme == https ]] && port=$TLS_PORT out=$TLS_OUT
	: >"$out"
	local opt=()
	[[ $prof == shb ]] || opt=(--proto-opt "profile=$prof")
	ok_run "$name" 2 -c 1 --proto h2 "${opt[@]}" "$@" "$scheme://127.0.0.1:$port/"
	got=$(get "$name" h2Fingerprint)
	srv=$(seen "$out" akamai) || fail "$name: the server's record"
	[[ "$got" == "$srv" ]] ||
		{ show_run "$name"; fail "$name: report says '$got', the server computed '$srv'"; }
	[[ "$got" == "${WANT[$prof]}" ]] ||
		fail "$name: '$got' is not the published '${WANT[$prof]}'"
	HEADERS=$(seen "$out" headers)
	if [[ $scheme == https ]]; then
		[[ "$(get "$name" tlsJa3) $(get "$name" tlsJa4)" == "$(seen "$out" ja3) $(seen "$out" ja4)" ]] ||
			fail "$name: JA3/JA4 of the report and of the server differ"
	fi
	note "$name: $got"
}

names_of() { cut -d= -f1 <<<"$HEADERS" | tr '\n' ' ' | sed 's/ $//'; }

tls_self fp "IP:127.0.0.1"
serve tls "$TLS_DIR/fp.pem" "$TLS_DIR/fp.key"
TLS_PORT=$PORT TLS_OUT=$OUT
serve h2c
H2C_PORT=$PORT H2C_OUT=$OUT

for prof in shb chrome firefox curl; do
	for scheme in http https; do
		fp "$prof-$scheme" "$scheme" "$prof"
		[[ "$(names_of)" == "${NAMES[$prof]}" ]] ||
			fail "$prof-$scheme: headers '$(names_of)', published '${NAMES[$prof]}'"
		out=$H2C_OUT
		[[ $scheme == https ]] && out=$TLS_OUT
		want=1
		[[ $prof == firefox ]] && want=15 # past its PRIORITY frames' streams
		[[ $(seen "$out" stream) == "$want" ]] || fail "$prof-$scheme: first request not on stream $want"
	done
done
python3 "$HERE/../report/check_schema.py" "$HERE/../../docs/shb-report.schema.json" \
	"$E2E_TMP/firefox-https.json" >&2 || fail "the report does not match the schema"

# -H replaces a profile header in its place; other headers follow.
fp chrome-h http chrome -H 'User-Agent: shb-test' -H 'X-Run: 1' -H 'Host: h'
want="${NAMES[chrome]} x-run"
[[ "$(names_of)" == "$want" ]] || fail "chrome -H: headers '$(names_of)', expected '$want'"
grep -qx 'user-agent=shb-test' <<<"$HEADERS" || fail "chrome -H: user-agent not replaced"

# TLS: the chrome and firefox profiles hand the core the priority strings
# of docs/fingerprints.md (ABI 1.4 tls_priority). The profile alone, and
# the same string given as --ciphers, give the groups and signature
# algorithms of the captures exactly, Firefox's suites as a set and
# Chrome's with two more (what GnuTLS cannot leave out), and one JA3.
doc_ciphers() {
	sed -n "/^    # $1:/,/^    --ciphers/s/^    --ciphers '\(.*\)'$/\1/p" \
		"$HERE/../../docs/fingerprints.md"
}
# hello NAME GROUPS SIGALGS SUITES: what the server saw of run NAME.
hello() {
	[[ "$(seen "$TLS_OUT" groups) $(seen "$TLS_OUT" sigalgs)" == "$2 $3" ]] ||
		fail "$1: groups and signature algorithms '$(seen "$TLS_OUT" groups) $(seen "$TLS_OUT" sigalgs)', the capture's '$2 $3'"
	[[ $(seen "$TLS_OUT" ciphers | tr -d '[] ' | tr , '\n' | sort -n | tr '\n' ,) == "$4" ]] ||
		fail "$1: suites $(seen "$TLS_OUT" ciphers), expected the set $4"
}
tls_as() {
	local prof=$1 ciphers
	ciphers=$(doc_ciphers "$prof")
	[[ -n "$ciphers" ]] || fail "docs/fingerprints.md has no --ciphers string for $prof"
	fp "$prof-tlsp" https "$prof"
	hello "$prof-tlsp" "$2" "$3" "$4"
	fp "$prof-tls" https "$prof" --ciphers "$ciphers"
	hello "$prof-tls" "$2" "$3" "$4"
	[[ $(get "$prof-tlsp" tlsJa3) == "$(get "$prof-tls" tlsJa3)" ]] ||
		fail "$prof: JA3 of the profile alone $(get "$prof-tlsp" tlsJa3), with its --ciphers $(get "$prof-tls" tlsJa3)"
}
tls_as chrome '[29, 23, 24]' '[1027, 2052, 1025, 1283, 2053, 1281, 2054, 1537]' \
	47,53,156,157,4865,4866,4867,49161,49162,49171,49172,49195,49196,49199,49200,52392,52393,
tls_as firefox '[29, 23, 24, 25, 256, 257]' \
	'[1027, 1283, 1539, 2052, 2053, 2054, 1025, 1281, 1537, 515, 513]' \
	47,53,156,157,4865,4866,4867,49161,49162,49171,49172,49195,49196,49199,49200,52392,52393,
for name in firefox-tlsp firefox-tls; do
	[[ $(get $name tlsJa4) == t13i1711h2_5b57614c22b0_* ]] ||
		fail "$name: JA4 $(get $name tlsJa4) lacks Firefox's cipher hash 5b57614c22b0"
done

# curl and shb leave the core's default; --ciphers and --tls-version are
# the user's word: with either, the profile's string is not used, and
# the ClientHello is the one that option gives any profile.
fp shb-tlsp https shb
[[ $(seen "$TLS_OUT" groups) != '[29, 23, 24]' ]] || fail "shb: Chrome's groups without a profile"
fp curl-tlsp https curl
[[ $(get curl-tlsp tlsJa3) == "$(get shb-tlsp tlsJa3)" ]] ||
	fail "curl: JA3 $(get curl-tlsp tlsJa3), not the default's $(get shb-tlsp tlsJa3)"
fp chrome-ffc https chrome --ciphers "$(doc_ciphers firefox)"
hello chrome-ffc '[29, 23, 24, 25, 256, 257]' \
	'[1027, 1283, 1539, 2052, 2053, 2054, 1025, 1281, 1537, 515, 513]' \
	47,53,156,157,4865,4866,4867,49161,49162,49171,49172,49195,49196,49199,49200,52392,52393,
[[ $(get chrome-ffc tlsJa3) == "$(get firefox-tls tlsJa3)" ]] ||
	fail "chrome --ciphers firefox's: JA3 $(get chrome-ffc tlsJa3), firefox's $(get firefox-tls tlsJa3)"
fp shb-v13 https shb --tls-version 1.3
fp chrome-v13 https chrome --tls-version 1.3
[[ $(get chrome-v13 tlsJa3) == "$(get shb-v13 tlsJa3)" ]] ||
	fail "chrome --tls-version 1.3: JA3 $(get chrome-v13 tlsJa3), the default's $(get shb-v13 tlsJa3)"
[[ $(seen "$TLS_OUT" groups) != '[29, 23, 24]' ]] || fail "chrome --tls-version 1.3: Chrome's groups"

# The text report's line.
: >"$H2C_OUT"
out=$(timeout -k 5 "$E2E_RUN_LIMIT" "$SHB" -q -c 1 -n 1 --proto h2 \
	--proto-opt profile=curl "http://127.0.0.1:$H2C_PORT/" 2>&1) || fail "text run: $out"
[[ "$out" == *"H2 Akamai:     ${WANT[curl]}"* ]] || { echo "$out" >&2; fail "text report: no H2 Akamai line"; }

refused_usage unknown "h2: --proto-opt profile=safari: unknown profile (known: chrome, firefox, curl, shb)" \
	-n 1 --proto h2 --proto-opt profile=safari "http://127.0.0.1:$H2C_PORT/"

# h1 has no HTTP/2 fingerprint.
start_testserver plain hello
run_shb plain -c 1 -n 1 "http://127.0.0.1:$plain_PORT/"
expect_rc plain 0
[[ $(get plain h2Fingerprint 2>/dev/null || echo absent) == absent ]] || fail "h1: h2Fingerprint present"
stop_server "$plain_PID"

# Debian 12's curl itself, if that is the curl here: the profile is what
# it sends.
command -v curl >/dev/null || fail "curl is not installed (Debian package curl)"
if curl --version 2>/dev/null | grep -q '^curl 7\.88\.1 .*nghttp2/'; then
	: >"$H2C_OUT"
	curl -s -o /dev/null --http2-prior-knowledge "http://127.0.0.1:$H2C_PORT/" ||
		fail "curl could not fetch from the server"
	[[ $(seen "$H2C_OUT" akamai) == "${WANT[curl]}" ]] ||
		fail "curl 7.88.1 sends '$(seen "$H2C_OUT" akamai)', the profile '${WANT[curl]}'"
	note "curl 7.88.1 itself: ${WANT[curl]}"
else
	note "curl here is not 7.88.1 with nghttp2: its own fingerprint not compared"
fi
note "passed"
