#!/bin/bash
# A protocol's own URL schemes and options (ABI 1.2 scheme_defs and
# option_defs), with the test protocol fx (fx_plugin.c: fx:// on 7070,
# fxs:// on 7443 over TLS; options tag=TEXT, fail, failreq), and reporter
# options (--report-opt): what reaches the plugins, every refusal as one
# exact line with exit 2, and a run whose report shows the URL as typed.
#
# Environment (set by meson): FX_PLUGIN_DIR, the directory holding
# shb-proto-fx.so and the datagram fixtures shb-proto-fxdgram.so,
# shb-proto-fxbig.so and shb-proto-fxbadv.so (fxdgram_plugin.c), besides
# lib.sh's.
# shellcheck disable=SC2154 # NAME_PORT, NAME_PID: set by start_testserver
source "$(dirname "$0")/lib.sh"
need SHB SHB_TESTSERVER SHB_JCHECK
[[ -r "${FX_PLUGIN_DIR:-}/shb-proto-fx.so" ]] || fail "FX_PLUGIN_DIR has no shb-proto-fx.so"
# Only the plugins of this build: the machine's own directory stays out.
export SHB_PLUGIN_SYSTEM_PATH=
FX=(--plugin-dir "$FX_PLUGIN_DIR")

# refused WANT ARGS...: shb exits 2 with exactly the line "shb: WANT" on
# stderr and nothing on stdout.
refused() {
	local want="shb: $1" rc=0
	shift
	timeout -k 5 20 "$SHB" "$@" >"$E2E_TMP/r.out" 2>"$E2E_TMP/r.err" </dev/null || rc=$?
	note "shb $* -> exit $rc: $(head -n 1 "$E2E_TMP/r.err")"
	[[ $rc -eq 2 ]] || { cat "$E2E_TMP/r.err" >&2; fail "exit $rc, expected 2: shb $*"; }
	[[ ! -s "$E2E_TMP/r.out" ]] || { cat "$E2E_TMP/r.out" >&2; fail "wrote to stdout: shb $*"; }
	[[ "$(cat "$E2E_TMP/r.err")" == "$want" ]] || {
		echo "got:  $(cat "$E2E_TMP/r.err")" >&2
		echo "want: $want" >&2
		fail "wrong message: shb $*"
	}
}

# What module_create and prepare_request were given: their failure says.
refused "protocol fx: options [tag=a=b,c fail=] scheme fx tls 0 port 7070 authority 127.0.0.1" \
	"${FX[@]}" --proto fx --proto-opt tag=a=b,c --proto-opt fail -n 1 fx://127.0.0.1/
# Without --proto the scheme picks the plugin that declares it.
refused "protocol fx: options [fail= tag=z] scheme fxs tls 1 port 7443 authority 127.0.0.1" \
	"${FX[@]}" --proto-opt fail --proto-opt tag=z -n 1 fxs://127.0.0.1/
refused "protocol fx: options [fail=] scheme fxs tls 1 port 9443 authority [::1]:9443" \
	"${FX[@]}" --proto-opt fail -n 1 'FXS://[::1]:9443/p'
refused "protocol fx: options [fail=] scheme fx tls 0 port 7443 authority 127.0.0.1:7443" \
	"${FX[@]}" --proto-opt fail -n 1 fx://127.0.0.1:7443/
refused "protocol fx: request scheme fx authority 127.0.0.1:8 path /x?y" \
	"${FX[@]}" --proto-opt failreq -n 1 'fx://127.0.0.1:8/x?y#f'
# A TLS priority string from the protocol (ABI 1.4 tls_priority) is
# checked before any traffic, over TLS or not, even where --ciphers wins.
refused 'protocol fx: its TLS priority "NORMAL:+BOGUS:-CIPHER-ALL" is refused by GnuTLS at "+BOGUS" (The request is invalid.)' \
	"${FX[@]}" --proto-opt tlsprio=NORMAL:+BOGUS:-CIPHER-ALL -n 1 fxs://127.0.0.1:9/
refused 'protocol fx: its TLS priority "NORMAL:+BOGUS:-CIPHER-ALL" is refused by GnuTLS at "+BOGUS" (The request is invalid.)' \
	"${FX[@]}" --proto-opt tlsprio=NORMAL:+BOGUS:-CIPHER-ALL --ciphers NORMAL -n 1 fxs://127.0.0.1:9/
refused 'protocol fx: its TLS priority "NORMAL:+BOGUS:-CIPHER-ALL" is refused by GnuTLS at "+BOGUS" (The request is invalid.)' \
	"${FX[@]}" --proto-opt tlsprio=NORMAL:+BOGUS:-CIPHER-ALL -n 1 fx://127.0.0.1:9/
# A protocol without options (an empty table): the core names the key.
refused '--proto-opt "window=1": protocol h1 has no option "window" (it takes none)' \
	"${FX[@]}" --proto h1 --proto-opt window=1 -n 1 http://127.0.0.1/
# -p: a protocol that sends one request at a time refuses it; h1
# pipelines, but not on connections closed after each request.
refused '-p 4: protocol fx sends one request at a time per connection (h1, h2 and h3 take -p)' \
	"${FX[@]}" -p 4 -n 1 fx://127.0.0.1:9/
refused 'protocol h1: -p 2 pipelines requests on a connection that --disable-keepalive closes after the first' \
	"${FX[@]}" --proto h1 -p 2 --disable-keepalive -n 1 http://127.0.0.1:9/

# --dry-run refuses what the run's set-up refuses, with the same line: a
# module_create's refusal (-p on h1, an option), the module's TLS priority,
# prepare_request's refusal.
refused 'protocol h1: -p 2 pipelines requests on a connection that --disable-keepalive closes after the first' \
	"${FX[@]}" --dry-run --proto h1 -p 2 --disable-keepalive -n 1 http://127.0.0.1:9/
refused "protocol fx: options [fail=] scheme fx tls 0 port 7070 authority 127.0.0.1" \
	"${FX[@]}" --dry-run --proto-opt fail -n 1 fx://127.0.0.1/
refused 'protocol fx: its TLS priority "NORMAL:+BOGUS:-CIPHER-ALL" is refused by GnuTLS at "+BOGUS" (The request is invalid.)' \
	"${FX[@]}" --dry-run --proto-opt tlsprio=NORMAL:+BOGUS:-CIPHER-ALL -n 1 fxs://127.0.0.1:9/
refused "protocol fx: request scheme fx authority 127.0.0.1:8 path /x?y" \
	"${FX[@]}" --dry-run --proto-opt failreq -n 1 'fx://127.0.0.1:8/x?y#f'

# Keys the plugin does not declare, flags with values, values missing.
refused '--proto-opt "bogus=1": protocol fx has no option "bogus" (known: tag=TEXT, fail, failreq, upload=BYTES, bye, hello, failworker=INDEX, tlsprio=STRING)' \
	"${FX[@]}" --proto-opt tag=x --proto-opt bogus=1 -n 1 fx://127.0.0.1/
refused '--proto-opt "fail=1": option "fail" of protocol fx takes no value (give it as fail alone)' \
	"${FX[@]}" --proto-opt fail=1 -n 1 fx://127.0.0.1/
refused '--proto-opt "tag": option "tag" of protocol fx needs a value (tag=TEXT)' \
	"${FX[@]}" --proto-opt tag -n 1 fx://127.0.0.1/

# Schemes: exactly those of the protocol.
refused 'invalid URL "http://127.0.0.1/": scheme must be fx or fxs for protocol fx' \
	"${FX[@]}" --proto fx -n 1 http://127.0.0.1/
refused 'invalid URL "fx://127.0.0.1/": scheme must be http or https for protocol h1' \
	"${FX[@]}" --proto h1 -n 1 fx://127.0.0.1/
# The directory also holds shb-proto-fxbig.so, which the loader refuses.
refused 'no protocol plugin in the search path serves gopher:// URLs (give --proto NAME or PATH); 1 plugin file was refused (see --list-plugins)' \
	"${FX[@]}" -n 1 gopher://127.0.0.1/
refused 'no protocol plugin in the search path serves fx:// URLs (give --proto NAME or PATH)' \
	-n 1 fx://127.0.0.1/
refused '--sni a.example: SNI is sent only over TLS, and fx:// does not run over TLS' \
	"${FX[@]}" --sni a.example -n 1 fx://127.0.0.1/

# Reporter options: checked before any report file is created.
refused '--report-opt "json.pretty": reporter json has no option "pretty" (known: compact)' \
	--report json --report-opt json.pretty -n 1 http://127.0.0.1:1/
refused '--report-opt "text.wide": reporter text has no option "wide" (it takes none)' \
	--report-opt text.wide -n 1 http://127.0.0.1:1/
refused '--report-opt "json.compact=yes": option "compact" of reporter json takes no value (give it as compact alone)' \
	--report json --report-opt json.compact=yes -n 1 http://127.0.0.1:1/
refused '--report-opt "csv.noheader": reporter csv is not in this run (--report json)' \
	--report "json:$E2E_TMP/never.json" --report-opt csv.noheader -n 1 http://127.0.0.1:1/
[[ ! -e "$E2E_TMP/never.json" ]] || fail "a refused run created its report file"

# A run over fx:// against the test server: the report shows the URL as
# typed and the protocol that served it.
start_testserver srv hello
url="Fx://127.0.0.1:$srv_PORT/hello"
run_shb fx1 "${FX[@]}" --proto-opt tag=x -c 2 -n 50 "$url"
expect_rc fx1 0
check fx1 'requests.ok==50' 'requests.errors==0' 'statusCodes.200==50' \
	"url==\"$url\"" 'protocolName=="fx"' 'protocol=="FX (test)"'

# --report json:FILE --report-opt json.compact: one line, the same
# document; json:compact keeps meaning a file named compact; csv.noheader
# leaves the CSV header out.
cd "$E2E_TMP" || fail "cannot enter $E2E_TMP"
RC=0
timeout -k 5 30 "$SHB" -q "${FX[@]}" -c 1 -n 5 --report "json:$E2E_TMP/c.json" \
	--report-opt json.compact --report json:compact --report csv:rows.csv \
	--report-opt csv.noheader "fx://127.0.0.1:$srv_PORT/" >/dev/null 2>"$E2E_TMP/c.err" || RC=$?
[[ $RC -eq 0 ]] || { cat "$E2E_TMP/c.err" >&2; fail "compact run: exit $RC"; }
[[ $(wc -l <"$E2E_TMP/c.json") -eq 1 ]] || fail "json.compact wrote $(wc -l <"$E2E_TMP/c.json") lines, expected 1"
# The option reaches every report of that reporter: both are one line.
[[ $(wc -l <"$E2E_TMP/compact") -eq 1 ]] || fail "the file named compact has $(wc -l <"$E2E_TMP/compact") lines, expected 1"
# Without the option the document is indented (the fx1 run's report).
(( $(wc -l <"$E2E_TMP/fx1.json") > 10 )) || fail "the report without json.compact is not indented"
check_file "$E2E_TMP/c.json" 'requests.ok==5' "url==\"fx://127.0.0.1:$srv_PORT/\""
check_file "$E2E_TMP/compact" 'requests.ok==5'
[[ $(wc -l <"$E2E_TMP/rows.csv") -eq 1 ]] || fail "csv.noheader wrote $(wc -l <"$E2E_TMP/rows.csv") lines, expected 1"
grep -qF "fx://127.0.0.1:$srv_PORT/," "$E2E_TMP/rows.csv" ||
	fail "the CSV row lacks the URL: $(cat "$E2E_TMP/rows.csv")"
stop_server "$srv_PID"

# Datagram limits come from the descriptor (max_dgram 1400, max_train 3):
# shb_transport_info.max_dgram and the train buffer say so (three
# datagrams with UDP GSO, one without). Nothing is sent.
run_shb dg --proto "$FX_PLUGIN_DIR/shb-proto-fxdgram.so" -c 1 -n 1 http://127.0.0.1:9/
expect_rc dg 1
check dg 'requests.errors==1' 'errors.protocol==1'
sample=$(get dg errorSamples.protocol)
note "fxdgram: $sample"
[[ $sample == "max_dgram 1400, train 4200 bytes" || $sample == "max_dgram 1400, train 1400 bytes" ]] ||
	fail "fxdgram saw \"$sample\", expected max_dgram 1400 and a train of 4200 (GSO) or 1400 bytes"
refused "$FX_PLUGIN_DIR/shb-proto-fxbig.so: protocol descriptor has max_dgram 65528 (at most 65527)" \
	--proto "$FX_PLUGIN_DIR/shb-proto-fxbig.so" -n 1 http://127.0.0.1:9/
# ABI 1.4: a write_dgrams_v train whose sizes (5 + 5) are not the bytes
# it returned (11) is a protocol error of the connection; nothing is sent.
run_shb badv --proto "$FX_PLUGIN_DIR/shb-proto-fxbadv.so" -c 1 -n 1 http://127.0.0.1:9/
expect_rc badv 1
check badv 'requests.errors==1' 'errors.protocol==1' 'bytesSent==0' \
	'errorSamples.protocol=="protocol wrote an invalid datagram train"'
note "schemes: all checks passed"
