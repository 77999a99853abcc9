# shellcheck shell=bash disable=SC2034 # the variables are read by run.sh
# Varnish 7 with no backend (responses synthesized in VCL): HTTP/1.1 and
# h2c on one cleartext port; no TLS at all. Runs in the foreground (-F).
# Sourced by interop/run.sh.

varnish_packages="varnish"
varnish_protos="h1 h2c"

varnish_bin() {
	command -v varnishd || command -v /usr/sbin/varnishd
}

varnish_start() {
	local dir=$1 h1 ep
	iop_pick_port h1 || return 1
	iop_render "$IOP_HOME/varnish/default.vcl.in" "$dir/default.vcl" \
		"DOCROOT=$IOP_DOCROOT" \
		"BIG_HEADERS=$(iop_big_headers '		set resp.http.X-Big-%02d = "%s";')" || return 1
	# 48 KB of headers need a larger workspace and header limits; the
	# idle timeouts are raised so connections last the run.
	iop_spawn "$dir/server.log" "$(varnish_bin)" -F -n "$dir/work" \
		-a "127.0.0.1:$h1" -f "$dir/default.vcl" -s malloc,64m \
		-p feature=+http2 -p workspace_client=512k -p http_max_hdr=256 \
		-p http_resp_hdr_len=8k -p http_resp_size=256k \
		-p timeout_idle=300 -p h2_rx_window_low_water=1M
	IOP_SERVER_LOGS="$dir/server.log"
	iop_wait_ready "$IOP_LAST_PID" 20 "tcp:$h1" || return 1

	for ep in / /1m /bigheaders /close /echo; do
		iop_url h1 "$ep" "http://127.0.0.1:$h1$ep"
		[[ $ep == /close ]] && continue
		iop_url h2c "$ep" "http://127.0.0.1:$h1$ep"
	done
	iop_na h2c /close "Varnish has no per-connection request limit for HTTP/2"
}
