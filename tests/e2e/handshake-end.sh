# The end of a run lets a connection still in its protocol's handshake
# finish it and close cleanly, within the drain: such a connection used
# to be shut down at once, and a server that had just accepted it (a
# WebSocket server whose 101 was on its way) saw it end without the
# protocol's goodbye. With the test protocol fx (fx_plugin.c; hello: each
# connection sends HELLO and takes requests only after the server's OK;
# bye: a graceful end sends BYE) against hello_server.py, which closes
# each connection after one answer, so that shb opens a second one whose
# OK comes late. The run: one connection, 2 requests/s for 300 ms, so one
# request, answered at once; the run ends while the second connection
# waits for its OK:
#  - the OK 500 ms late: after it, that connection must send BYE and
#    only BYE, and the run ends once it did;
#  - no OK ever: no BYE may go, and the run still ends within its drain.
#
# Environment (set by meson): FX_PLUGIN_DIR (shb-proto-fx.so), besides
# lib.sh's.
source "$(dirname "$0")/lib.sh"
need SHB
[[ -r "${FX_PLUGIN_DIR:-}/shb-proto-fx.so" ]] || fail "FX_PLUGIN_DIR has no shb-proto-fx.so"
export SHB_PLUGIN_SYSTEM_PATH=
BYE_HEX=4259450d0a

# start_server NAME DELAYS: hello_server.py on a free port, closing
# every connection after one answer -> SRV_PORT.
start_server() {
	local name=$1 i
	python3 "$(dirname "$0")/hello_server.py" "$E2E_TMP/$name.port" "$E2E_TMP/$name.log" "$2" 1 \
		2>"$E2E_TMP/$name.err" &
	E2E_PIDS+=($!)
	SRV_PID=$!
	for ((i = 0; i < 100; i++)); do
		[[ -s "$E2E_TMP/$name.port" ]] && break
		sleep 0.05
	done
	SRV_PORT=$(cat "$E2E_TMP/$name.port" 2>/dev/null) || fail "hello_server.py did not start"
}

# wait_lines FILE N: until FILE has N lines (the connections ended), 10 s.
wait_lines() {
	local i
	for ((i = 0; i < 200; i++)); do
		[[ -f "$1" && $(wc -l <"$1") -ge $2 ]] && return 0
		sleep 0.05
	done
	fail "$1: $(wc -l <"$1" 2>/dev/null || echo 0) of $2 connections ended"
}

# check_run NAME: one request, answered, exit 0.
check_run() {
	expect_rc "$1" 0
	check "$1" 'requests.total == 1' 'requests.ok == 1' 'requests.errors == 0'
}

# The first connection's OK at once, the second's 500 ms late.
start_server late 0,500
run_shb late --plugin-dir "$FX_PLUGIN_DIR" --proto fx -c 1 -t 1 -R 2 -z 300ms \
	--proto-opt hello --proto-opt bye "fx://127.0.0.1:$SRV_PORT/"
check_run late
wait_lines "$E2E_TMP/late.log" 2
note "late: $(tr '\n' ';' <"$E2E_TMP/late.log")"
line=$(grep '^2 ' "$E2E_TMP/late.log")
[[ $line == "2 1 $BYE_HEX" ]] ||
	fail "the connection in its handshake at the end: '$line', expected '2 1 $BYE_HEX' (OK sent, then BYE alone)"
line=$(grep '^1 ' "$E2E_TMP/late.log")
[[ $line == "1 1 "* && $line != *"$BYE_HEX" ]] ||
	fail "the first connection: '$line', expected its request, no BYE (the server closed it)"
((ELAPSED_MS >= 450)) || fail "the run ended after $ELAPSED_MS ms, before the late OK"
((ELAPSED_MS < 4000)) || fail "the run took $ELAPSED_MS ms"
kill_quiet "$SRV_PID"

# No OK on the second connection: nothing after its HELLO, and the run
# ends within the drain (1 s after the 300 ms).
start_server never 0,-1
run_shb never --plugin-dir "$FX_PLUGIN_DIR" --proto fx -c 1 -t 1 -R 2 -z 300ms \
	--proto-opt hello --proto-opt bye "fx://127.0.0.1:$SRV_PORT/"
check_run never
wait_lines "$E2E_TMP/never.log" 2
note "never: $(tr '\n' ';' <"$E2E_TMP/never.log")"
line=$(grep '^2 ' "$E2E_TMP/never.log")
[[ $line == "2 0 -" ]] || fail "the connection never answered: '$line', expected '2 0 -' (nothing after HELLO)"
((ELAPSED_MS < 4000)) || fail "the run took $ELAPSED_MS ms with a handshake that never ends"
kill_quiet "$SRV_PID"
note "ok"
