#!/bin/bash
# Request templates and --body-lines end to end, over HTTP/1.1, HTTP/2
# (h2c) and HTTP/3: what the server logged must be exactly the expanded
# requests. nginx logs method, request URI, X-Id and the request body
# (read because it proxies to a second server on loopback); caddy serves
# HTTP/3 in front of the same nginx. Bad templates are refused with one
# line and exit 2 before any traffic (nginx logs nothing). Fails
# without nginx, caddy or openssl (scripts/setup.sh --with-test-servers
# installs them).
# shellcheck disable=SC2154 # fp_PID, fp_PORT: set by start_testserver
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_nginx.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

nginx_need
CADDY=$(command -v caddy || true)
[[ -n "$CADDY" ]] || fail "caddy is not installed (Debian package caddy)"
# Only the plugins of this build.
export SHB_PLUGIN_SYSTEM_PATH=

T=$E2E_TMP/tmpl
mkdir -p "$T/caddy"
LOG=$T/access.log

tls_self cert DNS:localhost,IP:127.0.0.1

# nginx: H1 (HTTP/1.1) and H2C (HTTP/2 with prior knowledge) log every
# request and proxy it to BACK, which answers "ok".
# shellcheck disable=SC2016 # nginx's variables, not the shell's
servers() {
	nginx_conf "$T" '$request_method $request_uri $http_x_id [$request_body]' <<SERVERS
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
	}
SERVERS
}
nginx_start "$T" servers H1 H2C BACK

# caddy: HTTP/3 (and h1/h2 over TLS) on H3, proxied to nginx's H1.
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

# logged N: waits until the access log has N lines (nginx writes a line
# when it finishes a request, a moment after the response went out),
# then fails if it has any other number.
logged() {
	local n=$1 _
	for _ in $(seq 1 100); do
		[[ $(wc -l <"$LOG") -lt $n ]] || break
		sleep 0.05
	done
	sleep 0.1
	[[ $(wc -l <"$LOG") -eq $n ]] || { head -n 20 "$LOG" >&2; fail "access log has $(wc -l <"$LOG") lines, expected $n"; }
}

# run_ok NAME N ARGS...: a run of exactly N requests, all answered 200,
# its access log lines in $T/NAME.log (the log is emptied first).
run_ok() {
	local name=$1 n=$2
	shift 2
	: >"$LOG"
	run_shb "$name" -n "$n" "$@"
	expect_rc "$name" 0
	check "$name" "requests.ok == $n" "statusCodes.200 == $n" 'requests.errors == 0'
	logged "$n"
	cp "$LOG" "$T/$name.log"
}

# same FILE EXPECTED-TEXT: FILE (sorted) holds exactly these lines.
same() {
	diff <(sort "$1") <(sort <<<"$2") >"$T/diff" ||
		{ head -n 30 "$T/diff" >&2; fail "$(basename "$1"): not the expected requests"; }
}

printf '%s\n' alpha beta gamma delta epsilon zeta eta >"$T/words"
# Bodies: JSON, form, an empty line (an empty body), one with spaces;
# no final LF (the last line counts all the same).
printf '%s\n%s\n\n%s' '{"id":1,"tags":["a","b"]}' 'a=1&b=2' 'text with spaces' >"$T/bodies"
mapfile -t WORDS <"$T/words"
BODIES=('{"id":1,"tags":["a","b"]}' 'a=1&b=2' '' 'text with spaces')

for p in h1 h2 h3; do
	proto=(--proto "$p")
	[[ $p == h1 ]] || proto+=(-p 2) # several streams per connection

	# {{seq}}: -n 100 gives the paths /x/0 .. /x/99, each once.
	run_ok "seq-$p" 100 -c 4 "${proto[@]}" "${URL[$p]}/x/{{seq}}"
	same "$T/seq-$p.log" "$(for i in $(seq 0 99); do echo "GET /x/$i - [-]"; done)"

	# {{line:FILE}} in the path and a header: request seq takes line
	# (seq mod 7); 21 requests take every line exactly three times.
	run_ok "line-$p" 21 -c 3 "${proto[@]}" -H 'X-Id: s{{seq}}-{{line:'"$T/words"'}}' \
		"${URL[$p]}/w/{{seq}}/{{line:$T/words}}?q=\\{{x}}"
	same "$T/line-$p.log" "$(for i in $(seq 0 20); do w=${WORDS[$((i % 7))]}
		echo "GET /w/$i/$w?q={{x}} s$i-$w [-]"; done)"

	# --body-lines: POST by default, body seq is line (seq mod 4),
	# including the empty one; X-Id says which request it was.
	run_ok "bodies-$p" 12 -c 2 "${proto[@]}" -H 'X-Id: {{seq}}' --body-lines "$T/bodies" \
		"${URL[$p]}/b"
	# (nginx logs a quote as \x22)
	same "$T/bodies-$p.log" "$(for i in $(seq 0 11); do b=${BODIES[$((i % 4))]}
		echo "POST /b $i [${b//\"/\\x22}]"; done)"

	# A templated -d body with {{worker}}, {{conn}} and {{rand:N}}.
	run_ok "data-$p" 30 -c 3 -t 1 "${proto[@]}" -H 'X-Id: {{uuid}}' \
		-d 'w={{worker}}&c={{conn}}&r={{rand:5}}' "${URL[$p]}/d/{{rand:1000}}"
	awk '{ if ($1 != "POST" || $2 !~ /^\/d\/[0-9]+$/) exit 1 }' "$T/data-$p.log" ||
		fail "data-$p: bad request line"
	ids=$(awk '{print $3}' "$T/data-$p.log" | grep -cE '^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$' || true)
	[[ $ids -eq 30 ]] || fail "data-$p: $ids of 30 X-Id values are version 4 UUIDs"
	[[ $(awk '{print $3}' "$T/data-$p.log" | sort -u | wc -l) -eq 30 ]] ||
		fail "data-$p: the UUIDs are not all distinct"
	grep -vqE '\[w=0&c=[0-2]&r=[0-4]\]$' "$T/data-$p.log" &&
		fail "data-$p: a body out of range: $(grep -vE '\[w=0&c=[0-2]&r=[0-4]\]$' "$T/data-$p.log" | head -n 1)"
	[[ $(grep -oE 'c=[0-2]' "$T/data-$p.log" | sort -u | wc -l) -eq 3 ]] ||
		fail "data-$p: not every connection numbered"
done

# --data-binary is sent unchanged: its braces are no template.
run_ok binary 2 -c 1 --data-binary 'x={{seq}}' "${URL[h1]}/raw"
same "$T/binary.log" "$(printf 'POST /raw - [x={{seq}}]\nPOST /raw - [x={{seq}}]')"

# --mix: each target has its own template; the numbers are the run's,
# shared by both targets (the picks alternate by weight: 1 and 1).
run_ok mix 20 -c 2 --mix "${URL[h1]}/a/{{seq}}" "${URL[h1]}/b/{{seq}}?t={{line:$T/words}}"
[[ $(grep -c '^GET /a/' "$T/mix.log") -eq 10 && $(grep -c '^GET /b/' "$T/mix.log") -eq 10 ]] ||
	fail "mix: not 10 requests per target"
diff <(grep -oE '^GET /[ab]/[0-9]+' "$T/mix.log" | awk -F/ '{print $3}' | sort -n) <(seq 0 19) >/dev/null ||
	fail "mix: the numbers are not 0..19, each once"
grep '^GET /b/' "$T/mix.log" | while read -r _ uri _; do
	i=${uri#/b/}; i=${i%%\?*}
	[[ "$uri" == "/b/$i?t=${WORDS[$((i % 7))]}" ]] || fail "mix: $uri has the wrong line"
done

# ---- refusals: one line, exit 2, nothing sent -------------------------------

refused() {
	local want="shb: $1" rc=0
	shift
	: >"$LOG"
	timeout -k 5 20 "$SHB" "$@" >"$T/r.out" 2>"$T/r.err" </dev/null || rc=$?
	note "shb $* -> exit $rc: $(head -n 1 "$T/r.err")"
	[[ $rc -eq 2 ]] || { cat "$T/r.err" >&2; fail "exit $rc, expected 2: shb $*"; }
	[[ ! -s "$T/r.out" ]] || { cat "$T/r.out" >&2; fail "wrote to stdout: shb $*"; }
	[[ "$(cat "$T/r.err")" == "$want" ]] || {
		echo "got:  $(cat "$T/r.err")" >&2
		echo "want: $want" >&2
		fail "wrong message: shb $*"
	}
	sleep 0.2
	[[ ! -s "$LOG" ]] || fail "traffic before the refusal: shb $*"
}

U=${URL[h1]}
refused 'template in the URL: unknown placeholder "{{sequence}}" at offset 3 (known: seq, worker, conn, rand:N, uuid, line:FILE; \{{ for a literal {{)' \
	-n 1 "$U/x/{{sequence}}"
refused 'template in the URL: bad N in "{{rand:0}}" at offset 1 (a whole number from 1 to 2^63)' \
	-n 1 "$U/{{rand:0}}"
refused 'template in header "X-Id": unterminated "{{" at offset 0 (no "}}" after it; \{{ for a literal {{)' \
	-n 1 -H 'X-Id: {{seq' "$U/"
refused "template in the URL: cannot open \"$T/none\": No such file or directory" \
	-n 1 "$U/{{line:$T/none}}"
printf 'a b\n' >"$T/spaced"
refused "template in the URL: \"$T/spaced\" line 1 has a space, control or non-ASCII byte, which a URL cannot carry (percent-encode it)" \
	-n 1 "$U/{{line:$T/spaced}}"
printf 'a\r\n' >"$T/crlf"
refused "--body-lines: \"$T/crlf\" line 1 has a CR byte (convert CRLF line ends to LF)" \
	-n 1 --body-lines "$T/crlf" "$U/"
: >"$T/empty"
refused "--body-lines: \"$T/empty\" is empty" -n 1 --body-lines "$T/empty" "$U/"
refused '--body-lines and -d/--data-binary: give one of them (see shb --help)' \
	-n 1 -d x --body-lines "$T/bodies" "$U/"
refused 'template in header "Host": not expanded (the Host is the connection'"'"'s authority)' \
	-n 1 -H 'Host: h{{seq}}' "$U/{{seq}}"
# A protocol without issue_var (the test protocol fx) keeps plain runs
# and refuses a templated one.
if [[ -r "${FX_PLUGIN_DIR:-}/shb-proto-fx.so" ]]; then
	refused 'protocol fx cannot vary requests (it has no issue_var): templates and --body-lines need it' \
		--plugin-dir "$FX_PLUGIN_DIR" --proto fx -n 1 'fx://127.0.0.1/{{seq}}'
else
	fail "FX_PLUGIN_DIR has no shb-proto-fx.so"
fi

stop_server "$CADDY_PID"
nginx_stop
note "templates: ok"
