#!/bin/bash
# Overload is reported as overload, never as success:
#  - a server that takes fewer connections than -c asks: set-up ends one
#    connect timeout after the last connection opened (not one per wave of
#    connects), the load lasts -z, and a line says how many connections
#    never opened and why (exit 1);
#  - an open loop (-R) that cannot send its rate over too few connections
#    says so on stderr and in the reports (exit 1);
#  - Ctrl-C during set-up says that the load never started, and shb
#    leaves at once.
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID, NAME_STATS: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK

# stderr_has NAME TEXT: a line of run NAME's stderr holds TEXT.
stderr_has() {
	grep -qF -- "$2" "$E2E_TMP/$1.stderr" || { show_run "$1"; fail "$1: no \"$2\" on stderr"; }
}

note "a server that takes 50 connections: -c 3000 (two waves of 1024 per thread)"
# Its listen queue holds 50 and it starts accepting after 1 s: the kernel
# completes 50 handshakes and drops the SYNs of the rest (their connects
# time out); once it has accepted 50 the listener closes (later connects
# are refused).
start_testserver lim hello --accept-max 50 --accept-after-ms 1000
run_shb lim -t 2 -c 3000 -z 2s --connect-timeout 800ms "http://127.0.0.1:$lim_PORT/"
expect_rc lim 1
# One connect timeout after the last connection opened, not two (one per
# wave: 1.6 s and more before).
check lim 'setupSeconds > 0.7' 'setupSeconds < 1.2' \
	'durationSeconds >= 1.995' 'durationSeconds <= 2.005' 'requests.ok > 0'
never=$(sed -n 's/^shb: \([0-9]*\) of 3000 connections never opened .*/\1/p' "$E2E_TMP/lim.stderr")
[[ -n "$never" ]] || { show_run lim; fail "lim: no line on connections that never opened"; }
# 2950, give or take the few whose handshake the client finished while
# the server's queue overflowed (the server never took them; they were
# reset when it closed its listener).
[[ $never -ge 2945 && $never -le 2950 ]] || { show_run lim; fail "lim: $never never opened, expected 2950 (2945..)"; }
stderr_has lim "refused (connect: Connection refused)"
stop_server "$lim_PID"
check_file "$lim_STATS" 'accepted == 50'

note "-z is the load's time however many connections are held"
start_testserver many hello
run_shb many -t 2 -c 2000 -z 1s "http://127.0.0.1:$many_PORT/"
expect_rc many 0
check many 'durationSeconds >= 0.995' 'durationSeconds <= 1.005' 'connectionsOpened == 2000'
check_no_errors many
[[ ! -s "$E2E_TMP/many.stderr" ]] || { show_run many; fail "many: a line on stderr"; }
stop_server "$many_PID"

note "open loop: -R 1000 over 4 connections to a 20 ms server sends about 200/s"
start_testserver slow hello --delay-ms 20
url="http://127.0.0.1:$slow_PORT/"
run_shb short -R 1000 -c 4 -z 2s "$url"
expect_rc short 1
check short 'openLoop.shortfall == true' 'openLoop.rateAchieved < 250' \
	'openLoop.rateAchieved > 100' 'openLoop.requestsUnsent > 1500' \
	'requests.errors == 0'
stderr_has short "shb: open loop fell short:"
stderr_has short "never sent: every connection was busy (4 x 1 in flight at"
stderr_has short "; raise -c"
# The text report marks it too.
run_shb shorttext -R 1000 -c 4 -z 1s --report text "$url"
expect_rc shorttext 1
grep -q '^Shortfall: .*% of the due requests never sent' "$E2E_TMP/shorttext.stdout" ||
	{ show_run shorttext; fail "shorttext: no Shortfall line in the text report"; }

note "open loop within its rate: no mark, no line"
run_shb enough -R 100 -c 4 -z 1s "$url"
expect_rc enough 0
check enough 'openLoop.shortfall == false' 'openLoop.requestsUnsent <= 2' 'requests.total >= 95'
[[ ! -s "$E2E_TMP/enough.stderr" ]] || { show_run enough; fail "enough: a line on stderr"; }
stop_server "$slow_PID"

note "Ctrl-C during set-up: TLS to a server that never answers"
# A queue of 1 never accepted from in the run: one handshake waits for
# TLS that never comes, the other connects wait for their SYN.
start_testserver hole hello --accept-max 1 --accept-after-ms 600000
"$SHB" -q -c 20 -z 5s --connect-timeout 20s --report "json:$E2E_TMP/int.json" \
	"https://127.0.0.1:$hole_PORT/" >"$E2E_TMP/int.stdout" 2>"$E2E_TMP/int.stderr" </dev/null &
pid=$!
E2E_PIDS+=("$pid")
sleep 1
t0=$(date +%s%N)
kill -INT "$pid"
RC=0
wait "$pid" || RC=$?
pid_forget "$pid"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
note "exit $RC ${ms} ms after SIGINT"
expect_rc int 130
[[ $ms -lt 500 ]] || { show_run int; fail "int: left ${ms} ms after SIGINT"; }
stderr_has int "shb: stopped during set-up: the load never started (0 of 20 connections open after"
check int 'interrupted == true' 'durationSeconds == 0' 'requests.total == 0' \
	'setupSeconds > 0.9' 'setupSeconds < 2'
kill_quiet "$hole_PID"

note "passed"
