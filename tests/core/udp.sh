#!/usr/bin/env bash
# The core's datagram transport, end to end: a test protocol plugin sends one
# 1200-byte datagram per request in GSO trains to a UDP echo server; the
# answers complete the requests. A lossy server (every 25th datagram dropped)
# exercises the protocol timer path: every request must still complete.
source "$(dirname "$0")/../e2e/lib.sh"
need SHB SHB_JCHECK UDP_ECHO UDPECHO_PLUGIN

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

start_echo lossy --drop-every 25
run_shb lossy1 --proto "$UDPECHO_PLUGIN" -t 1 -c 2 -p 16 -n 3000 "http://127.0.0.1:$lossy_PORT/"
[[ $RC -eq 0 ]] || { show_run lossy1; fail "exit $RC"; }
check lossy1 'requests.ok==3000' 'requests.errors==0'
stats=$(stop_echo lossy)
note "lossy server: $stats"
dropped=$(awk '{print $4}' <<<"$stats")
(( dropped >= 100 )) || fail "the server dropped only $dropped datagrams; the timer path was not exercised"

# Duration mode and a dead port: a refused UDP port is a connect error.
start_echo dur
run_shb dur1 --proto "$UDPECHO_PLUGIN" -c 2 -p 8 -z 1s "http://127.0.0.1:$dur_PORT/"
[[ $RC -eq 0 ]] || { show_run dur1; fail "exit $RC"; }
check dur1 'requests.ok>1000' 'requests.errors==0'
stop_echo dur >/dev/null

start_echo gone
stop_echo gone >/dev/null # its port is now closed
port=$gone_PORT
run_shb dead --proto "$UDPECHO_PLUGIN" -c 1 -p 4 -n 3 --timeout 2s "http://127.0.0.1:$port/"
[[ $RC -eq 1 ]] || { show_run dead; fail "exit $RC, expected 1"; }
check dead 'requests.ok==0' 'requests.errors==3' 'errors.connect==3'
note "udp: all checks passed"
