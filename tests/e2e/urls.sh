#!/bin/bash
# Several targets in one run (--urls FILE, --mix) against a real nginx on
# two loopback ports (two origins), checked against nginx's own access log:
#  - three URLs of one origin with weights 1, 2, 7 and -n 1000: exactly
#    100, 200 and 700 requests per path in the log and in the report, the
#    third a POST with its own body file;
#  - two origins (--mix URL@WEIGHT): each origin gets exactly its targets'
#    requests over its own connections (-c split by weight); a plain and a
#    TLS origin in one mix;
#  - a target on a dead port: its errors in its own breakdown;
#  - -z: the shares follow the weights within an origin;
#  - three --shard parts together: exactly the counts of one process;
#  - a bad line: exit 2 with FILE:LINE, nothing sent.
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID, NAME_STATS: set by start_testserver
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_nginx.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

nginx_need
T=$E2E_TMP/nginx
LOG=$T/access.log
# A throwaway certificate for the TLS origin.
tls_self cert DNS:localhost,IP:127.0.0.1

# shellcheck disable=SC2016 # nginx's variables, not the shell's
servers() {
	nginx_conf "$T" '$server_port $request_method $uri $content_length $connection' <<SERVERS
	ssl_certificate $TLS_DIR/cert.pem;
	ssl_certificate_key $TLS_DIR/cert.key;
	server {
		listen 127.0.0.1:$PA;
		listen 127.0.0.1:$PB;
		listen 127.0.0.1:$PT ssl;
		location / { return 200 "hello, world!"; }
	}
SERVERS
}
nginx_start "$T" servers PA PB PT
# wait_port's probes are not requests, but start each run's log afresh.
: >"$LOG"
A="http://127.0.0.1:$PA"
B="http://127.0.0.1:$PB"

# logged PATTERN: lines of the access log matching PATTERN (ERE).
logged() {
	grep -cE "$1" "$LOG" || true
}

note "--urls: three paths, weights 1, 2, 7, the third a POST with a body file"
printf '0123456789' >"$E2E_TMP/body10"
cat >"$E2E_TMP/list.txt" <<EOF
# one origin, three targets
one=$A/one

two=$A/two	2
seven=$A/seven 7 POST $E2E_TMP/body10
EOF
run_shb list -c 6 -t 2 -n 1000 --urls "$E2E_TMP/list.txt"
expect_rc list 0
check list 'requests.ok == 1000' 'requests.errors == 0' \
	'targets.0.label == "one"' 'targets.0.weight == 1' \
	'targets.0.requests.ok == 100' 'targets.0.statusCodes.200 == 100' \
	'targets.0.method == "GET"' \
	'targets.1.label == "two"' 'targets.1.weight == 2' \
	'targets.1.requests.ok == 200' 'targets.1.statusCodes.200 == 200' \
	'targets.2.label == "seven"' 'targets.2.weight == 7' \
	'targets.2.requests.ok == 700' 'targets.2.statusCodes.200 == 700' \
	'targets.2.method == "POST"' 'targets.2.rxBodyBytes == 9100' \
	'targets.0.latencySeconds.percentiles.p99 > 0'
[[ $(logged "^$PA GET /one - ") -eq 100 && $(logged "^$PA GET /two - ") -eq 200 &&
   $(logged "^$PA POST /seven 10 ") -eq 700 && $(wc -l <"$LOG") -eq 1000 ]] ||
	{ sort "$LOG" | cut -d' ' -f1-4 | uniq -c >&2; show_run list; fail "list: nginx's log disagrees"; }
here=$(dirname "$0")
python3 "$here/../report/check_schema.py" "$here/../../docs/shb-report.schema.json" \
	"$E2E_TMP/list.json" >/dev/null || { show_run list; fail "list: the schema rejects the report"; }
# Six connections at most, all to the one origin.
[[ $(cut -d' ' -f5 "$LOG" | sort -u | wc -l) -le 6 ]] || fail "list: more than 6 connections"

note "--shard 0/3, 1/3, 2/3 of -n 1001: together what one process sends"
: >"$LOG"
for i in 0 1 2; do
	run_shb "shard$i" -c 6 -n 1001 --shard "$i/3" --urls "$E2E_TMP/list.txt"
	expect_rc "shard$i" 0
done
# The sequence of 1:2:7 over 1001 picks: 100, 200 and 701.
[[ $(logged "^$PA GET /one - ") -eq 100 && $(logged "^$PA GET /two - ") -eq 200 &&
   $(logged "^$PA POST /seven 10 ") -eq 701 && $(wc -l <"$LOG") -eq 1001 ]] ||
	{ sort "$LOG" | cut -d' ' -f1-4 | uniq -c >&2; fail "shards: nginx's log disagrees"; }
# Shard 1 takes picks 334 .. 667 of the sequence.
check shard1 'shard.index == 1' 'requests.ok == 334' 'targets.0.requests.ok == 34' \
	'targets.1.requests.ok == 67' 'targets.2.requests.ok == 233'

note "--mix over two origins: weights 1 and 3, -n 400 -c 4"
: >"$LOG"
run_shb mix -c 4 -n 400 --mix "x=$A/x@1" "y=$B/y@3"
expect_rc mix 0
check mix 'requests.ok == 400' 'targets.0.requests.ok == 100' \
	'targets.1.requests.ok == 300' 'targets.0.url == "'"$A/x"'"' \
	'targets.1.url == "'"$B/y"'"'
[[ $(logged "^$PA GET /x ") -eq 100 && $(logged "^$PB GET /y ") -eq 300 &&
   $(wc -l <"$LOG") -eq 400 ]] ||
	{ sort "$LOG" | cut -d' ' -f1-3 | uniq -c >&2; show_run mix; fail "mix: nginx's log disagrees"; }
# -c 4 split by weight: one connection to A, three to B.
ca=$(grep "^$PA " "$LOG" | cut -d' ' -f5 | sort -u | wc -l)
cb=$(grep "^$PB " "$LOG" | cut -d' ' -f5 | sort -u | wc -l)
[[ $ca -eq 1 && $cb -eq 3 ]] || fail "mix: $ca connections to A and $cb to B, expected 1 and 3"

note "plain and TLS origins in one mix, the TLS one checked against its CA"
: >"$LOG"
run_shb tls -c 2 -n 100 --cacert "$TLS_DIR/cert.pem" --mix "$A/plain" "https://127.0.0.1:$PT/tls"
expect_rc tls 0
check tls 'requests.ok == 100' 'targets.0.requests.ok == 50' \
	'targets.1.requests.ok == 50' 'targets.1.statusCodes.200 == 50'
[[ $(logged "^$PA GET /plain ") -eq 50 && $(logged "^$PT GET /tls ") -eq 50 ]] ||
	{ sort "$LOG" | cut -d' ' -f1-3 | uniq -c >&2; show_run tls; fail "tls: nginx's log disagrees"; }

note "a target on a dead port: its errors are its own"
: >"$LOG"
free_port dead
run_shb deadmix -c 4 -n 20 --mix "ok=$A/ok@9" "gone=http://127.0.0.1:$dead/g@1"
# The dead origin's connection never opened: 1 of 4 is more than 5 %.
expect_rc deadmix 1
grep -qxF "shb: 1 of 4 connections never opened (25.0 %): 1 refused (connect: Connection refused); the load ran on the others" \
	"$E2E_TMP/deadmix.stderr" || { show_run deadmix; fail "deadmix: no line on the connection that never opened"; }
check deadmix 'requests.ok == 18' 'requests.errors == 2' \
	'targets.0.requests.ok == 18' 'targets.0.requests.errors == 0' \
	'targets.1.requests.ok == 0' 'targets.1.errors.connect == 2' \
	'errors.connect == 2'
[[ $(logged "^$PA GET /ok ") -eq 18 && $(wc -l <"$LOG") -eq 18 ]] ||
	{ show_run deadmix; fail "deadmix: nginx's log disagrees"; }

note "-z: within an origin, the shares follow the weights"
: >"$LOG"
run_shb dur -c 4 -t 2 -z 1s --mix "$A/a@1" "$A/b@3"
expect_rc dur 0
a=$(get dur targets.0.requests.ok)
b=$(get dur targets.1.requests.ok)
# Each worker's picks are exact within every period of 4; what was in
# flight at the end is not counted (at most -c of them).
(( a > 100 && b - 3 * a <= 3 * 4 + 8 && 3 * a - b <= 3 * 4 + 8 )) ||
	{ show_run dur; fail "dur: $a and $b requests are not 1:3"; }

note "bad input: one line with FILE:LINE, exit 2, nothing sent"
: >"$LOG"
printf '%s\n' "$A/fine" "# ok" "$A/bad 0" >"$E2E_TMP/bad.txt"
run_shb bad -n 10 --urls "$E2E_TMP/bad.txt"
expect_rc bad 2
[[ $(cat "$E2E_TMP/bad.stderr") == "shb: $E2E_TMP/bad.txt:3: weight 0: must be 1..1000000 (see shb --help)" ]] ||
	{ show_run bad; fail "bad: wrong message"; }
printf '%s\n' "$A/fine" "ftp://127.0.0.1:$PA/x" >"$E2E_TMP/ftp.txt"
run_shb ftp -n 10 --urls "$E2E_TMP/ftp.txt"
expect_rc ftp 2
[[ $(cat "$E2E_TMP/ftp.stderr") == "shb: $E2E_TMP/ftp.txt:2: invalid URL \"ftp://127.0.0.1:$PA/x\": scheme must be http or https for protocol h1" ]] ||
	{ show_run ftp; fail "ftp: wrong message"; }
run_shb both -n 10 --urls "$E2E_TMP/list.txt" "$A/extra"
expect_rc both 2
grep -q "gives the targets: no URL on the command line as well" "$E2E_TMP/both.stderr" ||
	{ show_run both; fail "both: wrong message"; }
run_shb fewc -c 1 -n 10 --mix "$A/a" "$B/b"
expect_rc fewc 2
[[ $(cat "$E2E_TMP/fewc.stderr") == "shb: -c 1: the targets are on 2 origins, and each needs a connection of its own: give -c 2 or more" ]] ||
	{ show_run fewc; fail "fewc: wrong message"; }
# (a socket file nobody listens on: a missing path is refused before)
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$E2E_TMP/none.sock"
run_shb unix -n 10 --unix-socket "$E2E_TMP/none.sock" --mix "$A/a" "$B/b"
expect_rc unix 2
[[ $(cat "$E2E_TMP/unix.stderr") == "shb: target 2 ($B/b): a second origin (scheme, host and port), which --unix-socket does not serve: give targets of one origin" ]] ||
	{ show_run unix; fail "unix: wrong message"; }
[[ ! -s "$LOG" ]] || { cat "$LOG" >&2; fail "bad input sent requests"; }
nginx_stop
note "passed"
