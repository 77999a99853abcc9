#!/bin/bash
# --dry-run prints the run's plan, line for line as expected, and exits 0
# without any traffic: two servers that count what they accept see no
# connection, no report file is created, and a host that does not resolve
# is no error (nothing is resolved). Bad input is still exit 2, one line.
# Cases: -c not divisible by -t; a shard with -R, --start-at, --interval
# and a report file; a --urls mix over two origins; a comparison.
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID, NAME_STATS: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

start_testserver a hello
start_testserver b hello
ua="http://127.0.0.1:$a_PORT"
ub="http://127.0.0.1:$b_PORT"

# plan NAME ARGS...: shb --dry-run ARGS exits 0 with nothing on stderr;
# its stdout, the plugin file's directory replaced by DIR, in NAME.plan.
plan() {
	local name=$1 rc=0
	shift
	timeout -k 5 20 "$SHB" --dry-run "$@" >"$E2E_TMP/$name.out" \
		2>"$E2E_TMP/$name.err" </dev/null || rc=$?
	note "$name: shb --dry-run $* -> exit $rc"
	[[ $rc -eq 0 ]] || { cat "$E2E_TMP/$name.err" >&2; fail "$name: exit $rc"; }
	[[ ! -s "$E2E_TMP/$name.err" ]] || { cat "$E2E_TMP/$name.err" >&2; fail "$name: wrote to stderr"; }
	sed -E 's|^(protocol: [a-z0-9]+ \().*/(shb-proto-[a-z0-9]+\.so\))$|\1DIR/\2|' \
		"$E2E_TMP/$name.out" >"$E2E_TMP/$name.plan"
}

# expect NAME: the plan equals stdin, line for line.
expect() {
	diff -u --label expected - --label "$1" "$E2E_TMP/$1.plan" >&2 ||
		fail "$1: the plan differs from the expected lines (- expected, + got)"
}

plan uneven -t 3 -c 10 -n 100 "$ua/x"
expect uneven <<EOT
url: $ua/x
protocol: h1 (DIR/shb-proto-h1.so)
streams per connection: 1
threads: 3
connections: 10, per worker 4 (worker 0), 3 (workers 1-2)
requests: 100, per worker 34 (worker 0), 33 (workers 1-2)
rate: closed loop (as fast as answers come)
shard: none
start: once every connection is set up
warm-up: none
interval: none
reporters: text to stdout
sockets: file descriptors
EOT

# Shard 1 of 3: -c 7 -> 2, -n 100 -> 33, -R 100 -> 33.333/s; each of its
# two workers takes every second request of the schedule.
at=$(( $(date +%s) + 3600 ))
plan shard --shard 1/3 -t 2 -c 7 -n 100 -R 100 --start-at "$at.25" \
	--interval 2s --warmup 1s --report "text,json:$E2E_TMP/never.json" "$ua/"
expect shard <<EOT
url: $ua/
protocol: h1 (DIR/shb-proto-h1.so)
streams per connection: 1
threads: 2
connections: 2, per worker 1 (workers 0-1)
requests: 33, per worker 17 (worker 0), 16 (worker 1)
rate: 33.333/s, per worker 16.666/s (worker i sends requests i, i + 2, ... of the schedule)
shard: 1 of 3 (0-based), its part of -c, -n and the rates
start: $(date -u -d "@$at" +%Y-%m-%dT%H:%M:%S).250000000Z
warm-up: 1s
interval: 2s
reporters: text to stdout, json to $E2E_TMP/never.json
sockets: file descriptors
EOT
[[ ! -e "$E2E_TMP/never.json" ]] || fail "shard: the dry run created its report file"

# A mix over two origins: -c 5 by weight 4:1 -> 4 and 1, so one thread
# (each needs a connection of every origin); -n 10 by the weights.
printf '%s\n' "$ua/a 3" "$ua/b 1 POST" "$ub/c 1" >"$E2E_TMP/urls.txt"
plan mix -t 2 -c 5 -n 10 --urls "$E2E_TMP/urls.txt"
expect mix <<EOT
url: $ua/a
protocol: h1 (DIR/shb-proto-h1.so)
streams per connection: 1
threads: 1
target 1: $ua/a, weight 3, origin 0, requests 6
target 2: $ua/b, weight 1, origin 0, requests 2
target 3: $ub/c, weight 1, origin 1, requests 2
origin 0: connections 4, per worker 4 (worker 0)
origin 1: connections 1, per worker 1 (worker 0)
connections: 5, per worker 5 (worker 0)
requests: 10, per worker 10 (worker 0)
rate: closed loop (as fast as answers come)
shard: none
start: once every connection is set up
warm-up: none
interval: none
reporters: text to stdout
sockets: file descriptors
EOT

# A comparison, one of whose hosts does not resolve: nothing is resolved.
plan compare -t 2 -c 3 -z 5s one="$ub/" two=http://no-such-host.invalid:8080/
expect compare <<EOT
run: 1 of 2, label one
url: $ub/
protocol: h1 (DIR/shb-proto-h1.so)
streams per connection: 1
run: 2 of 2, label two
url: http://no-such-host.invalid:8080/
protocol: h1 (DIR/shb-proto-h1.so)
streams per connection: 1
threads: 2
connections: 3, per worker 2 (worker 0), 1 (worker 1)
duration: 5s
rate: closed loop (as fast as answers come)
shard: none
start: once every connection is set up
warm-up: none
interval: none
reporters: text to stdout
sockets: file descriptors
EOT

# Bad input is refused as for a run: exit 2, one line, nothing on stdout.
rc=0
"$SHB" --dry-run --sni x -n 10 "$ua/" >"$E2E_TMP/bad.out" 2>"$E2E_TMP/bad.err" || rc=$?
[[ $rc -eq 2 ]] || fail "bad input: exit $rc, expected 2"
[[ ! -s "$E2E_TMP/bad.out" && $(wc -l <"$E2E_TMP/bad.err") -eq 1 ]] ||
	{ cat "$E2E_TMP/bad.out" "$E2E_TMP/bad.err" >&2; fail "bad input: not one line on stderr alone"; }
grep -qF -- "shb: --sni x: SNI is sent only over TLS, and the URL is http://" \
	"$E2E_TMP/bad.err" || { cat "$E2E_TMP/bad.err" >&2; fail "bad input: wrong line"; }

# Neither server saw a connection.
stop_server "$a_PID"
stop_server "$b_PID"
check_file "$a_STATS" 'accepted == 0' 'requests == 0'
check_file "$b_STATS" 'accepted == 0' 'requests == 0'
note "dry-run: ok"
