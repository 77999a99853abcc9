#!/bin/bash
# The manual page shb-plugin-check(1) against the checker itself: its
# OPTIONS are exactly the options shb-plugin-check accepts, every option
# of the usage text among them; its EXIT STATUS lists the codes the usage
# text names; its header carries the checker's version.
#
# Environment (set by meson): PLUGIN_CHECK (the built shb-plugin-check),
# PLUGIN_CHECK_MAN (the configured shb-plugin-check.1).
set -euo pipefail

fail() {
	echo "FAIL [docs-plugin-check-options]: $*" >&2
	exit 1
}

for v in PLUGIN_CHECK PLUGIN_CHECK_MAN; do
	[[ -n ${!v:-} && -r ${!v} ]] || fail "$v is not set to a readable file"
done

tmp=$(mktemp -d -t shb-docs-check.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# section NAME: the tags (the line after .TP) of section NAME of the page,
# with roff's \- turned into -.
section_tags() {
	awk -v want="$1" '/^\.SH / { in_s = ($2 == want) } in_s && tag { print } { tag = in_s && /^\.TP/ }' \
		"$PLUGIN_CHECK_MAN" | sed 's/\\-/-/g'
}
options_of() { # options_of: the options named on stdin, one per line, sorted
	grep -oE '(^|[][ ,|"])--?[A-Za-z0-9][A-Za-z0-9-]*' | tr -d '][ ,|"' | sort -u
}

# The usage text: its options, and the exit codes it names.
"$PLUGIN_CHECK" --help >"$tmp/usage" || fail "shb-plugin-check --help exited with $?"
options_of <"$tmp/usage" >"$tmp/usage.opts"
[[ $(wc -l <"$tmp/usage.opts") -ge 3 ]] ||
	fail "only $(wc -l <"$tmp/usage.opts") options read from --help: $(paste -sd ' ' "$tmp/usage.opts")"

section_tags OPTIONS | options_of >"$tmp/man.opts"
[[ -s $tmp/man.opts ]] || fail "no options in the OPTIONS section of $PLUGIN_CHECK_MAN"
missing=$(comm -23 "$tmp/usage.opts" "$tmp/man.opts")
[[ -z $missing ]] || fail "in the usage text but not in shb-plugin-check.1: $missing"

# accepted OPT: the checker does not call OPT unknown. Options that take a
# value get one; a missing module then makes it a usage error of its own.
accepted() {
	local out rc=0
	out=$("$PLUGIN_CHECK" "$1" 1 "$tmp/none.so" 2>&1 >/dev/null) || rc=$?
	[[ $out != *"unknown option '$1'"* ]]
}
accepted --no-such-option && fail "the checker accepts --no-such-option: the probe cannot tell"
while read -r opt; do
	accepted "$opt" || fail "shb-plugin-check.1 lists $opt, which shb-plugin-check does not accept"
done <"$tmp/man.opts"
echo "# $(wc -l <"$tmp/man.opts") options in shb-plugin-check.1 ($(paste -sd ' ' "$tmp/man.opts")), all accepted; the usage text's $(wc -l <"$tmp/usage.opts") among them"

# Exit codes: "Exit status: 0 ..., 1 ..., 2 ..." in the usage text.
grep -i '^exit status:' "$tmp/usage" | grep -oE '(^|[:,] )[0-9]+' | grep -oE '[0-9]+' | sort >"$tmp/usage.codes"
[[ -s $tmp/usage.codes ]] || fail "no exit codes in the usage text"
section_tags 'EXIT' | grep -oE '[0-9]+' | sort >"$tmp/man.codes"
diff -u --label usage "$tmp/usage.codes" --label shb-plugin-check.1 "$tmp/man.codes" ||
	fail "the exit codes of the usage text and of shb-plugin-check.1 differ"

# The version in the page's header is the checker's.
version=$("$PLUGIN_CHECK" --version | awk '{ print $2 }')
grep -q "^\.TH SHB\\\\-PLUGIN\\\\-CHECK 1 \"\" \"shb $version\"" "$PLUGIN_CHECK_MAN" ||
	fail "the page's .TH does not say shb $version: $(grep '^\.TH' "$PLUGIN_CHECK_MAN")"

# A usage error is one line on stderr and exit 2, as the page says.
rc=0
"$PLUGIN_CHECK" --no-such-option >"$tmp/out" 2>"$tmp/err" || rc=$?
[[ $rc -eq 2 && $(wc -l <"$tmp/err") -eq 1 && ! -s $tmp/out ]] ||
	fail "an unknown option: exit $rc, $(wc -l <"$tmp/err") lines on stderr (expected 2 and 1)"
echo "# passed"
