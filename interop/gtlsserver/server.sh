# shellcheck shell=bash disable=SC2034 # the variables are read by run.sh
# ngtcp2's example HTTP/3 server on GnuTLS (gtlsserver): HTTP/3 only, on
# UDP, serving the docroot: / (index.html), /1m, and POST /echo (the
# file "echo"; the body is read and discarded); h3:qpack is GET / with a
# QPACK dynamic table, which its encoder (nghttp3) fills. It serves files only, so
# no /bigheaders and no /close. There is no configuration file: the
# options below are all of it. Sourced by interop/run.sh.

gtlsserver_packages="ngtcp2-server"
gtlsserver_protos="h3"

gtlsserver_bin() {
	command -v gtlsserver || command -v /usr/sbin/gtlsserver
}

gtlsserver_start() {
	local dir=$1 port ep
	iop_pick_port port || return 1
	# 256 streams and a 5-minute idle timeout: the stock limits would cap
	# -p or end connections during a slow run.
	iop_spawn "$dir/server.log" "$(gtlsserver_bin)" --quiet --htdocs="$IOP_DOCROOT" \
		--max-streams-bidi=256 --timeout=300s \
		127.0.0.1 "$port" "$IOP_KEY" "$IOP_CERT"
	IOP_SERVER_LOGS="$dir/server.log"
	iop_wait_ready "$IOP_LAST_PID" 10 "udp:$port" || return 1

	for ep in / /1m /echo; do
		iop_url h3 "$ep" "https://127.0.0.1:$port$ep"
	done
	iop_url h3 h3:qpack "https://127.0.0.1:$port/"
	iop_na h3 /bigheaders "gtlsserver serves files only: no custom headers"
	iop_na h3 /close "gtlsserver has no per-connection request limit"
}
