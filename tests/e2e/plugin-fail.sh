#!/bin/bash
# A protocol whose worker_init fails in one worker (the test protocol fx,
# fx_plugin.c, with failworker=INDEX; its worker_fini then says on stderr
# which worker it ends). The run fails after the reporters began:
#  - worker_fini runs once for each worker whose worker_init succeeded,
#    never for the one whose init failed (proto.h: fini only after a
#    successful init);
#  - the run ends with exit 1, the one line naming the failure, and each
#    reporter's report written once (begun, so ended), whatever the
#    interval reporting was doing;
#  - in a sanitizer build (this test is in the hostile suite too), nothing
#    leaks: shb exits 1, not with the sanitizer's status.
#
# Environment (set by meson): FX_PLUGIN_DIR (shb-proto-fx.so),
# SHB_REPORTERS_DIR (the json and csv reporters), besides lib.sh's.
# shellcheck disable=SC2154 # srv_PORT, srv_PID: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK
[[ -r "${FX_PLUGIN_DIR:-}/shb-proto-fx.so" ]] || fail "FX_PLUGIN_DIR has no shb-proto-fx.so"
export SHB_PLUGIN_SYSTEM_PATH=
FX=(--plugin-dir "$FX_PLUGIN_DIR" --plugin-dir "$SHB_REPORTERS_DIR" --proto fx)
start_testserver srv hello
URL="fx://127.0.0.1:$srv_PORT/"

# fini_lines NAME: the sorted "fx: worker_fini ..." lines of run NAME.
fini_lines() {
	grep '^fx: worker_fini' "$E2E_TMP/$1.stderr" | sort || true
}

# failed_run NAME THREADS FAILING WANT_FINI: -t THREADS with worker
# FAILING's init failing; WANT_FINI the sorted fini lines expected.
failed_run() {
	local name=$1 t=$2 bad=$3 want=$4
	run_shb "$name" "${FX[@]}" -t "$t" -c "$t" -n 40 --interval 100ms \
		--report "csv:$E2E_TMP/$name.csv" --proto-opt "failworker=$bad" "$URL"
	expect_rc "$name" 1
	[[ "$(fini_lines "$name")" == "$want" ]] || {
		show_run "$name"
		fail "$name: worker_fini lines '$(fini_lines "$name" | tr '\n' ',')', expected '${want//$'\n'/,}'"
	}
	[[ $(grep -c '^shb: protocol worker_init failed: invalid argument$' \
		"$E2E_TMP/$name.stderr") == 1 ]] || { show_run "$name"; fail "$name: not one failure line"; }
	# One JSON document (jcheck parses the whole file) and one CSV
	# header: each reporter ended once.
	check "$name" "threads == $t"
	[[ $(grep -c '^url,' "$E2E_TMP/$name.csv") == 1 ]] || {
		cat "$E2E_TMP/$name.csv" >&2
		fail "$name: the CSV report has not exactly one header"
	}
	note "$name: fini lines as expected, one report each"
}

# The only worker fails: no fini at all.
failed_run one 1 0 ''
# Two workers, the second fails: the first one's fini only.
failed_run second 2 1 'fx: worker_fini 0'
# Three, the middle one fails.
failed_run middle 3 1 $'fx: worker_fini 0\nfx: worker_fini 2'
# None fails (an index past the last worker): every worker's fini, once.
run_shb none "${FX[@]}" -t 2 -c 2 -n 40 --proto-opt failworker=9 "$URL"
expect_rc none 0
check none 'requests.ok == 40'
[[ "$(fini_lines none)" == $'fx: worker_fini 0\nfx: worker_fini 1' ]] || {
	show_run none
	fail "none: worker_fini lines '$(fini_lines none | tr '\n' ',')'"
}
stop_server "$srv_PID"
echo "ok: worker_fini only after a successful worker_init; failed runs report once"
