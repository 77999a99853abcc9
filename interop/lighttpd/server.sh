# shellcheck shell=bash disable=SC2034 # the variables are read by run.sh
# lighttpd 1.4: HTTP/1.1 and h2c on one cleartext port, HTTP/1.1 and h2
# on one TLS port (mod_openssl, from lighttpd-mod-openssl). Runs in the
# foreground (-D); drops to www-data when started as root. It advertises
# at most 8 concurrent streams, so -p 16 also exercises refused streams.
# No HTTP/2 /close: server.max-keep-alive-requests does not end HTTP/2
# connections. Sourced by interop/run.sh.

lighttpd_packages="lighttpd lighttpd-mod-openssl"
lighttpd_extra_packages="lighttpd-mod-openssl"
lighttpd_protos="h1 h1s h2c h2"

lighttpd_bin() {
	command -v lighttpd || command -v /usr/sbin/lighttpd
}

lighttpd_start() {
	local dir=$1 h1 tls ep user=""
	iop_pick_port h1 && iop_pick_port tls || return 1
	if [[ $(id -u) -eq 0 ]]; then
		user=$'server.username = "www-data"\nserver.groupname = "www-data"'
	fi
	iop_render "$IOP_HOME/lighttpd/lighttpd.conf.in" "$dir/lighttpd.conf" \
		"DIR=$dir" "CERT=$IOP_CERT" "KEY=$IOP_KEY" "DOCROOT=$IOP_DOCROOT" \
		"PORT_H1=$h1" "PORT_TLS=$tls" "USER=$user" \
		"BIG_HEADERS=$(iop_big_headers '		"X-Big-%02d" => "%s",')" || return 1
	iop_spawn "$dir/server.log" "$(lighttpd_bin)" -D -f "$dir/lighttpd.conf"
	IOP_SERVER_LOGS="$dir/server.log"
	iop_wait_ready "$IOP_LAST_PID" 10 "tcp:$h1" "tcp:$tls" || return 1

	for ep in / /1m /bigheaders /close /echo; do
		iop_url h1 "$ep" "http://127.0.0.1:$h1$ep"
		iop_url h1s "$ep" "https://127.0.0.1:$tls$ep"
		[[ $ep == /close ]] && continue
		iop_url h2c "$ep" "http://127.0.0.1:$h1$ep"
		iop_url h2 "$ep" "https://127.0.0.1:$tls$ep"
	done
	local why="lighttpd applies no keep-alive limit to HTTP/2 (no GOAWAY)"
	iop_na h2c /close "$why"
	iop_na h2 /close "$why"
}
