#!/bin/bash
# --success against a real nginx (HTTP/1.1, and HTTP/2 over TLS): a
# status outside the set is an error of kind application, with its status
# still counted and no latency; inside it, a success whatever its class;
# without --success the set is 1xx-3xx, so that a server answering 503 to
# everything fails --slo 'error_rate<1%'; --success any takes every status;
# in a --mix, each target's breakdown carries its own; --slo error_rate
# sees them; a bad LIST is refused with one line before any traffic.
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID, NAME_STATS: set by start_testserver
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_nginx.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

nginx_need
T=$E2E_TMP/nginx
tls_self cert DNS:localhost,IP:127.0.0.1

servers() {
	nginx_conf "$T" "" <<SERVERS
	ssl_certificate $TLS_DIR/cert.pem;
	ssl_certificate_key $TLS_DIR/cert.key;
	server {
		listen 127.0.0.1:$PLAIN;
		listen 127.0.0.1:$TLS ssl http2;
		location / { return 200 "hello, world!"; }
		location /gone { return 404 "no"; }
		location /busy { return 503 "later"; }
		location /moved { return 301 /; }
	}
SERVERS
}
nginx_start "$T" servers PLAIN TLS
U=http://127.0.0.1:$PLAIN
S=https://127.0.0.1:$TLS

note "no --success: a 404 is an application error, its status still counted"
run_shb dflt -c 2 -n 40 "$U/gone"
expect_rc dflt 1
check dflt 'requests.total == 40' 'requests.ok == 0' 'requests.errors == 40' \
	'statusCodes.404 == 40' 'errors.application == 40' \
	'errorSamples.application == "status 404 is not a success (--success 1xx-3xx, the default; --success any takes every status)"'

note "no --success: a server answering 503 to everything fails --slo 'error_rate<1%'"
run_shb busy -c 2 -n 40 --slo 'error_rate<1%' "$U/busy"
expect_rc busy 3 # no request completed, and the SLO's 3 says so (not 1)
check busy 'requests.ok == 0' 'errors.application == 40' 'statusCodes.503 == 40'
grep -qx 'shb: SLO failed: error_rate = 100%, wanted < 1%' "$E2E_TMP/busy.stderr" ||
	{ show_run busy; fail "busy: no error_rate line"; }

note "no --success: a 301 is a success (3xx is in the default set), h2 over TLS too"
run_shb moved-dflt -c 2 -n 40 --proto h2 -k "$S/moved"
expect_rc moved-dflt 0
check moved-dflt 'requests.ok == 40' 'requests.errors == 0' 'statusCodes.301 == 40'

note "--success any: a 404 is a response like any other (wrk's counting)"
run_shb any -c 2 -n 40 --success any --slo 'error_rate<1%' "$U/gone"
expect_rc any 0
check any 'requests.ok == 40' 'requests.errors == 0' 'statusCodes.404 == 40' \
	'errors.application == 0' 'latencySeconds.percentiles.p50 > 0'

note "--success 2xx: every 404 an application error, no latency, exit 1"
run_shb gone -c 2 -n 40 --success 2xx "$U/gone"
expect_rc gone 1
check gone 'requests.total == 40' 'requests.ok == 0' 'requests.errors == 40' \
	'statusCodes.404 == 40' 'errors.application == 40' \
	'errorSamples.application == "status 404 is not a success (--success 2xx)"'

note "--success 2xx,3xx: a 301 counts, h2 over TLS too"
run_shb moved -c 2 -n 40 --success 2xx,3xx --proto h2 -k "$S/moved"
expect_rc moved 0
check moved 'requests.ok == 40' 'requests.errors == 0' 'statusCodes.301 == 40'
run_shb busy-h2 -c 2 -p 4 -n 40 --success 200-299,404 --proto h2 -k "$S/busy"
expect_rc busy-h2 1
check busy-h2 'requests.ok == 0' 'errors.application == 40' 'statusCodes.503 == 40' \
	'errorSamples.application == "status 503 is not a success (--success 200-299,404)"'

note "a mix, no --success: the 503s in their target's breakdown, the 200s ok; --slo error_rate sees them"
run_shb mix -c 4 -n 400 --mix "ok=$U/@3" "busy=$U/busy@1" \
	--slo 'error_rate<10%'
expect_rc mix 3
check mix 'requests.total == 400' 'requests.ok == 300' 'requests.errors == 100' \
	'errors.application == 100' 'statusCodes.200 == 300' 'statusCodes.503 == 100' \
	'targets.0.label == "ok"' 'targets.0.requests.ok == 300' 'targets.0.requests.errors == 0' \
	'targets.1.label == "busy"' 'targets.1.requests.ok == 0' \
	'targets.1.requests.errors == 100' 'targets.1.statusCodes.503 == 100'
grep -qx 'shb: SLO failed: error_rate = 25%, wanted < 10%' "$E2E_TMP/mix.stderr" ||
	{ show_run mix; fail "mix: no error_rate line"; }

note "bad lists: exit 2, one line, nothing sent"
: >"$T/access.log"
refused_usage bad1 '--success: "2x" in "2x" is not a status (304), a range (200-299) or a class (2xx) of statuses 100..999, nor an outcome name of the protocol (ok) (or "any" alone)' \
	--success 2x "$U/"
refused_usage bad2 '"300-200" in "2xx,300-200"' --success 2xx,300-200 "$U/"
refused_usage bad3 '"" in "2xx,"' --success 2xx, "$U/"
refused_usage bad4 '"99" in "99"' --success 99 "$U/"
refused_usage twice '--success given twice' --success 2xx --success 3xx "$U/"
[[ ! -s $T/access.log ]] || fail "bad lists: nginx saw requests"
note "ok"
