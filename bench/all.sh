#!/usr/bin/env bash
# One sitting of every comparison in bench/: runs the benchmark scripts one
# after the other with the same shb build and writes ONE dated Markdown
# file: the machine, the version of every client and server, each script's
# exact command line, a summary table of shb against its peers, then each
# script's own report (its commands, tables and every run) in full.
#
# A part whose script is not there, or cannot run here (link.sh needs
# root), is skipped with a line saying so; a part that fails is recorded
# with the end of its log, and the others still run. Benchmarks only: no
# pass/fail here, and nothing of this runs in the test suite.
set -euo pipefail

prog=all.sh
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"

# part:script, in the order they run.
part_table="h1:run.sh h2:h2.sh h3:h3.sh h3rx:h3_rx.sh churn:churn.sh memory:memory.sh conns:conns.sh timing:timing.sh link:link.sh limits:limits.sh"
default_parts="h1 h2 h3 h3rx churn memory conns timing link"

usage() {
	cat <<'EOF'
Usage: bench/all.sh [options]

Runs every comparison in bench/ with one shb build and writes one dated
Markdown file: machine, versions, exact commands and tables.

Parts (script):
  h1      HTTP/1.1 vs wrk and h2load --h1, nginx (run.sh)
  h2      HTTP/2 h2c and TLS vs h2load, h2o/haproxy/nginx (h2.sh)
  h3      HTTP/3 against caddy and gtlsserver (h3.sh); vs an HTTP/3
          h2load when H2LOAD_H3 names one
  h3rx    HTTP/3 CPU per MB received and the crypto floor (h3_rx.sh)
  churn   one request per connection, TCP and TLS 1.3, vs wrk and ab
          (churn.sh)
  memory  peak RSS vs wrk, bytes per connection (memory.sh)
  conns   100,000 connections held against nginx (conns.sh)
  timing  latency vs wrk and h2load, fixed-delay server (timing.sh)
  link    HTTP/3 and HTTP/2 on an emulated bottleneck (link.sh, root)
  limits  connect storm, descriptor and port limits (limits.sh; not in
          the default list)

Options:
      --parts LIST       parts to run (default: "h1 h2 h3 h3rx churn
                         memory conns timing link")
      --quick            fewer rounds and shorter runs in every part
                         (about 10 minutes instead of about 45; for a
                         look, not for figures to quote)
  -r, --rounds N         rounds, for every part that has rounds
  -d, --duration S       seconds per run, for every part that takes -d
  -o, --output FILE      results file (default: bench/results/DATE-all.md)
      --shb PATH         use this shb binary (plugins next to it, as in its
                         build directory) instead of building one into
                         build-bench/ at the top of the repository
  -n, --dry-run          print the command of every part and exit
  -h, --help             print this help and exit

Environment:
  H2LOAD_H3=PATH         an h2load built with HTTP/3 (ngtcp2): h3.sh then
                         compares shb with it; without it shb runs alone

Each script installs what it is missing (see its --help). Parts run one
after the other, so nothing else of the suite competes for the CPUs.
EOF
}

parts=$default_parts
quick=0
rounds=""
duration=""
out=""
shb=""
plugin_path="" # set by setup_shb; each part finds its plugins next to --shb
dry=0

parse_options "--parts=parts" "--quick=quick:1" "-r|--rounds=rounds" "-d|--duration=duration" \
	"-o|--output=out" "--shb=shb" "-n|--dry-run=dry:1" -- "$@"

[ -z "$rounds" ] || check_int rounds "$rounds" 1 100
[ -z "$duration" ] || check_int duration "$duration" 1 3600
declare -A script_of=()
known=()
for e in $part_table; do
	script_of[${e%%:*}]=${e#*:}
	known+=("${e%%:*}")
done
check_words part "$parts" "${known[@]}"
read -r -a part_list <<<"$parts"
if [ -n "${H2LOAD_H3:-}" ] && [ ! -x "$H2LOAD_H3" ]; then
	die "H2LOAD_H3=$H2LOAD_H3 is not an executable file"
fi

# --- what each part is given -------------------------------------------------

# The options a script's --help lists, so that a part is only given what
# it takes (scripts written by others may lack -r or -d).
takes() { # script option
	grep -qE -- "(^|[ ,])$2([ ,=]|$)" "$tmp/help-$1"
}

# Shorter settings per part for --quick.
quick_args() { # part
	case "$1" in
	h1 | h2 | h3 | churn) echo "-r 2 -d 2" ;;
	timing) echo "-r 2 -d 2" ;;
	h3rx) echo "-r 3 -n 100" ;;
	memory) echo "-d 2 -c 1000" ;;
	conns) echo "-c 20000 -d 10" ;;
	link) echo "-n 1" ;;
	limits) echo "-d 2" ;;
	esac
}

# Sets args[] for a part: quick settings, then -r/-d given here, then the
# shb binary and the part's output file.
part_args() { # part script outfile
	local part=$1 sc=$2 o=$3 q i
	local -a qa
	args=()
	if [ "$quick" -eq 1 ]; then
		read -r -a qa <<<"$(quick_args "$part")"
		for ((i = 0; i + 1 < ${#qa[@]}; i += 2)); do
			case "${qa[$i]}" in
			-r) [ -z "$rounds" ] || continue ;;
			-d) [ -z "$duration" ] || continue ;;
			esac
			takes "$sc" "${qa[$i]}" && args+=("${qa[$i]}" "${qa[$((i + 1))]}")
		done
	fi
	for q in "-r:$rounds" "-d:$duration"; do
		[ -n "${q#*:}" ] || continue
		takes "$sc" "${q%%:*}" && args+=("${q%%:*}" "${q#*:}")
	done
	args+=(--shb "$shb" -o "$o")
}

# Why a part cannot run here, or nothing.
skip_reason() { # part script
	if [ ! -f "$root/bench/$2" ]; then
		echo "bench/$2 does not exist in this tree"
	elif [ "$1" = link ] && [ "$(id -u)" -ne 0 ]; then
		echo "bench/link.sh needs root (network namespaces and tc)"
	fi
}

# --- shb, once for every part ------------------------------------------------

tmp=$(mktemp -d -t shb-bench-all.XXXXXX)
# The part running now, stopped with the sitting (its own trap then stops
# its servers).
child=""
on_signal() { # exit status
	if [ -n "$child" ]; then
		kill -TERM "$child" 2>/dev/null || true
		wait "$child" 2>/dev/null || true
	fi
	exit "$1"
}
trap 'rm -rf "$tmp"' EXIT
trap 'on_signal 130' INT
trap 'on_signal 143' TERM

for p in "${part_list[@]}"; do
	sc=${script_of[$p]}
	if [ -f "$root/bench/$sc" ]; then
		bash "$root/bench/$sc" --help >"$tmp/help-$sc" 2>&1 || true
	else
		: >"$tmp/help-$sc"
	fi
done

repo=$(repo_state)
if [ "$dry" -eq 0 ]; then
	mapfile -t missing < <(if [ -z "$shb" ]; then shb_build_packages; fi)
	install_packages "${missing[@]}"
	setup_shb h1
fi
[ -n "$shb" ] || shb="$root/build-bench/core/shb"

if [ -z "$out" ]; then
	out=$(results_path all)
else
	mkdir -p "$(dirname "$out")"
fi

# --- the parts ---------------------------------------------------------------

declare -A status=() cmdline=() secs=()
if [ "$dry" -eq 1 ]; then
	for p in "${part_list[@]}"; do
		sc=${script_of[$p]}
		why=$(skip_reason "$p" "$sc")
		if [ -n "$why" ]; then
			echo "$p: skipped: $why"
		else
			part_args "$p" "$sc" PART.md
			echo "$p: bench/$sc ${args[*]}"
		fi
	done
	exit 0
fi

started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
for p in "${part_list[@]}"; do
	sc=${script_of[$p]}
	why=$(skip_reason "$p" "$sc")
	if [ -n "$why" ]; then
		status[$p]="skipped: $why"
		echo "$prog: skipping $p: $why" >&2
		continue
	fi
	if [ "$p" = h3 ] && [ -n "${H2LOAD_H3:-}" ] && ! takes "$sc" H2LOAD_H3; then
		echo "$prog: H2LOAD_H3 is set but bench/h3.sh does not take it: shb runs alone" >&2
	fi
	part_args "$p" "$sc" "$tmp/$p.md"
	cmdline[$p]="bench/$sc ${args[*]}"
	echo "$prog: $(date -u +%H:%M:%S) part $p: ${cmdline[$p]}" >&2
	t0=$(date +%s)
	rc=0
	bash "$root/bench/$sc" "${args[@]}" >"$tmp/$p.log" 2>&1 &
	child=$!
	wait "$child" || rc=$?
	child=""
	secs[$p]=$(($(date +%s) - t0))
	if [ "$rc" -eq 0 ] && [ -s "$tmp/$p.md" ]; then
		status[$p]="ok"
	else
		status[$p]="failed (exit $rc)"
		echo "$prog: part $p failed (exit $rc); the end of its log:" >&2
		tail -n 10 "$tmp/$p.log" >&2
	fi
done
finished=$(date -u '+%Y-%m-%d %H:%M:%S UTC')

# --- the report --------------------------------------------------------------

machine() {
	local cpu mem os virt tpc cps sockets
	cpu=$(awk -F ': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
	mem=$(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
	os=$(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-}")
	virt=$(systemd-detect-virt 2>/dev/null || true)
	tpc=$(LC_ALL=C lscpu 2>/dev/null | awk -F ': *' '/^Thread\(s\) per core/ { print $2 }')
	cps=$(LC_ALL=C lscpu 2>/dev/null | awk -F ': *' '/^Core\(s\) per socket/ { print $2 }')
	sockets=$(LC_ALL=C lscpu 2>/dev/null | awk -F ': *' '/^Socket\(s\)/ { print $2 }')
	echo "- CPU: ${cpu:-unknown}, $(nproc) CPUs online${sockets:+ ($sockets socket(s) × ${cps:-?} core(s) × ${tpc:-?} thread(s))}"
	echo "- Memory: ${mem:-unknown}"
	echo "- Kernel: $(uname -srm)${os:+, $os}${virt:+, virtualization: $virt}"
	echo "- Load before the sitting: $(cut -d ' ' -f 1-3 /proc/loadavg) (1, 5, 15 min)"
}

# Versions of what is installed, whether or not a part used it.
versions() {
	local v
	echo "- shb: $("$shb" --version 2>&1 | head -n 1) ($shb)"
	v=$( (nginx -v 2>&1 || /usr/sbin/nginx -v 2>&1) | sed -n 's/^nginx version: //p' | head -n 1) &&
		[ -n "$v" ] && echo "- nginx: $v"
	command -v h2o >/dev/null && echo "- h2o: $(h2o --version 2>&1 | head -n 1)"
	command -v haproxy >/dev/null && echo "- haproxy: $(haproxy -v 2>&1 | head -n 1)"
	command -v caddy >/dev/null && echo "- caddy: $(caddy version 2>/dev/null | head -n 1)"
	v=$(dpkg-query -W -f='${Version}' ngtcp2-server 2>/dev/null) && echo "- gtlsserver: ngtcp2-server $v"
	command -v wrk >/dev/null && echo "- wrk: $( (wrk -v 2>&1 || true) | head -n 1)"
	command -v h2load >/dev/null && echo "- h2load: $(h2load --version 2>&1 | head -n 1)"
	[ -z "${H2LOAD_H3:-}" ] || echo "- h2load with HTTP/3 (H2LOAD_H3): $("$H2LOAD_H3" --version 2>&1 | head -n 1)"
	command -v ab >/dev/null && echo "- ab: $(ab -V 2>&1 | head -n 1 | sed 's/^This is //')"
	command -v go >/dev/null && echo "- go (timing.sh's delay server): $(go version 2>&1)"
	v=$(dpkg-query -W -f='${Version}' libgnutls30 2>/dev/null) && echo "- GnuTLS (shb's TLS): $v"
	v=$(dpkg-query -W -f='${Version}' liburing2 2>/dev/null) && echo "- liburing: $v"
	return 0
}

# One row per pairing of every medians table that follows lib.sh's layout
# (key columns, then Runs, then the rate, and a "client µs/..." column):
# shb next to the peer with the least client CPU. Key columns are
# Pairing/Load/Server, the client is the Client column (shb alone when
# there is none).
summary_rows() { # part file
	awk -F ' *[|] *' -v part="$1" '
	function flush(   j, k, best, bu, c, u) {
		for (j = 1; j <= nk; j++) {
			k = order[j]
			if (!((k, "shb") in rate)) continue
			best = ""; bu = 0
			for (c in clients) {
				if (c == "shb" || c == "base" || c == "floor" || !((k, c) in rate)) continue
				u = cpu[k, c] + 0
				if (best == "" || u < bu) { best = c; bu = u }
			}
			if (best == "")
				printf "| %s | %s | %s | %s | - | - | - | - |\n", part, k, rate[k, "shb"], cpu[k, "shb"]
			else
				printf "| %s | %s | %s | %s | %s: %s, %s | %.2f | %.2f | %s |\n", part, k,
					rate[k, "shb"], cpu[k, "shb"], best, rate[k, best], cpu[k, best],
					cpu[k, "shb"] / bu, rate[k, "shb"] / rate[k, best],
					(cpu[k, "shb"] < bu && rate[k, "shb"] > rate[k, best]) ? "yes" : \
					(cpu[k, "shb"] < bu) ? "CPU yes, rate no" : "no"
		}
		delete keys; delete order; delete rate; delete cpu; delete clients; nk = 0
	}
	/^[|]/ && / Runs / {
		flush(); ncol = 0; runs = 0; rc = 0; cc = 0; cl = 0
		for (i = 2; i < NF; i++) {
			if ($i == "Runs") runs = i
			else if ($i == "Client") cl = i
			else if ($i ~ /^client µs\//) { if (!cc) cc = i }
		}
		rc = runs + 1
		intable = (runs > 0 && cc > 0)
		next
	}
	/^[|]/ && intable {
		if ($2 ~ /^-+:?$/ || $2 ~ /^---/) next
		if ($(rc) == "-" || $(runs) ~ /^0\//) next
		k = ""
		for (i = 2; i < runs; i++) if (i != cl) k = k (k == "" ? "" : " ") $i
		c = cl ? $(cl) : "shb"
		if (!(k in keys)) { keys[k] = 1; order[++nk] = k }
		clients[c] = 1
		rate[k, c] = $(rc); cpu[k, c] = $(cc)
		next
	}
	!/^[|]/ { if (intable) flush(); intable = 0 }
	END { flush() }' "$2"
}

# Rows of shb against the floor (bench/http_floor) from a part's medians
# tables (client µs/req and client/server columns), next to shb against
# wrk and h2load, for the pairings where the floor ran; the goal is 1.15.
floor_rows() { # part file
	awk -F ' *[|] *' -v part="$1" '
	function q(a, b) { return (b > 0 && a != "") ? sprintf("%.2f", a / b) : "-" }
	function flush(   j, k) {
		for (j = 1; j <= nk; j++) {
			k = order[j]
			if (!((k, "shb") in cpu) || !((k, "floor") in cpu)) continue
			printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", part, k, cpu[k, "shb"], cpu[k, "floor"],
				q(cpu[k, "shb"], cpu[k, "floor"]), q(rat[k, "shb"], rat[k, "floor"]),
				((k, "wrk") in cpu) ? q(cpu[k, "shb"], cpu[k, "wrk"]) : "-",
				((k, "h2load") in cpu) ? q(cpu[k, "shb"], cpu[k, "h2load"]) : "-",
				(cpu[k, "shb"] <= 1.15 * cpu[k, "floor"]) ? "yes" : "no"
		}
		delete keys; delete order; delete cpu; delete rat; nk = 0
	}
	/^[|]/ && / Runs / {
		flush(); runs = 0; cc = 0; cl = 0; rc = 0
		for (i = 2; i < NF; i++) {
			if ($i == "Runs") runs = i
			else if ($i == "Client") cl = i
			else if ($i == "client/server") rc = i
			else if ($i ~ /^client µs\//) { if (!cc) cc = i }
		}
		intable = (runs > 0 && cc > 0 && cl > 0 && rc > 0)
		next
	}
	/^[|]/ && intable {
		if ($2 ~ /^-+:?$/ || $2 ~ /^---/ || $(runs) ~ /^0\//) next
		k = ""
		for (i = 2; i < runs; i++) if (i != cl) k = k (k == "" ? "" : " ") $i
		if (!(k in keys)) { keys[k] = 1; order[++nk] = k }
		cpu[k, $(cl)] = $(cc); rat[k, $(cl)] = $(rc)
		next
	}
	!/^[|]/ { if (intable) flush(); intable = 0 }
	END { flush() }' "$2"
}

# HTTP/3 bulk receive: shb's CPU per MB against the crypto floor, per
# server, from h3_rx.sh's report; the goal is 2.5.
h3rx_rows() { # file
	awk -F ' *[|] *' '
	/^- Crypto floor/ { f = $0; sub(/ ms\/MB of packets.*/, "", f); sub(/.*, /, "", f) }
	/^## / { server = $0; sub(/^## /, "", server) }
	/^[|] shb [|]/ && server != "" {
		printf "| h3rx | %s | %s | %s | %s | %s |\n", server, $4, f, $8, ($8 + 0 <= 2.5) ? "yes" : "no"
	}' "$1"
}

floor_summary() {
	local p rows any=0
	echo "| Part | Pairing | shb µs/req | floor µs/req | CPU shb ÷ floor | same, from client/server ratios | CPU shb ÷ wrk | CPU shb ÷ h2load | within 1.15 × floor |"
	echo "|---|---|---:|---:|---:|---:|---:|---:|---|"
	for p in "${part_list[@]}"; do
		[ "${status[$p]:-}" = ok ] || continue
		case "$p" in h1 | h2) ;; *) continue ;; esac
		rows=$(floor_rows "$p" "$tmp/$p.md")
		[ -z "$rows" ] || { echo "$rows"; any=1; }
	done
	[ "$any" -eq 1 ] || echo "| - | no part with the floor ran | | | | | | | |"
	if [ "${status[h3rx]:-}" = ok ]; then
		echo
		echo "| Part | Server | shb CPU ms/MB | crypto floor ms/MB | × crypto floor | within 2.5 × floor |"
		echo "|---|---|---:|---:|---:|---|"
		h3rx_rows "$tmp/h3rx.md"
	fi
}

summary() {
	local p any=0
	echo "| Part | Pairing | shb rate | shb client µs | best peer: rate, µs | CPU shb ÷ peer | rate shb ÷ peer | shb ahead |"
	echo "|---|---|---:|---:|---|---:|---:|---|"
	for p in "${part_list[@]}"; do
		[ "${status[$p]:-}" = ok ] || continue
		case "$p" in h1 | h2 | h3 | churn) ;; *) continue ;; esac
		summary_rows "$p" "$tmp/$p.md" && any=1
	done
	[ "$any" -eq 1 ] || echo "| - | no part with a medians table ran | | | | | | |"
}

# A part's report under a heading of its own: its headings two levels
# down, code blocks untouched.
embed() { # part
	awk '/^```/ { code = !code } !code && /^#/ { $0 = "##" $0 } { print }' "$tmp/$1.md" |
		sed -e "s|$root/||g"
}

report() {
	local p sc
	echo "# shb benchmarks: one sitting of every comparison"
	echo
	echo "- Date: $started to $finished"
	echo "- Repository: $repo"
	echo "- Mode: $([ "$quick" -eq 1 ] && echo "quick (fewer rounds, shorter runs: for a look, not for figures to quote)" || echo "full")"
	echo
	echo "## Machine"
	echo
	machine
	echo
	echo "## Versions"
	echo
	versions
	echo
	echo "## Parts"
	echo
	echo "| Part | Status | Minutes | Command |"
	echo "|---|---|---:|---|"
	for p in "${part_list[@]}"; do
		sc=${script_of[$p]}
		printf '| %s | %s | %s | %s |\n' "$p" "${status[$p]:-not run}" \
			"$([ -n "${secs[$p]:-}" ] && awk -v s="${secs[$p]}" 'BEGIN { printf "%.1f", s / 60 }')" \
			"$([ -n "${cmdline[$p]:-}" ] && echo "\`${cmdline[$p]//$root\//}\`" | sed "s|$tmp/|<tmp>/|g")"
	done
	echo
	echo "Each part's exact client and server commands are in its section below. Paths are relative to the top"
	echo "of the repository; <build> is the build directory of the shb run (when outside the repository), <tmp> a"
	echo "temporary directory."
	echo
	echo "## Summary"
	echo
	summary
	echo
	echo "Medians from the parts' tables. rate: req/s, or connections/s for churn; client µs: the client's CPU"
	echo "(user + sys) per request, or per connection for churn. The best peer is the one with the least client"
	echo "CPU. \"shb ahead\": less CPU and a higher rate than that peer; \"CPU yes, rate no\": less CPU only (on a"
	echo "small machine the server often sets the rate). Memory, 100,000 connections, HTTP/3 CPU per MB, latency"
	echo "and the bottleneck link have tables of their own below."
	echo
	echo "## Against the floor"
	echo
	floor_summary
	echo
	echo "CPU per request of shb's client as a multiple of bench/http_floor's (the least a client can do for the"
	echo "same requests on the same connections: io_uring, pre-built requests, responses counted by size or by"
	echo "END_STREAM; h2c only), beside shb's over wrk's and h2load's, from the same parts' medians: same server,"
	echo "same sitting, clients alternating round by round. \"same, from client/server ratios\" divides the two"
	echo "median client/server ratios, which cancels CPU-speed drift. The goal is shb within 1.15 × the floor."
	echo "HTTP/3 bulk receive: shb's CPU per MB received against bench/crypto_floor (removing packet protection"
	echo "alone with the h3 plugin's code) on this machine; the goal is within 2.5 × that floor."
	for p in "${part_list[@]}"; do
		echo
		echo "## Part $p (bench/${script_of[$p]})"
		echo
		case "${status[$p]:-not run}" in
		ok) embed "$p" ;;
		skipped*) echo "Skipped: ${status[$p]#skipped: }." ;;
		*)
			echo "${status[$p]:-not run}. The end of its log:"
			echo
			echo '```'
			tail -n 15 "$tmp/$p.log" 2>/dev/null | sed -e "s|$tmp/|<tmp>/|g" -e "s|$root/||g"
			echo '```'
			;;
		esac
	done
}

# Paths of this machine mean nothing elsewhere: the repository's become
# relative, the build's (when outside it) <build>, temporary ones <tmp>.
build=$(dirname "$(dirname "$shb")")
tmpbase=$(dirname "$tmp")
report | sed -e "s|$root/||g" -e "s|$build/|<build>/|g" -e "s|$tmp/|<tmp>/|g" \
	-e "s|$tmpbase/shb-bench[-a-zA-Z0-9.]*/|<tmp>/|g" >"$out"
echo "$prog: results written to $out" >&2
