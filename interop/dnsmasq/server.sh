# shellcheck shell=bash disable=SC2034 # the variables are read by run.sh
# dnsmasq (Debian's dnsmasq-base: the binary without its system service)
# answering DNS over UDP on one loopback port from a throwaway
# configuration of local records, no upstream, every query logged. The
# dns column runs the SDK's DNS example plugin: dns:a asks a.shb.test A
# (NOERROR, one answer), dns:nx asks n{seq}.shb.test (a name each,
# NXDOMAIN: dnsmasq is authoritative for shb.test). dnsmasq_check counts
# the queries dnsmasq logged. Sourced by interop/run.sh.

dnsmasq_packages="dnsmasq-base"
dnsmasq_protos="dns"

dnsmasq_bin() {
	command -v dnsmasq || { [[ -x /usr/sbin/dnsmasq ]] && echo /usr/sbin/dnsmasq; }
}

dnsmasq_start() {
	local dir=$1 port
	iop_pick_port port || return 1
	DNSMASQ_LOG=$dir/queries.log
	cat >"$dir/dnsmasq.conf" <<EOF
no-resolv
no-hosts
no-poll
bind-interfaces
listen-address=127.0.0.1
port=$port
local=/shb.test/
host-record=a.shb.test,127.0.0.8
log-queries
log-facility=$DNSMASQ_LOG
EOF
	# dnsmasq writes its log as the user it drops to.
	touch "$DNSMASQ_LOG"
	chmod 666 "$DNSMASQ_LOG"
	iop_spawn "$dir/server.log" "$(dnsmasq_bin)" --no-daemon --pid-file= \
		--conf-file="$dir/dnsmasq.conf"
	IOP_SERVER_LOGS="$dir/server.log $DNSMASQ_LOG"
	iop_wait_ready "$IOP_LAST_PID" 10 "udp:$port" "tcp:$port" || return 1
	iop_url dns dns:a "dns://127.0.0.1:$port"
	iop_url dns dns:nx "dns://127.0.0.1:$port"
}

# dnsmasq_check PROTO ENDPOINT JSON: every query shb counted reached
# dnsmasq exactly once (the log holds each endpoint's names only).
dnsmasq_check() {
	local n
	case $2 in
	dns:a) n=$(grep -c 'query\[A\] a\.shb\.test from 127\.0\.0\.1$' "$DNSMASQ_LOG") ;;
	dns:nx) n=$(grep -oE 'query\[A\] n[0-9]+\.shb\.test from' "$DNSMASQ_LOG" | sort -u | wc -l) ;;
	*) return 0 ;;
	esac
	((n == 200)) || echo "dnsmasq logged $n queries of $2, not 200"
}
