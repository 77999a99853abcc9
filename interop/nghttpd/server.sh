# shellcheck shell=bash disable=SC2034 # the variables are read by run.sh
# nghttpd (nghttp2's example server): HTTP/2 only, serving the docroot.
# One process per port: h2c (--no-tls) and h2 over TLS. It cannot add
# response headers, but it can add trailers: /bigheaders is served by a
# second pair of processes that end every response with ~48 KB of
# trailers (a trailing HEADERS frame plus CONTINUATION). POST /echo is
# answered with the uploaded body (--echo-upload). No /close: nghttpd
# has no per-connection request limit. Sourced by interop/run.sh.
# There is no configuration file: the options below are all of it.

nghttpd_packages="nghttp2-server"
nghttpd_protos="h2c h2"

nghttpd_bin() {
	command -v nghttpd
}

# nghttpd_launch LOG PORT [TLS] [EXTRA...]: one process on 127.0.0.1.
nghttpd_launch() {
	local log=$1 port=$2 tls=$3
	shift 3
	local args=(--address=127.0.0.1 --htdocs="$IOP_DOCROOT" --echo-upload
		--max-concurrent-streams=256 --workers=1 "$@")
	if [[ $tls == tls ]]; then
		iop_spawn "$log" "$(nghttpd_bin)" "${args[@]}" "$port" "$IOP_KEY" "$IOP_CERT"
	else
		iop_spawn "$log" "$(nghttpd_bin)" --no-tls "${args[@]}" "$port"
	fi
}

nghttpd_start() {
	local dir=$1 h2c tls h2c_big tls_big ep pids=() trailers=() line
	iop_pick_port h2c && iop_pick_port tls &&
		iop_pick_port h2c_big && iop_pick_port tls_big || return 1
	while IFS= read -r line; do
		trailers+=("--trailer=$line")
	done < <(iop_big_headers 'x-big-%02d: %s')

	IOP_SERVER_LOGS="$dir/h2c.log $dir/tls.log $dir/h2c-big.log $dir/tls-big.log"
	nghttpd_launch "$dir/h2c.log" "$h2c" plain
	pids+=("$IOP_LAST_PID")
	nghttpd_launch "$dir/tls.log" "$tls" tls
	pids+=("$IOP_LAST_PID")
	nghttpd_launch "$dir/h2c-big.log" "$h2c_big" plain "${trailers[@]}"
	pids+=("$IOP_LAST_PID")
	nghttpd_launch "$dir/tls-big.log" "$tls_big" tls "${trailers[@]}"
	pids+=("$IOP_LAST_PID")
	iop_wait_ready "${pids[0]}" 10 "tcp:$h2c" &&
		iop_wait_ready "${pids[1]}" 10 "tcp:$tls" &&
		iop_wait_ready "${pids[2]}" 10 "tcp:$h2c_big" &&
		iop_wait_ready "${pids[3]}" 10 "tcp:$tls_big" || return 1

	for ep in / /1m /echo; do
		iop_url h2c "$ep" "http://127.0.0.1:$h2c$ep"
		iop_url h2 "$ep" "https://127.0.0.1:$tls$ep"
	done
	# index.html: a body, so the trailers are sent.
	iop_url h2c /bigheaders "http://127.0.0.1:$h2c_big/"
	iop_url h2 /bigheaders "https://127.0.0.1:$tls_big/"
	iop_na '*' /close "nghttpd has no per-connection request limit and no Connection: close"
}
