#!/bin/bash
# -L/--location and --max-redirs against real servers, on HTTP/1.1 and
# HTTP/2 (nginx, h2c) and HTTP/3 (caddy in front of the same nginx, which
# makes the redirects; caddy makes the absolute one itself). Each case
# checks the report's exact counts and the requests nginx logged:
#  - without -L a 301 is a status like any other;
#  - a chain 301 (absolute-path) -> 302 (relative "c") -> 200 counts three
#    requests, one of each status, and -n counts chains; with
#    --disable-keepalive each hop waits for a new connection, and gets one;
#  - an absolute Location;
#  - a loop and a chain past --max-redirs: application errors on the 3xx,
#    the chain in the sample;
#  - 303 after POST turns into GET without a body, 307 and 308 keep both;
#  - a 307 hop resends its request as it was sent: its line of
#    --body-lines, its templated body and header values as expanded
#    (not the template's text, nor no body at all);
#  - a Location to an origin the run has no connection to: an error, the
#    URL in the sample; one to another origin of --mix goes there, and
#    ends in a connect error when that origin cannot be reached.
# Fails without nginx, caddy or openssl (scripts/setup.sh
# --with-test-servers installs them).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_nginx.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

nginx_need
CADDY=$(command -v caddy || true)
[[ -n "$CADDY" ]] || fail "caddy is not installed (Debian package caddy)"
export SHB_PLUGIN_SYSTEM_PATH=

T=$E2E_TMP/redir
mkdir -p "$T/caddy"
LOG=$T/access.log
tls_self cert DNS:localhost,IP:127.0.0.1
free_port DEAD # nothing listens there

# nginx: H1 and H2C make the redirects (relative Locations: absolute_redirect
# off), B is a second origin. The log line: method, path, status, the
# request's Content-Length ("-" without a body).
# shellcheck disable=SC2016 # nginx's variables, not the shell's
servers() {
	nginx_conf "$T" '$request_method $uri $status $content_length' <<SERVERS
	absolute_redirect off;
	server {
		listen 127.0.0.1:$H1;
		listen 127.0.0.1:$H2C http2;
		location = /a { return 301 /b; }
		location = /b { return 302 c; }
		location = /c { return 200 "final"; }
		location = /abs { return 301 \$scheme://\$http_host/c; }
		location = /loop1 { return 301 /loop2; }
		location = /loop2 { return 301 /loop1; }
		location = /post { return 303 /c; }
		location = /p307 { return 307 /echo; }
		location = /p308 { return 308 /echo; }
		location = /echo { return 200 "echo"; }
		location = /t307 { return 307 /techo; }
		location = /techo {
			if (\$http_x_t !~ "^t[0-9]+\$") { return 400; }
			return 200 "echo";
		}
		location = /away { return 302 http://127.0.0.1:$DEAD/x; }
		location = /tob { return 302 http://127.0.0.1:$B/c; }
	}
	server {
		listen 127.0.0.1:$B;
		location = /c { return 200 "b"; }
	}
SERVERS
}
nginx_start "$T" servers H1 H2C B

free_port H3
cat >"$T/Caddyfile" <<CONF
{
	admin off
	auto_https off
	skip_install_trust
	grace_period 1s
	storage file_system {
		root $T/caddy
	}
	servers {
		protocols h1 h2 h3
	}
	log {
		output stderr
		level ERROR
	}
}
https://127.0.0.1:$H3 {
	bind 127.0.0.1
	tls $TLS_DIR/cert.pem $TLS_DIR/cert.key
	redir /abs https://127.0.0.1:$H3/c 301
	reverse_proxy 127.0.0.1:$H1
}
CONF
HOME=$T/caddy XDG_DATA_HOME=$T/caddy XDG_CONFIG_HOME=$T/caddy \
	"$CADDY" run --config "$T/Caddyfile" --adapter caddyfile >"$T/caddy.log" 2>&1 </dev/null &
CADDY_PID=$!
E2E_PIDS+=("$CADDY_PID")
E2E_LOGS[$CADDY_PID]="$T/caddy.log"
wait_port "$H3" "$CADDY_PID" || { cat "$T/caddy.log" >&2; fail "caddy did not start"; }
note "nginx h1 :$H1 h2c :$H2C b :$B, caddy h3 :$H3"

declare -A URL=([h1]="http://127.0.0.1:$H1" [h2]="http://127.0.0.1:$H2C"
		[h3]="https://127.0.0.1:$H3")
declare -A ARGS=([h1]="-c 2" [h2]="--proto h2 -c 2 -p 3" [h3]="--proto h3 -c 2 -p 3")

# logged N: waits until the access log has N lines (nginx writes one as
# it finishes a request), then fails on any other number.
logged() {
	local n=$1 _
	for _ in $(seq 1 100); do
		[[ $(wc -l <"$LOG") -lt $n ]] || break
		sleep 0.05
	done
	sleep 0.1
	[[ $(wc -l <"$LOG") -eq $n ]] || { sort "$LOG" | uniq -c >&2; fail "access log has $(wc -l <"$LOG") lines, expected $n"; }
}

# lines LINE: how many lines of the access log are exactly LINE.
lines() {
	grep -cxF -- "$1" "$LOG" || true
}

# expect_lines NAME "COUNT LINE"...: the log holds exactly these.
expect_lines() {
	local name=$1 want got n line
	shift
	for want in "$@"; do
		n=${want%% *}
		line=${want#* }
		got=$(lines "$line")
		[[ $got -eq $n ]] || { sort "$LOG" | uniq -c >&2; fail "$name: \"$line\" logged $got times, expected $n"; }
	done
}

# go NAME PROTO ARGS...: a run with the protocol's options, the log
# emptied first.
go() {
	local name=$1 p=$2
	shift 2
	: >"$LOG"
	# shellcheck disable=SC2086 # ARGS holds several words
	run_shb "$name" ${ARGS[$p]} "$@"
}

printf 'abc\ndefgh\n' >"$T/lines"
for p in h1 h2 h3; do
	U=${URL[$p]}

	note "$p: without -L a 301 is a status like any other"
	go "$p-plain" "$p" -n 12 "$U/a"
	expect_rc "$p-plain" 0
	check "$p-plain" 'requests.total == 12' 'requests.ok == 12' 'statusCodes.301 == 12'
	logged 12
	expect_lines "$p-plain" "12 GET /a 301 -"

	note "$p: -L, 301 -> 302 (relative) -> 200: three requests per chain"
	go "$p-chain" "$p" -L -n 12 "$U/a"
	expect_rc "$p-chain" 0
	check "$p-chain" 'requests.total == 36' 'requests.ok == 36' 'requests.errors == 0' \
		'statusCodes.301 == 12' 'statusCodes.302 == 12' 'statusCodes.200 == 12'
	logged 36
	expect_lines "$p-chain" "12 GET /a 301 -" "12 GET /b 302 -" "12 GET /c 200 -"

	note "$p: --disable-keepalive: each hop on a new connection, every chain ends"
	go "$p-close" "$p" -L -n 6 --disable-keepalive "$U/a"
	expect_rc "$p-close" 0
	check "$p-close" 'requests.total == 18' 'requests.ok == 18' \
		'statusCodes.301 == 6' 'statusCodes.302 == 6' 'statusCodes.200 == 6'
	logged 18
	expect_lines "$p-close" "6 GET /a 301 -" "6 GET /b 302 -" "6 GET /c 200 -"

	note "$p: an absolute Location"
	go "$p-abs" "$p" -L -n 5 "$U/abs"
	expect_rc "$p-abs" 0
	check "$p-abs" 'requests.total == 10' 'requests.ok == 10' \
		'statusCodes.301 == 5' 'statusCodes.200 == 5'
	if [[ $p == h3 ]]; then # caddy made the 301 itself
		logged 5
		expect_lines "$p-abs" "5 GET /c 200 -"
	else
		logged 10
		expect_lines "$p-abs" "5 GET /abs 301 -" "5 GET /c 200 -"
	fi

	note "$p: a loop is an application error with the chain"
	go "$p-loop" "$p" -L -n 6 "$U/loop1"
	expect_rc "$p-loop" 0
	check "$p-loop" 'requests.total == 12' 'requests.ok == 6' 'requests.errors == 6' \
		'errors.application == 6' 'statusCodes.301 == 12' \
		"errorSamples.application == \"redirect loop: $U/loop1 -> $U/loop2 -> $U/loop1\""
	logged 12
	expect_lines "$p-loop" "6 GET /loop1 301 -" "6 GET /loop2 301 -"

	note "$p: --max-redirs 1 stops the chain on its second redirect"
	go "$p-max" "$p" -L --max-redirs 1 -n 4 "$U/a"
	expect_rc "$p-max" 0
	check "$p-max" 'requests.total == 8' 'requests.ok == 4' 'errors.application == 4' \
		'statusCodes.301 == 4' 'statusCodes.302 == 4' \
		"errorSamples.application == \"too many redirects (--max-redirs 1): $U/a -> $U/b -> $U/c\""
	logged 8
	expect_lines "$p-max" "4 GET /a 301 -" "4 GET /b 302 -" "0 GET /c 200 -"

	note "$p: 303 after POST is a GET without a body; 307 and 308 keep both"
	go "$p-303" "$p" -L -n 4 -d xyz "$U/post"
	expect_rc "$p-303" 0
	check "$p-303" 'requests.total == 8' 'statusCodes.303 == 4' 'statusCodes.200 == 4'
	logged 8
	expect_lines "$p-303" "4 POST /post 303 3" "4 GET /c 200 -"
	for s in 307 308; do
		go "$p-$s" "$p" -L -n 4 -d xyz "$U/p$s"
		expect_rc "$p-$s" 0
		check "$p-$s" 'requests.total == 8' "statusCodes.$s == 4" 'statusCodes.200 == 4'
		logged 8
		expect_lines "$p-$s" "4 POST /p$s $s 3" "4 POST /echo 200 3"
	done

	note "$p: a 307 hop resends its request as it was sent: its line of --body-lines"
	go "$p-lines" "$p" -L -n 4 --body-lines "$T/lines" "$U/p307"
	expect_rc "$p-lines" 0
	check "$p-lines" 'requests.total == 8' 'statusCodes.307 == 4' 'statusCodes.200 == 4'
	logged 8
	expect_lines "$p-lines" "2 POST /p307 307 3" "2 POST /p307 307 5" \
		"2 POST /echo 200 3" "2 POST /echo 200 5"

	note "$p: ... and its templated body and headers as expanded (/techo answers 400 to a header not t<digits>)"
	go "$p-tmpl" "$p" -L -n 4 -d 'n={{seq}}' -H 'X-T: t{{seq}}' "$U/t307"
	expect_rc "$p-tmpl" 0
	check "$p-tmpl" 'requests.total == 8' 'statusCodes.307 == 4' 'statusCodes.200 == 4'
	logged 8
	expect_lines "$p-tmpl" "4 POST /t307 307 3" "4 POST /techo 200 3"

	note "$p: a Location to an origin the run has no connection to"
	go "$p-away" "$p" -L -n 3 "$U/away"
	expect_rc "$p-away" 1 # no request ended ok
	check "$p-away" 'requests.total == 3' 'errors.application == 3' 'statusCodes.302 == 3' \
		"errorSamples.application == \"redirect to an origin this run has no connection to: http://127.0.0.1:$DEAD/x\""
	logged 3
done

note "h1: a Location to another origin of --mix is sent there"
go mix h1 -L -n 10 --mix "http://127.0.0.1:$H1/tob" "http://127.0.0.1:$B/c"
expect_rc mix 0
check mix 'requests.total == 15' 'requests.ok == 15' 'statusCodes.302 == 5' \
	'statusCodes.200 == 10'
logged 15
expect_lines mix "5 GET /tob 302 -" "10 GET /c 200 -"

note "h1: hops to a --mix origin that cannot be reached end in its connect errors"
go dead h1 -L -n 10 --mix "http://127.0.0.1:$H1/away" "http://127.0.0.1:$DEAD/x"
expect_rc dead 1 # a connection slot never opened
check dead 'requests.total == 15' 'requests.ok == 5' 'statusCodes.302 == 5' \
	'errors.connect == 10'
logged 5
expect_lines dead "5 GET /away 302 -"

note "--max-redirs without -L is refused"
run_shb lone --max-redirs 3 -n 1 "http://127.0.0.1:$H1/a"
expect_rc lone 2
grep -qxF "shb: --max-redirs: redirects are followed only with -L/--location (without it a 3xx is a status like any other) (see shb --help)" \
	"$E2E_TMP/lone.stderr" || { show_run lone; fail "lone: not the expected line"; }

nginx_stop
note "passed"
