#!/bin/bash
# TLS options over HTTP/3. JA3/JA4: a UDP listener takes the ClientHello
# out of shb's first Initial packets (quic_hello_catch.py decrypts them
# per RFC 9001 5.2) and the report's tlsJa3/tlsJa4 must equal what
# tls_fp.py, written apart from shb's C code, computes from it, with the
# QUIC prefix 'q' and ALPN h3; --ciphers shows in the cipher count.
# mTLS: gtlsserver --verify-client requires a client certificate: with
# --cert/--key every request is answered, without one every handshake
# fails with the server's alert in the sample; caddy with client_auth
# verifies it, over h1, h2 and h3. A server certificate our verification
# refuses is worded as over TCP. --tls-version 1.2 is refused before any
# traffic. Needs python3-cryptography.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154 # NAME_PORT: set by start_*
source "$(dirname "$0")/lib.sh"
need_h3 gtlsserver caddy
need SHB SHB_JCHECK
python3 -c 'import cryptography' 2>/dev/null ||
	fail "python3-cryptography is not installed (Debian package python3-cryptography)"
HERE=$(dirname "$0")

# fp NAME HOST A_PART ARGS...
fp() {
	local name=$1 host=$2 want_a=$3 pf=$E2E_TMP/$1.port ja3 ja4 py pid _
	shift 3
	python3 "$HERE/quic_hello_catch.py" "$pf" "$E2E_TMP/$name.hello" \
		>"$E2E_TMP/$name.catch.log" 2>&1 &
	pid=$!
	E2E_PIDS+=("$pid")
	for _ in $(seq 1 100); do
		[[ -s "$pf" ]] && break
		sleep 0.05
	done
	[[ -s "$pf" ]] || { cat "$E2E_TMP/$name.catch.log" >&2; fail "quic_hello_catch did not start"; }
	run_shb "$name" --proto h3 -c 1 -n 1 --connect-timeout 1s "$@" \
		"https://$host:$(cat "$pf")/"
	expect_rc "$name" 1 # nothing answers
	# exit 1 is also what a sanitizer build exits with on an error
	! grep -q 'Sanitizer\|runtime error' "$E2E_TMP/$name.stderr" ||
		{ show_run "$name"; fail "$name: sanitizer report"; }
	kill_quiet "$pid"
	[[ -s "$E2E_TMP/$name.hello" ]] ||
		{ cat "$E2E_TMP/$name.catch.log" >&2; show_run "$name"; fail "$name: no ClientHello captured"; }
	ja3=$(get "$name" tlsJa3)
	ja4=$(get "$name" tlsJa4)
	py=$(python3 "$HERE/../../e2e/tls_fp.py" --quic "$E2E_TMP/$name.hello") ||
		fail "$name: tls_fp.py failed"
	[[ "$ja3 $ja4" == "$py" ]] ||
		{ show_run "$name"; fail "$name: report says '$ja3 $ja4', the capture gives '$py'"; }
	[[ "$ja4" == "$want_a"* && "$ja4" == q13?????h3_* ]] ||
		fail "$name: JA4 $ja4 is not $want_a...h3_..."
	note "$name: JA3 $ja3 JA4 $ja4"
}
fp name localhost q13d
fp ip 127.0.0.1 q13i
fp one-suite localhost q13d01 --ciphers 'NORMAL:-CIPHER-ALL:+CHACHA20-POLY1305'

# mTLS: a throwaway client certificate; gtlsserver only checks that one
# comes (it does not verify it).
T=$E2E_TMP/client
mkdir -p "$T"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
	-keyout "$T/key.pem" -out "$T/cert.pem" -days 2 -subj '/CN=shb test client' \
	-addext 'extendedKeyUsage=clientAuth' >"$T/log" 2>&1 || { cat "$T/log" >&2; fail "openssl failed"; }
H3SRV_GTLS_ARGS=--verify-client start_gtlsserver gtls >/dev/null
URL="https://127.0.0.1:$gtls_PORT/"
run_shb with-cert --proto h3 -c 2 -n 20 --cert "$T/cert.pem" --key "$T/key.pem" "$URL"
expect_rc with-cert 0
check with-cert 'requests.ok == 20' 'statusCodes.200 == 20'
check_no_errors with-cert
run_shb without --proto h3 -c 2 -n 4 --connect-timeout 2s "$URL"
expect_rc without 1
check without 'requests.ok == 0' 'errors.tls > 0'
sample=$(get without errorSamples.tls)
[[ "$sample" == *"TLS alert 116 (certificate_required): the server wants a client certificate (--cert FILE --key FILE)" ]] ||
	{ show_run without; fail "without: errorSamples.tls is '$sample'"; }
note "without a certificate: $sample"

# A certificate refused by our own verification reads as over TCP
# (tests/e2e/sni.sh, certname.sh): why, not "TLS alert 42".
run_shb untrusted --proto h3 -t 1 -c 1 -n 2 --cacert "$T/cert.pem" "$URL"
expect_rc untrusted 1
check untrusted 'requests.ok == 0' 'errors.tls == 2'
sample=$(get untrusted errorSamples.tls)
[[ "$sample" == "TLS handshake: The certificate is NOT trusted. The certificate issuer is unknown." ]] ||
	{ show_run untrusted; fail "untrusted: errorSamples.tls is '$sample'"; }
run_shb other-name --proto h3 -t 1 -c 1 -n 2 --cacert "$H3_CERT" --sni other.test "$URL"
expect_rc other-name 1
check other-name 'requests.ok == 0' 'errors.tls == 2'
sample=$(get other-name errorSamples.tls)
[[ "$sample" == "TLS handshake: certificate is not valid for other.test" ]] ||
	{ show_run other-name; fail "other-name: errorSamples.tls is '$sample'"; }
stop_h3 gtls

# mTLS with verification: caddy (client_auth require_and_verify) trusts
# one CA; over h1, h2 and h3 the certificate it signed is accepted, none
# or one from another CA is refused in the handshake. Caddy's TLS (Go
# before 1.21) says bad_certificate where newer stacks say
# certificate_required: without --cert the sample names the options.
ossl() {
	openssl "$@" >>"$T/log" 2>&1 || { cat "$T/log" >&2; fail "openssl $1 failed"; }
}
ca() {
	ossl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout "$T/$1.key" -out "$T/$1.pem" -days 2 -subj "/CN=shb test $1" \
		-addext 'basicConstraints=critical,CA:TRUE' -addext 'keyUsage=critical,keyCertSign'
}
leaf() { # NAME CA
	printf '%s\n' 'basicConstraints=CA:FALSE' 'keyUsage=digitalSignature' \
		'extendedKeyUsage=clientAuth' >"$T/$1.ext"
	ossl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout "$T/$1.key" -out "$T/$1.csr" -subj "/CN=shb test $1"
	ossl x509 -req -in "$T/$1.csr" -CA "$T/$2.pem" -CAkey "$T/$2.key" \
		-CAcreateserial -days 2 -extfile "$T/$1.ext" -out "$T/$1.pem"
}
ca ca
ca other
leaf client ca
leaf stranger other
need_h3 caddy
h3srv_launch_caddymtls() {
	local dir=$1 port=$2
	mkdir -p "$dir/state"
	cat >"$dir/Caddyfile" <<CONF
{
	admin off
	auto_https off
	skip_install_trust
	grace_period 2s
	storage file_system {
		root $dir/state
	}
	servers {
		protocols h1 h2 h3
		# client_auth turns on Caddy's check that Host equals the
		# TLS server name; Caddy 2.6 answers every HTTP/3 request 421
		# with it although shb sends SNI localhost (the JA4 above
		# says 'd'): off, as SNI is not what is tested here.
		strict_sni_host insecure_off
	}
	log {
		output stderr
		level ERROR
	}
}
https://localhost:$port {
	bind 127.0.0.1
	tls $dir/cert.pem $dir/key.pem {
		client_auth {
			mode require_and_verify
			trusted_ca_cert_file $T/ca.pem
		}
	}
	respond "hello, world!" 200
}
CONF
	HOME=$dir/state XDG_DATA_HOME=$dir/state XDG_CONFIG_HOME=$dir/state \
		"$(h3srv_caddy_bin)" run --config "$dir/Caddyfile" --adapter caddyfile \
		>"$dir/caddymtls.log" 2>&1 </dev/null &
	H3SRV_PID=$!
}
dir=$(h3_instance_dir caddymtls)
h3srv_start_loop caddymtls tcp+udp "$dir" >&2 || fail "caddy did not start (log: $dir/caddymtls.log)"
h3_register caddymtls "$H3SRV_PID" "$H3SRV_PORT" >/dev/null
URL="https://localhost:$caddymtls_PORT/"
for p in h1 h2 h3; do
	run_shb "verified-$p" --proto "$p" -c 2 -n 10 --cert "$T/client.pem" --key "$T/client.key" "$URL"
	expect_rc "verified-$p" 0
	check "verified-$p" 'requests.ok == 10' 'statusCodes.200 == 10'
	check_no_errors "verified-$p"
	for who in none stranger; do
		args=()
		[[ $who == none ]] || args=(--cert "$T/stranger.pem" --key "$T/stranger.key")
		run_shb "$who-$p" --proto "$p" -c 1 -n 2 --connect-timeout 2s "${args[@]}" "$URL"
		expect_rc "$who-$p" 1
		check "$who-$p" 'requests.ok == 0' 'errors.tls > 0'
		sample=$(get "$who-$p" errorSamples.tls)
		case $p-$who in
		h3-none) want="TLS alert 42 (bad_certificate): the server wants a client certificate (--cert FILE --key FILE)" ;;
		h3-stranger) want="TLS alert 42 (bad_certificate)" ;;
		*-none) want="alert 42 (Certificate is bad): the server wants a client certificate (--cert FILE --key FILE)" ;;
		*) want="alert 42 (Certificate is bad)" ;;
		esac
		[[ "$sample" == *"$want" ]] ||
			{ show_run "$who-$p"; fail "$who-$p: errorSamples.tls is '$sample', expected it to end in '$want'"; }
		note "$who-$p: $sample"
	done
done
stop_h3 caddymtls

# TLS 1.2 does not exist in QUIC: refused at start.
RC=0
err=$("$SHB" -q --proto h3 -n 1 --tls-version 1.2 "$URL" 2>&1) || RC=$?
[[ $RC -eq 2 && "$err" == "shb: --tls-version 1.2: QUIC (HTTP/3) runs TLS 1.3 only" ]] ||
	fail "--tls-version 1.2 over h3: exit $RC, '$err'"
note "passed"
