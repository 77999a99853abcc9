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
# -p 4, each string whole on one connection.
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID: set by start_peer
source "$(dirname "$0")/../hostile/lib.sh"
need SHB_H1PEER

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
