#!/bin/bash
# The HTTP/3 fingerprints of shb's own connections, checked on the
# receiving side: the QUIC transport parameter ids of the report
# (quicTpFingerprint) are those of the ClientHello a UDP listener takes
# out of shb's Initial packets (quic_hello_catch.py, decrypted per RFC
# 9001 5.2; tls_fp.py --quic-tp lists them), and the HTTP/3 SETTINGS of
# the report (h3SettingsFingerprint) are those gtlsserver (ngtcp2's
# example server, verbose) received on shb's control stream
# (h3_control_frames.py --settings), its reserved setting as GREASE. The
# text report has both lines. The same for --proto-opt profile=chrome,
# firefox and curl, whose parameters (ids and values, read out of the
# Initial by tls_fp.py --quic-tp-values) and SETTINGS must be those of the
# capture or sources each profile cites, with 40 requests and no error
# against gtlsserver.
# Needs gtlsserver (Debian package
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
# localhost is ::1 first on a stock Debian (/etc/hosts), where nothing
# listens: --resolve pins it to the listener's address, so that the one
# ClientHello the report describes (the first connection's) is the one
# caught, not an attempt before it (Chrome's order changes with each).
port=$(cat "$pf")
run_shb tp --proto h3 -c 1 -n 1 --connect-timeout 1s --resolve "localhost:$port:127.0.0.1" \
	"https://localhost:$port/"
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

# The profiles (--proto-opt profile=): the parameters a listener took
# out of the Initial, ids and values, against the capture each profile
# cites (curl-impersonate's tests/http3_targets.yaml, curl_chrome146 and
# curl_firefox147; Chrome permutes its parameters on every connection, so
# its are compared as a set; curl's are those of curl 8.21.0's sources
# with ngtcp2 v1.25.0, but 9:128 for curl's 9:262144 and 1:30000 where
# curl sends none, as docs/fingerprints.md says); the SETTINGS gtlsserver
# received (curl's: nghttp3's, 6 lowered from 2^62 - 1 to what shb's
# reader takes); a run of requests with 0 errors.
declare -A want_tp=(
	[chrome]="1:30000;3:1472;4:15728640;5:6291456;6:6291456;7:6291456;8:100;9:103;15:SCID;17:1@1,GREASE;32:65536;12584:4f524947;GREASE"
	[firefox]="1:30000;4:25165824;5:12582912;6:1048576;7:1048576;8:100;9:100;11:20;14:8;15:SCID;17:1@GREASE,1;GREASE;32:65535"
	[curl]="15:SCID;5:32768;6:32768;7:1048576000;4:1048576000;8:262144;9:128;1:30000;17:1@1"
)
# The TLS side, the h2 profile's string with TLS 1.3 alone: suites,
# groups and signature algorithms as the ClientHello offered them (curl
# keeps GnuTLS's: not checked).
declare -A want_offer=(
	[chrome]="4865-4866-4867,29-23-24,1027-2052-1025-1283-2053-1281-2054-1537"
	[firefox]="4865-4867-4866,29-23-24-25-256-257,1027-1283-1539-2052-2053-2054-1025-1281-1537-515-513"
)
# The capture's, QPACK table included: the decoder takes it.
declare -A want_settings=(
	[chrome]="1:65536;6:262144;7:100;51:1;GREASE"
	[firefox]="1:65536;7:20;727725890:0;16765559:1;51:1;8:1"
	[curl]="6:262144;1:0;7:0"
)
sorted() { tr ';' '\n' <<<"$1" | sort | tr '\n' ';'; }
for prof in chrome firefox curl; do
	pf=$E2E_TMP/tp$prof.port
	python3 "$HERE/quic_hello_catch.py" "$pf" "$E2E_TMP/tp$prof.hello" \
		>"$E2E_TMP/tp$prof.catch.log" 2>&1 &
	pid=$!
	E2E_PIDS+=("$pid")
	for _ in $(seq 1 100); do
		[[ -s "$pf" ]] && break
		sleep 0.05
	done
	[[ -s "$pf" ]] || fail "$prof: quic_hello_catch did not start"
	port=$(cat "$pf")
	run_shb "tp$prof" --proto h3 --proto-opt "profile=$prof" -c 1 -n 1 \
		--connect-timeout 1s --resolve "localhost:$port:127.0.0.1" "https://localhost:$port/"
	expect_rc "tp$prof" 1
	kill_quiet "$pid"
	[[ -s "$E2E_TMP/tp$prof.hello" ]] || { show_run "tp$prof"; fail "$prof: no ClientHello captured"; }
	got=$(get "tp$prof" quicTpFingerprint)
	py=$(python3 "$HERE/../../e2e/tls_fp.py" --quic-tp "$E2E_TMP/tp$prof.hello")
	[[ "$got" == "$py" ]] || fail "$prof: report says '$got', the ClientHello carried '$py'"
	seen=$(python3 "$HERE/../../e2e/tls_fp.py" --quic-tp-values "$E2E_TMP/tp$prof.hello")
	if [[ $prof == chrome ]]; then
		[[ "$(sorted "$seen")" == "$(sorted "${want_tp[$prof]}")" ]] ||
			fail "$prof: the Initial carried '$seen', the capture has '${want_tp[$prof]}' (any order)"
	else
		[[ "$seen" == "${want_tp[$prof]}" ]] ||
			fail "$prof: the Initial carried '$seen', the capture has '${want_tp[$prof]}'"
	fi
	note "$prof: QUIC transport parameters $seen"
	if [[ -n "${want_offer[$prof]:-}" ]]; then
		offer=$(python3 "$HERE/../../e2e/tls_fp.py" --quic-offer "$E2E_TMP/tp$prof.hello")
		[[ "$offer" == "${want_offer[$prof]}" ]] ||
			fail "$prof: the ClientHello offered '$offer', the profile means '${want_offer[$prof]}'"
	fi

	H3SRV_GTLS_VERBOSE=1 start_gtlsserver "g$prof" >/dev/null
	port_var="g${prof}_PORT"
	run_shb "set$prof" --proto h3 --proto-opt "profile=$prof" -c 2 -n 40 \
		"https://127.0.0.1:${!port_var}/"
	stop_h3 "g$prof"
	expect_rc "set$prof" 0
	check "set$prof" 'requests.ok == 40'
	check_no_errors "set$prof"
	python3 "$HERE/h3_control_frames.py" --settings "$H3_TMP/g$prof/gtlsserver.log" \
		>"$E2E_TMP/set$prof.seen" || fail "$prof: a malformed control stream"
	seen=$(cut -d' ' -f2 "$E2E_TMP/set$prof.seen" | sort -u)
	got=$(get "set$prof" h3SettingsFingerprint)
	[[ "$seen" == "${want_settings[$prof]}" && "$got" == "$seen" ]] ||
		fail "$prof: the server received '$seen', the report says '$got', the profile has '${want_settings[$prof]}'"
	note "$prof: HTTP/3 SETTINGS $seen"
done

# An unknown profile: one line naming the known ones, exit 2.
rc=0
out=$("$SHB" -q -c 1 -n 1 --proto h3 --proto-opt profile=edge https://127.0.0.1:1/ 2>&1) || rc=$?
[[ $rc == 2 && $out == *"unknown profile (known: chrome, firefox, curl, shb)"* && $(wc -l <<<"$out") == 1 ]] ||
	fail "profile=edge: exit $rc, '$out'"

# The text report's lines.
H3SRV_GTLS_VERBOSE=0 start_gtlsserver gtls2 >/dev/null
out=$(timeout -k 5 "$E2E_RUN_LIMIT" "$SHB" -q -c 1 -n 1 --proto h3 \
	"https://127.0.0.1:$gtls2_PORT/" 2>&1) || fail "text run: $out"
stop_h3 gtls2
[[ "$out" == *"QUIC params:   "[0-9]*"-15"* && "$out" == *"H3 settings:   "*";GREASE"* ]] ||
	{ echo "$out" >&2; fail "text report: no QUIC params and H3 settings lines"; }
note "ok"
