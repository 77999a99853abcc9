#!/bin/bash
# The goodbye at the end of a run follows the bytes still in flight: a
# connection whose send had not completed when the run ended used to be
# shut down at once, without its protocol's last words (a WebSocket close
# frame, a GOAWAY, close_notify). With the test protocol fx (fx_plugin.c,
# upload=BYTES makes each request a large POST, bye makes a graceful
# shutdown send the line "BYE") against a server that reads slowly and
# never answers (slow_reader.py):
#  - a reader slow enough that every request is still being sent when
#    the run ends, fast enough to take it all within the 1 s drain: every
#    connection must end with the whole request and then BYE;
#  - a reader that never reads: the run still ends within the drain.
#
# Environment (set by meson): FX_PLUGIN_DIR (shb-proto-fx.so), besides
# lib.sh's.
source "$(dirname "$0")/lib.sh"
need SHB
[[ -r "${FX_PLUGIN_DIR:-}/shb-proto-fx.so" ]] || fail "FX_PLUGIN_DIR has no shb-proto-fx.so"
export SHB_PLUGIN_SYSTEM_PATH=
UPLOAD=12000000

# start_reader NAME RATE: slow_reader.py on a free port -> READER_PORT.
start_reader() {
	local name=$1 rate=$2 i
	python3 "$(dirname "$0")/slow_reader.py" "$E2E_TMP/$name.port" "$E2E_TMP/$name.log" "$rate" \
		2>"$E2E_TMP/$name.err" &
	E2E_PIDS+=($!)
	READER_PID=$!
	for ((i = 0; i < 100; i++)); do
		[[ -s "$E2E_TMP/$name.port" ]] && break
		sleep 0.05
	done
	READER_PORT=$(cat "$E2E_TMP/$name.port" 2>/dev/null) || fail "slow_reader.py did not start"
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

# Every connection still sending at the end: 12 MB per request at 10 MB/s
# per connection (beyond the 4 MB the socket buffers take) completes its
# send at about 0.8 s; the run ends at 0.25 s and its drain waits
# up to 1 s.
start_reader slow 10000000
run_shb slow --plugin-dir "$FX_PLUGIN_DIR" --proto fx -c 2 -t 1 -z 250ms \
	--proto-opt "upload=$UPLOAD" --proto-opt bye "fx://127.0.0.1:$READER_PORT/"
wait_lines "$E2E_TMP/slow.log" 2
head_len=$(printf 'POST / HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nContent-Length: %s\r\n\r\n' \
	"$READER_PORT" "$UPLOAD" | wc -c)
want=$((head_len + UPLOAD + 5))
while read -r n bytes tail; do
	note "connection $n: $bytes bytes, last 5 $tail"
	[[ $tail == 4259450d0a ]] || fail "connection $n did not end with BYE (last bytes $tail)"
	[[ $bytes -eq $want ]] || fail "connection $n: $bytes bytes, expected $want"
done <"$E2E_TMP/slow.log"
kill_quiet "$READER_PID"

# A reader that never reads: the goodbye cannot follow, the run still
# ends within its drain (1 s after the 250 ms).
start_reader stuck 0
run_shb stuck --plugin-dir "$FX_PLUGIN_DIR" --proto fx -c 2 -t 1 -z 250ms \
	--proto-opt "upload=$UPLOAD" --proto-opt bye "fx://127.0.0.1:$READER_PORT/"
((ELAPSED_MS < 4000)) || fail "the run took $ELAPSED_MS ms with sends that never complete"
kill_quiet "$READER_PID"
note "ok"
