#!/bin/bash
# Examples that work as typed: every `--slo EXPR` that shb(1), README.md,
# docs/*.md and shb --help show with a `<` or `>` in it is quoted, since
# bash reads an unquoted `<` as a redirection (`--slo p99<20ms` runs with
# `--slo p99` and stdin from a file named 20ms).
#
# Environment (set by meson): SHB, SHB_MAN (the configured shb.1),
# SRC (the source tree).
set -euo pipefail

fail() {
	echo "FAIL [docs-quoting]: $*" >&2
	exit 1
}

for v in SHB SHB_MAN SRC; do
	[[ -n ${!v:-} && -r ${!v} ]] || fail "$v is not set to a readable path"
done

# The words after each --slo, the man page's escapes undone.
slo_args() {
	sed -e 's/\\(aq/'"'"'/g' -e 's/\\-/-/g' -e 's/\\(dq/"/g' "$@" |
		grep -oE -- "--slo[ =][^ ,)|]+" | cut -c7- || true
}

bad=0 seen=0
check() {
	local src=$1 arg
	while IFS= read -r arg; do
		seen=$((seen + 1))
		[[ $arg == *[\<\>]* ]] || continue
		[[ $arg == \'* || $arg == \"* ]] && continue
		echo "$src: --slo $arg is not quoted" >&2
		bad=$((bad + 1))
	done
}
check shb.1 < <(slo_args "$SHB_MAN")
for f in "$SRC"/README.md "$SRC"/docs/*.md; do
	check "${f#"$SRC"/}" < <(slo_args "$f")
done
check "shb --help" < <("$SHB" --help | slo_args)
(( seen >= 5 )) || fail "only $seen --slo examples found: is the pattern right?"
(( bad == 0 )) || fail "$bad unquoted --slo examples"
# The OPTIONS section's EXPR examples, which have no --slo before them.
sed -e 's/\\(aq/'"'"'/g' "$SHB_MAN" | grep -E '^\.RB \( *p99' | grep -vq "'p99" &&
	fail "shb.1 shows a pNN<D example unquoted"
echo "ok: $seen --slo examples, every one with < or > quoted"
