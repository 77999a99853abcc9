#!/bin/bash
# Client certificates (--cert, --key) against nginx with
# ssl_verify_client on, over HTTP/1.1 and HTTP/2 on 127.0.0.1: with the
# certificate the CA signed every request is answered 200 (key in its own
# file, or in the certificate's file); without one, or with one from
# another CA, nginx answers 400 and the report says why in its sample.
# Bad files stop shb at start with one line and exit 2. Fails when nginx
# or openssl is missing (scripts/setup.sh installs them).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_nginx.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

nginx_need
T=$E2E_TMP/nginx

tls_ca ca
tls_ca other
tls_leaf server ca serverAuth IP:127.0.0.1
tls_leaf client ca clientAuth
tls_leaf stranger other clientAuth
C=$TLS_DIR # certificates and keys
cat "$C/client.pem" "$C/client.key" >"$C/both.pem"

servers() {
	nginx_conf "$T" <<SERVERS
	server {
		listen 127.0.0.1:$PORT ssl http2;
		ssl_certificate $C/server.pem;
		ssl_certificate_key $C/server.key;
		ssl_client_certificate $C/ca.pem;
		ssl_verify_client on;
		location / { return 200 "hello, \$ssl_client_s_dn"; }
	}
SERVERS
}
nginx_start "$T" servers PORT
note "nginx on 127.0.0.1:$PORT requires a client certificate from the test CA"
URL="https://127.0.0.1:$PORT/"

# accepted NAME ARGS...: 10 requests, all 200, each answered with the
# client's name (the body nginx returns holds its subject).
accepted() {
	local name=$1
	shift
	run_shb "$name" -c 2 -n 10 --cacert "$C/ca.pem" "$@" "$URL"
	expect_rc "$name" 0
	check "$name" 'requests.ok == 10' 'statusCodes.200 == 10' \
		'bytesReceived > 0'
	check_no_errors "$name"
}
accepted h1 --cert "$C/client.pem" --key "$C/client.key"
accepted h2 --proto h2 --cert "$C/client.pem" --key "$C/client.key"
accepted h1-one-file --cert "$C/both.pem"
accepted h2-one-file --proto h2 --cert "$C/both.pem"
# nginx saw the client's name on each of those 40 requests
n=$(grep -c '' "$T/access.log")
[[ $n -eq 40 ]] || fail "nginx logged $n requests, expected 40"

# refused NAME ARGS...: nginx finishes the handshake (it asks for a
# certificate without requiring one in TLS) and answers every request 400
# "No required SSL certificate was sent" or "The SSL certificate error":
# the report counts answered requests with status 400 (application errors,
# as a 400 is not a success), no TLS error.
refused() {
	local name=$1
	shift
	run_shb "$name" -c 1 -n 4 "$@" "$URL"
	expect_rc "$name" 1
	check "$name" 'requests.total == 4' 'statusCodes.400 == 4' \
		'requests.ok == 0' 'errors.application == 4' 'errors.tls == 0'
}
refused none-h1
refused none-h2 --proto h2
refused stranger-h1 --cert "$C/stranger.pem" --key "$C/stranger.key"
refused stranger-h2 --proto h2 --cert "$C/stranger.pem" --key "$C/stranger.key"

# Bad files: one line, exit 2, nothing sent.
bad() {
	local name=$1 want=$2 err
	shift 2
	RC=0
	err=$("$SHB" -q -n 1 "$@" "$URL" 2>&1 >/dev/null) || RC=$?
	[[ $RC -eq 2 ]] || fail "$name: exit $RC, expected 2 ($err)"
	[[ $(printf '%s\n' "$err" | wc -l) -eq 1 ]] || fail "$name: more than one line: $err"
	[[ "$err" == "shb: $want" ]] || fail "$name: '$err', expected 'shb: $want'"
}
bad missing "--cert $C/nope.pem: No such file or directory" --cert "$C/nope.pem"
bad nokey "--key $C/nope.key: No such file or directory" --cert "$C/client.pem" --key "$C/nope.key"
bad notpem "--cert $T/nginx.conf: no PEM certificate in it (No certificate was found.)" --cert "$T/nginx.conf"
bad keyless "--key $C/client.pem: no PEM private key in it" --cert "$C/client.pem"
bad mismatch "--key $C/stranger.key is not the private key of the certificate in --cert $C/client.pem" \
	--cert "$C/client.pem" --key "$C/stranger.key"
bad keyonly "--key $C/client.key: give the certificate too (--cert FILE) (see shb --help)" --key "$C/client.key"
n2=$(grep -c '' "$T/access.log")
[[ $n2 -eq $((n + 16)) ]] || fail "nginx logged $((n2 - n)) requests after the good runs, expected 16"

nginx_stop
note "passed"
