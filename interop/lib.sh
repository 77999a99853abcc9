# shellcheck shell=bash disable=SC2034 # IOP_URL, IOP_NA, IOP_PAR: read by run.sh
# Helpers shared by interop/run.sh and the server scripts in
# interop/<server>/server.sh. Sourced, never run on its own; functions
# only. Everything a helper creates lives under $IOP_TMP (a mktemp dir).

# bash 5.2 would otherwise read '&' in a ${var//pat/rep} replacement as
# "the matched text"; config values (header values, paths) may hold one.
shopt -u patsub_replacement 2>/dev/null || true

iop_log() {
	echo "interop: $*" >&2
}

# --- ports ---------------------------------------------------------------------

# iop_port_free PORT: no socket of any kind is bound to PORT.
iop_port_free() {
	local hex
	hex=$(printf ':%04X' "$1")
	! cat /proc/net/tcp /proc/net/tcp6 /proc/net/udp /proc/net/udp6 2>/dev/null |
		awk -v p="$hex" '{ if (substr($2, length($2) - 4) == p) f = 1 } END { exit !f }'
}

# Ports handed out in this run, so two servers started in the same run
# never get the same one before either has bound it.
declare -A IOP_PORTS_GIVEN=()

# iop_pick_port VAR: sets VAR to a port free for TCP and UDP, from
# 10000..32767 (below Linux's default ephemeral range, so an outgoing
# connection does not take it between this check and the server's bind).
# A variable, not output: the list of ports given must survive the call.
iop_pick_port() {
	local _iop_p _iop_i
	for ((_iop_i = 0; _iop_i < 500; _iop_i++)); do
		_iop_p=$((10000 + RANDOM % 22768))
		[[ -z ${IOP_PORTS_GIVEN[$_iop_p]:-} ]] || continue
		iop_port_free "$_iop_p" || continue
		IOP_PORTS_GIVEN[$_iop_p]=1
		printf -v "$1" '%s' "$_iop_p"
		return 0
	done
	iop_log "no free port found"
	return 1
}

# iop_tcp_listening PORT: a TCP socket (IPv4 or IPv6) listens on PORT.
iop_tcp_listening() {
	local hex
	hex=$(printf ':%04X' "$1")
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		awk -v p="$hex" '{ if (substr($2, length($2) - 4) == p && $4 == "0A") f = 1 } END { exit !f }'
}

# iop_udp_bound PORT: a UDP socket (IPv4 or IPv6) is bound to PORT.
iop_udp_bound() {
	local hex
	hex=$(printf ':%04X' "$1")
	cat /proc/net/udp /proc/net/udp6 2>/dev/null |
		awk -v p="$hex" '{ if (substr($2, length($2) - 4) == p) f = 1 } END { exit !f }'
}

# --- processes -------------------------------------------------------------------

# PIDs of every server started by this run, stopped by iop_stop_all.
IOP_PIDS=()

# iop_alive PID: PID runs and is not a zombie.
iop_alive() {
	local st
	st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	st=${st##*) }
	[[ -n $st && ${st:0:1} != Z ]]
}

# iop_spawn LOG CMD...: starts CMD in the background with its output in
# LOG and no stdin; the PID goes to IOP_LAST_PID and to the list of PIDs
# stopped at exit.
iop_spawn() {
	local log=$1
	shift
	"$@" >>"$log" 2>&1 </dev/null &
	IOP_LAST_PID=$!
	IOP_PIDS+=("$IOP_LAST_PID")
}

# iop_stop PID: SIGTERM, up to 5 s to leave, then SIGKILL for it and for
# the children it left. Only PIDs this run started are ever passed here.
iop_stop() {
	local pid=$1 kids i
	iop_alive "$pid" || { wait "$pid" 2>/dev/null; return 0; }
	kids=$(cat /proc/"$pid"/task/*/children 2>/dev/null || true)
	kill -TERM "$pid" 2>/dev/null || true
	for ((i = 0; i < 100; i++)); do
		iop_alive "$pid" || break
		sleep 0.05
	done
	if iop_alive "$pid"; then
		iop_log "process $pid ignored SIGTERM for 5 s: killed"
		kill -KILL "$pid" 2>/dev/null || true
	fi
	wait "$pid" 2>/dev/null || true
	# Workers normally leave with their master; these are left only when
	# the master was killed, and are still this run's processes.
	for i in $kids; do
		iop_alive "$i" && kill -KILL "$i" 2>/dev/null
	done
	return 0
}

# iop_stop_all [FIRST]: stops the PIDs from index FIRST (0) of the list
# on, and drops them from it.
iop_stop_all() {
	local first=${1:-0} i
	for ((i = ${#IOP_PIDS[@]} - 1; i >= first; i--)); do
		iop_stop "${IOP_PIDS[i]}"
	done
	IOP_PIDS=("${IOP_PIDS[@]:0:first}")
}

# iop_wait_ready PID SECONDS tcp:PORT... udp:PORT...: until PID has every
# listed socket. Fails when PID exits or after SECONDS.
iop_wait_ready() {
	local pid=$1 secs=$2 i s ok
	shift 2
	for ((i = 0; i < secs * 20; i++)); do
		iop_alive "$pid" || return 1
		ok=1
		for s in "$@"; do
			case $s in
			tcp:*) iop_tcp_listening "${s#tcp:}" || { ok=0; break; } ;;
			udp:*) iop_udp_bound "${s#udp:}" || { ok=0; break; } ;;
			esac
		done
		((ok)) && return 0
		sleep 0.05
	done
	return 1
}

# --- configuration files ------------------------------------------------------------

# iop_render TEMPLATE OUT KEY=VALUE...: copies TEMPLATE to OUT with every
# @KEY@ replaced by VALUE (which may span lines). Fails when a @WORD@
# placeholder is left over, so a typo in a template cannot go unnoticed.
iop_render() {
	local tmpl=$1 out=$2 text kv key left
	shift 2
	text=$(<"$tmpl") || return 1
	for kv in "$@"; do
		key=${kv%%=*}
		text=${text//"@$key@"/"${kv#*=}"}
	done
	left=$(grep -o '@[A-Z][A-Z0-9_]*@' <<<"$text" | sort -u | tr '\n' ' ')
	if [[ -n $left ]]; then
		iop_log "$tmpl: no value for $left"
		return 1
	fi
	printf '%s\n' "$text" >"$out"
}

# iop_big_headers FORMAT: the ~48 KB of response headers of /bigheaders,
# one printf FORMAT line per header, FORMAT taking the header's number
# (%02d) and its 1000-byte value (%s). 48 headers of 1000 bytes: past
# HTTP/2's 16 KB default frame size, so a server must use CONTINUATION.
iop_big_headers() {
	local fmt=$1 value i
	value=$(printf '%.0s0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN' {1..20})
	value=${value:0:1000}
	for ((i = 1; i <= 48; i++)); do
		# shellcheck disable=SC2059 # the format is the caller's
		printf "$fmt\n" "$i" "$value"
	done
}

# --- what each server offers ----------------------------------------------------------

# Filled by a server's start function: the URL of each (protocol,
# endpoint) it serves, or why it does not serve one.
declare -A IOP_URL=()
declare -A IOP_NA=()

# iop_url PROTO ENDPOINT URL
iop_url() {
	IOP_URL["$1 $2"]=$3
}

# How many messages shb keeps in flight per connection on a WebSocket
# column (shb's -p; 4 unless the server sets it).
declare -A IOP_PAR=()

# iop_parallel PROTO N
iop_parallel() {
	IOP_PAR["$1"]=$2
}

# iop_na PROTO|* ENDPOINT REASON: the server does not offer ENDPOINT
# (for PROTO, or "*" for every protocol), and why.
iop_na() {
	IOP_NA["$1 $2"]=$3
}
