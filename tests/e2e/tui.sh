#!/bin/bash
# --tui under tmux: the full-screen view of a run against shb-testserver,
# read back with capture-pane while the run goes on and at its end. The
# screen shows its panels and numbers that agree with the JSON report
# written alongside (status 200 count, requests, connections); a key
# leaves it and the text report follows on the normal screen; SIGINT
# (Ctrl-C) restores the terminal and still prints the report (exit 130),
# and so does the key q; a resize lays the view out again; a run that
# fails says why after the view, on the normal screen; --tui without a
# terminal on stdout is one line and exit 2.
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID, NAME_STATS: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK
command -v tmux >/dev/null || fail "tmux is not installed (scripts/setup.sh --with-test-servers)"

start_testserver srv hello
url="http://127.0.0.1:$srv_PORT/"

note "--tui with stdout not a terminal: one line, exit 2"
RC=0
"$SHB" --tui -n 10 "$url" >"$E2E_TMP/pipe.stdout" 2>"$E2E_TMP/pipe.stderr" </dev/null || RC=$?
[[ $RC -eq 2 ]] || fail "--tui to a file: exit $RC, expected 2"
if [[ $(wc -l <"$E2E_TMP/pipe.stderr") -ne 1 ]] ||
	! grep -q -- '--tui draws on a terminal' "$E2E_TMP/pipe.stderr"; then
	cat "$E2E_TMP/pipe.stderr" >&2
	fail "--tui to a file: not the one line expected"
fi
[[ ! -s "$E2E_TMP/pipe.stdout" ]] || fail "--tui to a file wrote to stdout"
RC=0
"$SHB" --report "tui:$E2E_TMP/x" -n 10 "$url" >/dev/null 2>"$E2E_TMP/file.stderr" </dev/null || RC=$?
if [[ $RC -ne 2 ]] || ! grep -q 'never to a file' "$E2E_TMP/file.stderr"; then
	cat "$E2E_TMP/file.stderr" >&2
	fail "--report tui:FILE: exit $RC"
fi

# A private tmux server, stopped by its PID when the script ends.
SOCK="shb-e2e-tui-$$"
unset TMUX
tmux_() { tmux -L "$SOCK" "$@"; }

# tui_run NAME COLS ROWS ARGS...: shb --tui in a new detached session
# NAME; its exit status lands in $E2E_TMP/NAME.rc, then the pane stays.
tui_run() {
	local name=$1 cols=$2 rows=$3
	shift 3
	local cmd
	printf -v cmd '%q ' env TERM=screen "$SHB" --tui "$@"
	local wrap="$cmd; echo \$? >$E2E_TMP/$name.rc; exec sleep 300"
	if tmux_ has-session 2>/dev/null; then
		tmux_ new-session -d -s "$name" -x "$cols" -y "$rows" "$wrap"
	else
		tmux_ -f /dev/null new-session -d -s "$name" -x "$cols" -y "$rows" "$wrap"
		local pid
		pid=$(tmux_ display-message -p '#{pid}')
		[[ $pid =~ ^[0-9]+$ ]] || fail "no tmux server PID"
		E2E_PIDS+=("$pid")
	fi
}

screen() { tmux_ capture-pane -p -t "$1"; }
# The normal screen with its scrolled-off lines (the full-screen view has
# none: it is on the alternate screen).
history() { tmux_ capture-pane -p -S -300 -t "$1"; }

# wait_screen NAME REGEX SECONDS: until the pane shows REGEX.
wait_screen() {
	local _
	for _ in $(seq 1 $(($3 * 10))); do
		screen "$1" >"$E2E_TMP/$1.screen"
		grep -Eq "$2" "$E2E_TMP/$1.screen" && return 0
		sleep 0.1
	done
	cat "$E2E_TMP/$1.screen" >&2
	fail "$1: the screen never showed /$2/"
}

# value NAME LABEL: the number at the end of the panel line LABEL.
value() {
	sed -nE "s/.*[^a-z]$2 +([0-9]+) .*/\1/p" "$E2E_TMP/$1.screen" | head -n 1
}

has() {
	grep -Fq -- "$2" "$E2E_TMP/$1.screen" || { cat "$E2E_TMP/$1.screen" >&2; fail "$1: no \"$2\" on the screen"; }
}

note "a 3 s run at 120x40, intervals of 250 ms"
tui_run run 120 40 -c 4 -t 2 -z 3s --interval 250ms --report-opt tui.hold=60 \
	--report "text,json:$E2E_TMP/run.json" "$url"
wait_screen run '\[running\].*elapsed' 10
sleep 1 # a few intervals on the charts
wait_screen run 'status 200 +[0-9]+' 5
note "while running:"
cat "$E2E_TMP/run.screen"
for s in "Throughput, req/s:" "Latency: p50" "Totals so far" "Status codes, errors" \
	"Connections" "q or Ctrl-C: stop" "GET $url" "2 threads, 4 connections" \
	"closed loop"; do
	has run "$s"
done
[[ $(value run open) == 4 ]] || fail "while running: open is not 4"
[[ $(value run connecting) == 0 ]] || fail "while running: connecting is not 0"
[[ $(value run 'opened in all') == 4 ]] || fail "while running: opened in all is not 4"
mid=$(value run 'status 200')
[[ $mid -gt 0 ]] || fail "while running: no status 200 counted"
# Bars on the throughput chart (between its title and the latency's).
sed -n '/Throughput/,/Latency/p' "$E2E_TMP/run.screen" | grep -q '#' ||
	fail "no bars on the throughput chart"

wait_screen run '\[done\]' 15
note "at the end:"
cat "$E2E_TMP/run.screen"
[[ ! -f "$E2E_TMP/run.rc" ]] || fail "the final screen did not wait for a key"
has run "Totals of the run"
has run "press a key to leave"
# The reporters after the view write their reports once it is left: the
# numbers of the final screen are kept, and compared after the key.
cp "$E2E_TMP/run.screen" "$E2E_TMP/final.screen"
[[ $(value final errors) == 0 ]] || fail "errors on the screen"
# The gauges of the total: the connections as the load ended.
[[ $(value final open) == 4 && $(value final connecting) == 0 ]] ||
	fail "at the end: open $(value final open), connecting $(value final connecting); expected 4 and 0"
[[ $(value final 'status 200') -gt $mid ]] ||
	fail "the final count $(value final 'status 200') is not above the one while running ($mid)"

note "a key leaves the screen; the text and JSON reports follow"
tmux_ send-keys -t run x
for _ in $(seq 1 50); do [[ -s "$E2E_TMP/run.rc" ]] && break; sleep 0.1; done
[[ $(cat "$E2E_TMP/run.rc" 2>/dev/null) == 0 ]] || fail "exit status $(cat "$E2E_TMP/run.rc" 2>/dev/null), expected 0"
check run 'interrupted == false' 'requests.ok > 0'
check_no_errors run
s200=$(get run 'statusCodes.200')
[[ $(value final 'status 200') == "$s200" ]] || fail "status 200: screen $(value final 'status 200'), JSON $s200"
[[ $(value final requests) == "$(get run requests.total)" ]] || fail "requests: screen $(value final requests), JSON $(get run requests.total)"
[[ $(value final ok) == "$(get run requests.ok)" ]] || fail "ok: screen $(value final ok), JSON $(get run requests.ok)"
[[ $(value final 'opened in all') == "$(get run connectionsOpened)" ]] || fail "opened in all differs from the JSON"
history run >"$E2E_TMP/run.after"
cat "$E2E_TMP/run.after"
grep -Fq "[200] $s200" "$E2E_TMP/run.after" || fail "the text report after the view lacks [200] $s200"
! grep -Fq "Totals of the run" "$E2E_TMP/run.after" || fail "the view is still on the screen"

note "a resize to 90x30, then Ctrl-C: terminal restored, report printed, exit 130"
tui_run int 120 40 -c 2 -z 30s --interval 250ms --report "text,json:$E2E_TMP/int.json" "$url"
wait_screen int 'status 200 +[0-9]+' 10
tmux_ resize-window -t int -x 90 -y 30
# The next sample lays the view out again: the Connections box is the
# last third, columns 61 to 90, its title after the corner and one line.
wait_screen int '^.{60}[^ ]{2} Connections [^ ]{15}$' 5
awk 'length > 90 { exit 1 }' "$E2E_TMP/int.screen" || fail "a line wider than 90 after the resize"
[[ $(wc -l <"$E2E_TMP/int.screen") -eq 30 ]] || fail "not 30 lines after the resize"
has int "Totals so far"
has int "Throughput, req/s:"
tmux_ send-keys -t int C-c
for _ in $(seq 1 100); do [[ -s "$E2E_TMP/int.rc" ]] && break; sleep 0.1; done
[[ $(cat "$E2E_TMP/int.rc" 2>/dev/null) == 130 ]] || fail "Ctrl-C: exit $(cat "$E2E_TMP/int.rc" 2>/dev/null), expected 130"
history int >"$E2E_TMP/int.after"
grep -q '^Requests: ' "$E2E_TMP/int.after" || { cat "$E2E_TMP/int.after" >&2; fail "no text report after Ctrl-C"; }
! grep -Fq "Totals so far" "$E2E_TMP/int.after" || fail "the view is still on the screen after Ctrl-C"
check int 'interrupted == true' 'requests.ok > 0'

note "q stops the run as Ctrl-C does"
tui_run q 120 40 -c 2 -z 30s --interval 250ms --report "text,json:$E2E_TMP/q.json" "$url"
wait_screen q 'status 200 +[0-9]+' 10
tmux_ send-keys -t q q
for _ in $(seq 1 100); do [[ -s "$E2E_TMP/q.rc" ]] && break; sleep 0.1; done
[[ $(cat "$E2E_TMP/q.rc" 2>/dev/null) == 130 ]] || fail "q: exit $(cat "$E2E_TMP/q.rc" 2>/dev/null), expected 130"
history q >"$E2E_TMP/q.after"
grep -q '^Interrupted: *yes' "$E2E_TMP/q.after" || { cat "$E2E_TMP/q.after" >&2; fail "q: no interrupted text report"; }
check q 'interrupted == true' 'requests.ok > 0' 'durationSeconds < 10'

note "nothing listening: the run's error line follows the view, not under it"
free_port dead
tui_run dead 120 40 -c 2 -z 5s --report-opt tui.hold=0 "http://127.0.0.1:$dead/"
for _ in $(seq 1 100); do [[ -s "$E2E_TMP/dead.rc" ]] && break; sleep 0.1; done
[[ $(cat "$E2E_TMP/dead.rc" 2>/dev/null) == 1 ]] || fail "refused: exit $(cat "$E2E_TMP/dead.rc" 2>/dev/null), expected 1"
history dead | grep -v '^$' >"$E2E_TMP/dead.after"
cat "$E2E_TMP/dead.after"
grep -Eq "^shb: no connection to 127.0.0.1:$dead ever succeeded" "$E2E_TMP/dead.after" ||
	fail "refused: the error line is not on the normal screen"
[[ $(grep -n '^Requests: ' "$E2E_TMP/dead.after" | cut -d: -f1) -lt \
   $(grep -n '^shb: no connection' "$E2E_TMP/dead.after" | cut -d: -f1) ]] ||
	fail "refused: the error line came before the report"

tmux_ kill-server
stop_server "$srv_PID"
note "ok"
