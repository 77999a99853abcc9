#!/usr/bin/env bash
# The benchmark scripts without running a benchmark: every bench/*.sh
# passes shellcheck (warnings and errors) and sources bench/lib.sh,
# bench/all.sh --help and bench/README.md list the same options, --dry-run
# names each part's script with the options that part takes, and bad input
# is one line and exit 2.
# Nothing is timed here: benchmarks stay out of the test suite.
set -euo pipefail
# shellcheck source=tests/docs/lib.sh
. "$(dirname "$0")/lib.sh"

# --- shellcheck --------------------------------------------------------------
lint_scripts bench 2

# --- one set of helpers: every script takes its option parsing, checks and
# clean-up from bench/lib.sh rather than a copy of its own -----------------
for s in "${scripts[@]}"; do
	[ "$s" = bench/lib.sh ] && continue
	grep -qE '^\. "\$root/bench/lib.sh"' "$s" || fail "$s does not source bench/lib.sh"
done

# --- all.sh --help against bench/README.md ------------------------------------
help=$(bash bench/all.sh --help) || fail "bench/all.sh --help exited non-zero"
# --help itself is not in the README's tables.
mapfile -t help_opts < <(grep -oE '^ +(-[a-zA-Z], )?--[a-z-]+' <<<"$help" | grep -oE -- '--[a-z-]+' |
	grep -vx -- --help | sort -u)
[ "${#help_opts[@]}" -ge 7 ] || fail "bench/all.sh --help lists ${#help_opts[@]} options, expected at least 7"
# The options table of the README's all.sh section.
section=$(awk '/^## Everything in one sitting: `bench\/all.sh`/ { on = 1; next } /^## / { on = 0 } on' bench/README.md)
[ -n "$section" ] || fail "bench/README.md has no section '## Everything in one sitting: \`bench/all.sh\`'"
mapfile -t doc_opts < <(grep -E '^\| `-' <<<"$section" | grep -oE -- '--[a-z-]+' | sort -u)
[ "$(printf '%s\n' "${help_opts[@]}")" = "$(printf '%s\n' "${doc_opts[@]}")" ] ||
	fail "options differ: all.sh --help has '${help_opts[*]}', bench/README.md has '${doc_opts[*]}'"

# Every part in the help is a row of the README's parts table, and its
# script exists.
mapfile -t parts < <(sed -n '/^Parts (script):/,/^$/p' <<<"$help" | awk '/^  [a-z0-9]+ / { print $1 }')
[ "${#parts[@]}" -eq 10 ] || fail "all.sh --help lists ${#parts[@]} parts, expected 10: ${parts[*]}"
for p in "${parts[@]}"; do
	row=$(grep -E "^\| \`$p\` \| \`[a-z0-9_]+\.sh\` \|" <<<"$section") ||
		fail "bench/README.md's parts table has no row for part $p"
	sc=$(sed -E 's/^[^`]*`[^`]*` \| `([^`]*)`.*/\1/' <<<"$row")
	[ -f "bench/$sc" ] || fail "part $p: bench/$sc does not exist"
done

# --- --dry-run: one line per part, the options each part takes ---------------
dry=$(bash bench/all.sh --dry-run --quick --parts "h1 h3rx conns churn" --shb /nonexistent/shb) ||
	fail "bench/all.sh --dry-run exited non-zero"
want="h1: bench/run.sh -r 2 -d 2 --shb /nonexistent/shb -o PART.md
h3rx: bench/h3_rx.sh -r 3 -n 100 --shb /nonexistent/shb -o PART.md
conns: bench/conns.sh -c 20000 -d 10 --shb /nonexistent/shb -o PART.md
churn: bench/churn.sh -r 2 -d 2 --shb /nonexistent/shb -o PART.md"
[ "$dry" = "$want" ] || fail "all.sh --dry-run --quick printed:
$dry
expected:
$want"
# -d given overrides --quick's for the parts that take -d; -r stays quick.
dry=$(bash bench/all.sh -n --quick -d 7 --parts "h1 h3rx" --shb /x/shb)
want="h1: bench/run.sh -r 2 -d 7 --shb /x/shb -o PART.md
h3rx: bench/h3_rx.sh -r 3 -n 100 --shb /x/shb -o PART.md"
[ "$dry" = "$want" ] || fail "all.sh -n --quick -d 7 printed:
$dry
expected:
$want"

# --- bad input: one line, exit 2, before anything runs -----------------------
bad "all.sh: unknown part 'nope' (known: h1 h2 h3 h3rx churn memory conns timing link limits)" \
	bench/all.sh --parts nope
bad "all.sh: rounds must be a whole number in 1..100, not '0'" bench/all.sh -r 0 -n
bad "all.sh: unknown option '--fast' (try --help)" bench/all.sh --fast
bad "churn.sh: unknown mode 'udp' (known: tcp tls)" bench/churn.sh --modes udp
bad "churn.sh: unknown client 'h2load' (known: shb wrk ab)" bench/churn.sh --clients "shb h2load"
bad "churn.sh: --base goes with client shb" bench/churn.sh --clients wrk --base /bin/sh
bad "timers.sh: unknown load 'h2:50' (known: h1:50 h1:50:t h1:10000 h1:10000:t h3:8 h3:1000)" \
	bench/timers.sh -l "h1:50 h2:50"
bad "timers.sh: --before /nonexistent/shb is not an executable file" \
	bench/timers.sh --before /nonexistent/shb
bad "close.sh: connections must be a whole number in 1..30000, not '0'" bench/close.sh -c "50 0"
bad "close.sh: --before /nonexistent/shb is not an executable file" \
	bench/close.sh --before /nonexistent/shb
bad "close.sh: unknown option '--loads' (try --help)" bench/close.sh --loads h1:50
bad "h3_after.sh: --conns must be a whole number in 1..100000, not '0'" \
	bench/h3_after.sh --out /nonexistent/x --conns 0
bad "h3_after.sh: unknown option '--fast' (try --help)" bench/h3_after.sh --fast 1
bad "h3_after.sh: option --out needs a value" bench/h3_after.sh --out
bad "h3_after.sh: --out is required" bench/h3_after.sh --conns 5
bash bench/churn.sh --help | grep -q -- '--disable-keepalive' ||
	fail "churn.sh --help does not say what shb runs with (--disable-keepalive)"
echo "ok: ${#scripts[@]} bench scripts shellcheck-clean and on bench/lib.sh, all.sh help, README and dry run agree"
