#!/bin/bash
# --priority over HTTP/3 (RFC 9218): the Priority header on every request
# and a PRIORITY_UPDATE frame (type 0xF0700) on shb's control stream for
# each, checked on the server's side: gtlsserver (ngtcp2) without --quiet
# dumps every stream's data as received, from which h3_control_frames.py
# rebuilds each connection's control stream and lists its frames. With
# the default (priority-update=auto): SETTINGS, then one frame per request
# naming its stream, with the value as typed; with
# --proto-opt priority-update=off: SETTINGS alone. The server accepts the
# frames (every request answered). Skipped (77) without gtlsserver
# (Debian package ngtcp2-server).
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154 # NAME_PORT: set by start_*
source "$(dirname "$0")/lib.sh"
need_h3 gtlsserver
need SHB SHB_JCHECK
command -v python3 >/dev/null || fail "python3 is needed to read gtlsserver's log"

N=20
# prio_run NAME SHB_ARGS...: a verbose gtlsserver for one run of N
# requests on 2 connections; its control-stream frames in $H3_TMP/NAME.frames.
prio_run() {
	local name=$1
	shift
	H3SRV_GTLS_VERBOSE=1 start_gtlsserver "$name" >/dev/null
	local port_var=${name}_PORT
	run_shb "$name" --proto h3 -c 2 -p 2 -n "$N" --priority 'u=1, i' "$@" \
		"https://127.0.0.1:${!port_var}/"
	stop_h3 "$name"
	python3 "$H3_E2E_DIR/h3_control_frames.py" "$H3_TMP/$name/gtlsserver.log" \
		>"$H3_TMP/$name.frames" || { cat "$H3_TMP/$name.frames" >&2; fail "$name: a malformed control stream"; }
	expect_rc "$name" 0
	check "$name" "requests.ok == $N" "statusCodes.200 == $N"
	check_no_errors "$name"
	[[ $(grep -c '\[priority: u=1, i\]$' "$H3_TMP/$name/gtlsserver.log") == "$N" ]] ||
		fail "$name: the server did not see $N Priority headers"
}

prio_run auto
frames=$H3_TMP/auto.frames
# Two control streams, each opened by SETTINGS.
[[ $(awk '$2 == "4" { n++ } END { print n + 0 }' "$frames") == 2 ]] ||
	{ cat "$frames" >&2; fail "auto: not 2 control streams with SETTINGS"; }
# N frames, with the value as typed, each naming a distinct request stream
# of its connection (client bidirectional: a multiple of 4).
awk -v n="$N" '$2 == "f0700" { k++; ok += ($4 " " $5 == "u=1, i" && $3 % 4 == 0 && !seen[$1 " " $3]++) }
	END { exit !(k == n && ok == n) }' "$frames" ||
	{ cat "$frames" >&2; fail "auto: not $N PRIORITY_UPDATE frames for distinct request streams"; }
# Frames only after SETTINGS, and nothing else on the control stream.
awk '{ if ($2 == "4") s[$1] = 1; else if ($2 != "f0700" || !s[$1]) bad++ } END { exit bad > 0 }' "$frames" ||
	{ cat "$frames" >&2; fail "auto: a frame before SETTINGS or of another type"; }

prio_run off --proto-opt priority-update=off
[[ $(grep -c f0700 "$H3_TMP/off.frames") == 0 && $(grep -c ' 4$' "$H3_TMP/off.frames") == 2 ]] ||
	{ cat "$H3_TMP/off.frames" >&2; fail "off: PRIORITY_UPDATE frames with priority-update=off"; }
note "PRIORITY_UPDATE frames seen by gtlsserver: $(grep -c f0700 "$frames") of $N (auto), 0 (off)"
note "ok"
