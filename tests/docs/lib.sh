# shellcheck shell=bash
# Shared by the tests of scripts that are checked without being run
# (bench.sh, scripts.sh; sourced): the source tree, a failure as one line,
# a folder's scripts run through shellcheck, and bad input refused with
# one line and exit 2.

SRC=${SRC:?SRC (the top of the source tree) is not set}
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
command -v shellcheck >/dev/null ||
	fail "shellcheck is not installed (Debian package shellcheck; scripts/setup.sh --with-test-servers installs it)"
cd "$SRC" || fail "cannot enter $SRC"

# lint_scripts DIR MIN: sets `scripts` to DIR/*.sh (at least MIN of them)
# and fails unless shellcheck passes them all at warning level; source=
# paths are relative to the top of the tree.
lint_scripts() {
	shopt -s nullglob
	scripts=("$1"/*.sh)
	[ "${#scripts[@]}" -ge "$2" ] || fail "no $1/*.sh found under $SRC"
	shellcheck -S warning -x "${scripts[@]}" || fail "shellcheck found problems in $1/*.sh (above)"
}

# bad EXPECTED-LINE SCRIPT ARGS...: the script, run with ARGS, exits 2
# with exactly EXPECTED-LINE on stderr.
bad() {
	local want=$1 out rc=0
	shift
	out=$(bash "$@" 2>&1 >/dev/null) || rc=$?
	[ "$rc" -eq 2 ] || fail "$* exited $rc, expected 2"
	[ "$out" = "$want" ] || fail "$*: stderr '$out', expected '$want'"
}
