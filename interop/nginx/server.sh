# shellcheck shell=bash disable=SC2034 # the variables are read by run.sh
# nginx: HTTP/1.1 and h2 over TLS on one port, h2c on a port of its own
# (prior knowledge only), plus two ports that send GOAWAY every 5
# requests for the HTTP/2 /close runs. Sourced by interop/run.sh.

nginx_packages="nginx-light"
nginx_protos="h1 h1s h2c h2"

nginx_bin() {
	command -v nginx || command -v /usr/sbin/nginx
}

# Temp-path directives only for the modules this nginx has: one it lacks
# (nginx-light has no uwsgi or scgi) would be an unknown directive.
nginx_temp_paths() {
	local dir=$1 v m
	v=$("$(nginx_bin)" -V 2>&1)
	for m in proxy fastcgi uwsgi scgi; do
		case $v in
		*"--without-http_${m}_module"*) ;;
		*) echo "	${m}_temp_path $dir/$m;" ;;
		esac
	done
}

nginx_start() {
	local dir=$1 h1 tls h2c h2c_ga tls_ga
	iop_pick_port h1 && iop_pick_port tls && iop_pick_port h2c &&
		iop_pick_port h2c_ga && iop_pick_port tls_ga || return 1
	iop_render "$IOP_HOME/nginx/nginx.conf.in" "$dir/nginx.conf" \
		"DIR=$dir" "CERT=$IOP_CERT" "KEY=$IOP_KEY" "DOCROOT=$IOP_DOCROOT" \
		"PORT_H1=$h1" "PORT_TLS=$tls" "PORT_H2C=$h2c" \
		"PORT_H2C_GOAWAY=$h2c_ga" "PORT_TLS_GOAWAY=$tls_ga" \
		"TEMP_PATHS=$(nginx_temp_paths "$dir")" \
		"BIG_HEADERS=$(iop_big_headers '			add_header X-Big-%02d "%s" always;')" || return 1
	iop_spawn "$dir/server.log" "$(nginx_bin)" -p "$dir" -e "$dir/error.log" -c "$dir/nginx.conf"
	IOP_SERVER_LOGS="$dir/server.log $dir/error.log"
	iop_wait_ready "$IOP_LAST_PID" 10 "tcp:$h1" "tcp:$tls" "tcp:$h2c" "tcp:$h2c_ga" "tcp:$tls_ga" || return 1

	local ep
	for ep in / /1m /bigheaders /close /echo; do
		iop_url h1 "$ep" "http://127.0.0.1:$h1$ep"
		iop_url h1s "$ep" "https://127.0.0.1:$tls$ep"
		[[ $ep == /close ]] && continue
		iop_url h2c "$ep" "http://127.0.0.1:$h2c$ep"
		iop_url h2 "$ep" "https://127.0.0.1:$tls$ep"
	done
	iop_url h1 h1:pipe "http://127.0.0.1:$h1/"
	iop_url h1s h1:pipe "https://127.0.0.1:$tls/"
	iop_url h2c /close "http://127.0.0.1:$h2c_ga/close"
	iop_url h2 /close "https://127.0.0.1:$tls_ga/close"
}
