#!/bin/bash
# shb --version names the build: `git describe` of the source tree it was
# built from (so that last week's package and today's build differ), or,
# built from a tarball without .git, the build_id option (debian/rules
# passes the package version) or "unknown".
source "$(dirname "$0")/lib.sh"
need SHB
[[ -d ${SHB_SRC:-} ]] || fail "SHB_SRC is not set to the source tree"

out=$("$SHB" --version)
note "shb --version: $out"
[[ $(wc -l <<<"$out") -eq 1 ]] || fail "--version printed more than one line"
re='^shb ([0-9][0-9.]*) \(build ([^ ,]+), plugin ABI ([0-9]+)\.([0-9]+)\)$'
[[ $out =~ $re ]] || fail "--version says '$out', not 'shb X.Y.Z (build ID, plugin ABI M.N)'"
release=${BASH_REMATCH[1]} build=${BASH_REMATCH[2]}
want_release=$(sed -n "s/^  version: '\(.*\)',$/\1/p" "$SHB_SRC/meson.build")
[[ $release == "$want_release" ]] || fail "release $release, meson.build says $want_release"
if [[ -e $SHB_SRC/.git ]]; then
	want=$(git -C "$SHB_SRC" describe --always --dirty --abbrev=12)
	[[ $build == "$want" ]] || fail "build $build, git describe says $want"
else
	want=${SHB_BUILD_ID_OPT:-unknown}
	[[ $build == "$want" ]] || fail "build $build, expected the build_id option's $want"
fi
[[ $("$SHB" -V) == "$out" ]] || fail "-V and --version differ"
note "passed"
