#!/usr/bin/env bash
# The entry points in scripts/, not run: every one shellcheck-clean
# (warnings and errors), and scripts/fresh-debian.sh's bad input one line
# and exit 2 before it makes anything (it needs root and a network to
# run; README.md, "On a fresh Debian 12 system").
set -euo pipefail

SRC=${SRC:?SRC (the top of the source tree) is not set}
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
command -v shellcheck >/dev/null ||
	fail "shellcheck is not installed (Debian package shellcheck; scripts/setup.sh --with-test-servers installs it)"
cd "$SRC"

shopt -s nullglob
scripts=(scripts/*.sh)
[ "${#scripts[@]}" -ge 5 ] || fail "no scripts/*.sh found under $SRC"
shellcheck -S warning -x "${scripts[@]}" || fail "shellcheck found problems in scripts/*.sh (above)"

bad() { # expected-line args...
	local want=$1 out rc=0
	shift
	out=$(bash scripts/fresh-debian.sh "$@" 2>&1 >/dev/null) || rc=$?
	[ "$rc" -eq 2 ] || fail "fresh-debian.sh $* exited $rc, expected 2"
	[ "$out" = "$want" ] || fail "fresh-debian.sh $*: stderr '$out', expected '$want'"
}
bad "fresh-debian.sh: unknown option '--fast' (try --help)" --fast
bad "fresh-debian.sh: option --dir needs a value" --dir
bad "fresh-debian.sh: --mirror http://x/: expected a URL ending in /debian" --mirror http://x/
bad "fresh-debian.sh: --copy /nonexistent/apt.conf: no such file" --copy /nonexistent/apt.conf
bash scripts/fresh-debian.sh --help | grep -q -- '--copy SRC\[:DEST\]' ||
	fail "fresh-debian.sh --help does not list --copy"
echo "ok: ${#scripts[@]} scripts shellcheck-clean, fresh-debian.sh's bad input refused"
