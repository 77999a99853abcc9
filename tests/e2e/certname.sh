#!/bin/bash
# Certificate names with --cacert, over HTTP/1.1 and HTTP/2 against nginx
# on 127.0.0.1: a certificate from the trusted CA that names only
# DNS:foo.example is refused at https://127.0.0.1 (every request a TLS
# error saying so, exit 1), one with IP:127.0.0.1 is accepted (all ok),
# and the DNS one is refused at https://localhost too. Skipped (77) when
# nginx or openssl is missing.
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

NGINX=$(command -v nginx || true)
[[ -n "$NGINX" ]] || NGINX=$(ls /usr/sbin/nginx 2>/dev/null || true)
[[ -n "$NGINX" ]] || skip "nginx is not installed (Debian package nginx-light)"
command -v openssl >/dev/null || skip "openssl is not installed (Debian package openssl)"

T=$E2E_TMP/nginx
mkdir -p "$T"

# A CA, and two server certificates it signs: DNS:foo.example only, and
# IP:127.0.0.1 only. The CN names no host, so only the SANs can match.
ossl() {
	openssl "$@" >>"$T/cert.log" 2>&1 ||
		{ cat "$T/cert.log" >&2; fail "openssl $1 failed"; }
}
ossl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
	-keyout "$T/ca.key" -out "$T/ca.pem" -days 2 -subj '/CN=shb test CA' \
	-addext 'basicConstraints=critical,CA:TRUE' \
	-addext 'keyUsage=critical,keyCertSign'
# leaf NAME SAN
leaf() {
	printf '%s\n' "subjectAltName=$2" 'basicConstraints=CA:FALSE' \
		'keyUsage=digitalSignature' 'extendedKeyUsage=serverAuth' >"$T/$1.ext"
	ossl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout "$T/$1.key" -out "$T/$1.csr" -subj '/CN=shb test leaf'
	ossl x509 -req -in "$T/$1.csr" -CA "$T/ca.pem" -CAkey "$T/ca.key" \
		-CAcreateserial -days 2 -extfile "$T/$1.ext" -out "$T/$1.pem"
}
leaf dns DNS:foo.example
leaf ip IP:127.0.0.1

# write_conf DNS_PORT IP_PORT
write_conf() {
	local user=""
	[[ $(id -u) -ne 0 ]] || user="user root root;"
	cat >"$T/nginx.conf" <<CONF
daemon off;
master_process on;
worker_processes 1;
$user
pid $T/nginx.pid;
error_log $T/error.log warn;
events { worker_connections 256; }
http {
	access_log off;
	client_body_temp_path $T/client_body;
	proxy_temp_path $T/proxy;
	fastcgi_temp_path $T/fastcgi;
	uwsgi_temp_path $T/uwsgi;
	scgi_temp_path $T/scgi;
	default_type text/plain;
	server {
		listen 127.0.0.1:$1 ssl http2;
		ssl_certificate $T/dns.pem;
		ssl_certificate_key $T/dns.key;
		location / { return 200 "hello, world!"; }
	}
	server {
		listen 127.0.0.1:$2 ssl http2;
		ssl_certificate $T/ip.pem;
		ssl_certificate_key $T/ip.key;
		location / { return 200 "hello, world!"; }
	}
}
CONF
}

started=""
for _ in 1 2 3; do
	free_port P_DNS
	free_port P_IP
	[[ "$P_DNS" != "$P_IP" ]] || continue
	write_conf "$P_DNS" "$P_IP"
	"$NGINX" -e "$T/error.log" -p "$T" -c "$T/nginx.conf" >"$T/stdout.log" 2>&1 &
	NGINX_PID=$!
	E2E_PIDS+=("$NGINX_PID")
	E2E_LOGS[$NGINX_PID]="$T/error.log"
	if wait_port "$P_DNS" "$NGINX_PID" && wait_port "$P_IP" "$NGINX_PID"; then
		started=1
		break
	fi
	kill_quiet "$NGINX_PID"
done
[[ -n "$started" ]] || { cat "$T/error.log" "$T/stdout.log" >&2 2>/dev/null || true; fail "nginx did not start"; }
note "nginx on 127.0.0.1:$P_DNS (DNS:foo.example) and :$P_IP (IP:127.0.0.1)"

# refused NAME HOST PORT ARGS...: every request a TLS error naming HOST.
refused() {
	local name=$1 host=$2 port=$3 sample
	shift 3
	run_shb "$name" -c 2 -n 10 --cacert "$T/ca.pem" "$@" "https://$host:$port/"
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
	run_shb "$name" -c 2 -n 10 --cacert "$T/ca.pem" "$@" "https://127.0.0.1:$port/"
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

stop_server "$NGINX_PID"
if grep -E '\[(alert|emerg|crit)\]' "$T/error.log" >&2; then
	fail "nginx logged alerts"
fi
note "passed"
