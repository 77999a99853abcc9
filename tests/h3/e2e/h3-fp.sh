#!/bin/bash
# The HTTP/3 fingerprints of shb's own connections, checked on the
# receiving side: the QUIC transport parameter ids of the report
# (quicTpFingerprint) are those of the ClientHello a UDP listener takes
# out of shb's Initial packets (quic_hello_catch.py, decrypted per RFC
# 9001 5.2; tls_fp.py --quic-tp lists them), and the HTTP/3 SETTINGS of
# the report (h3SettingsFingerprint) are those gtlsserver (ngtcp2's
# example server, verbose) received on shb's control stream
# (h3_control_frames.py --settings), its reserved setting as GREASE. The
# text report has both lines. Needs gtlsserver (Debian package
# ngtcp2-server) and python3-cryptography.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154 # NAME_PORT: set by start_*
source "$(dirname "$0")/lib.sh"
need_h3 gtlsserver
need SHB SHB_JCHECK
python3 -c 'import cryptography' 2>/dev/null ||
	fail "python3-cryptography is not installed (Debian package python3-cryptography)"
HERE=$(dirname "$0")

# Transport parameters: what the listener received.
pf=$E2E_TMP/tp.port
python3 "$HERE/quic_hello_catch.py" "$pf" "$E2E_TMP/tp.hello" >"$E2E_TMP/tp.catch.log" 2>&1 &
pid=$!
E2E_PIDS+=("$pid")
for _ in $(seq 1 100); do
	[[ -s "$pf" ]] && break
	sleep 0.05
done
[[ -s "$pf" ]] || { cat "$E2E_TMP/tp.catch.log" >&2; fail "quic_hello_catch did not start"; }
run_shb tp --proto h3 -c 1 -n 1 --connect-timeout 1s "https://localhost:$(cat "$pf")/"
expect_rc tp 1 # nothing answers
kill_quiet "$pid"
[[ -s "$E2E_TMP/tp.hello" ]] || { show_run tp; fail "tp: no ClientHello captured"; }
got=$(get tp quicTpFingerprint)
py=$(python3 "$HERE/../../e2e/tls_fp.py" --quic-tp "$E2E_TMP/tp.hello") ||
	fail "tp: tls_fp.py --quic-tp failed"
[[ "$got" == "$py" ]] || { show_run tp; fail "tp: report says '$got', the ClientHello carried '$py'"; }
# initial_source_connection_id (15) is always sent, last.
[[ "$got" =~ ^([0-9]+-)*15$ ]] || fail "tp: '$got' does not end with 15"
note "QUIC transport parameters: $got"

# SETTINGS: what gtlsserver received on the control stream.
H3SRV_GTLS_VERBOSE=1 start_gtlsserver gtls >/dev/null
run_shb settings --proto h3 -c 1 -n 2 "https://127.0.0.1:$gtls_PORT/"
stop_h3 gtls
expect_rc settings 0
check settings 'requests.ok == 2'
python3 "$HERE/h3_control_frames.py" --settings "$H3_TMP/gtls/gtlsserver.log" \
	>"$E2E_TMP/settings.seen" || { cat "$E2E_TMP/settings.seen" >&2; fail "settings: a malformed control stream"; }
[[ $(wc -l <"$E2E_TMP/settings.seen") == 1 ]] ||
	{ cat "$E2E_TMP/settings.seen" >&2; fail "settings: not one SETTINGS frame"; }
seen=$(cut -d' ' -f2 "$E2E_TMP/settings.seen")
got=$(get settings h3SettingsFingerprint)
[[ "$got" == "$seen" ]] || { show_run settings; fail "settings: report says '$got', the server received '$seen'"; }
[[ "$got" == *";GREASE" ]] || fail "settings: '$got' has no reserved setting last"
python3 "$HERE/../../report/check_schema.py" "$HERE/../../../docs/shb-report.schema.json" \
	"$E2E_TMP/settings.json" >&2 || fail "the report does not match the schema"
note "HTTP/3 SETTINGS: $got"

# The text report's lines.
H3SRV_GTLS_VERBOSE=0 start_gtlsserver gtls2 >/dev/null
out=$(timeout -k 5 "$E2E_RUN_LIMIT" "$SHB" -q -c 1 -n 1 --proto h3 \
	"https://127.0.0.1:$gtls2_PORT/" 2>&1) || fail "text run: $out"
stop_h3 gtls2
[[ "$out" == *"QUIC params:   "[0-9]*"-15"* && "$out" == *"H3 settings:   "*";GREASE"* ]] ||
	{ echo "$out" >&2; fail "text report: no QUIC params and H3 settings lines"; }
note "ok"
