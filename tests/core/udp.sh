#!/usr/bin/env bash
# The core's datagram transport, end to end: a test protocol plugin sends one
# 1200-byte datagram per request in GSO trains to a UDP echo server; the
# answers complete the requests. A lossy server (every 25th datagram dropped)
# exercises the protocol timer path: every request must still complete.
source "$(dirname "$0")/../e2e/lib.sh"
source "$(dirname "$0")/../e2e/lib_r12.sh"
need SHB SHB_JCHECK UDP_ECHO UDPECHO_PLUGIN UDPECHOV_PLUGIN

start_echo() { # NAME [--drop-every N]
	local name=$1 _
	shift
	"$UDP_ECHO" --port-file "$E2E_TMP/$name.port" --stats-file "$E2E_TMP/$name.stats" "$@" &
	E2E_PIDS+=($!)
	eval "${name}_PID=$!"
	for _ in $(seq 100); do
		[[ -s "$E2E_TMP/$name.port" ]] && break
		sleep 0.05
	done
	eval "${name}_PORT=$(cat "$E2E_TMP/$name.port")"
}

stop_echo() { # NAME -> prints the stats line
	# Called in a command substitution (a subshell, which cannot wait for
	# the server): poll for the stats file the server writes as it exits.
	local pid _
	eval "pid=\$${1}_PID"
	kill -TERM "$pid"
	for _ in $(seq 100); do
		[[ -s "$E2E_TMP/$1.stats" ]] && break
		sleep 0.05
	done
	cat "$E2E_TMP/$1.stats"
}

start_echo clean
run_shb clean1 --proto "$UDPECHO_PLUGIN" -t 2 -c 4 -p 32 -n 20000 "http://127.0.0.1:$clean_PORT/"
[[ $RC -eq 0 ]] || { show_run clean1; fail "exit $RC"; }
check clean1 'requests.ok==20000' 'requests.errors==0' 'statusCodes.200==20000' \
	'connectionsOpened==4' 'protocol=="UDP echo (test)"' 'parallel==32'
# Every request is one 1200-byte datagram each way (none lost on loopback
# unless the socket buffer overflowed; then the timer resends).
check clean1 'bytesSent>=24000000' 'bytesReceived>=24000000'
stats=$(stop_echo clean)
note "server: $stats"
received=$(awk '{print $2}' <<<"$stats")
(( received >= 20000 )) || fail "server saw $received datagrams, expected >= 20000"

# Answers coalesced: the server echoes what is queued as UDP GSO trains of
# up to 32 datagrams, which the client's UDP GRO receives as one buffer
# each; every datagram must still reach the protocol as its own.
start_echo trains --gso 32
run_shb trains1 --proto "$UDPECHO_PLUGIN" -t 1 -c 2 -p 64 -n 20000 "http://127.0.0.1:$trains_PORT/"
[[ $RC -eq 0 ]] || { show_run trains1; fail "exit $RC"; }
check trains1 'requests.ok==20000' 'requests.errors==0' 'statusCodes.200==20000'
stats=$(stop_echo trains)
note "GSO server: $stats"
trains=$(awk '{print $6}' <<<"$stats")
maxtrain=$(awk '{print $8}' <<<"$stats")
(( trains >= 10 && maxtrain >= 4 )) ||
	fail "the server sent $trains trains of at most $maxtrain datagrams; coalesced receives were not exercised"

start_echo lossy --drop-every 25
run_shb lossy1 --proto "$UDPECHO_PLUGIN" -t 1 -c 2 -p 16 -n 3000 "http://127.0.0.1:$lossy_PORT/"
[[ $RC -eq 0 ]] || { show_run lossy1; fail "exit $RC"; }
check lossy1 'requests.ok==3000' 'requests.errors==0'
stats=$(stop_echo lossy)
note "lossy server: $stats"
dropped=$(awk '{print $4}' <<<"$stats")
(( dropped >= 100 )) || fail "the server dropped only $dropped datagrams; the timer path was not exercised"

# No handshake, no wait: the plugin can take requests as soon as its
# socket is up, so the load starts at once. With 60 s timeouts the
# worker's periodic check comes every 100 ms, which is what the first
# request used to wait for (set-up 0.100 s).
start_echo quick
run_shb quick1 --proto "$UDPECHO_PLUGIN" -t 1 -c 1 -n 10 --timeout 60s \
	--connect-timeout 60s "http://127.0.0.1:$quick_PORT/"
[[ $RC -eq 0 ]] || { show_run quick1; fail "exit $RC"; }
check quick1 'requests.ok==10' 'setupSeconds<0.05'
stop_echo quick >/dev/null

# ABI 1.4: trains of datagrams of two sizes (write_dgrams_v: each run of
# one size a GSO send, the rest when it completes), and -p 300 pending
# requests per connection, more than the descriptor's conn_size holds
# (conn_size_for; the plugin refuses memory closer than it needs). Every
# request once, no resend. Each connection starts with 1200 bytes and
# alternates, so its n requests are ceil(n/2) of 1200 and floor(n/2) of
# 600: two connections sharing 20000 carry 18,000,000 bytes each way when
# both counts are even, 18,000,600 when both are odd (10001 + 9999), as
# the core hands requests to whichever connection has room.
start_echo mixed
run_shb mixed1 --proto "$UDPECHOV_PLUGIN" -t 1 -c 2 -p 300 -n 20000 "http://127.0.0.1:$mixed_PORT/"
[[ $RC -eq 0 ]] || { show_run mixed1; fail "exit $RC"; }
check mixed1 'requests.ok==20000' 'requests.errors==0' 'connectionsOpened==2' \
	'bytesSent>=18000000' 'bytesSent<=18000600' 'parallel==300'
sent=$("$SHB_JCHECK" --get "$E2E_TMP/mixed1.json" bytesSent)
recv=$("$SHB_JCHECK" --get "$E2E_TMP/mixed1.json" bytesReceived)
[[ $sent == "$recv" && ( $sent == 18000000 || $sent == 18000600 ) ]] ||
	{ show_run mixed1; fail "mixed1: $sent bytes sent, $recv received: want 18000000 or 18000600, the same each way"; }
stats=$(stop_echo mixed)
note "mixed sizes: $stats"
[[ $(awk '{print $2}' <<<"$stats") == 20000 ]] || fail "mixed: the server saw $stats, expected 20000 datagrams"

# Duration mode and a dead port: a refused UDP port is a connect error.
# At the end of the run a UDP socket's receive, which no shutdown ends,
# is cancelled: one per connection, after which nothing is left in
# flight (tests/e2e/close-cancels.sh: none over TCP).
start_echo dur
SHB_DEBUG=1 run_shb dur1 --proto "$UDPECHO_PLUGIN" -t 1 -c 2 -p 8 -z 1s "http://127.0.0.1:$dur_PORT/"
[[ $RC -eq 0 ]] || { show_run dur1; fail "exit $RC"; }
check dur1 'requests.ok>1000' 'requests.errors==0'
grep -qxF "shb: debug core: end of run: 2 receive cancels, 0 operations left" "$E2E_TMP/dur1.stderr" ||
	{ show_run dur1; fail "dur1: not 2 receive cancels and 0 operations left at the end"; }
stop_echo dur >/dev/null

start_echo gone
stop_echo gone >/dev/null # its port is now closed
port=$gone_PORT
run_shb dead --proto "$UDPECHO_PLUGIN" -c 1 -p 4 -n 3 --timeout 2s "http://127.0.0.1:$port/"
[[ $RC -eq 1 ]] || { show_run dead; fail "exit $RC, expected 1"; }
check dead 'requests.ok==0' 'requests.errors==3' 'errors.connect==3'
# ABI 1.2 over UDP (the r12 test reporter): the plugin finds its request
# through host->conn_origin; on "/app" its answers carry app outcomes
# 0, 1, 2, 3 in turn, 3 a failure. One connection: exactly 25 of each.
# No TCP connect to time; the handshake is the plugin's first answer.
start_echo app
url="http://127.0.0.1:$app_PORT/app"
SHB_DEBUG=1 run_r12 app1 --proto "$UDPECHO_PLUGIN" -c 1 -n 100 "$url"
[[ $RC -eq 0 ]] || { show_run app1; fail "exit $RC"; }
check app1 'requests.total == 100' 'requests.ok == 75'
r12_is app1 requests_total 100
r12_is app1 requests_ok 75
r12_is app1 requests_errors 25
r12_is app1 errors_ex_sum 25
r12_is app1 errors_sum 0 # application errors are not a 1.1 kind
r12_has app1 "error 6 25 udpecho app code 3"
r12_has app1 "app 65536 0 1 25"
r12_has app1 "app 65536 1 1 25"
r12_has app1 "app 65536 2 1 25"
r12_has app1 "app 65536 3 0 25"
r12_has app1 "status 200 100" # the failed ones had a status too
r12_is app1 rx_body_bytes 90000 # of the 75 counted ok: 1200 bytes each
[[ $(r12_count app1 connect) == 0 ]] || fail "connect: $(r12 app1 connect)"
[[ $(r12_count app1 handshake) == 1 ]] || fail "handshake: $(r12 app1 handshake)"
[[ $(r12_count app1 first_byte) == 75 ]] || fail "first_byte: $(r12 app1 first_byte)"
[[ $(r12_count app1 latency) == 75 ]] || fail "latency: $(r12 app1 latency)"
grep -qF "udpecho: origin 0 http 127.0.0.1 $app_PORT 127.0.0.1:$app_PORT (none) 0 app" \
	"$E2E_TMP/app1.stderr" || { show_run app1; fail "no origin line"; }
stop_echo app >/dev/null
note "udp: all checks passed"
