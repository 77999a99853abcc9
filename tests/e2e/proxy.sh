#!/bin/bash
# --proxy through a real squid on loopback, in front of nginx: plain
# http in absolute form (squid logs each request), https and h2c through
# CONNECT tunnels (squid logs one CONNECT per connection, nginx each
# request), the *_proxy variables and --noproxy / NO_PROXY with curl's
# meanings, a proxy that refuses CONNECT (its status in the error, the
# run stops early) and a dead proxy. Counts are checked exactly against
# both logs. Fails without squid, nginx or openssl (scripts/setup.sh
# --with-test-servers installs them).
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID: set by start_testserver
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_nginx.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

nginx_need
SQUID=$(command -v squid || true)
[[ -n "$SQUID" ]] || SQUID=$(ls /usr/sbin/squid 2>/dev/null || true)
[[ -n "$SQUID" ]] || fail "squid is not installed (Debian package squid)"
# Variables of the environment this runs in must not steer the runs.
unset http_proxy https_proxy HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY

T=$E2E_TMP/proxy
mkdir -p "$T"
# squid started as root runs as its own user: it must reach its files.
chmod 711 "$E2E_TMP"
chmod 777 "$T"
tls_self cert DNS:localhost

# nginx, the origin: its own directory, its log in N/access.log. squid
# resolves the https URLs' localhost itself: on a stock Debian that is
# ::1 first (/etc/hosts), and with nginx on 127.0.0.1 alone squid
# answered those CONNECTs 503. So the TLS port listens on ::1 too
# wherever localhost resolves there.
N=$T/nginx
V6=""
if getent ahosts localhost | awk '{ print $1 }' | grep -qx '::1'; then V6=1; fi
# shellcheck disable=SC2016 # nginx's variables, not the shell's
servers() {
	nginx_conf "$N" '$server_port $server_protocol $request_method $request_uri $http_host' <<SERVERS
	ssl_certificate $TLS_DIR/cert.pem;
	ssl_certificate_key $TLS_DIR/cert.key;
	server {
		listen 127.0.0.1:$PLAIN;
		listen 127.0.0.1:$PLAIN2;
		listen 127.0.0.1:$TLS ssl http2;
		${V6:+listen [::1]:$TLS ssl http2;}
		location / { return 200 "hello through a proxy"; }
	}
	server {
		listen 127.0.0.1:$H2C http2;
		location / { return 200 "hello over h2c"; }
	}
SERVERS
}
nginx_start "$N" servers PLAIN PLAIN2 TLS H2C
free_port CLOSED
free_port SQ
free_port SQA

# CONNECT only to the TLS and h2c ports (squid's SSL_ports idea), plain
# requests to the plain port; no cache, logs of our own format. A second
# port asks for Basic credentials (user shb, password secret) and logs
# apart, with the user.
printf 'shb:%s\n' "$(openssl passwd -apr1 secret)" >"$T/passwd"
chmod 644 "$T/passwd"
AUTH=$(ls /usr/lib/squid/basic_ncsa_auth 2>/dev/null || true)
[[ -n "$AUTH" ]] || fail "squid's basic_ncsa_auth helper is missing"
cat >"$T/squid.conf" <<CONF
http_port 127.0.0.1:$SQ
http_port 127.0.0.1:$SQA
auth_param basic program $AUTH $T/passwd
auth_param basic children 1 startup=1 idle=1
auth_param basic realm shb
acl authport localport $SQA
acl authed proxy_auth REQUIRED
pid_filename $T/squid.pid
cache deny all
cache_mem 1 MB
logformat shb %rm %ru %>Hs
logformat shbu %rm %ru %>Hs %un
access_log stdio:$T/access.log shb !authport
access_log stdio:$T/auth.log shbu authport
cache_log $T/cache.log
cache_store_log none
coredump_dir $T
netdb_filename none
pinger_enable off
shutdown_lifetime 0 seconds
acl tunnel_ports port $TLS $H2C $PLAIN2
acl plain_ports port $PLAIN
acl CONNECT method CONNECT
http_access deny authport !authed
http_access deny CONNECT !tunnel_ports
http_access deny !CONNECT !plain_ports
http_access allow localhost
http_access deny all
CONF
"$SQUID" -N -f "$T/squid.conf" >"$T/squid.out" 2>&1 &
SQUID_PID=$!
E2E_PIDS+=("$SQUID_PID")
E2E_LOGS[$SQUID_PID]="$T/cache.log"
# Not wait_port: squid would log its probe as a failed transaction.
for _ in $(seq 1 200); do
	grep -qs "Accepting HTTP Socket connections" "$T/cache.log" && break
	kill -0 "$SQUID_PID" 2>/dev/null || break
	sleep 0.05
done
grep -qs "Accepting HTTP Socket connections" "$T/cache.log" ||
	{ cat "$T/cache.log" "$T/squid.out" >&2 || true; fail "squid did not start"; }
note "squid on 127.0.0.1:$SQ; nginx on :$PLAIN (plain), :$TLS (TLS), :$H2C (h2c)"
PROXY=http://127.0.0.1:$SQ

# count FILE LINE: lines of FILE that are exactly LINE.
count() {
	grep -cxF -- "$2" "$1" || true
}

# expect_count FILE LINE N WHAT
expect_count() {
	local got
	got=$(count "$1" "$2")
	[[ "$got" == "$3" ]] || { tail -5 "$1" >&2; fail "$4: $got lines \"$2\" in $(basename "$1"), expected $3"; }
}

# Plain http over h1: absolute form, one proxy log line per request.
ok_run abs 300 -c 3 --proxy "$PROXY" "http://127.0.0.1:$PLAIN/abs"
# A path that varies per request (templates) in absolute form too.
ok_run tmpl 60 -c 2 -x "$PROXY" "http://127.0.0.1:$PLAIN/t{{seq}}"
# https over h1 and h2, h2c: CONNECT tunnels, one per connection.
ok_run tls1 300 -c 3 --proxy "$PROXY" --cacert "$TLS_DIR/cert.pem" "https://localhost:$TLS/tls1"
ok_run tls2 400 -c 2 -p 8 --proto h2 -x "$PROXY" --cacert "$TLS_DIR/cert.pem" \
	"https://localhost:$TLS/tls2"
ok_run h2c 200 -c 2 -p 4 --proto h2 -x "$PROXY" "http://127.0.0.1:$H2C/h2c"
# -H Host over plain h1: a proxy would replace Host with the absolute
# form's authority, so this goes through a tunnel, Host intact.
ok_run vhost 50 -c 1 -x "$PROXY" -H 'Host: vhost.test' "http://127.0.0.1:$PLAIN2/vhost"
# --connect-to: the CONNECT names where it leads (squid never resolves
# the URL's name, which does not exist).
ok_run ct 50 -c 1 -x "$PROXY" --connect-to "ct.invalid:80:127.0.0.1:$PLAIN2" \
	"http://ct.invalid/ct"
# The environment, as curl reads it: https_proxy for https ...
https_proxy=$PROXY ok_run env 100 -c 1 --cacert "$TLS_DIR/cert.pem" "https://localhost:$TLS/env"
# ... but not for a host NO_PROXY names (a domain covers its names) ...
https_proxy=$PROXY NO_PROXY=example.org,.localhost ok_run noproxy 100 -c 1 \
	--cacert "$TLS_DIR/cert.pem" "https://localhost:$TLS/noproxy"
# ... nor with --noproxy '*', nor HTTP_PROXY (upper case) for http.
https_proxy=$PROXY ok_run noproxystar 100 -c 1 --noproxy '*' \
	--cacert "$TLS_DIR/cert.pem" "https://localhost:$TLS/noproxystar"
HTTP_PROXY=$PROXY ok_run upper 100 -c 1 "http://127.0.0.1:$PLAIN/upper"
http_proxy=$PROXY ok_run lower 100 -c 1 "http://127.0.0.1:$PLAIN/lower"

# Credentials (percent-decoded: %65 is "e") in every absolute-form
# request, and in each CONNECT.
ok_run authabs 100 -c 2 -x "http://shb:s%65cret@127.0.0.1:$SQA" "http://127.0.0.1:$PLAIN/authabs"
ok_run authtls 100 -c 2 -x "http://shb:secret@127.0.0.1:$SQA" --cacert "$TLS_DIR/cert.pem" \
	"https://localhost:$TLS/authtls"
# Without them: a request in absolute form is answered 407 by the proxy
# (an application error, as a 407 is not a success), a CONNECT refused (a
# connect error).
run_shb noauthabs -n 10 -c 1 -x "http://127.0.0.1:$SQA" "http://127.0.0.1:$PLAIN/noauth"
expect_rc noauthabs 1
check noauthabs 'requests.total == 10' 'statusCodes.407 == 10' \
	'requests.ok == 0' 'errors.application == 10'
run_shb noauthtls -z 20s -c 2 -x "http://127.0.0.1:$SQA" "https://localhost:$TLS/noauth"
expect_rc noauthtls 1
check noauthtls 'requests.ok == 0' 'errors.connect > 0'
(( ELAPSED_MS < 15000 )) || fail "noauthtls: took ${ELAPSED_MS} ms: no early stop"
grep -q 'proxy refused CONNECT: HTTP/1.1 407 Proxy Authentication Required' \
	"$E2E_TMP/noauthtls.json" || { show_run noauthtls; fail "noauthtls: no 407 in the error sample"; }

# squid refuses CONNECT to a port not in its list: 403 in every error,
# no request ever sent, and the run stops early.
run_shb refused -z 20s -c 2 -x "$PROXY" "https://localhost:$PLAIN/"
expect_rc refused 1
check refused 'requests.ok == 0' 'errors.connect > 0' 'errors.tls == 0'
(( ELAPSED_MS < 15000 )) || fail "refused: took ${ELAPSED_MS} ms: no early stop"
grep -q 'proxy refused CONNECT: HTTP/1.1 403' "$E2E_TMP/refused.json" ||
	{ show_run refused; fail "refused: the proxy's 403 is not in the error sample"; }

# Nobody listens where the proxy should be.
run_shb deadproxy -z 20s -c 2 -x "http://127.0.0.1:$CLOSED" "https://localhost:$TLS/"
expect_rc deadproxy 1
check deadproxy 'requests.ok == 0' 'errors.connect > 0'
(( ELAPSED_MS < 15000 )) || fail "deadproxy: took ${ELAPSED_MS} ms: no early stop"

# A proxy that accepts and never answers: the connect timeout covers the
# CONNECT, and the run stops early.
start_testserver mute silent
run_shb mute -z 20s -c 2 --connect-timeout 300ms -x "http://127.0.0.1:$mute_PORT" \
	"https://localhost:$TLS/"
expect_rc mute 1
check mute 'requests.ok == 0' 'errors.timeout > 0' 'errors.tls == 0'
(( ELAPSED_MS < 15000 )) || fail "mute: took ${ELAPSED_MS} ms: no early stop"
grep -q 'proxy CONNECT: timed out after 300ms' "$E2E_TMP/mute.json" ||
	{ show_run mute; fail "mute: the timeout does not name the proxy CONNECT"; }
stop_server "$mute_PID"

# Bad input: one line, exit 2, before any traffic.
refused_usage h3 "--proxy: protocol h3 runs over UDP, which an HTTP proxy does not carry" \
	--proto h3 -x "$PROXY" "https://localhost:$TLS/"
refused_usage badscheme '--proxy "socks5://127.0.0.1:1": scheme "socks5" is not supported' \
	-x socks5://127.0.0.1:1 "http://127.0.0.1:$PLAIN/"
https_proxy="http://127.0.0.1:99999" refused_usage badenv \
	'https_proxy "http://127.0.0.1:99999": port "99999" is not a number' "https://localhost:$TLS/"

# squid writes a tunnel's line when it closes: stop it, then count.
stop_server "$SQUID_PID"
nginx_stop
A=$T/access.log O=$N/access.log
expect_count "$A" "GET http://127.0.0.1:$PLAIN/abs 200" 300 abs
expect_count "$O" "$PLAIN HTTP/1.1 GET /abs 127.0.0.1:$PLAIN" 300 abs
expect_count "$O" "$TLS HTTP/1.1 GET /tls1 localhost:$TLS" 300 tls1
expect_count "$O" "$TLS HTTP/2.0 GET /tls2 localhost:$TLS" 400 tls2
expect_count "$O" "$H2C HTTP/2.0 GET /h2c 127.0.0.1:$H2C" 200 h2c
expect_count "$A" "CONNECT localhost:$TLS 200" 6 "tls1 + tls2 + env"
expect_count "$A" "CONNECT 127.0.0.1:$H2C 200" 2 h2c
expect_count "$A" "CONNECT 127.0.0.1:$PLAIN2 200" 2 "vhost + ct"
expect_count "$O" "$PLAIN2 HTTP/1.1 GET /vhost vhost.test" 50 vhost
expect_count "$O" "$PLAIN2 HTTP/1.1 GET /ct ct.invalid" 50 ct
expect_count "$A" "CONNECT localhost:$PLAIN 403" "$(count "$A" "CONNECT localhost:$PLAIN 403")" refused
(( $(count "$A" "CONNECT localhost:$PLAIN 403") >= 2 )) || fail "refused: squid did not log the refusals"
for p in env noproxy noproxystar upper lower; do
	expect_count "$O" "$([[ $p == upper || $p == lower ]] && echo "$PLAIN HTTP/1.1 GET /$p 127.0.0.1:$PLAIN" ||
		echo "$TLS HTTP/1.1 GET /$p localhost:$TLS")" 100 "$p"
done
expect_count "$A" "GET http://127.0.0.1:$PLAIN/lower 200" 100 lower
tmpl=$(grep -E "^GET http://127\.0\.0\.1:$PLAIN/t[0-9]+ 200\$" "$A" | sort -u | wc -l)
[[ "$tmpl" == 60 ]] || fail "tmpl: squid logged $tmpl distinct /tN requests, expected 60"
expect_count "$A" "GET http://127.0.0.1:$PLAIN/upper 200" 0 "upper (HTTP_PROXY is ignored)"
U=$T/auth.log
expect_count "$U" "GET http://127.0.0.1:$PLAIN/authabs 200 shb" 100 authabs
expect_count "$O" "$PLAIN HTTP/1.1 GET /authabs 127.0.0.1:$PLAIN" 100 authabs
expect_count "$U" "CONNECT localhost:$TLS 200 shb" 2 authtls
expect_count "$O" "$TLS HTTP/1.1 GET /authtls localhost:$TLS" 100 authtls
expect_count "$U" "GET http://127.0.0.1:$PLAIN/noauth 407 -" 10 noauthabs
expect_count "$O" "$PLAIN HTTP/1.1 GET /noauth 127.0.0.1:$PLAIN" 0 noauthabs
noauth=$(count "$U" "CONNECT localhost:$TLS 407 -")
(( noauth >= 2 )) || fail "noauthtls: squid logged $noauth refusals"
late=$(count "$U" "- error:transaction-end-before-headers 0")
(( late <= 2 )) || fail "squid logged $late connections closed before a request on the auth port"
[[ $(wc -l <"$U") == $((100 + 2 + 10 + noauth + late)) ]] || { sort "$U" | uniq -c >&2; fail "unexpected lines in auth.log"; }
# Every line of squid's log is accounted for: 300 + 100 + 60 GETs, 10
# tunnels,
# the refusals, and at most one connection per slot of the refused run
# that the early stop closed between its TCP connect and its CONNECT.
abandoned=$(count "$A" "- error:transaction-end-before-headers 0")
(( abandoned <= 2 )) || fail "squid logged $abandoned connections closed before a request"
total=$(wc -l <"$A")
want=$(( 300 + 100 + 60 + 10 + $(count "$A" "CONNECT localhost:$PLAIN 403") + abandoned ))
[[ "$total" == "$want" ]] || { sort "$A" | uniq -c >&2; fail "squid logged $total lines, expected $want"; }
note "ok"
