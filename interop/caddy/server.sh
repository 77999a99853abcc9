# shellcheck shell=bash disable=SC2034 # the variables are read by run.sh
# Caddy (quic-go): HTTP/1.1 and h2c on one cleartext port; HTTP/1.1, h2
# and HTTP/3 on one TLS port number (TCP and UDP). Sourced by
# interop/run.sh.

caddy_packages="caddy"
caddy_protos="h1 h1s h2c h2 h3"

caddy_bin() {
	command -v caddy
}

caddy_start() {
	local dir=$1 h1 tls ep
	iop_pick_port h1 && iop_pick_port tls || return 1
	iop_render "$IOP_HOME/caddy/Caddyfile.in" "$dir/Caddyfile" \
		"DIR=$dir" "CERT=$IOP_CERT" "KEY=$IOP_KEY" "DOCROOT=$IOP_DOCROOT" \
		"PORT_H1=$h1" "PORT_TLS=$tls" \
		"BIG_HEADERS=$(iop_big_headers '		header X-Big-%02d "%s"')" || return 1
	mkdir -p "$dir/home"
	# HOME and XDG_* keep Caddy's files (autosave.json, locks) in the
	# run's directory.
	iop_spawn "$dir/server.log" env HOME="$dir/home" XDG_DATA_HOME="$dir/home" \
		XDG_CONFIG_HOME="$dir/home" "$(caddy_bin)" run --adapter caddyfile \
		--config "$dir/Caddyfile"
	IOP_SERVER_LOGS="$dir/server.log"
	iop_wait_ready "$IOP_LAST_PID" 15 "tcp:$h1" "tcp:$tls" "udp:$tls" || return 1

	for ep in / /1m /bigheaders /close /echo; do
		iop_url h1 "$ep" "http://127.0.0.1:$h1$ep"
		iop_url h2c "$ep" "http://127.0.0.1:$h1$ep"
		iop_url h1s "$ep" "https://127.0.0.1:$tls$ep"
		iop_url h2 "$ep" "https://127.0.0.1:$tls$ep"
		iop_url h3 "$ep" "https://127.0.0.1:$tls$ep"
	done
	# quic-go's encoder uses the static table only: this checks that a
	# table announced and never filled costs nothing.
	iop_url h3 h3:qpack "https://127.0.0.1:$tls/"
}
