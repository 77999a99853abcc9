#!/bin/bash
# shb-plugin-check on real plugins and on broken fixtures.
#
#   check.sh pass CHECKER MODULE.so...
#       every module passes: exit 0, no FAIL line, at least one PASS line
#   check.sh broken CHECKER KIT_FIXTURES_DIR LOADER_FIXTURES_DIR REPLIES_DIR
#       every broken fixture fails with exit 1 and exactly the FAIL line
#       below (and the good fixtures among them pass); REPLIES_DIR holds
#       the line protocol's corpus (line/) and one that completes nothing
#       (none/)
#   check.sh examples CHECKER REDIS.so REDIS_REPLIES WS.so WS_REPLIES
#                     GRPC.so GRPC_REPLIES H2.so
#       the shipped examples pass with their corpora
set -u

mode=$1
checker=$2
shift 2
failed=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

fail() {
	echo "FAILED: $*"
	sed 's/^/    | /' "$out"
	failed=$((failed + 1))
}

# expect_pass MODULE [ARGS...]
expect_pass() {
	local so=$1 rc
	shift
	"$checker" "$@" "$so" >"$out" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "$so: exit $rc, expected 0"
	elif grep -q '^FAIL ' "$out"; then
		fail "$so: a FAIL line with exit 0"
	elif ! grep -q '^PASS ' "$out"; then
		fail "$so: no PASS line"
	else
		echo "ok: $(basename "$so") passes ($(grep -c '^PASS ' "$out") PASS lines)"
	fi
}

# expect_fail MODULE 'EXACT FAIL LINE' [ARGS...]
expect_fail() {
	local so=$1 line=$2 rc
	shift 2
	"$checker" "$@" "$so" >"$out" 2>&1
	rc=$?
	if [ $rc -ne 1 ]; then
		fail "$so: exit $rc, expected 1"
	elif ! grep -qxF -- "$line" "$out"; then
		fail "$so: no line '$line'"
	else
		echo "ok: $(basename "$so"): $line"
	fi
}

# expect_usage 'EXACT STDERR LINE' ARGS...: exit 2 and that one line
expect_usage() {
	local want=$1 rc
	shift
	"$checker" "$@" 2>"$out" >/dev/null
	rc=$?
	if [ $rc -ne 2 ] || [ "$(cat "$out")" != "$want" ]; then
		fail "$*: exit $rc, expected 2 and '$want'"
	else
		echo "ok: $*: exit 2"
	fi
}

# expect_line MODULE 'EXACT LINE' [ARGS...]: some line of a passing run
expect_line() {
	local so=$1 line=$2
	shift 2
	"$checker" "$@" "$so" >"$out" 2>&1
	if ! grep -qxF -- "$line" "$out"; then
		fail "$so: no line '$line'"
	else
		echo "ok: $(basename "$so"): $line"
	fi
}

case $mode in
pass)
	[ $# -gt 0 ] || { echo "no module given"; exit 1; }
	for so in "$@"; do
		expect_pass "$so"
	done
	;;
broken)
	kit=$1
	loader=$2
	line=$3/line
	# The three bugs the kit's drivers catch in a plugin's own tests, each
	# planted in the line protocol: the checker fails each with its line.
	# A reply reported after its request was cancelled:
	expect_fail "$kit/shb-proto-kitcancel.so" \
		"FAIL cancel cancel: req_done for cancelled cookie 1 (reply 'not-found' fed after cookie 1 was cancelled, -p 1)" \
		--replies "$line"
	# req_done twice when the reply queue is not advanced: only with more
	# than one request in flight (the most the fixture takes is 4).
	expect_fail "$kit/shb-proto-kitqueue.so" \
		"FAIL replies queue: req_done twice for cookie 1 (reply 'not-found' at -p 4)" \
		--replies "$line"
	expect_line "$kit/shb-proto-kitqueue.so" \
		"PASS replies queue: 3 replies at -p 1: 19 feeds (whole, in two at every offset, byte by byte), 3 results, the same every time" \
		--replies "$line" --parallel 1
	# A value split across two reads losing its start, and one whose
	# status changes when split:
	expect_fail "$kit/shb-proto-kitsplitloss.so" \
		"FAIL replies splitloss: reply 'not-found' at -p 1: split at 1: result 0 status 200, whole feed gave 404" \
		--replies "$line"
	expect_fail "$kit/shb-proto-kitsplit.so" \
		"FAIL replies split: reply 'not-found' at -p 1: split at 1: result 0 status 500, whole feed gave 404" \
		--replies "$line"
	# Datagrams: a train read as its first datagram only.
	expect_fail "$kit/shb-proto-kittrain.so" \
		"FAIL replies train: reply 'not-found' at -p 4: 1 result for 4 requests, a reply fed for each" \
		--replies "$line"
	expect_pass "$kit/shb-proto-kitline.so" --replies "$line"
	expect_line "$kit/shb-proto-kitline.so" \
		"PASS replies line: 3 replies at -p 1,4: 62 feeds (whole, in two at every offset, byte by byte), 13 results, the same every time" \
		--replies "$line"
	expect_line "$kit/shb-proto-kitline.so" \
		"PASS cancel line: 30 connections at -p 1,4: a request cancelled before or halfway through the replies, the rest fed after; no cancelled cookie reported" \
		--replies "$line"
	expect_line "$kit/shb-proto-kitline.so" \
		"PASS timeouts line: 4 requests, on_timer 250 ms past each deadline: 1 timer fired, 4 requests ended, a reply fed late; no rule broken" \
		--replies "$line"
	expect_pass "$kit/shb-proto-kitdgram.so" --replies "$line"
	expect_line "$kit/shb-proto-kitdgram.so" \
		"PASS replies dgram: 3 replies at -p 1,4: 15 feeds (trains of mixed sizes, one datagram per call), 15 results, the same every time" \
		--replies "$line"
	# Nothing to check with is said, never a silent pass; a corpus that
	# completes no request fails.
	expect_line "$kit/shb-proto-kitline.so" \
		"WARN replies line: nothing to check with: no --replies DIR, and the checker knows replies for HTTP/1.1 and HTTP/2 only"
	expect_fail "$kit/shb-proto-kitline.so" \
		"FAIL replies line: reply 'partial' at -p 1 completed no request: it checks nothing (a reply to this module's request, written for zero random bytes?)" \
		--replies "$3/none"
	# --proto-opt reaches module_create (the fixture takes no option).
	expect_fail "$kit/shb-proto-kitline.so" \
		"FAIL module line: module_create refused the kit's config: line: unknown option 'bogus' (what it needs may be given with --extensions-from, --path or --proto-opt)" \
		--proto-opt bogus=1
	# A bare file name is the one in the current directory.
	(cd "$kit" && "$checker" --replies "$line" shb-proto-kitline.so) >"$out" 2>&1
	rc=$?
	if [ $rc -ne 0 ] || ! grep -qxF 'PASS exports: only shb_plugin_entry_v1' "$out"; then
		fail "bare name shb-proto-kitline.so: exit $rc, expected 0"
	else
		echo "ok: bare name shb-proto-kitline.so: exit 0"
	fi
	# Built with AddressSanitizer, checked by a checker without it.
	if [ -f "$kit/shb-proto-kitasan.so" ]; then
		asan=$(readelf -d "$kit/shb-proto-kitasan.so" |
			sed -n 's/.*Shared library: \[\(libasan[^]]*\)\].*/\1/p')
		expect_pass "$kit/shb-proto-kitasan.so" --replies "$line"
		expect_line "$kit/shb-proto-kitasan.so" \
			"INFO entry: $kit/shb-proto-kitasan.so is built with AddressSanitizer: running again with ${asan:-libasan.so} preloaded"
	fi
	expect_usage "shb-plugin-check: --parallel: '0' is not 1..1024 or max (see --help)" \
		--parallel 0 "$kit/shb-proto-kitline.so"
	expect_usage "shb-plugin-check: --parallel '1,,2' is not a list of at most 8 values 1..1024 or max (see --help)" \
		--parallel 1,,2 "$kit/shb-proto-kitline.so"
	expect_usage "shb-plugin-check: --replies: cannot open directory '$kit/nosuch': No such file or directory" \
		--replies "$kit/nosuch" "$kit/shb-proto-kitline.so"
	expect_usage "shb-plugin-check: --proto-opt '=1' has no key (see --help)" \
		--proto-opt =1 "$kit/shb-proto-kitline.so"
	# The kit's line protocol passes; each of its bugs is caught.
	expect_pass "$kit/shb-proto-kitline.so"
	expect_pass "$kit/shb-proto-kitline.so" --seed 12345 --iterations 500
	expect_fail "$kit/shb-proto-kittwice.so" \
		'FAIL module twice: req_done twice for cookie 1 (and 8 more)'
	expect_fail "$kit/shb-proto-kitfini.so" \
		'FAIL module fini: req_done from conn_fini (cookie 1) (and 3 more)'
	expect_fail "$kit/shb-proto-kitunknown.so" \
		'FAIL deadlines unknown: req_done for unknown cookie 1001 (and 3 more)'
	expect_fail "$kit/shb-proto-kitcrash.so" \
		'FAIL random crash: crashed (signal 6)'
	expect_fail "$kit/shb-proto-kitpast.so" \
		'FAIL deadlines past: next_deadline 1000000000 in the past (now 1000000001) after on_timer'
	expect_fail "$kit/shb-proto-kithalf.so" \
		'FAIL truncated half: recv consumed 1 of 2 bytes without WANT_WRITE'
	expect_fail "$kit/shb-proto-kitcrashinit.so" \
		'FAIL init: crashed (signal 6)'
	# 1.2: no timers at all is fine; 1.1 needs them; never one alone.
	expect_pass "$kit/shb-proto-kitnotimer.so"
	expect_line "$kit/shb-proto-kitnotimer.so" \
		'INFO deadlines notimer: no timers (next_deadline and on_timer left out)'
	expect_fail "$kit/shb-proto-kitnotimer11.so" \
		'FAIL desc notimer11: lacks a mandatory member (next_deadline)'
	expect_fail "$kit/shb-proto-kitontimer.so" \
		'FAIL desc ontimer: has only one of next_deadline and on_timer (both or neither)'
	expect_fail "$kit/shb-proto-kitbadscheme.so" \
		"FAIL desc badscheme: scheme 'Line' is not a lower case RFC 3986 scheme"
	# A plugin built on another one's extension (as gRPC on h2's): it
	# refuses a module without the extension, and any path but its own.
	need="$kit/shb-proto-kitneedext.so"
	expect_fail "$need" \
		"FAIL module needext: module_create refused the kit's config: needext: needs the extension org.shb.test.kit.ext/1 (what it needs may be given with --extensions-from, --path or --proto-opt)"
	expect_fail "$need" \
		"FAIL random needext: module_create refused the kit's config: needext: needs the extension org.shb.test.kit.ext/1 (what it needs may be given with --extensions-from, --path or --proto-opt)"
	expect_fail "$need" \
		"FAIL module needext: prepare_request(GET /) returned -1: needext: the path must be /kit/ext, not '/'" \
		--extensions-from "$kit/shb-proto-kitext.so"
	expect_fail "$need" \
		"FAIL init: --extensions-from $kit/shb-proto-kitline.so: the plugin offers no extensions (no entry->get_extension)" \
		--extensions-from "$kit/shb-proto-kitline.so" --path /kit/ext
	expect_pass "$need" --extensions-from "$kit/shb-proto-kitext.so" --path /kit/ext
	expect_line "$need" \
		'PASS module needext: default config (line://example.com/kit/ext), 4 requests issued, 24 bytes sent, 4 outstanding at conn_fini, cancel and shutdown' \
		--extensions-from "$kit/shb-proto-kitext.so" --path /kit/ext
	# A descriptor the reporter group no longer finds: a line, not a
	# crash (fixture_vanish.c counts its loads in a file).
	SHB_KIT_VANISH_FILE="$out.loads" expect_fail "$kit/shb-report-kitvanish.so" \
		'FAIL reporter: reporter factory returned no descriptor for index 0'
	rm -f "$out.loads"
	# Every failing exit says why: as many FAIL lines as groups failed.
	"$checker" "$need" >"$out" 2>&1
	rc=$?
	n=$(grep -c '^FAIL ' "$out")
	# (module, random, truncated, deadlines, timeouts; replies and cancel
	# have no reply to check with: a WARN line each)
	if [ $rc -ne 1 ] || [ "$n" -ne 5 ]; then
		fail "$need alone: exit $rc and $n FAIL lines, expected 1 and 5"
	else
		echo "ok: kitneedext alone: exit 1, 5 FAIL lines"
	fi
	"$checker" --path 'no-slash' "$need" 2>"$out" >/dev/null
	rc=$?
	want="shb-plugin-check: --path 'no-slash' is not a request path (/..., printable, no spaces) (see --help)"
	if [ $rc -ne 2 ] || [ "$(cat "$out")" != "$want" ]; then
		fail "--path no-slash: exit $rc, expected 2 and '$want'"
	else
		echo "ok: --path no-slash: exit 2"
	fi
	"$checker" --extensions-from "$kit/nosuch.so" "$need" 2>"$out" >/dev/null
	rc=$?
	want="shb-plugin-check: cannot read '$kit/nosuch.so' (see --help)"
	if [ $rc -ne 2 ] || [ "$(cat "$out")" != "$want" ]; then
		fail "--extensions-from nosuch.so: exit $rc, expected 2 and '$want'"
	else
		echo "ok: --extensions-from nosuch.so: exit 2"
	fi
	# The loader's fixtures: what the core refuses, the checker fails.
	expect_fail "$loader/shb-proto-nosym.so" \
		'FAIL entry: not an shb plugin (no shb_plugin_entry_v1 symbol)'
	expect_fail "$loader/shb-proto-short.so" \
		'FAIL entry: entry struct too short (12 bytes)'
	expect_fail "$loader/shb-proto-liar.so" \
		'FAIL entry: entry struct too short (12 bytes)'
	expect_fail "$loader/shb-proto-major2.so" \
		'FAIL entry: built for shb ABI 2, this checker provides ABI 1'
	# minor7 asks for the checker's minor + 7, whatever that is now.
	minor=$("$checker" --version | sed -n 's/.*ABI 1\.\([0-9]*\).*/\1/p')
	expect_fail "$loader/shb-proto-minor7.so" \
		"FAIL entry: needs shb ABI 1.$((minor + 7)), this checker provides 1.$minor"
	expect_fail "$loader/shb-proto-initfail.so" \
		'FAIL init: init failed: unsupported (-4)'
	expect_fail "$loader/shb-proto-norecv.so" \
		'FAIL desc norecv: lacks a mandatory member (recv)'
	expect_fail "$loader/shb-proto-noconn.so" \
		'FAIL desc noconn: conn_size is 0'
	expect_fail "$loader/shb-report-noend.so" \
		'FAIL desc noend: lacks a mandatory member (end)'
	# Bad usage: one line on stderr, exit 2.
	"$checker" --proto nosuch "$kit/shb-proto-kitline.so" 2>"$out" >/dev/null
	rc=$?
	want="shb-plugin-check: $kit/shb-proto-kitline.so has no protocol 'nosuch'"
	if [ $rc -ne 2 ] || [ "$(cat "$out")" != "$want" ]; then
		fail "--proto nosuch: exit $rc, expected 2 and '$want'"
	else
		echo "ok: --proto nosuch: exit 2"
	fi
	"$checker" --iterations 0 "$kit/shb-proto-kitline.so" 2>"$out" >/dev/null
	rc=$?
	want="shb-plugin-check: --iterations '0' is not in 1..100000 (see --help)"
	if [ $rc -ne 2 ] || [ "$(cat "$out")" != "$want" ]; then
		fail "--iterations 0: exit $rc, expected 2 and '$want'"
	else
		echo "ok: --iterations 0: exit 2"
	fi
	;;
examples)
	[ $# -eq 7 ] || { echo "examples: 7 arguments, got $#"; exit 1; }
	expect_pass "$1" --replies "$2"
	expect_pass "$1" --replies "$2" --parallel 1,16 \
		--proto-opt command=GET --proto-opt key=k
	expect_pass "$3" --replies "$4"
	expect_pass "$5" --replies "$6" --extensions-from "$7" \
		--path /shb.test.Echo/Echo
	# gRPC's streaming calls read the same corpus (stream.seq is a server
	# stream of three messages) with other rules: any number of messages.
	expect_pass "$5" --replies "$6" --extensions-from "$7" \
		--path /shb.test.Echo/Chat --proto-opt call=bidi --proto-opt messages=3
	# Every check ran: none of them said it had nothing to check with.
	for ex in "$1|$2" "$3|$4" "$5|$6|$7"; do
		IFS='|' read -r so dir ext <<<"$ex"
		"$checker" --replies "$dir" ${ext:+--extensions-from "$ext" --path /shb.test.Echo/Echo} \
			"$so" >"$out" 2>&1
		if grep -q 'nothing to check with\|^WARN random' "$out"; then
			fail "$so: a check had nothing to check with"
		elif ! grep -q '^PASS replies ' "$out"; then
			fail "$so: no PASS replies line"
		else
			echo "ok: $(basename "$so"): $(grep '^PASS replies ' "$out")"
		fi
	done
	;;
*)
	echo "usage: check.sh pass|broken|examples CHECKER ..."
	exit 2
	;;
esac

if [ $failed -ne 0 ]; then
	echo "$failed check(s) failed"
	exit 1
fi
