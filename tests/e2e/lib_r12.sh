# shellcheck shell=bash
# Helpers for runs that also write the test reporter "r12"
# (tests/report/fixture_results12.c: the ABI 1.2 results as "name value"
# lines). Sourced after lib.sh; SHB_R12_DIR is the directory holding
# shb-report-r12.so.

[[ -n "${SHB_R12_DIR:-}" && -f "$SHB_R12_DIR/shb-report-r12.so" ]] ||
	fail "SHB_R12_DIR does not hold shb-report-r12.so"

# run_r12 NAME ARGS...: run_shb with the r12 report in $E2E_TMP/NAME.r12.
run_r12() {
	local name=$1
	shift
	rm -f "$E2E_TMP/$name.r12"
	run_shb "$name" --plugin-dir "$SHB_R12_DIR" --report "r12:$E2E_TMP/$name.r12" "$@"
}

# r12 NAME KEY: the rest of the first line of NAME's r12 report that
# starts with KEY (fails when there is none).
r12() {
	local line
	[[ -f "$E2E_TMP/$1.r12" ]] || { show_run "$1"; fail "$1: no r12 report written"; }
	line=$(awk -v k="$2" '$1 == k { $1 = ""; print substr($0, 2); exit }' "$E2E_TMP/$1.r12")
	[[ -n "$line" ]] || { cat "$E2E_TMP/$1.r12" >&2; fail "$1: no '$2' in the r12 report"; }
	printf '%s\n' "$line"
}

# r12_is NAME KEY VALUE: the line of KEY says exactly VALUE.
r12_is() {
	local got
	got=$(r12 "$1" "$2")
	[[ "$got" == "$3" ]] || { cat "$E2E_TMP/$1.r12" >&2; fail "$1: $2 is '$got', expected '$3'"; }
}

# r12_has NAME LINE: the report has this exact line.
r12_has() {
	grep -qxF -- "$2" "$E2E_TMP/$1.r12" ||
		{ cat "$E2E_TMP/$1.r12" >&2; fail "$1: no line '$2' in the r12 report"; }
}

# r12_count NAME HIST: the sample count of histogram HIST.
r12_count() {
	r12 "$1" "$2" | awk '{ print $1 }'
}
