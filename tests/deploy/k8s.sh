#!/bin/bash
# deploy/k8s, offline (no cluster here): yamllint; every object against
# Kubernetes' own OpenAPI schemas (npm package kubernetes-models, which
# scripts/setup.sh --with-test-servers installs into a cache outside the
# tree); our minimal schema and cross-checks of what the recipe relies on
# (k8s_check.py); the seccomp profile generator. Then broken copies of the
# manifest, each of which some check must refuse.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
k8s=$here/../../deploy/k8s
modules=${XDG_CACHE_HOME:-$HOME/.cache}/shb-test/node/node_modules
tmp=$(mktemp -d -t shb-deploy-k8s.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL [k8s]: $*" >&2
	exit 1
}
command -v yamllint >/dev/null || fail "yamllint is not installed (scripts/setup.sh --with-test-servers)"
command -v node >/dev/null || fail "node is not installed (scripts/setup.sh --with-test-servers)"
[[ -f "$modules/kubernetes-models/package.json" ]] ||
	fail "kubernetes-models is not in $modules (scripts/setup.sh --with-test-servers)"

# all_checks FILE: 0 when every check accepts FILE; the output in $tmp/out.
all_checks() {
	{
		yamllint -s -c "$here/yamllint.yaml" "$1" &&
			python3 "$here/k8s_check.py" check "$1" &&
			python3 "$here/k8s_check.py" to-json "$1" "$tmp/objects.json" &&
			node "$here/k8s_validate.mjs" "$modules" "$tmp/objects.json"
	} >"$tmp/out" 2>&1
}

echo "# deploy/k8s/shb-job.yaml"
all_checks "$k8s/shb-job.yaml" || { cat "$tmp/out" >&2; fail "shb-job.yaml is refused"; }
cat "$tmp/out"
python3 "$here/k8s_check.py" seccomp "$k8s/seccomp-io-uring.py" ||
	fail "seccomp-io-uring.py does not do what it says"

# broken NAME SED-EXPR WANT: the manifest changed by SED-EXPR must be
# refused, with WANT in what the checks print.
broken() {
	sed "$2" "$k8s/shb-job.yaml" >"$tmp/$1.yaml"
	cmp -s "$k8s/shb-job.yaml" "$tmp/$1.yaml" && fail "$1: the change did not apply"
	if all_checks "$tmp/$1.yaml"; then
		fail "$1: accepted"
	fi
	grep -qF -- "$3" "$tmp/out" || { cat "$tmp/out" >&2; fail "$1: refused, but not with: $3"; }
	echo "# refused as it must be: $1"
}
broken string-count 's/completions: 4 /completions: "4" /' "spec.completions: '4' is not of type 'integer'"
broken fewer-parallel 's/parallelism: 4 /parallelism: 3 /' 'parallelism 3 and SHB_SHARD_COUNT 4 differ'
broken typo-field 's/completionMode: Indexed/completionMod: Indexed/' "'completionMod' was unexpected"
broken default-seccomp '0,/type: Localhost/s//type: RuntimeDefault/' 'not a Localhost profile'
broken no-start-at 's/--start-at "\$SHB_START_AT"/--start-at "$SHB_URL"/' 'no --start-at $SHB_START_AT'
broken other-claim '0,/claimName: shb-results/s//claimName: shb-result/' "mounts ['shb-result']"
broken rwo 's/ReadWriteMany"/ReadWriteOnce"/' 'does not contain items matching'
broken bad-indent 's/^  completions: 4 /   completions: 4 /' 'syntax error'
broken no-limits '0,/^            limits:/s//            limitz:/' "'limits' is a required property"
# Kubernetes' own schemas refuse what ours would too
python3 "$here/k8s_check.py" to-json "$tmp/string-count.yaml" "$tmp/objects.json"
if node "$here/k8s_validate.mjs" "$modules" "$tmp/objects.json" >"$tmp/out" 2>&1 ||
	! grep -qF 'batch/v1/Job shb-shards: data/spec/completions must be integer' "$tmp/out"; then
	cat "$tmp/out" >&2
	fail "kubernetes-models accepts a count given as a string"
fi
echo "# refused by Kubernetes' schemas too: string-count"
echo "ok"
