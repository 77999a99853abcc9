#!/bin/bash
# Routing: --connect-to and --resolve with a host name that exists nowhere
# (.invalid never resolves, RFC 6761), so only these options can make the
# runs work; every address in order (::1 first with a server on 127.0.0.1
# only works without an error); -4/-6; and the early stop of a run that
# never gets a connection.
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID, NAME_STATS: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

# The testserver listens on 127.0.0.1 only.
start_testserver srv hello
P=$srv_PORT
free_port DEAD

# --connect-to: the URL's host:port goes to another address; the Host
# header keeps the URL's authority (the testserver answers any).
ok_run ct 20 -c 2 --connect-to "api.invalid:80:127.0.0.1:$P" http://api.invalid/
# Only a matching entry applies: the first two do not match (other host,
# other port); the third, any host on port 80, does.
ok_run ct-first 20 -c 2 --connect-to "other.invalid:80:127.0.0.1:1" \
	--connect-to "api.invalid:81:127.0.0.1:1" --connect-to ":80:127.0.0.1:$P" \
	http://api.invalid/
# --resolve applies to where --connect-to leads (curl's order).
ok_run ct-resolve 20 -c 2 --connect-to "api.invalid::backend.invalid:$P" \
	--resolve "backend.invalid:$P:127.0.0.1" http://api.invalid/
# --resolve: the last matching entry wins; "*" matches any host.
ok_run resolve 20 -c 2 --resolve "api.invalid:$P:127.0.0.1" "http://api.invalid:$P/"
ok_run resolve-last 20 -c 2 --resolve "api.invalid:$P:127.0.0.2" \
	--resolve "api.invalid:$DEAD:127.0.0.2" --resolve "*:$P:127.0.0.1" \
	"http://api.invalid:$P/"

# Every address in order: ::1 (refused, or unreachable where the loopback
# has no IPv6) and 127.0.0.2 (refused) come first, each connection moves
# on without counting an error and keeps 127.0.0.1 once it worked.
ok_run fallback 200 -c 4 --resolve "api.invalid:$P:[::1],127.0.0.2,127.0.0.1" \
	"http://api.invalid:$P/"
check fallback 'connectionsOpened == 4'
run_shb fallback-z -c 4 -z 1s --resolve "api.invalid:$P:[::1],127.0.0.1" \
	"http://api.invalid:$P/"
expect_rc fallback-z 0
check fallback-z 'requests.ok > 100' 'connectionsOpened == 4'
check_no_errors fallback-z
# -4 keeps 127.0.0.1 alone.
ok_run ipv4 20 -c 2 -4 --resolve "api.invalid:$P:[::1],127.0.0.1" "http://api.invalid:$P/"

# Everything the testserver saw: the requests of every run above (the -z
# run's, plus at most one in flight per connection at its end), on one
# connection per -c (no connection to a wrong address ever reached it).
stop_server "$srv_PID"
z_ok=$(get fallback-z requests.ok)
check_file "$srv_STATS" "requests >= $((20 * 6 + 200 + z_ok))" \
	"requests <= $((20 * 6 + 200 + z_ok + 4))" \
	"accepted == $((2 * 6 + 4 + 4))" 'protocolErrors == 0'

# A run in which no connection ever succeeds stops once every connection
# failed 5 times in a row (each time after trying every address), with one
# line naming the address and the last error, and exit 1. -t 1: one
# worker, so exactly 4 x 5 attempts are counted.
want_stop() {
	local name=$1 want=$2
	grep -qxF -- "shb: $want" "$E2E_TMP/$name.stderr" ||
		{ show_run "$name"; fail "$name: stderr lacks the line: shb: $want"; }
}
run_shb dead -t 1 -c 4 -z 30s "http://127.0.0.1:$DEAD/"
expect_rc dead 1
check dead 'requests.ok == 0' 'errors.connect == 20' 'requests.errors == 20'
[[ $ELAPSED_MS -lt 10000 ]] || fail "dead: the run took ${ELAPSED_MS} ms, expected an early stop"
want_stop dead "no connection to 127.0.0.1:$DEAD ever succeeded: every connection failed 5 times in a row, the last with: connect: Connection refused"
# The same with -n: a budget far beyond what 20 attempts use.
run_shb dead-n -t 1 -c 4 -n 1000000 "http://127.0.0.1:$DEAD/"
expect_rc dead-n 1
check dead-n 'requests.ok == 0' 'errors.connect == 20'
want_stop dead-n "no connection to 127.0.0.1:$DEAD ever succeeded: every connection failed 5 times in a row, the last with: connect: Connection refused"
# Two addresses, both dead: a counted error is one full round.
run_shb dead-2 -t 1 -c 2 -z 30s --resolve "api.invalid:$DEAD:127.0.0.2,127.0.0.1" \
	"http://api.invalid:$DEAD/"
expect_rc dead-2 1
check dead-2 'requests.ok == 0' 'errors.connect == 10'
want_stop dead-2 "no connection to 127.0.0.1:$DEAD (nor 1 other address) ever succeeded: every connection failed 5 times in a row, the last with: connect: Connection refused"
# -6 leaves ::1 alone, where nothing listens.
run_shb ipv6-only -t 1 -c 2 -z 30s -6 --resolve "api.invalid:$DEAD:127.0.0.1,[::1]" \
	"http://api.invalid:$DEAD/"
expect_rc ipv6-only 1
check ipv6-only 'requests.ok == 0' 'errors.connect == 10'
grep -qF "shb: no connection to [::1]:$DEAD ever succeeded" "$E2E_TMP/ipv6-only.stderr" ||
	{ show_run ipv6-only; fail "ipv6-only: no early-stop line for [::1]"; }
# A -n budget used up first keeps its exact count, and no such line.
run_shb dead-small -c 2 -n 10 "http://127.0.0.1:$DEAD/"
expect_rc dead-small 1
check dead-small 'errors.connect == 10'
! grep -q "ever succeeded" "$E2E_TMP/dead-small.stderr" ||
	{ show_run dead-small; fail "dead-small: early stop before the budget was used"; }
note "passed"
