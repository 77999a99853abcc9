#!/usr/bin/env bash
# The Debian packages, end to end: builds the source package from a copy of
# the working tree and the binary packages from that source
# (dpkg-buildpackage -us -uc -b; the test suites are scripts/test.sh's, so
# nocheck), lints both with lintian (any error or warning fails), installs
# the packages on this machine and runs the installed /usr/bin/shb over
# HTTP/1.1 (shb-testserver), h2c (nghttpd) and HTTP/3 (gtlsserver) on
# loopback with exact counts, builds the shb-dev example plugin against the
# installed SDK and runs the installed shb-plugin-check on it, removes
# shb-plugin-h3 and checks the one-line message that names it, then purges
# every package it installed.
#   scripts/deb-check.sh [--build DIR] [--keep]
# --build DIR: a configured build with tests (default: build/), for
#   shb-testserver and shb-jcheck. --keep: keep the packages and logs in
#   the temporary directory (printed).
# Needs root or sudo (exit 77 without), and no shb package installed
# beforehand (it would not know what to restore). Exit status 0 when every
# check passed, 1 when one failed, 2 on bad usage.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$root/build
keep=0
while [[ $# -gt 0 ]]; do
	case $1 in
	--build) build=$(cd "$2" && pwd); shift 2 ;;
	--keep) keep=1; shift ;;
	*) echo "deb-check: unknown option $1" >&2; exit 2 ;;
	esac
done

sudo=""
if [[ $(id -u) -ne 0 ]]; then
	sudo="sudo"
	sudo -n true 2>/dev/null || { echo "SKIP [deb-check]: needs root or sudo to install packages" >&2; exit 77; }
fi
testserver=$build/tests/harness/shb-testserver
jcheck=$build/tests/harness/shb-jcheck
for t in "$testserver" "$jcheck"; do
	[[ -x $t ]] || { echo "deb-check: $t is missing (a build with -Dtests=true)" >&2; exit 2; }
done

fail() {
	echo "FAIL [deb-check]: $*" >&2
	exit 1
}
note() {
	echo "# $*"
}

# present PACKAGE: dpkg knows it in any state but not-installed.
present() {
	local st
	st=$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null) || return 1
	[[ -n $st && $st != not-installed ]]
}

tmp=$(mktemp -d -t shb-deb-check.XXXXXX)
pids=()
installed_by_us=()
cleanup() {
	local pid
	for pid in "${pids[@]+"${pids[@]}"}"; do
		kill -TERM "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	local p left=()
	for p in "${installed_by_us[@]+"${installed_by_us[@]}"}"; do
		! present "$p" || left+=("$p")
	done
	if ((${#left[@]})); then
		note "purging ${left[*]}"
		$sudo env DEBIAN_FRONTEND=noninteractive dpkg --purge "${left[@]}" >/dev/null ||
			echo "deb-check: could not purge ${left[*]}" >&2
	fi
	if ((keep)); then
		echo "deb-check: kept $tmp" >&2
	else
		rm -rf "$tmp"
	fi
}
trap cleanup EXIT

ours=(shb shb-plugin-h2 shb-plugin-h3 shb-plugin-tui shb-plugin-lua shb-dev shb-dbgsym
      shb-plugin-h2-dbgsym shb-plugin-h3-dbgsym shb-plugin-tui-dbgsym
      shb-plugin-lua-dbgsym shb-dev-dbgsym)
for p in "${ours[@]}"; do
	if present "$p"; then
		fail "$p is already installed: remove it first (this check restores the machine to how it found it)"
	fi
done

# ---- build --------------------------------------------------------------
version=$(dpkg-parsechangelog -l "$root/debian/changelog" -S Version)
project_version=$(sed -n "s/^  version: '\(.*\)',$/\1/p" "$root/meson.build")
[[ $version == "$project_version" ]] ||
	fail "debian/changelog says $version, meson.build says $project_version"
src=$tmp/copy/shb-$version
mkdir -p "$src"
# The working tree as it is: tracked files still there, and new files not
# ignored (so no build output), NUL-separated.
tree_files() {
	local f
	while IFS= read -r -d '' f; do
		[[ ! -e $root/$f ]] || printf '%s\0' "$f"
	done < <(cd "$root" && git ls-files -z --cached --others --exclude-standard)
}
tree_files | tar -C "$root" --null -T - -cf - | tar -C "$src" -xf -
note "source package shb $version"
(cd "$tmp/copy" && dpkg-source -b "shb-$version" >"$tmp/source.log" 2>&1) ||
	{ cat "$tmp/source.log" >&2; fail "dpkg-source -b failed"; }
mv "$tmp/copy/shb_$version".* "$tmp/"
# The binaries from the source package alone: it must be complete.
(cd "$tmp" && dpkg-source -x "shb_$version.dsc" build >"$tmp/extract.log" 2>&1) ||
	{ cat "$tmp/extract.log" >&2; fail "dpkg-source -x failed"; }
note "dpkg-buildpackage -us -uc -b (nocheck)"
t0=$(date +%s)
(cd "$tmp/build" && DEB_BUILD_OPTIONS="nocheck parallel=2" DEB_BUILD_PROFILES=nocheck \
	dpkg-buildpackage -us -uc -b >"$tmp/build.log" 2>&1) ||
	{ tail -n 60 "$tmp/build.log" >&2; fail "dpkg-buildpackage failed (log: $tmp/build.log)"; }
note "built in $(($(date +%s) - t0)) s"
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
debs=()
for p in "${ours[@]}"; do
	f=$tmp/${p}_${version}_$arch.deb
	[[ -f $f ]] || fail "no $p package was built"
	debs+=("$f")
	[[ $p == *-dbgsym ]] ||
		note "$p: $(dpkg-deb -f "$f" Installed-Size) KiB installed, $(stat -c %s "$f") bytes"
done

# ---- lintian --------------------------------------------------------------
# Errors and warnings fail; the rest (info, pedantic) is shown.
lintian --version
rc=0
lintian --fail-on error,warning -I --pedantic "$tmp/shb_$version.dsc" \
	"$tmp/shb_${version}_$arch.changes" >"$tmp/lintian.log" 2>&1 || rc=$?
grep -v "running with root" "$tmp/lintian.log" || true
[[ $rc -eq 0 ]] || fail "lintian found errors or warnings (exit $rc)"
note "lintian: $(grep -c '^[EWIPX]: ' "$tmp/lintian.log" || true) tags, no error or warning"

# ---- the split, as dpkg sees it -----------------------------------------------
deb_field() {
	dpkg-deb -f "$tmp/${1}_${version}_$arch.deb" "$2"
}
abi_major=$(sed -n 's/^#define SHB_ABI_MAJOR \([0-9]*\)$/\1/p' "$root/sdk/include/shb/version.h")
abi_minor=$(sed -n 's/^#define SHB_ABI_MINOR \([0-9]*\)$/\1/p' "$root/sdk/include/shb/version.h")
abi=$abi_major.$abi_minor
[[ $(deb_field shb Provides) == "shb-plugin-abi-$abi_major (= $abi)" ]] ||
	fail "shb Provides '$(deb_field shb Provides)', expected shb-plugin-abi-$abi_major (= $abi)"
for p in shb-plugin-h2 shb-plugin-h3 shb-plugin-tui shb-plugin-lua; do
	deb_field "$p" Depends | grep -qF "shb-plugin-abi-$abi_major (>= $abi)" ||
		fail "$p does not depend on shb-plugin-abi-$abi_major (>= $abi): $(deb_field "$p" Depends)"
	! deb_field "$p" Depends | grep -qE '(^|, )shb( |,|$)' ||
		fail "$p depends on shb itself: $(deb_field "$p" Depends)"
done
# ncurses is the tui reporter's alone: the core package never needs it.
deb_field shb-plugin-tui Depends | grep -q 'libncurses' ||
	fail "shb-plugin-tui does not depend on libncurses: $(deb_field shb-plugin-tui Depends)"
! deb_field shb Depends | grep -qE 'libncurses|libtinfo' ||
	fail "shb depends on ncurses: $(deb_field shb Depends)"
# LuaJIT is the script engine's alone.
deb_field shb-plugin-lua Depends | grep -q 'libluajit' ||
	fail "shb-plugin-lua does not depend on libluajit: $(deb_field shb-plugin-lua Depends)"
for p in shb shb-plugin-h2 shb-plugin-h3 shb-plugin-tui; do
	! deb_field "$p" Depends | grep -q 'libluajit' ||
		fail "$p depends on LuaJIT: $(deb_field "$p" Depends)"
done

# ---- install ----------------------------------------------------------------
dpkg-query -W -f='${Package}\n' | sort >"$tmp/before"
installed_by_us=("${ours[@]}") # from here on, cleanup purges
note "installing ${debs[*]##*/}"
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	"${debs[@]}" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log" >&2; fail "apt-get install of the packages failed"; }
# Whatever apt pulled in besides ours goes too, at the end (dependencies
# last: dpkg purges in the order given).
mapfile -t pulled < <(dpkg-query -W -f='${Package}\n' | sort | comm -13 "$tmp/before" - |
	grep -vxF "$(printf '%s\n' "${ours[@]}")" || true)
installed_by_us=("${ours[@]}" "${pulled[@]+"${pulled[@]}"}")
((${#pulled[@]} == 0)) || note "apt also installed ${pulled[*]}"

shb=/usr/bin/shb
plugindir=/usr/lib/$multiarch/shb/plugins
run() { # run NAME ARGS...: the installed shb, its plugin directory only
	local name=$1 rc=0
	shift
	env -u SHB_PLUGIN_PATH -u SHB_PLUGIN_SYSTEM_PATH timeout -k 5 60 \
		"$shb" -q --report "json:$tmp/$name.json" "$@" \
		>"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null || rc=$?
	note "shb $* -> exit $rc"
	[[ $rc -eq 0 ]] || { cat "$tmp/$name.out" "$tmp/$name.err" >&2; fail "$name: exit $rc"; }
}
check() { # check NAME EXPR...: assertions on the report of run NAME
	local name=$1
	shift
	"$jcheck" "$tmp/$name.json" "$@" || { cat "$tmp/$name.json" >&2; fail "$name: report checks failed"; }
}
check_counts() { # check_counts NAME N: N requests, all ok, all 200, no error
	check "$1" "requests.total == $2" "requests.ok == $2" "statusCodes.200 == $2" \
		'requests.errors == 0' 'errors.connect == 0' 'errors.tls == 0' \
		'errors.read == 0' 'errors.write == 0' 'errors.timeout == 0' \
		'errors.protocol == 0'
}

[[ $("$shb" --version) == "shb $version (build debian-$version, plugin ABI $abi)" ]] ||
	fail "shb --version says '$("$shb" --version)', expected 'shb $version (build debian-$version, plugin ABI $abi)'"
env -u SHB_PLUGIN_PATH -u SHB_PLUGIN_SYSTEM_PATH "$shb" --list-plugins >"$tmp/list"
for f in shb-proto-h1 shb-proto-h2 shb-proto-h3 shb-report-csv shb-report-hgrm shb-report-html shb-report-json shb-report-prom shb-report-text shb-script-lua; do
	grep -q "^$plugindir/$f.so: " "$tmp/list" || { cat "$tmp/list" >&2; fail "--list-plugins lacks $plugindir/$f.so"; }
done
! grep -q REFUSED "$tmp/list" || { cat "$tmp/list" >&2; fail "--list-plugins refused an installed plugin"; }
# the Grafana dashboard of the prom reporter, as an example of shb
[[ -f /usr/share/doc/shb/examples/shb-dashboard.json ]] ||
	fail "shb does not ship the Grafana dashboard in /usr/share/doc/shb/examples"
for m in man1/shb.1 man7/shb-plugin.7 man1/shb-plugin-check.1; do
	[[ -f /usr/share/man/$m.gz ]] || fail "the manual page $m is not installed"
done
# bash-completion's loader finds the completion under the command's name.
[[ $(bash -c 'source /usr/share/bash-completion/bash_completion &&
	__load_completion shb && complete -p shb') == "complete -F _shb shb" ]] ||
	fail "bash-completion does not load a completion for shb"

# ---- traffic: h1 ---------------------------------------------------------------
start_wait() { # start_wait LOG READY-TEST CMD...: background server, waits for READY-TEST
	local log=$1 ready=$2 _
	shift 2
	"$@" >"$log" 2>&1 &
	pids+=("$!")
	for _ in $(seq 1 100); do
		eval "$ready" && return 0
		kill -0 "${pids[-1]}" 2>/dev/null || break
		sleep 0.05
	done
	cat "$log" >&2
	fail "server did not start: $*"
}
stop_last() { # stop_last: stops the newest server, which must exit with 0
	local pid=${pids[-1]} rc=0
	kill -TERM "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || rc=$?
	unset 'pids[-1]'
	[[ $rc -eq 0 || $rc -eq 143 ]] || fail "server $pid exited with status $rc"
}
free_port() { # free_port tcp|udp: prints a loopback port nobody uses now
	python3 -c 'import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM if sys.argv[1] == "tcp" else socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' "$1"
}
udp_bound() {
	awk -v p="$(printf ':%04X' "$1")" '{ if (substr($2, length($2) - 4) == p) f = 1 } END { exit !f }' /proc/net/udp
}

# shellcheck disable=SC2016 # evaluated by start_wait
start_wait "$tmp/ts.log" '[[ -s $tmp/ts.port ]]' \
	"$testserver" --mode hello --port-file "$tmp/ts.port" --stats-file "$tmp/ts.stats"
port=$(cat "$tmp/ts.port")
run h1 -c 4 -n 500 "http://127.0.0.1:$port/"
check_counts h1 500
# HELLO: 78 bytes a response (see tests/e2e/hello.sh).
check h1 'bytesReceived == 39000' 'protocol == "HTTP/1.1"'
# A wrk script through the installed Lua engine (shb-plugin-lua).
printf '%s\n' 'n = 0' 'request = function() n = n + 1; return wrk.format(nil, "/" .. n) end' \
	>"$tmp/counter.lua"
run lua -c 2 -n 100 -s "$tmp/counter.lua" "http://127.0.0.1:$port/"
check_counts lua 100

# The documents the manual pages and the README point to, where they say.
for f in /usr/share/doc/shb-dev/plugin-guide.md /usr/share/doc/shb-dev/plugin-testing.md \
	/usr/share/doc/shb/reports.md /usr/share/doc/shb/measurements.md \
	/usr/share/doc/shb-dev/examples/redis/meson.build \
	/usr/share/doc/shb-dev/examples/websocket/meson.build \
	/usr/share/doc/shb-dev/examples/grpc/meson.build \
	/usr/share/doc/shb-dev/examples/dns/meson.build; do
	[[ -f $f ]] || fail "$f is not installed"
done

# The shb-dev example (the HTTP/1.1 plugin's sources) built against the
# installed SDK exactly as shb-plugin(7) says, checked by the installed
# shb-plugin-check, and loaded by path.
mkdir "$tmp/example"
cp /usr/share/doc/shb-dev/examples/*.[ch] "$tmp/example/"
cp -r /usr/share/doc/shb-dev/examples/common "$tmp/example/"
# shellcheck disable=SC2046 # pkg-config prints several words
cc -std=c11 -D_GNU_SOURCE -O2 -shared -fPIC $(pkg-config --cflags shb-plugin-1) \
	-I "$tmp/example" $(pkg-config --variable=plugin_ldflags shb-plugin-1) \
	-o "$tmp/example/shb-proto-h1.so" "$tmp"/example/*.c "$tmp"/example/common/buf.c ||
	fail "the shb-dev example does not build against the installed SDK"
/usr/bin/shb-plugin-check --iterations 20 "$tmp/example/shb-proto-h1.so" >"$tmp/check.out" 2>&1 ||
	{ cat "$tmp/check.out" >&2; fail "shb-plugin-check fails the shb-dev example"; }
note "shb-plugin-check: $(grep -c '^PASS ' "$tmp/check.out") checks passed on the shb-dev example"
[[ $(pkg-config --variable=plugindir shb-plugin-1) == "$plugindir" ]] ||
	fail "shb-plugin-1.pc plugindir is $(pkg-config --variable=plugindir shb-plugin-1), not $plugindir"
[[ $(pkg-config --variable=abi_minor shb-plugin-1) == "$abi_minor" ]] ||
	fail "shb-plugin-1.pc abi_minor is $(pkg-config --variable=abi_minor shb-plugin-1), version.h says $abi_minor"
run example --proto "$tmp/example/shb-proto-h1.so" -c 2 -n 100 "http://127.0.0.1:$port/"
check_counts example 100
stop_last
"$jcheck" "$tmp/ts.stats" 'requests == 700' 'protocolErrors == 0' ||
	fail "shb-testserver did not see 700 requests"

# ---- traffic: h2c ----------------------------------------------------------------
mkdir "$tmp/docroot"
printf 'hello from the docroot\n' >"$tmp/docroot/index.html" # 23 bytes
port=$(free_port tcp)
start_wait "$tmp/nghttpd.log" "(exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null" \
	nghttpd --no-tls --address=127.0.0.1 --htdocs="$tmp/docroot" --workers=1 "$port"
run h2c --proto h2 -c 4 -p 8 -n 800 "http://127.0.0.1:$port/"
check_counts h2c 800
check h2c 'protocol == "HTTP/2"'
stop_last

# ---- traffic: h3 -------------------------------------------------------------------
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 \
	-keyout "$tmp/key.pem" -out "$tmp/cert.pem" -subj /CN=localhost \
	-addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1 || fail "openssl cannot make a certificate"
port=$(free_port udp)
gtls=$(command -v gtlsserver || echo /usr/sbin/gtlsserver)
start_wait "$tmp/gtls.log" "udp_bound $port" \
	"$gtls" --quiet --htdocs="$tmp/docroot" 127.0.0.1 "$port" "$tmp/key.pem" "$tmp/cert.pem"
run h3 --http3 --cacert "$tmp/cert.pem" -c 2 -p 4 -n 400 "https://127.0.0.1:$port/"
check_counts h3 400
check h3 'protocol == "HTTP/3"'
stop_last

# ---- the plugin package removed -----------------------------------------------
$sudo env DEBIAN_FRONTEND=noninteractive dpkg --purge shb-plugin-h3-dbgsym shb-plugin-h3 >/dev/null
[[ ! -e $plugindir/shb-proto-h3.so ]] || fail "shb-proto-h3.so is still there after removing shb-plugin-h3"
want="shb: the HTTP/3 plugin is not installed (Debian package shb-plugin-h3): no shb-proto-h3.so in $plugindir"
for args in "--proto h3" "--http3"; do
	rc=0
	# shellcheck disable=SC2086 # two words
	env -u SHB_PLUGIN_PATH -u SHB_PLUGIN_SYSTEM_PATH "$shb" $args https://127.0.0.1:1/ \
		>"$tmp/missing.out" 2>"$tmp/missing.err" </dev/null || rc=$?
	note "shb $args https://127.0.0.1:1/ -> exit $rc: $(cat "$tmp/missing.err")"
	[[ $rc -eq 2 ]] || fail "shb $args without the plugin: exit $rc, expected 2"
	[[ ! -s $tmp/missing.out ]] || fail "shb $args without the plugin wrote to stdout"
	[[ $(cat "$tmp/missing.err") == "$want" ]] ||
		fail "shb $args without the plugin said '$(cat "$tmp/missing.err")', expected '$want'"
done
# Removing the core takes the plugins that need the ABI it provides.
apt-get -s remove shb 2>/dev/null | grep -q '^Remv shb-plugin-h2 ' ||
	fail "removing shb would leave shb-plugin-h2 installed"
note "passed"
