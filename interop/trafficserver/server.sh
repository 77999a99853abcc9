# shellcheck shell=bash disable=SC2034 # the variables are read by run.sh
# Apache Traffic Server 9.2 as a reverse proxy (caching off) in front of
# an nginx origin of its own (origin.conf.in): HTTP/1.1 on a cleartext
# port, h2c on a port of its own (proto=http2), HTTP/1.1 and h2 over TLS
# on a third. traffic_server runs directly (no traffic_manager, no
# systemd) in the foreground, as the invoking user, from a private
# runroot in the run's directory (runroot.yaml: configuration, runtime,
# logs, a 64 MB cache file). /close and h2:goaway add "Connection: close"
# to the response (remap.config): the connection ends on HTTP/1.1, and on
# HTTP/2 Traffic Server finishes the open streams and sends GOAWAY.
# h2:streams and h2:window are not run: Traffic Server 9.2 fails both
# (interop/README.md). Sourced by interop/run.sh.

trafficserver_packages="trafficserver nginx-light"
trafficserver_protos="h1 h1s h2c h2"

trafficserver_nginx() {
	command -v nginx || command -v /usr/sbin/nginx
}

# Temp-path directives only for the modules this nginx has (as in
# interop/nginx/server.sh).
trafficserver_temp_paths() {
	local dir=$1 v m
	v=$("$(trafficserver_nginx)" -V 2>&1)
	for m in proxy fastcgi uwsgi scgi; do
		case $v in
		*"--without-http_${m}_module"*) ;;
		*) echo "	${m}_temp_path $dir/$m;" ;;
		esac
	done
}

trafficserver_bin() {
	trafficserver_nginx >/dev/null || return 1
	command -v traffic_server || command -v /usr/bin/traffic_server
}

# trafficserver_runroot DIR ORIGIN PORTS: a runroot in DIR for one
# traffic_server. Binaries, libraries and plugins stay where Debian
# installs them; everything it writes goes under DIR.
trafficserver_runroot() {
	local d=$1 origin=$2 ports=$3 sub
	for sub in etc run log cache var; do
		mkdir -p "$d/$sub" || return 1
	done
	cat >"$d/runroot.yaml" <<-EOT
		prefix: $d
		exec_prefix: /usr
		bindir: /usr/bin
		sbindir: /usr/sbin
		sysconfdir: $d/etc
		datadir: $d/var
		includedir: /usr/include
		libdir: /usr/lib/trafficserver
		libexecdir: /usr/lib/trafficserver/modules
		localstatedir: $d/var
		runtimedir: $d/run
		logdir: $d/log
		cachedir: $d/cache
	EOT
	iop_render "$IOP_HOME/trafficserver/records.config.in" "$d/etc/records.config" \
		"PORTS=$ports" \
		"CERT_DIR=$(dirname "$IOP_CERT")" || return 1
	iop_render "$IOP_HOME/trafficserver/remap.config.in" "$d/etc/remap.config" \
		"ORIGIN=$origin" "DIR=$IOP_HOME/trafficserver" || return 1
	echo "dest_ip=* ssl_cert_name=$(basename "$IOP_CERT") ssl_key_name=$(basename "$IOP_KEY")" \
		>"$d/etc/ssl_multicert.config"
	# The smallest cache it accepts; caching is off (records.config).
	echo "$d/cache 64M" >"$d/etc/storage.config"
	cat >"$d/etc/ip_allow.yaml" <<-EOT
		ip_allow:
		  - apply: in
		    ip_addrs: [127.0.0.1, "::1"]
		    action: allow
		    methods: ALL
	EOT
	# Files it reads at start-up, empty: the stock ones are in /etc.
	for sub in plugin.config hosting.config volume.config cache.config parent.config \
		sni.yaml strategies.yaml logging.yaml splitdns.config socks.config; do
		: >"$d/etc/$sub"
	done
}

trafficserver_start() {
	local dir=$1 origin h1 h2c tls ep
	iop_pick_port origin && iop_pick_port h1 && iop_pick_port h2c && iop_pick_port tls || return 1
	iop_render "$IOP_HOME/trafficserver/origin.conf.in" "$dir/origin.conf" \
		"DIR=$dir" "DOCROOT=$IOP_DOCROOT" "PORT=$origin" \
		"TEMP_PATHS=$(trafficserver_temp_paths "$dir")" \
		"BIG_HEADERS=$(iop_big_headers '			add_header X-Big-%02d "%s" always;')" || return 1
	iop_spawn "$dir/origin.log" "$(trafficserver_nginx)" -p "$dir" -e "$dir/origin-error.log" \
		-c "$dir/origin.conf"
	IOP_SERVER_LOGS="$dir/origin.log $dir/origin-error.log"
	iop_wait_ready "$IOP_LAST_PID" 10 "tcp:$origin" || return 1

	trafficserver_runroot "$dir/ts" "$origin" "$h1 $h2c:proto=http2 $tls:ssl" || return 1
	iop_spawn "$dir/server.log" "$(trafficserver_bin)" --run-root="$dir/ts/runroot.yaml"
	IOP_SERVER_LOGS+=" $dir/server.log"
	iop_wait_ready "$IOP_LAST_PID" 20 "tcp:$h1" "tcp:$h2c" "tcp:$tls" || return 1

	for ep in / /1m /bigheaders /close /echo; do
		iop_url h1 "$ep" "http://127.0.0.1:$h1$ep"
		iop_url h1s "$ep" "https://127.0.0.1:$tls$ep"
		iop_url h2c "$ep" "http://127.0.0.1:$h2c$ep"
		iop_url h2 "$ep" "https://127.0.0.1:$tls$ep"
	done
	iop_url h2c h2:goaway "http://127.0.0.1:$h2c/goaway"
	iop_url h2 h2:goaway "https://127.0.0.1:$tls/goaway"
	iop_na '*' h2:streams "Traffic Server 9.2 answers streams opened beyond its limit before the client read its SETTINGS with a connection error (GOAWAY COMPRESSION_ERROR), not REFUSED_STREAM"
	iop_na '*' h2:window "Traffic Server 9.2 does not credit the connection window for a DATA frame that ends a stream; with a 1 KB window the connection stalls"
}
