# shellcheck shell=bash disable=SC2034 # the variables are read by run.sh
# h2o: HTTP/1.1 and h2c on one cleartext port, HTTP/1.1 and h2 on one
# TLS port. Sourced by interop/run.sh.

h2o_packages="h2o"
h2o_protos="h1 h1s h2c h2"

h2o_bin() {
	command -v h2o
}

h2o_start() {
	local dir=$1 h1 tls ep user=""
	iop_pick_port h1 && iop_pick_port tls || return 1
	# As root h2o drops to "nobody" unless told otherwise; the files it
	# serves are world-readable, so that works, and is what is tested.
	[[ $(id -u) -ne 0 ]] || user="user: nobody"
	iop_render "$IOP_HOME/h2o/h2o.conf.in" "$dir/h2o.conf" \
		"DIR=$dir" "CERT=$IOP_CERT" "KEY=$IOP_KEY" "DOCROOT=$IOP_DOCROOT" \
		"PORT_H1=$h1" "PORT_TLS=$tls" "USER=$user" \
		"BIG_HEADERS=$(iop_big_headers '        header.add: "X-Big-%02d: %s"')" || return 1
	iop_spawn "$dir/server.log" "$(h2o_bin)" -m worker -c "$dir/h2o.conf"
	IOP_SERVER_LOGS="$dir/server.log $dir/error.log"
	iop_wait_ready "$IOP_LAST_PID" 10 "tcp:$h1" "tcp:$tls" || return 1

	for ep in / /1m /bigheaders /echo; do
		iop_url h1 "$ep" "http://127.0.0.1:$h1$ep"
		iop_url h2c "$ep" "http://127.0.0.1:$h1$ep"
		iop_url h1s "$ep" "https://127.0.0.1:$tls$ep"
		iop_url h2 "$ep" "https://127.0.0.1:$tls$ep"
	done
	iop_na '*' /close "h2o can neither set Connection: close nor limit requests per connection"
}
