#!/usr/bin/env bash
# Interoperability suite: shb against the HTTP servers Debian 12 ships,
# over every protocol each one speaks (HTTP/1.1, HTTP/1.1 over TLS, h2c,
# h2 over TLS, HTTP/3), on loopback. Prints a server x protocol matrix
# and the list of every run, and writes both to a Markdown file.
# See interop/README.md.
set -uo pipefail

IOP_HOME=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$IOP_HOME/.." && pwd)

all_servers="nginx caddy h2o nghttpd apache2 lighttpd haproxy varnish gtlsserver go node hypercorn trafficserver jetty websockets websocketd grpcio grpcgo dnsmasq"
all_protos="h1 h1s h2c h2 h3 ws wss grpc grpcs dns"
all_endpoints="/ /1m /bigheaders /close /echo"
# WebSocket (shb --proto ws, the SDK's example plugin): a 13-byte
# message echoed, a 64 KiB one, the server closing (1000) every 5th
# message. gRPC (--proto grpc, the SDK's example on the h2 plugin):
# unary echo of 13 bytes, a method that fails with INVALID_ARGUMENT, a
# 1 MiB message each way; a server stream of 10 messages, a client
# stream of 10 answered as one, 10 messages each way on one call.
ws_endpoints="ws:echo ws:64k ws:close"
grpc_endpoints="grpc:echo grpc:fail grpc:1m grpc:stream grpc:client grpc:bidi"
# DNS over UDP (--proto dns, the SDK's example): an A query answered from
# a local record, and names the server does not have (NXDOMAIN).
dns_endpoints="dns:a dns:nx"
# Cases on servers configured or declared for them (README.md): GET /
# pipelined over HTTP/1.1 (-p 8 on h1 and h1s); the HTTP/2 cases that most
# often break clients (few concurrent streams, a small initial window,
# GOAWAY every few requests); HTTP/3 with a QPACK dynamic table announced
# (4096 octets, 16 blocked streams: --proto-opt qpack-table=, qpack-blocked=).
h1_cases="h1:pipe"
h2_cases="h2:streams h2:window h2:goaway"
h3_cases="h3:qpack"

usage() {
	cat <<EOF
Usage: interop/run.sh [options]

Starts each server on loopback with the configuration in interop/<server>/
and runs shb (-c 10 -n 200; -p 16 on h2c, h2, h3, -p 8 for h1:pipe)
against every endpoint it serves, over every protocol it speaks. Exit
status 0 only when every applicable cell of the matrix passed.

Options:
  --servers LIST      servers to test (default: "$all_servers")
  --protos LIST       protocols to test, from "$all_protos"
                      (h1s: HTTP/1.1 over TLS; h2c: cleartext HTTP/2 with
                      prior knowledge; h2: HTTP/2 over TLS with ALPN; ws,
                      wss: WebSocket; grpc, grpcs: gRPC over h2c, h2; dns:
                      DNS over UDP; the last five through the plugins of
                      sdk/examples/, built by run.sh against the SDK of the
                      shb under test)
  --quick             GET / only (ws:echo and grpc:echo on ws and gRPC)
  -o, --output FILE   results file (default: interop/results/latest.md)
  --shb PATH          use this shb binary instead of building one into
                      build-interop/ at the top of the repository
  --plugin-path P     SHB_PLUGIN_PATH for --shb (default: derived from the
                      build directory holding PATH)
  --jcheck PATH       the shb-jcheck tool (default: built by run.sh, or
                      tests/harness/shb-jcheck in the build holding --shb)
  --timeout S         seconds allowed for one shb run (default: 60); each
                      request also times out after 30 s inside shb
  --no-install        do not install missing packages; servers that are
                      not installed are reported as skipped, and the
                      exit status is 77 when nothing failed but something
                      was skipped (scripts/test.sh installs everything
                      first and runs the suite this way)
  --keep              keep the temporary directory (configs, logs, JSON)
  --serve             only start the selected servers, print their URLs
                      and wait for Ctrl-C (to rerun a failed shb command)
  -h, --help          print this help and exit

Missing packages are installed with apt-get (through sudo when not root).
Exit status: 0 when every applicable cell passed, 1 when one failed, 77
when none failed but a cell was skipped (--no-install, or a protocol whose
plugin this shb does not find), 2 on bad usage.
EOF
}

die() {
	echo "run.sh: $*" >&2
	exit 2
}

need_arg() {
	[[ $# -ge 2 ]] || die "option $1 needs a value"
}

servers=$all_servers
protos=$all_protos
quick=0
out=""
shb=""
plugin_path=""
jcheck=""
run_timeout=60
install=1
keep=0
serve=0

while [[ $# -gt 0 ]]; do
	case $1 in
	--servers) need_arg "$@"; servers=$2; shift 2 ;;
	--protos) need_arg "$@"; protos=$2; shift 2 ;;
	--quick) quick=1; shift ;;
	-o | --output) need_arg "$@"; out=$2; shift 2 ;;
	--shb) need_arg "$@"; shb=$2; shift 2 ;;
	--plugin-path) need_arg "$@"; plugin_path=$2; shift 2 ;;
	--jcheck) need_arg "$@"; jcheck=$2; shift 2 ;;
	--timeout) need_arg "$@"; run_timeout=$2; shift 2 ;;
	--no-install) install=0; shift ;;
	--keep) keep=1; shift ;;
	--serve) serve=1; shift ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown option '$1' (try --help)" ;;
	esac
done

read -r -a server_list <<<"$servers"
read -r -a proto_list <<<"$protos"
((${#server_list[@]})) || die "--servers needs at least one server"
((${#proto_list[@]})) || die "--protos needs at least one protocol"
for s in "${server_list[@]}"; do
	[[ " $all_servers " == *" $s "* ]] || die "unknown server '$s' (known: $all_servers)"
done
for p in "${proto_list[@]}"; do
	[[ " $all_protos " == *" $p "* ]] || die "unknown protocol '$p' (known: $all_protos)"
done
if ! [[ $run_timeout =~ ^[0-9]+$ ]] || ((run_timeout < 5 || run_timeout > 3600)); then
	die "--timeout must be a whole number of seconds in 5..3600, not '$run_timeout'"
fi
[[ -z $plugin_path || -n $shb ]] || die "--plugin-path goes with --shb"
[[ -n $out ]] || out="$IOP_HOME/results/latest.md"
if ((quick)); then
	endpoints="/"
	ws_endpoints="ws:echo"
	grpc_endpoints="grpc:echo"
	h1_cases="" h2_cases="" h3_cases=""
else
	endpoints=$all_endpoints
fi

# proto_endpoints PROTO: what is run over a protocol column.
proto_endpoints() {
	case $1 in
	ws | wss) echo "$ws_endpoints" ;;
	grpc | grpcs) echo "$grpc_endpoints" ;;
	dns) echo "$dns_endpoints" ;;
	h1 | h1s) echo "$endpoints $h1_cases" ;;
	h2c | h2) echo "$endpoints $h2_cases" ;;
	h3) echo "$endpoints $h3_cases" ;;
	*) echo "$endpoints" ;;
	esac
}

# shb_proto PROTO: the --proto value (the plugin) of a protocol column.
shb_proto() {
	case $1 in
	ws | wss) echo ws ;;
	grpc | grpcs) echo grpc ;;
	dns) echo dns ;;
	*) echo "${1:0:2}" ;;
	esac
}

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$IOP_HOME/lib.sh"
for s in "${server_list[@]}"; do
	# shellcheck disable=SC1090 # one script per server
	source "$IOP_HOME/$s/server.sh"
done
PATH=$PATH:/usr/sbin:/sbin

# --- packages --------------------------------------------------------------------

pkg_installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

missing=()
add_missing() {
	local p
	for p in "$@"; do
		[[ " ${missing[*]} " == *" $p "* ]] || missing+=("$p")
	done
}
command -v openssl >/dev/null || add_missing openssl
command -v timeout >/dev/null || add_missing coreutils
for s in "${server_list[@]}"; do
	pkgs_var="${s}_packages"
	# shellcheck disable=SC2086 # a list of package names
	"${s}_bin" >/dev/null 2>&1 || add_missing ${!pkgs_var}
	# A package that adds a feature to an installed binary (TLS for
	# lighttpd) is named in <server>_extra_packages.
	extra_var="${s}_extra_packages"
	for p in ${!extra_var:-}; do
		pkg_installed "$p" || add_missing "$p"
	done
done
if [[ -z $shb ]] && ((!serve)); then
	for p in gcc meson ninja-build pkgconf liburing-dev libgnutls28-dev \
		libjansson-dev; do
		pkg_installed "$p" || add_missing "$p"
	done
fi

if ((${#missing[@]})); then
	if ((install)); then
		iop_log "installing ${missing[*]}"
		sudo=""
		if [[ $(id -u) -ne 0 ]]; then
			command -v sudo >/dev/null || die "not root and no sudo: install ${missing[*]} first"
			sudo="sudo"
		fi
		export DEBIAN_FRONTEND=noninteractive
		# Debian's packages start their system services where systemd
		# runs (apache2, lighttpd, haproxy, ...). They bind the stock
		# ports; this suite uses ports of its own and never touches them.
		$sudo apt-get update -qq >/dev/null || die "apt-get update failed"
		if ! $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
			# One package that cannot be had must not keep the others
			# out: a server left uninstalled is reported as failed.
			for p in "${missing[@]}"; do
				$sudo apt-get install -y -qq --no-install-recommends "$p" >/dev/null ||
					iop_log "apt-get install $p failed"
			done
		fi
	else
		iop_log "not installed (--no-install): ${missing[*]}"
	fi
fi
command -v openssl >/dev/null || die "openssl is needed to make the test certificate"
command -v timeout >/dev/null || die "timeout (coreutils) is needed"

# --- shb ---------------------------------------------------------------------------

if ((serve)); then
	: # no shb needed
elif [[ -z $shb ]]; then
	bdir="$root/build-interop"
	if [[ ! -f $bdir/build.ninja ]]; then
		iop_log "configuring $bdir"
		# Without the unit tests: nothing of tests/ is configured, so a
		# test being edited elsewhere in the tree cannot stop this build.
		setup_log=$(meson setup "$bdir" "$root" --buildtype=debugoptimized -Dtests=false 2>&1) ||
			{ echo "$setup_log" >&2; die "meson setup failed"; }
	else
		# A directory configured by hand may have the tests on.
		meson configure "$bdir" -Dtests=false >/dev/null 2>&1 || true
	fi
	iop_log "building shb and its plugins in $bdir"
	# shb and every plugin the tree builds (no unit tests).
	mapfile -t targets < <(ninja -C "$bdir" -t targets all 2>/dev/null |
		sed -n 's/^\(plugins\/[^:]*\.so\): .*/\1/p')
	ninja -C "$bdir" core/shb "${targets[@]}" >"$bdir/interop-build.log" 2>&1 ||
		{ tail -n 30 "$bdir/interop-build.log" >&2; die "the build failed (log: $bdir/interop-build.log)"; }
	shb="$bdir/core/shb"
	# The tree's JSON checker (tests/harness/jcheck.c) is one file over
	# jansson; building it here keeps it out of the test configuration.
	if [[ -z $jcheck ]]; then
		jcheck="$bdir/interop-jcheck"
		if [[ ! -x $jcheck || $root/tests/harness/jcheck.c -nt $jcheck ]]; then
			# shellcheck disable=SC2046 # pkg-config prints several flags
			cc -std=c11 -D_GNU_SOURCE -O2 -o "$jcheck" "$root/tests/harness/jcheck.c" \
				$(pkg-config --cflags --libs jansson) -lm ||
				die "cannot build shb-jcheck from tests/harness/jcheck.c"
		fi
	fi
fi

run_shb() {
	SHB_PLUGIN_PATH=$plugin_path "$shb" "$@"
}

have_plugin() {
	[[ " $plugins " == *" $1 "* ]]
}

if ((!serve)); then
	[[ -x $shb ]] || die "--shb $shb is not an executable file"
	shb=$(cd "$(dirname "$shb")" && pwd)/$(basename "$shb")
	bdir=$(dirname "$(dirname "$shb")")
	if [[ -z $plugin_path ]]; then
		# A build tree keeps each plugin under plugins/.
		if [[ -d $bdir/plugins ]]; then
			plugin_path=$(find "$bdir/plugins" -name '*.so' -printf '%h\n' | sort -u | paste -sd:)
		else
			plugin_path=${SHB_PLUGIN_PATH:-}
		fi
	fi
	[[ -n $jcheck ]] || jcheck="$bdir/tests/harness/shb-jcheck"
	[[ -x $jcheck ]] || die "shb-jcheck not found at $jcheck (use --jcheck, or let run.sh build shb)"
	# The protocol plugins this shb finds.
	plugins=$(run_shb --list-plugins 2>/dev/null | sed -n 's/^ *protocol \([^ ]*\).*/\1/p' | xargs)
	iop_log "shb $shb; protocol plugins: ${plugins:-none}"
fi

# --- scratch space, clean-up ---------------------------------------------------------

IOP_TMP=$(mktemp -d -t shb-interop.XXXXXX) || die "mktemp failed"
# Servers that drop privileges (apache2, lighttpd, h2o) must reach their
# files: the directory is readable, the private key stays 0600.
chmod 755 "$IOP_TMP"

# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	iop_stop_all
	if ((keep)); then
		iop_log "kept $IOP_TMP"
	else
		rm -rf "$IOP_TMP"
	fi
}
trap cleanup EXIT
trap 'iop_log "interrupted"; exit 130' INT
trap 'exit 143' TERM

# A throwaway self-signed ECDSA P-256 certificate, for every server.
IOP_CERT=$IOP_TMP/cert.pem
IOP_KEY=$IOP_TMP/key.pem
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
	-keyout "$IOP_KEY" -out "$IOP_CERT" -days 2 -subj /CN=localhost \
	-addext 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1' \
	-addext 'basicConstraints=critical,CA:FALSE' -addext 'extendedKeyUsage=serverAuth' \
	>"$IOP_TMP/cert.log" 2>&1 || { cat "$IOP_TMP/cert.log" >&2; die "openssl could not make a certificate"; }
chmod 644 "$IOP_CERT"

# The files servers serve: index.html (13 bytes), 1m (1 MiB), echo (the
# answer of servers that can only serve a file to POST /echo).
IOP_DOCROOT=$IOP_TMP/www
mkdir -p "$IOP_DOCROOT"
printf 'hello, world!' >"$IOP_DOCROOT/index.html"
printf 'ok' >"$IOP_DOCROOT/echo"
yes 'shb interop: 1 MiB body, 32-byte lines' | head -c 1048576 >"$IOP_DOCROOT/1m"
chmod -R a+rX "$IOP_DOCROOT"
# The POST body: 200 KB, more than HTTP/2's 64 KB initial windows; no
# CR or LF, so "-d @file" sends it unchanged.
post_file=$IOP_TMP/post-200k
head -c 204800 /dev/zero | tr '\0' 'p' >"$post_file"
# WebSocket and gRPC messages: 13 bytes, 64 KiB (more than one read of
# most servers, and one frame of 64 KiB: a 64-bit length on the wire);
# the 1 MiB gRPC message is the 1m file.
msg_file=$IOP_TMP/msg-13
printf 'hello, world!' >"$msg_file"
msg64k_file=$IOP_TMP/msg-64k
yes 'shb interop: 64 KiB message, 32-byte lines' | head -c 65536 >"$msg64k_file"

# --- the SDK's example plugins (ws, grpc) -------------------------------------------

# The ws/wss and grpc/grpcs columns run the out-of-tree plugins of
# sdk/examples/, built here the way a plugin author builds them: with
# meson, against the SDK of the shb under test. `meson install --destdir`
# of the build holding that shb stages its SDK (headers, .pc files,
# plugin.map, the kit the examples' tests link) under the run's
# directory; the staged .pc files still name the configured prefix, so
# their prefix= line is pointed at the staged copy. (The .pc files meson
# writes to meson-uninstalled/ are no substitute: shb-plugin-1's has no
# include path and none of the variables a plugin build reads.) An shb
# that is not in a build tree is taken as installed: its SDK is the one
# pkg-config finds. The example build directories go on the plugin path
# of the ws and gRPC rows only; the gRPC plugin finds the h2 plugin's
# extension on the plugin path shb already has.
ex_path=""
declare -A ex_fail=()

uses_examples() {
	local s p
	for s in "${server_list[@]}"; do
		for p in "${proto_list[@]}"; do
			case $p in ws | wss | grpc | grpcs | dns) server_speaks "$s" "$p" && return 0 ;; esac
		done
	done
	return 1
}

server_speaks() { # server proto
	local v="${1}_protos"
	[[ " ${!v} " == *" $2 "* ]]
}

# build_examples: sets ex_path, or ex_fail[ws|grpc|dns] to why not.
build_examples() {
	local stage=$IOP_TMP/sdk pc pcdir name so log ex why
	local -a pcenv=()
	if [[ -f $bdir/build.ninja ]]; then
		log=$IOP_TMP/sdk-install.log
		if ! meson install -C "$bdir" --destdir "$stage" >"$log" 2>&1; then
			ex_fail[ws]="the SDK of the shb build did not install: $(grep -v '^\s*$' "$log" | tail -n 1)"
			ex_fail[grpc]=${ex_fail[ws]}
			ex_fail[dns]=${ex_fail[ws]}
			return 1
		fi
		pc=$(find "$stage" -name shb-plugin-1.pc -print -quit)
		[[ -n $pc ]] || { ex_fail[ws]="the SDK of the shb build has no shb-plugin-1.pc"; ex_fail[grpc]=${ex_fail[ws]}; ex_fail[dns]=${ex_fail[ws]}; return 1; }
		pcdir=$(dirname "$pc")
		# prefix=/usr/local -> prefix=<stage>/usr/local
		sed -i "s|^prefix=|prefix=$stage|" "$pcdir"/*.pc
		pcenv=(env "PKG_CONFIG_LIBDIR=$pcdir" "PKG_CONFIG_PATH=$pcdir")
	fi
	for name in websocket grpc dns; do
		ex=$IOP_TMP/examples/$name
		so=shb-proto-${name/websocket/ws}.so
		log=$IOP_TMP/examples/$name.log
		mkdir -p "$ex"
		if "${pcenv[@]}" meson setup "$ex" "$root/sdk/examples/$name" >"$log" 2>&1 &&
			ninja -C "$ex" -j 2 "$so" >>"$log" 2>&1; then
			ex_path+=":$ex"
		else
			# meson's or the compiler's first error, else the last line.
			why=$(grep -m 1 -E 'ERROR:|error:' "$log") || why=$(grep -v '^\s*$' "$log" | tail -n 1)
			ex_fail[${name/websocket/ws}]="sdk/examples/$name did not build: ${why//"$IOP_TMP"/<tmp>}"
		fi
	done
	ex_path=${ex_path#:}
}

if ((!serve)) && uses_examples; then
	iop_log "building the ws, grpc and dns plugins of sdk/examples/ against shb's SDK"
	build_examples
	# The protocol plugins, the examples' included.
	plugins=$(SHB_PLUGIN_PATH="$plugin_path:$ex_path" "$shb" --list-plugins 2>/dev/null |
		sed -n 's/^ *protocol \([^ ]*\).*/\1/p' | xargs)
	iop_log "protocol plugins with the examples: ${plugins:-none}"
fi

# --- one run -------------------------------------------------------------------------

# Results, in order, one line per run: server proto endpoint
# result(pass|FAIL|n/a) reason req/s command, separated by US (0x1f): a
# tab would merge empty fields when read back.
US=$'\x1f'
runs=()

# first_sample JSON: "kind: message" of the first error sample, or "".
first_sample() {
	local s
	s=$("$jcheck" --get "$1" errorSamples 2>/dev/null) || return 0
	sed -nE 's/^\{"([a-z]+)":"(([^"\\]|\\.)*)".*/\1: \2/p' <<<"$s"
}

# err_line FILE: what shb said on stderr, in one line: a sanitizer's
# report line if there is one, else the first line.
err_line() {
	local l
	l=$(grep -m 1 -E 'ERROR: [A-Za-z]+Sanitizer|runtime error:' "$1" 2>/dev/null) ||
		l=$(grep -m 1 -v '^\s*$' "$1" 2>/dev/null)
	l=${l#==*==}
	echo "${l%% on address *}"
}

# One line of text: tabs and newlines would break the results table.
one_line() {
	tr '\t\n' '  ' | sed 's/|/\\|/g; s/  *$//' | cut -c1-200
}

# dns_verdict (in run_one): every query answered with one outcome, named:
# dns:a 200 noerror (exit 0), dns:nx 200 nxdomain, application errors
# (exit 1); then the server's own count. Sets reason and rps.
dns_verdict() {
	local want='[{"space":"dns","code":0,"name":"noerror","ok":true,"count":200}]' want_rc=0
	local -a checks=('requests.ok == 200' 'requests.errors == 0')
	if [[ $ep == dns:nx ]]; then
		want='[{"space":"dns","code":3,"name":"nxdomain","ok":false,"count":200}]'
		want_rc=1
		checks=('requests.answered == 200' 'errors.application == 200')
	fi
	# Answered, NXDOMAIN included.
	rps=$("$jcheck" --get "$base.json" answeredPerSec | awk '{ printf "%.0f", $1 }')
	if ((rc != want_rc)); then
		reason="exit $rc (expected $want_rc): $(first_sample "$base.json")"
	elif [[ $("$jcheck" --get "$base.json" appOutcomes) != "$want" ]]; then
		reason="app outcomes $("$jcheck" --get "$base.json" appOutcomes)"
	elif ! "$jcheck" "$base.json" "${checks[@]}" >"$base.check" 2>&1; then
		reason="check failed: $(head -n 1 "$base.check")"
	elif declare -F "${server}_check" >/dev/null; then
		reason=$("${server}_check" "$proto" "$ep" "$base.json")
	fi
}

# grpc_stream_octets ENDPOINT: the response body octets of 200 calls of a
# streaming endpoint (each message 5 octets of prefix and the 13 sent),
# or nothing for the others.
grpc_stream_octets() {
	case $1 in
	grpc:stream | grpc:bidi) echo $((200 * 10 * (5 + 13))) ;; # 10 messages back
	grpc:client) echo $((200 * (5 + 10 * 13))) ;;            # 10 joined in one
	esac
}

# run_one SERVER PROTO ENDPOINT URL
run_one() {
	local server=$1 proto=$2 ep=$3 url=$4 base args rc=0 reason="" rps="" pp=$plugin_path
	base="$IOP_TMP/runs/$server-$proto-${ep//[\/:]/_}"
	mkdir -p "$IOP_TMP/runs"
	args=(--proto "$(shb_proto "$proto")" -c 10 -n 200)
	case $proto in
	h2c | h2 | h3 | grpc | grpcs | dns) args+=(-p 16) ;;
	h1 | h1s) [[ $ep != h1:pipe ]] || args+=(-p 8) ;;
	# In flight per connection: 4, unless the server can only answer
	# one message at a time (IOP_PAR, websocketd).
	ws | wss) args+=(-p "${IOP_PAR[$proto]:-4}") ;;
	esac
	case $ep in
	/echo | h2:window) args+=(-d "@$post_file") ;;
	ws:echo | ws:close | grpc:echo | grpc:fail) args+=(-d "@$msg_file") ;;
	grpc:stream) args+=(-d "@$msg_file" --proto-opt call=server-stream) ;;
	grpc:client) args+=(-d "@$msg_file" --proto-opt call=client-stream --proto-opt messages=10) ;;
	grpc:bidi) args+=(-d "@$msg_file" --proto-opt call=bidi --proto-opt messages=10) ;;
	ws:64k) args+=(-d "@$msg64k_file") ;;
	grpc:1m) args+=(-d "@$IOP_DOCROOT/1m") ;;
	dns:a) args+=(--proto-opt name=a.shb.test) ;;
	dns:nx) args+=(--proto-opt 'name=n{seq}.shb.test') ;;
	h3:qpack) args+=(--proto-opt qpack-table=4096 --proto-opt qpack-blocked=16) ;;
	esac
	# The examples' plugins are on the plugin path of their rows only.
	case $proto in ws | wss | grpc | grpcs | dns) pp+=":$ex_path" ;; esac
	# A stuck request becomes a timeout error with a sample in the
	# report (a healthy run takes a few seconds at most); the outer
	# timeout only catches a hung shb. 30 s, not less: hypercorn's h2
	# /bigheaders answers about 20 a second (python-h2 encoding 48 KB of
	# headers), so the last of 160 requests in flight waits 8 s on an
	# idle machine and more on a loaded one.
	args+=(--timeout 30s -q -j "$url")
	# The outer 2>/dev/null only silences bash's own note on a crash.
	{ timeout --foreground -k 5 "$run_timeout" env "SHB_PLUGIN_PATH=$pp" "$shb" "${args[@]}" \
		>"$base.json" 2>"$base.err"; } 2>/dev/null || rc=$?

	if ((rc == 124 || rc == 137)); then
		reason="no result within ${run_timeout}s (killed)"
	elif ((rc > 128)); then
		reason="crashed: signal $(kill -l $((rc - 128)) 2>/dev/null || echo $((rc - 128)))"
		[[ ! -s $base.err ]] || reason+=" ($(err_line "$base.err"))"
	elif ! "$jcheck" --get "$base.json" requests.total >/dev/null 2>&1; then
		reason="exit $rc: $(err_line "$base.err")"
	elif [[ $proto == dns ]]; then
		dns_verdict
	elif [[ $ep == grpc:fail ]]; then
		# Every call fails with the server's INVALID_ARGUMENT: exit 1,
		# 200 errors of kind application, grpc-status 3 only.
		local errs app outcomes
		errs=$("$jcheck" --get "$base.json" requests.errors)
		app=$("$jcheck" --get "$base.json" errors.application)
		outcomes=$("$jcheck" --get "$base.json" appOutcomes)
		rps=$("$jcheck" --get "$base.json" requestsPerSec | awk '{ printf "%.0f", $1 }')
		if ((rc != 1)); then
			reason="exit $rc (expected 1): $(err_line "$base.err")"
		elif ((errs != 200 || app != 200)); then
			reason="errors $errs, of kind application $app; $(first_sample "$base.json")"
		elif [[ $outcomes != '[{"space":"grpc","code":3,"ok":false,"count":200}]' ]]; then
			reason="app outcomes $outcomes"
		fi
		if [[ -z $reason ]] && ! "$jcheck" "$base.json" 'requests.ok == 0' \
			'requests.errors == 200' 'errors.application == 200' \
			'appOutcomes.0.code == 3' >"$base.check" 2>&1; then
			reason="check failed: $(head -n 1 "$base.check")"
		fi
	else
		local ok errs codes sample outcomes want_codes='{"200":200}' want_app=""
		ok=$("$jcheck" --get "$base.json" requests.ok)
		errs=$("$jcheck" --get "$base.json" requests.errors)
		codes=$("$jcheck" --get "$base.json" statusCodes)
		outcomes=$("$jcheck" --get "$base.json" appOutcomes 2>/dev/null)
		sample=$(first_sample "$base.json")
		rps=$("$jcheck" --get "$base.json" requestsPerSec | awk '{ printf "%.0f", $1 }')
		# WebSocket has no HTTP status after the handshake; every answer
		# is close code 1000. Every gRPC call ends with grpc-status 0.
		case $proto in
		ws | wss)
			want_codes='{}'
			want_app='[{"space":"websocket","code":1000,"ok":true,"count":200}]'
			;;
		grpc | grpcs) want_app='[{"space":"grpc","code":0,"ok":true,"count":200}]' ;;
		esac
		if [[ -n $sample ]] && ((errs > 0 || rc != 0)); then
			reason="$errs errors, $sample"
		elif ((rc != 0)); then
			reason="exit $rc: $(err_line "$base.err")"
		elif ((ok != 200 || errs != 0)); then
			reason="ok $ok, errors $errs"
		elif [[ $codes != "$want_codes" ]]; then
			reason="status codes $codes"
		elif [[ -n $want_app && $outcomes != "$want_app" ]]; then
			reason="app outcomes $outcomes"
		elif [[ $ep == ws:close ]] && (($("$jcheck" --get "$base.json" connectionsOpened) <= 10)); then
			# The server's closes must have made shb reconnect.
			reason="no connection closed by the server (10 opened)"
		elif [[ -n $(grpc_stream_octets "$ep") ]] &&
			(($("$jcheck" --get "$base.json" rxBodyBytes) != $(grpc_stream_octets "$ep"))); then
			reason="body octets $("$jcheck" --get "$base.json" rxBodyBytes), not $(grpc_stream_octets "$ep") (messages lost or extra)"
		fi
		# A server may check the run from its side too (how each
		# connection ended): <server>_check prints a reason or nothing.
		if [[ -z $reason ]] && declare -F "${server}_check" >/dev/null; then
			reason=$("${server}_check" "$proto" "$ep" "$base.json")
		fi
		local -a want=('requests.ok == 200' 'requests.errors == 0' 'statusCodes.200 == 200')
		[[ $proto != ws* ]] || want=('requests.ok == 200' 'requests.errors == 0' 'appOutcomes.0.count == 200')
		# The thresholds are also checked the documented way, so the
		# decision never rests on this script's parsing alone.
		if [[ -z $reason ]] && ! "$jcheck" "$base.json" "${want[@]}" >"$base.check" 2>&1; then
			reason="check failed: $(head -n 1 "$base.check")"
		fi
	fi
	local result=pass
	[[ -z $reason ]] || result=FAIL
	runs+=("$server${US}$proto${US}$ep${US}$result${US}$(one_line <<<"$reason")${US}$rps${US}shb ${args[*]}")
	printf '  %-8s %-11s %-5s %s\n' "$proto" "$ep" "$result" "$reason" >&2
}

# --- the servers -------------------------------------------------------------------------

# Cell of the matrix for (server, proto).
declare -A cell=()
failed=0
# A cell that could not run: exit 77 at the end unless something failed.
skipped=()

# start_server NAME: up to 3 attempts (a port picked free may be taken
# before the server binds it). Sets start_error on failure.
start_server() {
	local s=$1 try dir first=${#IOP_PIDS[@]}
	start_error=""
	for try in 1 2 3; do
		dir="$IOP_TMP/$s.$try"
		mkdir -p "$dir"
		chmod 755 "$dir"
		IOP_SERVER_LOGS=""
		IOP_URL=()
		IOP_NA=()
		IOP_PAR=()
		if "${s}_start" "$dir"; then
			return 0
		fi
		iop_stop_all "$first"
		# shellcheck disable=SC2086 # a list of files
		start_error=$(cat $IOP_SERVER_LOGS 2>/dev/null | grep -v '^\s*$' | tail -n 1 | one_line)
		# shellcheck disable=SC2086
		grep -qiE 'address already in use|EADDRINUSE|bind.*in use' $IOP_SERVER_LOGS 2>/dev/null || break
	done
	start_error="did not start${start_error:+: $start_error}"
	return 1
}

# --serve: every selected server at once, until Ctrl-C.
if ((serve)); then
	for s in "${server_list[@]}"; do
		if ! "${s}_bin" >/dev/null 2>&1; then
			iop_log "$s: not installed"
			continue
		fi
		if ! start_server "$s"; then
			iop_log "$s: $start_error"
			continue
		fi
		for p in "${proto_list[@]}"; do
			for ep in $(proto_endpoints "$p"); do
				url=${IOP_URL["$p $ep"]:-}
				[[ -z $url ]] || printf '%-10s %-4s %-11s %s\n' "$s" "$p" "$ep" "$url"
			done
		done
	done
	echo "POST body for /echo: $post_file"
	echo "files in $IOP_TMP; Ctrl-C stops the servers"
	while :; do sleep 1; done
fi

for s in "${server_list[@]}"; do
	if ! "${s}_bin" >/dev/null 2>&1; then
		for p in "${proto_list[@]}"; do
			server_speaks "$s" "$p" || { cell["$s $p"]="n/a"; continue; }
			if ((install)); then
				cell["$s $p"]="FAIL (not installed)"
				failed=1
			else
				cell["$s $p"]="skipped (not installed)"
				skipped+=("$s $p: not installed")
			fi
		done
		iop_log "$s: not installed"
		continue
	fi
	applicable=()
	for p in "${proto_list[@]}"; do
		if ! server_speaks "$s" "$p"; then
			cell["$s $p"]="n/a"
		elif [[ -n ${ex_fail[$(shb_proto "$p")]:-} ]]; then
			cell["$s $p"]="FAIL (${ex_fail[$(shb_proto "$p")]})"
			runs+=("$s${US}$p${US}-${US}FAIL${US}$(one_line <<<"${ex_fail[$(shb_proto "$p")]}")${US}${US}")
			failed=1
		elif ! have_plugin "$(shb_proto "$p")"; then
			cell["$s $p"]="skipped (plugin missing)"
			skipped+=("$s $p: no $(shb_proto "$p") plugin")
		else
			applicable+=("$p")
		fi
	done
	((${#applicable[@]})) || { iop_log "$s: nothing to run"; continue; }

	iop_log "$s: starting"
	if ! start_server "$s"; then
		iop_log "$s: $start_error"
		for p in "${applicable[@]}"; do
			cell["$s $p"]="FAIL ($start_error)"
			runs+=("$s${US}$p${US}-${US}FAIL${US}$start_error${US}${US}")
		done
		failed=1
		continue
	fi
	for p in "${applicable[@]}"; do
		nfail=0
		first=""
		for ep in $(proto_endpoints "$p"); do
			url=${IOP_URL["$p $ep"]:-}
			if [[ -z $url ]]; then
				# An HTTP/1.1 or HTTP/2 case (run over its own
				# protocols only: proto_endpoints) is listed only
				# when the server says why it is left out.
				if [[ $ep == h1:* || $ep == h2:* ]]; then
					[[ -n ${IOP_NA["$p $ep"]:-${IOP_NA["* $ep"]:-}} ]] || continue
				fi
				why=${IOP_NA["$p $ep"]:-${IOP_NA["* $ep"]:-not configured}}
				runs+=("$s${US}$p${US}$ep${US}n/a${US}$why${US}${US}")
				continue
			fi
			run_one "$s" "$p" "$ep" "$url"
			last=${runs[-1]}
			IFS=$US read -r _ _ _ res why _ <<<"$last"
			if [[ $res == FAIL ]]; then
				((nfail++))
				[[ -n $first ]] || first="$ep: $why"
			fi
		done
		if ((nfail == 0)); then
			cell["$s $p"]="pass"
		else
			more=""
			((nfail > 1)) && more=" (+$((nfail - 1)) more)"
			cell["$s $p"]="FAIL ($first)$more"
			failed=1
		fi
	done
	iop_stop_all
done

# The Markdown report of the matrix (report.sh).
# shellcheck source-path=SCRIPTDIR source=report.sh
source "$IOP_HOME/report.sh"

mkdir -p "$(dirname "$out")" || die "cannot create the directory of $out"
report >"$out.tmp" && mv "$out.tmp" "$out"
cat "$out"
iop_log "results written to $out"
((failed == 0)) || exit 1
if ((${#skipped[@]})); then
	skip_list=$(printf '%s; ' "${skipped[@]}")
	iop_log "skipped: ${skip_list%; }"
	exit 77
fi
exit 0
