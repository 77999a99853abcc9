#!/bin/bash
# JA3 and JA4 of shb's own ClientHello: a listener on loopback records the
# first TLS records shb sends (hello_catch.py) and closes; the report's
# tlsJa3/tlsJa4 must equal the fingerprints that tls_fp.py, written apart
# from shb's C code, computes from those bytes. Over HTTP/1.1 to a name
# (SNI: 'd'), HTTP/2 to an address (no SNI: 'i'), --tls-version 1.2 and a
# --ciphers string with one suite, whose effects show in JA4's first part;
# the text report prints the same two lines.
# shellcheck source=lib.sh
# shellcheck disable=SC2154 # plain_PORT, plain_PID: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_JCHECK
command -v python3 >/dev/null || fail "python3 is not installed (Debian package python3)"
HERE=$(dirname "$0")

# catch NAME: a fresh listener; sets PORT and CATCH_PID, the capture goes
# to $E2E_TMP/NAME.hello.
catch() {
	local pf=$E2E_TMP/$1.port _
	python3 "$HERE/hello_catch.py" "$pf" "$E2E_TMP/$1.hello" \
		>"$E2E_TMP/$1.catch.log" 2>&1 &
	CATCH_PID=$!
	E2E_PIDS+=("$CATCH_PID")
	for _ in $(seq 1 100); do
		[[ -s "$pf" ]] && break
		sleep 0.05
	done
	[[ -s "$pf" ]] || { cat "$E2E_TMP/$1.catch.log" >&2; fail "hello_catch did not start"; }
	PORT=$(cat "$pf")
}

# fp NAME HOST A_PART ARGS...: one request to the listener; the report's
# fingerprints equal tls_fp.py's, and JA4 starts with A_PART (its a part
# up to the ALPN characters, then those).
fp() {
	local name=$1 host=$2 want_a=$3 ja3 ja4 py
	shift 3
	catch "$name"
	run_shb "$name" -c 1 -n 1 "$@" "https://$host:$PORT/"
	expect_rc "$name" 1 # the listener never answers
	# exit 1 is also what a sanitizer build exits with on an error
	! grep -q 'Sanitizer\|runtime error' "$E2E_TMP/$name.stderr" ||
		{ show_run "$name"; fail "$name: sanitizer report"; }
	kill_quiet "$CATCH_PID"
	[[ -s "$E2E_TMP/$name.hello" ]] || { show_run "$name"; fail "$name: no ClientHello captured"; }
	check "$name" 'errors.tls == 1' 'tls == true'
	ja3=$(get "$name" tlsJa3)
	ja4=$(get "$name" tlsJa4)
	py=$(python3 "$HERE/tls_fp.py" "$E2E_TMP/$name.hello") || fail "$name: tls_fp.py failed"
	[[ "$ja3 $ja4" == "$py" ]] ||
		{ show_run "$name"; fail "$name: report says '$ja3 $ja4', the capture gives '$py'"; }
	[[ "$ja4" == "$want_a"* ]] || fail "$name: JA4 $ja4 does not start with $want_a"
	[[ "$ja3" =~ ^[0-9a-f]{32}$ ]] || fail "$name: JA3 '$ja3' is not 32 hex digits"
	python3 "$HERE/../report/check_schema.py" "$HERE/../../docs/shb-report.schema.json" \
		"$E2E_TMP/$name.json" >&2 || fail "$name: the report does not match the schema"
	note "$name: JA3 $ja3 JA4 $ja4"
}

# TLS 1.3 and 1.2 offered, 'd' with SNI, ALPN http/1.1 -> "h1"
fp h1-name localhost t13d
[[ $(get h1-name tlsJa4) == t13d????h1_* ]] || fail "h1-name: ALPN part is not h1"
# an address: no SNI, ALPN h2
fp h2-ip 127.0.0.1 t13i --proto h2
[[ $(get h2-ip tlsJa4) == t13i????h2_* ]] || fail "h2-ip: ALPN part is not h2"
# the same client over h1 and h2 differs in the a part only
[[ $(get h1-name tlsJa4 | cut -d_ -f2-) == $(get h2-ip tlsJa4 | cut -d_ -f2-) ]] ||
	fail "h1 and h2 ClientHellos differ beyond SNI and ALPN"
# --tls-version 1.2: no supported_versions 1.3, so "12"
fp v12 localhost t12d --tls-version 1.2
# one TLS 1.3 suite: 01 cipher
fp one-suite localhost t13d01 --tls-version 1.3 --ciphers 'NORMAL:-CIPHER-ALL:+AES-256-GCM'

# The text report shows them in its TLS lines.
catch text
out=$(timeout -k 5 "$E2E_RUN_LIMIT" "$SHB" -q -c 1 -n 1 "https://localhost:$PORT/" 2>/dev/null || true)
kill_quiet "$CATCH_PID"
py=$(python3 "$HERE/tls_fp.py" "$E2E_TMP/text.hello")
read -r py3 py4 <<<"$py"
want=$(printf 'TLS JA3:       %s\nTLS JA4:       %s' "$py3" "$py4")
[[ "$out" == *"$want"* ]] || { echo "$out" >&2; fail "text report: no lines '$want'"; }

# Without TLS there is no fingerprint.
start_testserver plain hello
run_shb plain -c 1 -n 1 "http://127.0.0.1:$plain_PORT/"
expect_rc plain 0
[[ $(get plain tlsJa4 2>/dev/null || echo absent) == absent ]] || fail "plain: tlsJa4 present without TLS"
stop_server "$plain_PID"
note "passed"
