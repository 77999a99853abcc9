#!/bin/bash
# shb --proto h2 against nghttpd (nghttp2's server), which enforces the
# protocol strictly: a lowered SETTINGS_HEADER_TABLE_SIZE (a missing HPACK
# size update is a connection error there), tiny flow-control windows,
# 4 concurrent streams, trailers, echoed 200 KB bodies, and responses
# sent before the request body. Skipped (77) without nghttpd (Debian
# package nghttp2-server).
source "$(dirname "$0")/../e2e/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

NGHTTPD=$(command -v nghttpd || true)
[[ -n "$NGHTTPD" ]] || NGHTTPD=$(ls /usr/sbin/nghttpd 2>/dev/null || true)
if [[ -z "$NGHTTPD" ]]; then
	skip "nghttpd is not installed (Debian package nghttp2-server)"
fi

DOC=$E2E_TMP/htdocs
mkdir -p "$DOC"
printf 'hello from nghttpd' >"$DOC/index.html"
make_body "$E2E_TMP/body" 204800

# start_nghttpd NAME ARGS...: sets NAME_URL.
start_nghttpd() {
	local name=$1 port pid
	shift
	for _ in 1 2 3; do
		free_port port
		"$NGHTTPD" --no-tls -d "$DOC" "$@" "$port" >"$E2E_TMP/$name.log" 2>&1 &
		pid=$!
		E2E_PIDS+=("$pid")
		if wait_port "$port" "$pid"; then
			printf -v "${name}_URL" 'http://127.0.0.1:%s/' "$port"
			printf -v "${name}_PID" '%s' "$pid"
			return 0
		fi
		kill_quiet "$pid"
	done
	cat "$E2E_TMP/$name.log" >&2
	fail "nghttpd $name did not start"
}

count_run() {
	local name=$1 n=$2
	shift 2
	run_shb "$name" -n "$n" "$@"
	expect_rc "$name" 0
	check "$name" "requests.total == $n" "requests.ok == $n" \
		"statusCodes.200 == $n" 'protocol == "HTTP/2"'
	check_no_errors "$name"
}

# Table size 100, 1023-octet stream windows, 4095-octet connection
# window, 4 streams at most, trailers on every response, bodies echoed.
start_nghttpd strict -c 100 -w 10 -W 12 -m 4 --echo-upload \
	--trailer="x-trailer: yes"
# shellcheck disable=SC2154 # strict_URL: set by start_nghttpd
count_run get 2000 --proto h2 -c 4 -p 32 "$strict_URL"
check get 'connectionsOpened == 4'
count_run post 50 --proto h2 -c 2 -p 8 -m POST -d "@$E2E_TMP/body" "$strict_URL"
# Every body came back whole.
check post "bytesReceived > $((50 * 204800))" "bytesSent > $((50 * 204800))"

# Responses before the request body is complete: the rest of the body is
# cancelled, the request counts ok.
start_nghttpd early --early-response
# shellcheck disable=SC2154 # early_URL: set by start_nghttpd
count_run early 200 --proto h2 -c 2 -p 16 -m POST -d "@$E2E_TMP/body" "$early_URL"

# Defaults (100 streams, 64 KiB windows) with 64 streams per connection.
start_nghttpd plain
# shellcheck disable=SC2154 # plain_URL: set by start_nghttpd
count_run wide 4000 --proto h2 -c 4 -p 64 "$plain_URL"

note "passed"
