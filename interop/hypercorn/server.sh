# shellcheck shell=bash disable=SC2034 # the variables are read by run.sh
# hypercorn (the python-h2 / h11 stack) serving the ASGI app iop_app.py:
# HTTP/1.1 and h2c on one cleartext port, HTTP/1.1 and h2 on one TLS port,
# from hypercorn.toml.in. h2:streams is not run (see below). No /close on HTTP/2 and no h2:window or h2:goaway: hypercorn
# has no request limit per connection, the app cannot end an HTTP/2
# connection, and its initial window is h2's stock 65535. Sourced by
# interop/run.sh.

hypercorn_packages="python3-hypercorn"
hypercorn_protos="h1 h1s h2c h2"

hypercorn_bin() {
	command -v hypercorn
}

# hypercorn_launch DIR NAME PLAIN TLS STREAMS: one process.
hypercorn_launch() {
	local dir=$1 name=$2
	iop_render "$IOP_HOME/hypercorn/hypercorn.toml.in" "$dir/$name.toml" \
		"CERT=$IOP_CERT" "KEY=$IOP_KEY" "PORT_PLAIN=$3" "PORT_TLS=$4" \
		"STREAMS=$5" || return 1
	# No bytecode written next to the app, in the source tree.
	iop_spawn "$dir/$name.log" env PYTHONDONTWRITEBYTECODE=1 IOP_DOCROOT="$IOP_DOCROOT" \
		IOP_HEADERS="$dir/bigheaders.txt" "$(hypercorn_bin)" --config "$dir/$name.toml" \
		"$IOP_HOME/hypercorn/iop_app.py:app"
}

hypercorn_start() {
	local dir=$1 plain tls ep
	iop_big_headers 'x-big-%02d: %s' >"$dir/bigheaders.txt"
	iop_pick_port plain && iop_pick_port tls || return 1
	IOP_SERVER_LOGS="$dir/main.log"
	hypercorn_launch "$dir" main "$plain" "$tls" 256 || return 1
	iop_wait_ready "$IOP_LAST_PID" 15 "tcp:$plain" "tcp:$tls" || return 1

	for ep in / /1m /bigheaders /close /echo; do
		iop_url h1 "$ep" "http://127.0.0.1:$plain$ep"
		iop_url h1s "$ep" "https://127.0.0.1:$tls$ep"
		[[ $ep == /close ]] && continue
		iop_url h2c "$ep" "http://127.0.0.1:$plain$ep"
		iop_url h2 "$ep" "https://127.0.0.1:$tls$ep"
	done
	local why="hypercorn has no request limit per connection, and an ASGI app cannot end an HTTP/2 connection"
	iop_na h2c /close "$why"
	iop_na h2 /close "$why"
	iop_na '*' h2:goaway "$why"
	iop_na '*' h2:window "hypercorn cannot set SETTINGS_INITIAL_WINDOW_SIZE (h2's stock 65535)"
	# Not run: python-h2 meets streams above its limit that were opened
	# before the client read its SETTINGS with a connection error
	# (GOAWAY PROTOCOL_ERROR, where RFC 9113 5.1.2 asks for a stream
	# error), and shb opens up to -p streams (at most 100) before the
	# server's first SETTINGS.
	iop_na '*' h2:streams "python-h2 ends the connection (GOAWAY PROTOCOL_ERROR) on streams opened beyond its limit before the client saw SETTINGS; see interop/README.md"
}
