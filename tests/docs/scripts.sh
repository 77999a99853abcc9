#!/usr/bin/env bash
# The entry points in scripts/, not run: every one shellcheck-clean
# (warnings and errors), and scripts/fresh-debian.sh's bad input one line
# and exit 2 before it makes anything (it needs root and a network to
# run; README.md, "On a fresh Debian 12 system").
set -euo pipefail
# shellcheck source=tests/docs/lib.sh
. "$(dirname "$0")/lib.sh"

lint_scripts scripts 5
f=scripts/fresh-debian.sh
bad "fresh-debian.sh: unknown option '--fast' (try --help)" "$f" --fast
bad "fresh-debian.sh: option --dir needs a value" "$f" --dir
bad "fresh-debian.sh: --mirror http://x/: expected a URL ending in /debian" "$f" --mirror http://x/
bad "fresh-debian.sh: --copy /nonexistent/apt.conf: no such file" "$f" --copy /nonexistent/apt.conf
bash "$f" --help | grep -q -- '--copy SRC\[:DEST\]' ||
	fail "fresh-debian.sh --help does not list --copy"
echo "ok: ${#scripts[@]} scripts shellcheck-clean, fresh-debian.sh's bad input refused"
