#!/bin/bash
# The manual page and the bash completion offer exactly the options of
# `shb --help`, short and long; the completion of --proto and --report
# lists the plugins --list-plugins finds, and file names where a file goes.
#
# Environment (set by meson): SHB, SHB_MAN (the configured shb.1),
# SHB_COMPLETION (the completion file), BASH_COMPLETION (the
# bash-completion library), SHB_PLUGIN_PATH (the built plugins).
set -euo pipefail

fail() {
	echo "FAIL [docs-options]: $*" >&2
	exit 1
}

for v in SHB SHB_MAN SHB_COMPLETION BASH_COMPLETION; do
	[[ -n ${!v:-} && -r ${!v} ]] || fail "$v is not set to a readable file"
done
# The machine's own plugin directory must not leak into the plugin lists.
export SHB_PLUGIN_SYSTEM_PATH=

tmp=$(mktemp -d -t shb-docs-options.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# Options of --help: the left column of lines that start with "  -".
"$SHB" --help | grep -E '^  -' | cut -c1-27 |
	grep -oE '(^|[ ,])--?[A-Za-z0-9][A-Za-z0-9-]*' | tr -d ' ,' | sort -u >"$tmp/help"
[[ $(wc -l <"$tmp/help") -ge 30 ]] || fail "only $(wc -l <"$tmp/help") options read from --help"

# Options of the manual: the tags (the line after .TP) of the OPTIONS section.
awk '/^\.SH / { in_opts = ($2 == "OPTIONS") } in_opts && tag { print } { tag = in_opts && /^\.TP/ }' \
	"$SHB_MAN" | sed 's/\\-/-/g' |
	grep -oE '(^|[ "])--?[A-Za-z0-9][A-Za-z0-9-]*' | tr -d ' "' | sort -u >"$tmp/man"

diff -u --label help "$tmp/help" --label shb.1 "$tmp/man" ||
	fail "shb.1 and shb --help list different options (- only in --help, + only in shb.1)"

# complete_words LINE: runs the completion at the end of the command line
# "shb LINE" and prints COMPREPLY, one per line, sorted. COMP_WORDS is
# split the way readline splits it: at blanks, and around each run of
# the (unblank) characters of COMP_WORDBREAKS, so "-d @b" is -d @ b.
complete_words() {
	bash -c '
		source "$BASH_COMPLETION" || exit 1
		source "$SHB_COMPLETION" || exit 1
		COMP_LINE="$SHB $1"
		COMP_POINT=${#COMP_LINE}
		COMP_WORDS=()
		w="" brk=0
		for ((i = 0; i < ${#COMP_LINE}; i++)); do
			c=${COMP_LINE:i:1}
			if [[ $c == [[:blank:]] ]]; then
				[[ -z $w ]] || COMP_WORDS+=("$w")
				w="" brk=0
			elif [[ $COMP_WORDBREAKS == *"$c"* ]]; then
				((brk)) || { [[ -z $w ]] || COMP_WORDS+=("$w"); w=""; }
				w+=$c brk=1
			else
				((!brk)) || { COMP_WORDS+=("$w"); w=""; }
				w+=$c brk=0
			fi
		done
		COMP_WORDS+=("$w")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_shb "$SHB" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"
	' complete "$1" | sed '/^$/d' | sort
}

# expect_completion WANT LINE: WANT is the sorted COMPREPLY, space-separated.
expect_completion() {
	local got
	got=$(complete_words "$2" | paste -sd ' ')
	[[ $got == "$1" ]] || fail "completion of 'shb $2': got '$got', expected '$1'"
	echo "# shb $2 -> $got"
}

complete_words "-" >"$tmp/completion"
diff -u --label help "$tmp/help" --label completion "$tmp/completion" ||
	fail "the completion and shb --help list different options"
echo "# $(wc -l <"$tmp/help") options in --help, shb.1 and the completion"

# The plugin names come from --list-plugins over the plugin path.
expect_completion "h1 h2 h3" "--proto "
expect_completion "h3" "-c 10 --proto h3"
expect_completion "h1 h2 h3" "--proto=h"
expect_completion "csv hgrm html json prom text tui" "--report "
expect_completion "text,csv text,hgrm text,html text,json text,prom text,tui" "--report text,"
# After the last ":" readline keeps what is typed: the replies start there.
expect_completion "o.json,csv o.json,hgrm o.json,html o.json,prom o.json,text o.json,tui" "--report json:o.json,"
# Only the plugins of the directory given: h1 alone.
h1dir=${SHB_PLUGIN_PATH%%:*}
SHB_PLUGIN_PATH="" expect_completion "h1" "--plugin-dir $h1dir --proto "
SHB_PLUGIN_PATH="" expect_completion "h1" "--plugin-dir=$h1dir --proto "
SHB_PLUGIN_PATH="" expect_completion "" "--proto "

# File names where a file goes. bash-completion turns hostcomplete off,
# which takes '@' out of COMP_WORDBREAKS: "@FILE" is one word. ':' stays,
# so replies start after the last ':'.
mkdir "$tmp/files"
touch "$tmp/files/ca.pem" "$tmp/files/body.json" "$tmp/files/b2"
cd "$tmp/files"
expect_completion "ca.pem" "--cacert c"
expect_completion "b2 body.json" "--urls b"
expect_completion "@body.json" "-d @bo"
expect_completion "@b2 @body.json" "--data-binary @b"
expect_completion "@b2 @body.json @ca.pem" "--data @"
expect_completion "" "-d b"
expect_completion "b2 body.json" "--report json:b"
expect_completion "b2 body.json" "--report text,csv:b"
expect_completion "--http2 --http3" "--http"
expect_completion "PATCH POST PUT" "-X P"

# --proto-opt: the keys the chosen protocol declares (--list-plugins'
# "option" lines), up to the '=' of those that take a value; h1 has none.
expect_completion "initial-window= pacing= priority-update= profile= qpack-blocked= qpack-table=" "--http3 --proto-opt "
expect_completion "priority-update= profile=" "--proto h2 -c 2 --proto-opt p"
expect_completion "priority-update= profile=" "--proto=h2 --proto-opt=p"
expect_completion "" "--proto-opt "
# --report-opt: NAME.KEY for the reporters named, or for every one.
expect_completion "csv.noheader json.compact" "--report json:o.json,csv --report-opt "
expect_completion "json.compact" "-j --report-opt "
expect_completion "csv.noheader hgrm.us json.compact prom.run= prom.timeout= prom.url= tui.hold=" "--report-opt "
expect_completion "prom.run= prom.timeout= prom.url=" "--report prom --report-opt "

# shb merge: its own options (those of `shb merge --help`, with the long
# and help spellings), reporters and their keys, report files.
"$SHB" merge --help | grep -E '^  -' |
	grep -oE '(^|[ ,])--?[A-Za-z0-9][A-Za-z0-9-]*' | tr -d ' ,' | sort -u >"$tmp/merge-help"
complete_words "merge -" >"$tmp/merge-completion"
missing=$(comm -23 "$tmp/merge-help" "$tmp/merge-completion")
[[ -z $missing ]] || fail "shb merge --help options not completed: $missing"
expect_completion "--help --json --percentiles --plugin-dir --quiet --report --report-opt --slo -h -j -q" "merge -"
expect_completion "--report --report-opt" "merge --rep"
expect_completion "csv hgrm html json prom text tui" "merge --report "
expect_completion "json.compact" "merge --report json --report-opt "
touch a.json notes.txt
expect_completion "a.json" "merge -q a"
expect_completion "b2 body.json" "merge --report json:b"
expect_completion "merge" "mer"
echo "# passed"
