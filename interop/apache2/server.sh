# shellcheck shell=bash disable=SC2034 # the variables are read by run.sh
# Apache httpd 2.4 (event MPM, mod_http2, mod_ssl): HTTP/1.1 and h2c on
# one cleartext port, HTTP/1.1 and h2 on one TLS port. No HTTP/2 /close:
# mod_http2 has no per-connection request limit.
# Runs in the foreground (-D FOREGROUND); its children switch to
# www-data when started as root. Sourced by interop/run.sh.

apache2_packages="apache2"
apache2_protos="h1 h1s h2c h2"

apache2_bin() {
	command -v apache2 || command -v /usr/sbin/apache2
}

apache2_start() {
	local dir=$1 h1 tls ep user="" moddir=/usr/lib/apache2/modules
	iop_pick_port h1 && iop_pick_port tls || return 1
	if [[ $(id -u) -eq 0 ]]; then
		user=$'User www-data\nGroup www-data'
	fi
	iop_render "$IOP_HOME/apache2/apache2.conf.in" "$dir/apache2.conf" \
		"DIR=$dir" "CERT=$IOP_CERT" "KEY=$IOP_KEY" "DOCROOT=$IOP_DOCROOT" \
		"MODDIR=$moddir" "USER=$user" \
		"PORT_H1=$h1" "PORT_TLS=$tls" \
		"BIG_HEADERS=$(iop_big_headers '	Header always set X-Big-%02d "%s"')" || return 1
	iop_spawn "$dir/server.log" "$(apache2_bin)" -D FOREGROUND -d "$dir" -f "$dir/apache2.conf"
	IOP_SERVER_LOGS="$dir/server.log $dir/error.log"
	iop_wait_ready "$IOP_LAST_PID" 10 "tcp:$h1" "tcp:$tls" || return 1

	for ep in / /1m /bigheaders /close /echo; do
		iop_url h1 "$ep" "http://127.0.0.1:$h1$ep"
		iop_url h1s "$ep" "https://127.0.0.1:$tls$ep"
		[[ $ep == /close ]] && continue
		iop_url h2c "$ep" "http://127.0.0.1:$h1$ep"
		iop_url h2 "$ep" "https://127.0.0.1:$tls$ep"
	done
	iop_url h1 h1:pipe "http://127.0.0.1:$h1/"
	iop_url h1s h1:pipe "https://127.0.0.1:$tls/"
	iop_na h2c /close "mod_http2 has no per-connection request limit (MaxKeepAliveRequests does not apply)"
	iop_na h2 /close "mod_http2 has no per-connection request limit (MaxKeepAliveRequests does not apply)"
}
