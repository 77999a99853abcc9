# Shared helpers for the HTTP/3 server scripts (caddy.sh, gtlsserver.sh,
# bun.sh): sourced, never run on its own. Functions only; nothing runs at
# source time. They report errors on stderr and return non-zero: the
# caller (tests/h3/e2e/lib.sh) decides between skipping and failing.

# shellcheck disable=SC2034 # used by the scripts that source this one
H3SRV_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# h3srv_make_cert DIR: a throwaway self-signed ECDSA P-256 certificate
# for localhost, 127.0.0.1 and ::1, valid two days, as DIR/cert.pem and
# DIR/key.pem (kept if already there). openssl, or certtool as fallback.
h3srv_make_cert() {
	local d=$1
	[[ -s "$d/cert.pem" && -s "$d/key.pem" ]] && return 0
	mkdir -p "$d"
	if command -v openssl >/dev/null; then
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
			-nodes -keyout "$d/key.pem" -out "$d/cert.pem" -days 2 \
			-subj /CN=localhost \
			-addext 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1' \
			>"$d/cert.log" 2>&1
	elif command -v certtool >/dev/null; then
		printf '%s\n' 'cn = localhost' 'dns_name = localhost' \
			'ip_address = 127.0.0.1' 'ip_address = ::1' \
			'expiration_days = 2' 'tls_www_server' 'signing_key' \
			>"$d/cert.tmpl"
		{ certtool --generate-privkey --key-type ecdsa --curve secp256r1 \
			--outfile "$d/key.pem" &&
		  certtool --generate-self-signed --load-privkey "$d/key.pem" \
			--template "$d/cert.tmpl" --outfile "$d/cert.pem"; } \
			>"$d/cert.log" 2>&1
	else
		echo "h3srv: neither openssl nor certtool is installed" >&2
		return 1
	fi || { cat "$d/cert.log" >&2; echo "h3srv: cannot make a certificate" >&2; return 1; }
}

# h3srv_make_docroot DIR: the files every server serves, identical on all
# of them: DIR/index.html ("hello, world!", 13 bytes, no newline), DIR/1m
# (1 MiB: 131072 lines of the line's byte offset as 7 hex digits and a
# newline, so a misplaced chunk of a body is visible) and DIR/echo ("ok",
# what gtlsserver answers to POST /echo).
h3srv_make_docroot() {
	local d=$1
	[[ -s "$d/1m" ]] && return 0
	mkdir -p "$d"
	printf 'hello, world!' >"$d/index.html"
	printf 'ok' >"$d/echo"
	awk 'BEGIN { for (i = 0; i < 131072; i++) printf "%07x\n", i * 8 }' >"$d/1m"
	[[ $(stat -c %s "$d/1m") -eq 1048576 ]] || { echo "h3srv: cannot write $d/1m" >&2; return 1; }
}

# h3srv_port_used PORT: true when a TCP or UDP socket (IPv4 or IPv6) is
# bound to PORT.
h3srv_port_used() {
	local hex
	hex=$(printf ':%04X' "$1")
	cat /proc/net/tcp /proc/net/tcp6 /proc/net/udp /proc/net/udp6 2>/dev/null |
		awk -v p="$hex" 'substr($2, length($2) - 4) == p { f = 1 } END { exit !f }'
}

# h3srv_udp_bound PORT: true when a UDP socket is bound to PORT.
h3srv_udp_bound() {
	local hex
	hex=$(printf ':%04X' "$1")
	cat /proc/net/udp /proc/net/udp6 2>/dev/null |
		awk -v p="$hex" 'substr($2, length($2) - 4) == p { f = 1 } END { exit !f }'
}

# h3srv_tcp_listening PORT: true when a TCP socket listens on PORT.
h3srv_tcp_listening() {
	local hex
	hex=$(printf ':%04X' "$1")
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		awk -v p="$hex" 'substr($2, length($2) - 4) == p && $4 == "0A" { f = 1 } END { exit !f }'
}

# h3srv_pick_port: prints a port that is free for both TCP and UDP, from
# 10000..32767 (below Linux's default ephemeral range, so no client
# socket takes it between the check and the server's bind).
h3srv_pick_port() {
	local p _
	for _ in $(seq 1 200); do
		p=$((10000 + RANDOM % 22768))
		h3srv_port_used "$p" || { echo "$p"; return 0; }
	done
	echo "h3srv: no free port found" >&2
	return 1
}

# h3srv_wait_ready PID PORT tcp+udp|udp [SECONDS]: until the server PID
# has its sockets on PORT. Fails when PID exits or after SECONDS (10).
h3srv_wait_ready() {
	local pid=$1 port=$2 kind=$3 secs=${4:-10} i
	for ((i = 0; i < secs * 20; i++)); do
		h3srv_alive "$pid" || return 1
		if h3srv_udp_bound "$port" &&
			{ [[ $kind == udp ]] || h3srv_tcp_listening "$port"; }; then
			return 0
		fi
		sleep 0.05
	done
	return 1
}

# h3srv_alive PID: true while PID runs (a zombie does not count).
h3srv_alive() {
	local st
	st=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
	[[ -n $st && ${st:0:1} != Z ]]
}

# h3srv_stop PID [SECONDS]: SIGTERM, then SIGKILL if PID is still there
# after SECONDS (5). Works for processes that are not the caller's
# children too (polls /proc instead of waiting). Returns 0; sets
# H3SRV_STATUS to the exit status when PID was the caller's child, else
# to "".
h3srv_stop() {
	local pid=$1 secs=${2:-5} i child=0 ppid
	H3SRV_STATUS=
	ppid=$(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f2)
	[[ "$ppid" != "$BASHPID" ]] || child=1
	kill -TERM "$pid" 2>/dev/null || return 0
	for ((i = 0; i < secs * 20; i++)); do
		h3srv_alive "$pid" || break
		sleep 0.05
	done
	if h3srv_alive "$pid"; then
		echo "h3srv: process $pid ignored SIGTERM for ${secs}s: killed" >&2
		kill -KILL "$pid" 2>/dev/null || true
	fi
	if ((child)); then
		H3SRV_STATUS=0
		wait "$pid" 2>/dev/null || H3SRV_STATUS=$?
	fi
	return 0
}

# h3srv_start_loop NAME KIND DIR: common start-up for the scripts. Calls
# h3srv_launch_NAME DIR PORT (which must start the server in the
# background and set H3SRV_PID) with a fresh port, up to 5 times when the
# server dies at once (port taken meanwhile). Sets H3SRV_PORT and
# H3SRV_PID; returns non-zero with the log on stderr when it never came
# up. The server's output goes to DIR/NAME.log.
# shellcheck disable=SC2153 # H3SRV_PID: set by h3srv_launch_NAME
h3srv_start_loop() {
	local name=$1 kind=$2 dir=$3 try
	for try in 1 2 3 4 5; do
		H3SRV_PORT=$(h3srv_pick_port) || return 1
		"h3srv_launch_$name" "$dir" "$H3SRV_PORT" || return 1
		if h3srv_wait_ready "$H3SRV_PID" "$H3SRV_PORT" "$kind"; then
			return 0
		fi
		if h3srv_alive "$H3SRV_PID"; then
			h3srv_stop "$H3SRV_PID"
			break # alive but never listened: retrying will not help
		fi
		wait "$H3SRV_PID" 2>/dev/null || true
		grep -qi 'address already in use' "$dir/$name.log" 2>/dev/null || break
	done
	echo "h3srv: $name did not start (attempt $try); its log:" >&2
	tail -n 30 "$dir/$name.log" >&2 || true
	return 1
}
