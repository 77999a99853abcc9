#!/bin/bash
# --source against a real nginx that logs each request's client address
# and connection number: connection slot k binds to address k mod count,
# so the spread over the addresses is exact; nothing comes from another
# address. Bad --source values stop before any traffic with one line and
# exit 2. nginx is required (scripts/setup.sh --with-test-servers).
source "$(dirname "$0")/lib.sh"
need SHB SHB_JCHECK

NGINX=$(command -v nginx || true)
[[ -n "$NGINX" ]] || NGINX=$(ls /usr/sbin/nginx 2>/dev/null || true)
[[ -n "$NGINX" ]] || fail "nginx is not installed (Debian package nginx-light; scripts/setup.sh --with-test-servers)"

T=$E2E_TMP/nginx
mkdir -p "$T"

# write_conf PORT: one line per request, "CLIENT-ADDRESS CONNECTION".
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
events { worker_connections 1024; }
http {
	log_format src '\$remote_addr \$connection';
	access_log $T/access.log src;
	client_body_temp_path $T/client_body;
	proxy_temp_path $T/proxy;
	fastcgi_temp_path $T/fastcgi;
	uwsgi_temp_path $T/uwsgi;
	scgi_temp_path $T/scgi;
	default_type text/plain;
	keepalive_requests 100000000;
	keepalive_timeout 300s;
	server {
		listen 127.0.0.1:$1;
		location / { return 200 "hello, world!"; }
	}
}
CONF
}

started=""
for _ in 1 2 3; do
	free_port PORT
	write_conf "$PORT"
	"$NGINX" -e "$T/error.log" -p "$T" -c "$T/nginx.conf" >"$T/stdout.log" 2>&1 &
	NGINX_PID=$!
	E2E_PIDS+=("$NGINX_PID")
	# shellcheck disable=SC2034 # read by lib.sh when a check fails
	E2E_LOGS[$NGINX_PID]="$T/error.log"
	if wait_port "$PORT" "$NGINX_PID"; then
		started=1
		break
	fi
	kill_quiet "$NGINX_PID"
done
[[ -n "$started" ]] || { cat "$T/error.log" "$T/stdout.log" >&2 2>/dev/null || true; fail "nginx did not start"; }
URL="http://127.0.0.1:$PORT/"
note "nginx on $URL, access log $T/access.log"

# spread NAME EXPECTED: the access log since the last call, as
# "ADDRESS connections requests" lines sorted by address, must equal
# EXPECTED (lines separated by ';').
logged=0
spread() {
	local name=$1 want got
	want=$(tr ';' '\n' <<<"$2")
	# nginx writes each line when the request ends; shb has exited.
	got=$(tail -n +$((logged + 1)) "$T/access.log" | awk '
		{ req[$1]++; if (!(($1, $2) in seen)) { seen[$1, $2] = 1; conns[$1]++ } }
		END { for (a in req) print a, conns[a], req[a] }' | sort)
	logged=$(wc -l <"$T/access.log")
	if [[ "$got" != "$want" ]]; then
		show_run "$name"
		printf -- '--- got:\n%s\n--- expected:\n%s\n' "$got" "$want" >&2
		fail "$name: connections and requests per client address differ"
	fi
}

# Three addresses, two connections each (slots 0..5 over 2 threads);
# every connection carries at least its first request, -n in total.
run_shb range -t 2 -c 6 -n 60 --source 127.0.0.2-127.0.0.4 "$URL"
expect_rc range 0
check range 'requests.ok == 60' 'statusCodes.200 == 60' 'connectionsOpened == 6'
check_no_errors range
got=$(tail -n +1 "$T/access.log" | awk '{ n[$1]++ } END { for (a in n) print a }' | sort | tr '\n' ' ')
[[ "$got" == "127.0.0.2 127.0.0.3 127.0.0.4 " ]] || fail "range: requests came from: $got"
# Requests per address vary with timing; connections do not.
got=$(awk '!(($1, $2) in s) { s[$1, $2] = 1; c[$1]++ } END { for (a in c) print a, c[a] }' "$T/access.log" | sort | tr '\n' ';')
[[ "$got" == "127.0.0.2 2;127.0.0.3 2;127.0.0.4 2;" ]] || fail "range: connections per address: $got"
logged=$(wc -l <"$T/access.log")

# A list, 7 slots on one thread: slots 0, 2, 4, 6 and 1, 3, 5; -n 7
# with -c 7 gives each connection exactly one request.
run_shb list -t 1 -c 7 -n 7 --source 127.0.0.5,127.0.0.9 "$URL"
expect_rc list 0
check list 'requests.ok == 7' 'connectionsOpened == 7'
check_no_errors list
spread list "127.0.0.5 4 4;127.0.0.9 3 3"

# Reconnections keep their slot's address: --disable-keepalive, one
# connection per request, 3 slots over 3 addresses.
run_shb close -t 1 -c 3 -n 30 --disable-keepalive --source 127.0.0.6-127.0.0.8 "$URL"
expect_rc close 0
check close 'requests.ok == 30' 'connectionsOpened == 30'
check_no_errors close
got=$(tail -n +$((logged + 1)) "$T/access.log" | awk '{ print $1 }' | sort -u | tr '\n' ' ')
[[ "$got" == "127.0.0.6 127.0.0.7 127.0.0.8 " ]] || fail "close: requests came from: $got"
logged=$(wc -l <"$T/access.log")

# Without --source: the kernel's choice, 127.0.0.1.
run_shb plain -t 1 -c 2 -n 2 "$URL"
expect_rc plain 0
spread plain "127.0.0.1 2 2"

# Refused before any traffic: one line, exit 2, nothing logged.
refused() { # expected-line args...
	local want=$1 lines
	shift
	run_shb refused "$@"
	expect_rc refused 2
	lines=$(wc -l <"$E2E_TMP/refused.stderr")
	[[ "$lines" -eq 1 ]] || { show_run refused; fail "refused: $lines lines on stderr"; }
	grep -qF -e "$want" "$E2E_TMP/refused.stderr" || { show_run refused; fail "refused: expected '$want'"; }
}
refused "--source is IPv6 but the URL's host 127.0.0.1 is IPv4" -n 1 --source ::1 "$URL"
refused "--source mixes IPv4 and IPv6 addresses" -n 1 --source 127.0.0.2,::1 "$URL"
refused "--source holds more than 256 addresses" -n 1 --source 127.0.0.0-127.0.1.0 "$URL"
refused "--source: cannot bind to 192.0.2.1" -n 1 --source 192.0.2.1 "$URL"
refused "--source is IPv4 but -6 was given" -n 1 -6 --source 127.0.0.2 "$URL"
[[ $(wc -l <"$T/access.log") -eq "$logged" ]] || fail "a refused run sent requests"
note "ok"
