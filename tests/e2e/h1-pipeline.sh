#!/bin/bash
# HTTP/1.1 pipelining (-p N on h1), against the scripted peer of the
# hostile suite in its pipe mode: on every connection it reads --depth
# requests before it sends a single response, then answers them all in one
# write, again and again. A client that waits for a response before its
# next request gets nothing from it (and --timeout ends the run with
# errors), so exact ok counts here mean every batch reached the server
# before any answer did. Cases: -p 4 on one connection, on two, through
# TLS, and under -R (each request timed from its own start); wrk's pipeline.lua (three requests in one request() string) with
# -p 3, with -p 6 (two strings in flight), and over two connections of
# -p 4, each string whole on one connection. Then scripts without -p,
# where a string is the pipeline as in wrk: pipeline.lua on one and two
# connections (never two strings on one), under -R, broken by the peer
# (each request counted once), 64 requests a string,
# strings of one request (one in flight), --disable-keepalive (one request
# per connection), and HTTP/2 (a string's requests as concurrent streams,
# counted by the HTTP/2 peer).
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID: set by start_peer
source "$(dirname "$0")/../hostile/lib.sh"
need SHB_H1PEER SHB_H2PEER

SCRIPTS="$(dirname "$0")/scripts/wrk"
RSS=64
LIMIT=20

# pipe NAME DEPTH: a pipe peer, its stats in $E2E_TMP/NAME.stats at exit.
pipe() {
	start_peer "$1" "$SHB_H1PEER" --mode pipe --depth "$2" \
		--stats-file "$E2E_TMP/$1.stats"
}

# ok_run NAME N SHB_ARGS...: a run of exactly N ok requests, nothing else.
ok_run() {
	local name=$1 n=$2
	shift 2
	hrun "$name" "$LIMIT" "$RSS" -t 1 --timeout 2s -n "$n" "$@"
	expect_rc "$name" 0
	check "$name" "requests.total == $n" "requests.ok == $n" \
		'requests.errors == 0' 'requests.retried == 0' "statusCodes.200 == $n"
}

pipe p 4
ok_run one 40 -c 1 -p 4 "http://127.0.0.1:$p_PORT/"
check one 'connectionsOpened == 1'
ok_run two 80 -c 2 -p 4 "http://127.0.0.1:$p_PORT/"
check two 'connectionsOpened == 2'
tls_front f relay "$p_PORT" http/1.1
ok_run tls 40 -c 1 -p 4 "https://127.0.0.1:$f_PORT/"
kill_quiet "$f_PID"
stop_server "$p_PID"
check_file "$E2E_TMP/p.stats" 'accepted == 4' 'requests == 160'
note "-p 4: 160 requests in batches of 4, each batch sent before any answer"

# Open loop, -R 20 on one connection of -p 4: each request is due 50 ms
# after the one before, and the peer answers none of a batch before it
# has all four, so the first of each batch waits at least 150 ms for the
# three due after it. Its latency, from its own due time (and from its
# own send), counts that wait; the last of a batch, due 150 ms later, is
# not timed from the first's start.
pipe o 4
ok_run open 8 -c 1 -p 4 -R 20 "http://127.0.0.1:$o_PORT/"
check open 'latencySeconds.max >= 0.15' 'latencyUncorrectedSeconds.max >= 0.15' \
	'latencySeconds.min < 0.15'
stop_server "$o_PID"
note "-p 4 -R 20: each request of a batch timed from its own start"

# wrk's pipeline.lua: its three requests leave together, on one
# connection, before any response, as wrk sends them.
pipe q 3
ok_run lua3 30 -c 1 -p 3 -s "$SCRIPTS/pipeline.lua" "http://127.0.0.1:$q_PORT/"
ok_run lua6 30 -c 1 -p 6 -s "$SCRIPTS/pipeline.lua" "http://127.0.0.1:$q_PORT/"
# Two connections of -p 4: the second string does not fit in what the
# first connection has left (one), so it goes whole to the second, not
# split 1 + 2 (which the peer would never answer).
ok_run lua_split 6 -c 2 -p 4 -s "$SCRIPTS/pipeline.lua" "http://127.0.0.1:$q_PORT/"
stop_server "$q_PID"
check_file "$E2E_TMP/q.stats" 'accepted == 4' 'requests == 66'
note "pipeline.lua: 66 requests in strings of 3, each string sent whole on one connection"

# ---- Without -p: the string is the pipeline, as in wrk ----------------
S=$(dirname "$0")/scripts

# Strings of three, no flag: each leaves whole before any answer (the
# peer answers none of three until it has all three), one string at a
# time on each of one and two connections; under -R each request is sent
# when due, on its string's connection, and timed from its own due time.
pipe n 3
ok_run nop1 30 -c 1 -s "$SCRIPTS/pipeline.lua" "http://127.0.0.1:$n_PORT/"
check nop1 'connectionsOpened == 1'
ok_run nop2 30 -c 2 -s "$SCRIPTS/pipeline.lua" "http://127.0.0.1:$n_PORT/"
check nop2 'connectionsOpened == 2'
ok_run nop_open 9 -c 2 -R 30 -s "$SCRIPTS/pipeline.lua" "http://127.0.0.1:$n_PORT/"
check nop_open 'latencySeconds.max >= 0.06' 'latencySeconds.min < 0.06'
# -p given keeps strings waiting for room in it: with -p 1 the three go
# one after another, and the peer answers none of them (each timeout
# closes its connection: three connections).
hrun nop_p1 "$LIMIT" "$RSS" -t 1 --timeout 300ms -n 3 -c 1 -p 1 \
	-s "$SCRIPTS/pipeline.lua" "http://127.0.0.1:$n_PORT/"
expect_rc nop_p1 1
check nop_p1 'requests.total == 3' 'requests.ok == 0' 'errors.timeout == 3'
stop_server "$n_PID"
check_file "$E2E_TMP/n.stats" 'accepted == 8' 'requests == 72'
note "no -p: pipeline.lua's strings of 3 each sent whole, one per connection at a time"

# At most one string in flight on a connection: a peer that answers once
# it has four requests answers none on either of two connections.
pipe m 4
hrun one_string "$LIMIT" "$RSS" -t 1 --timeout 300ms -n 12 -c 2 \
	-s "$SCRIPTS/pipeline.lua" "http://127.0.0.1:$m_PORT/"
expect_rc one_string 1
# Each string's first request times out (the others on its connection
# may too, or be read errors once the timeout closes it).
check one_string 'requests.total == 12' 'requests.ok == 0' 'requests.errors == 12' \
	'errors.timeout >= 4' 'errors.protocol == 0' 'errors.connect == 0'
stop_server "$m_PID"
# Four strings, each on a connection of its own (a timeout closes one).
check_file "$E2E_TMP/m.stats" 'accepted == 4' 'bytesOut == 0'
note "no -p, -c 2: never a second string on a connection"

# A string's pipeline that breaks counts each request once, as -p's does
# (README.md, "HTTP/1.1 pipelining"): two answers then FIN leave the third
# a read error; no answer, the first a timeout (which closes the
# connection) and the two behind it read errors; Connection: close on the
# first answer refuses the two behind it, sent again on new connections
# (2 + 2 + 2 + 2 + 1 resent for -n 6, one answer per connection).
bad_pipe() { # NAME MODE SHB_ARGS...
	local name=$1 mode=$2
	shift 2
	start_peer b "$SHB_H1PEER" --mode "$mode" --depth 3
	hrun "$name" "$LIMIT" "$RSS" -t 1 -c 1 "$@" -s "$SCRIPTS/pipeline.lua" "http://127.0.0.1:$b_PORT/"
	stop_server "$b_PID"
}
bad_pipe close_mid pipe-close-mid -n 3
expect_rc close_mid 0
check close_mid 'requests.total == 3' 'requests.ok == 2' 'errors.read == 1' 'requests.errors == 1'
bad_pipe stall pipe-stall -n 3 --timeout 1s
expect_rc stall 1
check stall 'requests.total == 3' 'requests.ok == 0' 'errors.timeout == 1' 'errors.read == 2'
bad_pipe conn_close pipe-conn-close -n 6 --timeout 2s
expect_rc conn_close 0
check conn_close 'requests.total == 6' 'requests.ok == 6' 'requests.errors == 0' \
	'requests.retried == 9' 'connectionsOpened == 6'
note "no -p: a broken string pipeline counts each request once"

# The longest string without -p, 64 requests, leaves whole: the HTTP/1.1
# ring is that deep (a longer string is the script's error: e2e-script).
pipe l 64
ok_run pipe64 128 -c 1 -s "$S/pipe_n.lua" "http://127.0.0.1:$l_PORT/" -- 64
stop_server "$l_PID"
check_file "$E2E_TMP/l.stats" 'accepted == 1' 'requests == 128'
note "no -p: a string of 64 requests sent whole"

# Strings of one request (counter.lua) keep one request in flight: a peer
# that waits for two before it answers answers none.
pipe k 2
hrun ones "$LIMIT" "$RSS" -t 1 --timeout 300ms -n 8 -c 4 \
	-s "$SCRIPTS/counter.lua" "http://127.0.0.1:$k_PORT/"
expect_rc ones 1
check ones 'requests.total == 8' 'requests.ok == 0' 'errors.timeout == 8'
stop_server "$k_PID"
check_file "$E2E_TMP/k.stats" 'bytesOut == 0'
note "no -p: strings of one request, one in flight"

# --disable-keepalive: one request per connection, a string's requests
# one after another, each on a connection of its own.
h1_peer ka hello
ok_run ka 6 -c 1 --disable-keepalive -s "$SCRIPTS/pipeline.lua" "http://127.0.0.1:$ka_PORT/"
check ka 'connectionsOpened == 6'
stop_server "$ka_PID"
note "no -p, --disable-keepalive: one request per connection"

# HTTP/2: a string's requests are concurrent streams, one string at a
# time per connection. The peer answers each stream 20 ms after it came,
# so the streams open at once are the string's (its maxOpen); -p 1
# keeps one stream.
h2s() { # NAME
	start_peer "$1" "$SHB_H2PEER" --mode 'stall 1000' --stats-file "$E2E_TMP/$1.stats"
}
h2s h2a
ok_run h2_1 30 --proto h2 -c 1 -s "$SCRIPTS/pipeline.lua" "http://127.0.0.1:$h2a_PORT/"
stop_server "$h2a_PID"
check_file "$E2E_TMP/h2a.stats" 'connections == 1' 'streams == 30' 'maxOpen == 3' 'violations == 0'
h2s h2b
ok_run h2_2 30 --proto h2 -c 2 -s "$SCRIPTS/pipeline.lua" "http://127.0.0.1:$h2b_PORT/"
stop_server "$h2b_PID"
check_file "$E2E_TMP/h2b.stats" 'connections == 2' 'streams == 30' 'maxOpen == 3' 'violations == 0'
h2s h2c
ok_run h2_p1 30 --proto h2 -c 1 -p 1 -s "$SCRIPTS/pipeline.lua" "http://127.0.0.1:$h2c_PORT/"
stop_server "$h2c_PID"
check_file "$E2E_TMP/h2c.stats" 'streams == 30' 'maxOpen == 1'
note "no -p on HTTP/2: strings of 3 as 3 concurrent streams; -p 1 one stream"
