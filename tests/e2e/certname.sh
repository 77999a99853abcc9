#!/bin/bash
# Certificate names with --cacert, over HTTP/1.1 and HTTP/2 against nginx
# on 127.0.0.1: a certificate from the trusted CA that names only
# DNS:foo.example is refused at https://127.0.0.1 (every request a TLS
# error saying so, exit 1), one with IP:127.0.0.1 is accepted (all ok),
# and the DNS one is refused at https://localhost too. Fails when nginx
# or openssl is missing (scripts/setup.sh installs them).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_nginx.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

nginx_need
T=$E2E_TMP/nginx

# A CA, and two server certificates it signs: DNS:foo.example only, and
# IP:127.0.0.1 only. The CN names no host, so only the SANs can match.
tls_ca ca
tls_leaf dns ca serverAuth DNS:foo.example
tls_leaf ip ca serverAuth IP:127.0.0.1

servers() {
	nginx_conf "$T" <<SERVERS
	server {
		listen 127.0.0.1:$P_DNS ssl http2;
		ssl_certificate $TLS_DIR/dns.pem;
		ssl_certificate_key $TLS_DIR/dns.key;
		location / { return 200 "hello, world!"; }
	}
	server {
		listen 127.0.0.1:$P_IP ssl http2;
		ssl_certificate $TLS_DIR/ip.pem;
		ssl_certificate_key $TLS_DIR/ip.key;
		location / { return 200 "hello, world!"; }
	}
SERVERS
}
nginx_start "$T" servers P_DNS P_IP
note "nginx on 127.0.0.1:$P_DNS (DNS:foo.example) and :$P_IP (IP:127.0.0.1)"

# refused NAME HOST PORT ARGS...: every request a TLS error naming HOST.
refused() {
	local name=$1 host=$2 port=$3 sample
	shift 3
	run_shb "$name" -c 2 -n 10 --cacert "$TLS_DIR/ca.pem" "$@" "https://$host:$port/"
	expect_rc "$name" 1
	check "$name" 'requests.total == 10' 'requests.ok == 0' \
		'requests.errors == 10' 'errors.tls == 10' 'errors.connect == 0' \
		'latencySeconds == null' 'tlsVerify == "cafile"'
	sample=$(get "$name" errorSamples.tls)
	[[ "$sample" == *"certificate is not valid for $host"* ]] ||
		{ show_run "$name"; fail "$name: errorSamples.tls is '$sample'"; }
}

# accepted NAME PORT ARGS...: all ok at 127.0.0.1.
accepted() {
	local name=$1 port=$2
	shift 2
	run_shb "$name" -c 2 -n 10 --cacert "$TLS_DIR/ca.pem" "$@" "https://127.0.0.1:$port/"
	expect_rc "$name" 0
	check "$name" 'requests.ok == 10' 'statusCodes.200 == 10' \
		'tlsVerify == "cafile"'
	check_no_errors "$name"
}

refused dns-h1 127.0.0.1 "$P_DNS"
refused dns-h2 127.0.0.1 "$P_DNS" --proto h2
accepted ip-h1 "$P_IP"
accepted ip-h2 "$P_IP" --proto h2
# DNS names were checked before: a certificate for foo.example is not one
# for localhost.
refused dns-localhost localhost "$P_DNS"
# and an address SAN is no DNS name.
refused ip-localhost localhost "$P_IP"
# Without verification the name does not matter.
run_shb noverify -c 2 -n 10 "https://127.0.0.1:$P_DNS/"
expect_rc noverify 0
check noverify 'requests.ok == 10' 'tlsVerify == "none"'

nginx_stop
note "passed"
