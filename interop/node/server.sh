# shellcheck shell=bash disable=SC2034 # the variables are read by run.sh
# Node's http and http2 modules (nghttp2 inside): server.js, one process.
# HTTP/1.1 on one port (node:http), h2c on another (prior knowledge),
# HTTP/1.1 and h2 on one TLS port (allowHTTP1), and two more pairs for the
# HTTP/2 cases (4 concurrent streams; a 1 KB initial window). /close ends
# the HTTP/2 session after the response (GOAWAY); h2:goaway after every
# 5th request of a session. Sourced by interop/run.sh.

node_packages="nodejs"
node_protos="h1 h1s h2c h2"

node_bin() {
	command -v node || command -v nodejs
}

node_start() {
	local dir=$1 h1 h2c tls sp st wp wt ep
	iop_pick_port h1 && iop_pick_port h2c && iop_pick_port tls && iop_pick_port sp &&
		iop_pick_port st && iop_pick_port wp && iop_pick_port wt || return 1
	iop_big_headers 'x-big-%02d: %s' >"$dir/bigheaders.txt"
	iop_spawn "$dir/server.log" "$(node_bin)" "$IOP_HOME/node/server.js" \
		"docroot=$IOP_DOCROOT" "headers=$dir/bigheaders.txt" \
		"cert=$IOP_CERT" "key=$IOP_KEY" "h1=$h1" "h2c=$h2c" "tls=$tls" \
		"streams_h2c=$sp" "streams_tls=$st" max_streams=4 \
		"window_h2c=$wp" "window_tls=$wt" window=1024 goaway_after=5
	IOP_SERVER_LOGS="$dir/server.log"
	iop_wait_ready "$IOP_LAST_PID" 10 "tcp:$h1" "tcp:$h2c" "tcp:$tls" "tcp:$sp" \
		"tcp:$st" "tcp:$wp" "tcp:$wt" || return 1

	for ep in / /1m /bigheaders /close /echo; do
		iop_url h1 "$ep" "http://127.0.0.1:$h1$ep"
		iop_url h1s "$ep" "https://127.0.0.1:$tls$ep"
		iop_url h2c "$ep" "http://127.0.0.1:$h2c$ep"
		iop_url h2 "$ep" "https://127.0.0.1:$tls$ep"
	done
	iop_url h2c h2:streams "http://127.0.0.1:$sp/"
	iop_url h2 h2:streams "https://127.0.0.1:$st/"
	iop_url h2c h2:window "http://127.0.0.1:$wp/echo"
	iop_url h2 h2:window "https://127.0.0.1:$wt/echo"
	iop_url h2c h2:goaway "http://127.0.0.1:$h2c/goaway"
	iop_url h2 h2:goaway "https://127.0.0.1:$tls/goaway"
}
