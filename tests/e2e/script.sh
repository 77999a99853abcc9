#!/bin/bash
# -s FILE.lua end to end: wrk's nine example scripts (tests/e2e/scripts/wrk,
# unchanged) and our own (tests/e2e/scripts) over HTTP/1.1, HTTP/2 (h2c)
# and HTTP/3, against nginx (h1, h2c) and caddy in front of it (h3). What
# nginx logged must be exactly the requests the scripts made; what the
# scripts print (setup, init, done) must say exactly what they saw. Then
# the failures: set-up errors are one line naming file:line, exit 2,
# before any traffic; errors during the load are errors of kind script
# with their message, never a crash or a hang. Fails without nginx, caddy
# or openssl (scripts/setup.sh --with-test-servers installs them).
# shellcheck disable=SC2154 # fp_PID, fp_PORT: set by start_testserver
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_nginx.sh"
need SHB SHB_TESTSERVER SHB_JCHECK
[[ -n "${SHB_H1_ONLY_PATH:-}" ]] || fail "SHB_H1_ONLY_PATH is not set (meson sets it)"
[[ -f "${SHB_V13_PLUGIN_DIR:-}/shb-proto-line13.so" ]] || fail "no 1.3 protocol in SHB_V13_PLUGIN_DIR (meson sets it)"

nginx_need
CADDY=$(command -v caddy || true)
[[ -n "$CADDY" ]] || fail "caddy is not installed (Debian package caddy)"
export SHB_PLUGIN_SYSTEM_PATH=
S=$(cd "$(dirname "$0")/scripts" && pwd)
W=$S/wrk
PROTOS=${SCRIPT_PROTOS:-h1 h2 h3}

T=$E2E_TMP/script
mkdir -p "$T/caddy"
LOG=$T/access.log
tls_self cert DNS:localhost,IP:127.0.0.1

# nginx logs method, URI, X-Counter, X-Token, X-Seen and the body of every
# request on H1 and H2C and proxies it to BACK, whose answers the scripts
# read: /authenticate gives a token (auth.lua), /ok a header and a body,
# /missing a 404.
# shellcheck disable=SC2016 # nginx's variables, not the shell's
servers() {
	nginx_conf "$T" '$request_method $request_uri $http_x_counter $http_x_token $http_x_seen [$request_body]' <<SERVERS
	server {
		listen 127.0.0.1:$H1;
		listen 127.0.0.1:$H2C http2;
		client_body_buffer_size 64k;
		location / { proxy_pass http://127.0.0.1:$BACK; }
	}
	server {
		listen 127.0.0.1:$BACK;
		access_log off;
		location / { return 200 "ok"; }
		location /authenticate { add_header X-Token secret42; return 200 "token"; }
		location /ok { add_header X-Reply yes; return 200 "fine"; }
		location /missing { return 404; }
	}
SERVERS
}
nginx_start "$T" servers H1 H2C BACK

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
	reverse_proxy 127.0.0.1:$H1
}
CONF
HOME=$T/caddy XDG_DATA_HOME=$T/caddy XDG_CONFIG_HOME=$T/caddy \
	"$CADDY" run --config "$T/Caddyfile" --adapter caddyfile >"$T/caddy.log" 2>&1 </dev/null &
CADDY_PID=$!
E2E_PIDS+=("$CADDY_PID")
E2E_LOGS[$CADDY_PID]="$T/caddy.log"
wait_port "$H3" "$CADDY_PID" || { cat "$T/caddy.log" >&2; fail "caddy did not start"; }
note "nginx h1 :$H1 h2c :$H2C, caddy h3 :$H3"

declare -A URL=([h1]="http://127.0.0.1:$H1" [h2]="http://127.0.0.1:$H2C"
		[h3]="https://127.0.0.1:$H3")

# logged N: the access log has exactly N lines (once nginx wrote them).
logged() {
	local n=$1 _
	for _ in $(seq 1 100); do
		[[ $(wc -l <"$LOG") -lt $n ]] || break
		sleep 0.05
	done
	sleep 0.1
	[[ $(wc -l <"$LOG") -eq $n ]] || { head -n 20 "$LOG" >&2; fail "access log has $(wc -l <"$LOG") lines, expected $n"; }
}

# same FILE EXPECTED-TEXT: FILE (sorted) holds exactly these lines.
same() {
	diff <(sort "$1") <(sort <<<"$2") >"$T/diff" ||
		{ head -n 30 "$T/diff" >&2; fail "$(basename "$1"): not the expected lines"; }
}

# run_ok NAME N ARGS...: exactly N requests, no error; the access log of
# the run in $T/NAME.log.
run_ok() {
	local name=$1 n=$2
	shift 2
	: >"$LOG"
	run_shb "$name" "$@"
	expect_rc "$name" 0
	check "$name" "requests.total == $n" "requests.errors == 0"
	logged "$n"
	cp "$LOG" "$T/$name.log"
}

# lines N TEXT: TEXT repeated N times, one per line.
lines() {
	local i
	for ((i = 0; i < $1; i++)); do echo "$2"; done
}

for p in $PROTOS; do
	u=${URL[$p]}
	a=(--proto "$p" -t 1 -c 1)

	# counter.lua: /0 .. /29, each with its X-Counter.
	run_ok "counter-$p" 30 "${a[@]}" -n 30 -s "$W/counter.lua" "$u/"
	same "$T/counter-$p.log" "$(for i in $(seq 0 29); do echo "GET /$i $i - - [-]"; done)"

	# post.lua: wrk.method, wrk.body and a header set at the top level.
	run_ok "post-$p" 20 "${a[@]}" -n 20 -s "$W/post.lua" "$u/"
	same "$T/post-$p.log" "$(lines 20 'POST / - - - [foo=bar&baz=quux]')"

	# pipeline.lua: three requests per string, each a request of the run
	# (h1 sends one at a time per connection: in turn, not back to back).
	run_ok "pipeline-$p" 30 "${a[@]}" -n 30 -s "$W/pipeline.lua" "$u/"
	check "pipeline-$p" 'statusCodes.200 == 30'
	same "$T/pipeline-$p.log" "$(lines 10 'GET /?foo - - - [-]'; lines 10 'GET /?bar - - - [-]'; lines 10 'GET /?baz - - - [-]')"

	# auth.lua: the first answer's X-Token (x-token on h2 and h3) on
	# every later request.
	run_ok "auth-$p" 10 "${a[@]}" -n 10 -s "$W/auth.lua" "$u/"
	same "$T/auth-$p.log" "$(echo 'GET /authenticate - - - [-]'; lines 9 'GET /resource - secret42 - [-]')"
	check "auth-$p" 'statusCodes.200 == 10'

	# setup.lua: two threads, each told its id, each counting.
	run_ok "setup-$p" 40 --proto "$p" -t 2 -c 2 -n 40 -s "$W/setup.lua" "$u/"
	same "$E2E_TMP/setup-$p.stdout" "$(printf '%s\n' 'thread 1 created' 'thread 2 created' \
		'thread 1 made 20 requests and got 20 responses' \
		'thread 2 made 20 requests and got 20 responses')"

	# stop.lua: each thread stops itself at its 100th response, long
	# before -z.
	: >"$LOG"
	run_shb "stop-$p" --proto "$p" -t 2 -c 2 -z 20s -s "$W/stop.lua" "$u/"
	expect_rc "stop-$p" 0
	check "stop-$p" 'requests.total == 200' 'requests.ok == 200' 'durationSeconds < 15'
	logged 200

	# delay.lua: 10 to 50 ms before each request, on 2 connections for
	# 1 s: between 2 x 1000/50 and 2 x 1000/10 requests.
	run_shb "delay-$p" --proto "$p" -t 1 -c 2 -z 1s -s "$W/delay.lua" "$u/"
	expect_rc "delay-$p" 0
	check "delay-$p" 'requests.total >= 30' 'requests.total <= 200' 'requests.errors == 0'

	# report.lua: done() prints four percentiles as CSV.
	run_ok "report-$p" 50 "${a[@]}" -n 50 -s "$W/report.lua" "$u/"
	grep -qx -- '------------------------------' "$E2E_TMP/report-$p.stdout" || fail "report-$p: no separator"
	[[ $(grep -cE '^(50|90|99|99\.999)%,[0-9]+$' "$E2E_TMP/report-$p.stdout") -eq 4 ]] ||
		{ show_run "report-$p"; fail "report-$p: not four percentile lines"; }

	# addr.lua: wrk.lookup and wrk.connect, thread.addr set in setup().
	run_ok "addr-$p" 20 --proto "$p" -t 2 -c 2 -n 20 -s "$W/addr.lua" "$u/"
	port=${u##*:}
	[[ $(grep -cxF "thread addr: 127.0.0.1:$port" "$E2E_TMP/addr-$p.stdout") -eq 2 ]] ||
		{ show_run "addr-$p"; fail "addr-$p: not two thread addr lines"; }

	# api.lua: every member of the API, with exact counts.
	: >"$LOG"
	run_shb "api-$p" --proto "$p" -t 2 -c 2 -n 40 -H 'X-Api: on' \
		-s "$S/api.lua" "$u/base?q" -- one two
	expect_rc "api-$p" 0
	check "api-$p" 'requests.total == 40' 'statusCodes.200 == 20' 'statusCodes.404 == 20' \
		'errors.script == 0'
	logged 40
	cp "$LOG" "$T/api-$p.log"
	same "$T/api-$p.log" "$(for i in $(seq 1 20); do
		if ((i % 2)); then echo "PUT /ok - - $i [n=$i]"; else echo "PUT /missing - - $i [n=$i]"; fi
		done; for i in $(seq 1 20); do
		if ((i % 2)); then echo "PUT /ok - - $i [n=$i]"; else echo "PUT /missing - - $i [n=$i]"; fi
		done)"
	port=${u##*:}
	scheme=${u%%:*}
	same "$E2E_TMP/api-$p.stdout" "$(printf '%s\n' \
		"setup 1 addr 127.0.0.1:$port" "setup 2 addr 127.0.0.1:$port" \
		"init 1 t1 args 2 one two" "init 2 t2 args 2 one two" \
		"wrk $scheme 127.0.0.1 $port GET /base?q on nil" \
		"wrk $scheme 127.0.0.1 $port GET /base?q on nil" \
		'thread 1 seen 20 bodies 10 200=10 404=10 conf t1 3' \
		'thread 2 seen 20 bodies 10 200=10 404=10 conf t2 3' \
		'summary requests 40 status 20 connect 0 read 0 write 0 timeout 0' \
		'duration true bytes true' 'latency ordered true counted 40' 'rates true')"
done

# ---- failures, on h1 ------------------------------------------------------------
u=${URL[h1]}

# --dry-run names the script and its engine, runs nothing.
RC=0
"$SHB" --dry-run -s "$S/fail_setup.lua" "$u/" >"$E2E_TMP/dry.out" 2>&1 || RC=$?
[[ $RC -eq 0 ]] || { cat "$E2E_TMP/dry.out" >&2; fail "dry run: exit $RC"; }
grep -qE "^script: $S/fail_setup.lua, engine lua \(.*/shb-script-lua.so\)$" "$E2E_TMP/dry.out" ||
	{ cat "$E2E_TMP/dry.out" >&2; fail "dry run: no script line"; }

# Set-up: one line naming file:line, exit 2, nothing sent.
: >"$LOG"
refused_usage syntax "fail_syntax.lua:3:" -n 5 -s "$S/fail_syntax.lua" "$u/"
refused_usage setup-err "fail_setup.lua:3: attempt to index local 't' (a nil value)" \
	-n 5 -s "$S/fail_setup.lua" "$u/"
refused_usage move "a function cannot move between threads" -n 5 -s "$S/fail_move.lua" "$u/"
refused_usage no-file "cannot open" -n 5 -s "$E2E_TMP/none.lua" "$u/"
refused_usage no-ext "the file name has no extension" -n 5 -s "$S/api" "$u/"
refused_usage delay-open "defines delay(), and -R/--stages send on a schedule" \
	-R 10 -z 1s -s "$W/delay.lua" "$u/"
refused_usage with-L "-s and -L" -L -n 5 -s "$W/counter.lua" "$u/"
# A protocol built against ABI 1.3 has no issue_req: refused, naming it.
refused_usage v13 'shb: -s: protocol "line13" cannot send a script'"'"'s requests (it has no issue_req, ABI 1.4)' \
	--plugin-dir "$SHB_V13_PLUGIN_DIR" --proto line13 -n 5 -s "$W/counter.lua" "line://127.0.0.1:1/"
# Without the engine: the package to install.
SHB_PLUGIN_PATH=$SHB_H1_ONLY_PATH refused_usage no-engine "Debian package shb-plugin-lua" -n 5 -s "$W/counter.lua" "$u/"
sleep 0.2
[[ ! -s "$LOG" ]] || fail "a refused run sent requests"

# During the load: errors of kind script with the message; -n still ends.
fail_run() {
	local name=$1 n=$2 want=$3
	shift 3
	run_shb "$name" -t 1 -c 2 -n "$n" "$@"
	expect_rc "$name" 1
	check "$name" "requests.total == $n" "errors.script == $n" 'requests.ok == 0'
	grep -qF -- "$want" <<<"$(get "$name" errorSamples.script)" ||
		{ show_run "$name"; fail "$name: sample is not \"$want\""; }
}
fail_run runtime 50 'fail_request.lua:2: no request today' -s "$S/fail_request.lua" "$u/"
fail_run type 50 'fail_type.lua:1: request() returned a nil, not a string' -s "$S/fail_type.lua" "$u/"
fail_run bytes 50 'malformed request #1 from the script: the header fields do not end with an empty line' \
	-s "$S/fail_bytes.lua" "$u/"
fail_run huge 3 'script memory over 256 MiB' -s "$S/fail_huge.lua" "$u/"
fail_run loop 2 'ran over its time budget of 1000 ms' -s "$S/fail_loop.lua" "$u/"
# Without -p a string is the pipeline, of 64 requests at most: one of 65
# is dropped whole, one error each; -p sends it in turn.
fail_run long 3 'request() returned 65 requests in one string; without -p a string is a pipeline of at most 64 (give -p)' \
	-s "$S/pipe_n.lua" "$u/" -- 65
run_ok long-p 130 -t 1 -c 1 -p 4 -n 130 -s "$S/pipe_n.lua" "$u/" -- 65

# response() fails on every second answer: those requests are script
# errors, the others ok.
run_shb respfail -t 1 -c 1 -n 40 -s "$S/fail_response.lua" "$u/"
expect_rc respfail 0
check respfail 'requests.total == 40' 'requests.ok == 20' 'errors.script == 20'
grep -qF 'fail_response.lua:5: every second answer is refused' <<<"$(get respfail errorSamples.script)" ||
	fail "respfail: no sample"

# A script looping forever still ends at -z (each call costs its budget).
run_shb loop-z -t 1 -c 1 -z 2s -s "$S/fail_loop.lua" "$u/"
expect_rc loop-z 1
check loop-z 'errors.script >= 1' 'errors.script <= 4' 'requests.ok == 0'
(( ELAPSED_MS < 8000 )) || fail "loop-z: took ${ELAPSED_MS} ms"

nginx_stop
