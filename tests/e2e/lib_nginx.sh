# shellcheck shell=bash
# nginx and test certificates for the end-to-end scripts: sourced after
# lib.sh, never run on its own. A script keeps its own server blocks and
# assertions; this writes what every nginx of the tests has in common and
# starts and stops it by PID like any other server.
#
#   nginx_need                  NGINX set, or the test fails
#   tls_ca / tls_leaf / tls_self  certificates in $TLS_DIR
#   nginx_conf DIR [FORMAT|off] DIR/nginx.conf: common head + stdin
#   nginx_start DIR FN PORT...  start on the configuration FN writes
#   nginx_stop                  stop it; fail on its alerts
#   nginx_log_count LINE [FILE] lines of the access log that are LINE

# Certificates and keys: NAME.pem and NAME.key in TLS_DIR.
TLS_DIR=$E2E_TMP/tls
NGINX_PID=""
NGINX_DIR=""

# nginx_need: sets NGINX, and fails unless nginx is installed
# (scripts/setup.sh --with-test-servers installs it): a test that cannot
# run fails.
nginx_need() {
	NGINX=$(command -v nginx || true)
	[[ -n "$NGINX" ]] || NGINX=$(ls /usr/sbin/nginx 2>/dev/null || true)
	[[ -n "$NGINX" ]] || fail "nginx is not installed (Debian package nginx-light; scripts/setup.sh --with-test-servers)"
}

# tls_ossl ARGS...: openssl, its chatter in TLS_DIR/cert.log, shown when
# it fails; fails when openssl is not installed (setup.sh installs it).
tls_ossl() {
	command -v openssl >/dev/null ||
		fail "openssl is not installed (Debian package openssl; scripts/setup.sh --with-test-servers)"
	mkdir -p "$TLS_DIR"
	openssl "$@" >>"$TLS_DIR/cert.log" 2>&1 ||
		{ cat "$TLS_DIR/cert.log" >&2; fail "openssl $1 failed"; }
}

# tls_ca NAME: a CA that may sign certificates, nothing else. P-256 keys
# everywhere: fast to make, and every TLS stack takes them.
tls_ca() {
	tls_ossl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout "$TLS_DIR/$1.key" -out "$TLS_DIR/$1.pem" -days 2 \
		-subj "/CN=shb test $1" \
		-addext 'basicConstraints=critical,CA:TRUE' \
		-addext 'keyUsage=critical,keyCertSign'
}

# tls_leaf NAME CA USAGE [SAN]: a certificate the CA signs for USAGE
# (serverAuth or clientAuth) and the names of SAN ("DNS:a,IP:127.0.0.1";
# none without it). The CN names no host, so only the SANs can match.
tls_leaf() {
	printf '%s\n' 'basicConstraints=CA:FALSE' 'keyUsage=digitalSignature' \
		"extendedKeyUsage=$3" ${4:+"subjectAltName=$4"} >"$TLS_DIR/$1.ext"
	tls_ossl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout "$TLS_DIR/$1.key" -out "$TLS_DIR/$1.csr" -subj "/CN=shb test $1"
	tls_ossl x509 -req -in "$TLS_DIR/$1.csr" -CA "$TLS_DIR/$2.pem" \
		-CAkey "$TLS_DIR/$2.key" -CAcreateserial -days 2 \
		-extfile "$TLS_DIR/$1.ext" -out "$TLS_DIR/$1.pem"
}

# tls_self NAME SAN: a self-signed server certificate, valid for the
# names of SAN only; --cacert NAME.pem trusts it.
tls_self() {
	tls_ossl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout "$TLS_DIR/$1.key" -out "$TLS_DIR/$1.pem" -days 2 \
		-subj "/CN=shb test $1" -addext "subjectAltName=$2"
}

# nginx_conf DIR [FORMAT|off] <<SERVERS: writes DIR/nginx.conf: one
# worker in the foreground, as root's user when run as root (nginx would
# switch to nobody, who cannot read DIR), its pid file, error log and
# temporary files in DIR, and an http block holding the lines of stdin
# (server blocks, and whatever else the script needs there). Requests are
# logged to DIR/access.log, in FORMAT (nginx variables, as log_format
# takes them) when given, not at all when FORMAT is "off" (load runs); a
# server block may log elsewhere with "access_log FILE shb" or
# "access_log off". Keep-alive connections are never closed by count.
nginx_conf() {
	local dir=$1 user="" log="access_log $1/access.log;"
	[[ $(id -u) -ne 0 ]] || user="user root root;"
	case ${2:-} in
	"") ;;
	off) log="access_log off;" ;;
	*) log="log_format shb '$2';
	access_log $dir/access.log shb;" ;;
	esac
	mkdir -p "$dir"
	{
		cat <<CONF
daemon off;
master_process on;
worker_processes 1;
$user
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 1024; }
http {
	$log
	client_body_temp_path $dir/client_body;
	proxy_temp_path $dir/proxy;
	fastcgi_temp_path $dir/fastcgi;
	uwsgi_temp_path $dir/uwsgi;
	scgi_temp_path $dir/scgi;
	default_type text/plain;
	keepalive_requests 100000000;
CONF
		cat
		echo "}"
	} >"$dir/nginx.conf"
}

# nginx_start DIR CONF_FN [PORTVAR | unix:PATH]...: starts nginx on
# DIR/nginx.conf as CONF_FN writes it (with nginx_conf DIR) and waits
# until it accepts on every port and socket. Each PORTVAR is set to a
# free port, none the same, before CONF_FN runs; another process may bind
# a port between that pick and nginx's bind, so it tries three times.
# Sets NGINX_PID; the script ends it with nginx_stop (or lib.sh does,
# whatever the outcome).
nginx_start() {
	local dir=$1 conf=$2 _
	shift 2
	for _ in 1 2 3; do
		nginx_pick_ports "$@" || continue
		"$conf"
		"$NGINX" -e "$dir/error.log" -p "$dir" -c "$dir/nginx.conf" \
			>"$dir/stdout.log" 2>&1 </dev/null &
		NGINX_PID=$!
		NGINX_DIR=$dir
		E2E_PIDS+=("$NGINX_PID")
		# shellcheck disable=SC2034,SC2004 # lib.sh's associative array
		E2E_LOGS[$NGINX_PID]="$dir/error.log"
		nginx_listening "$@" && return 0
		kill_quiet "$NGINX_PID"
	done
	cat "$dir/error.log" "$dir/stdout.log" >&2 2>/dev/null || true
	fail "nginx did not start"
}

# nginx_pick_ports [PORTVAR | unix:PATH]...: a free port in each PORTVAR;
# fails when two are the same.
nginx_pick_ports() {
	local v seen=" "
	for v in "$@"; do
		[[ $v != unix:* ]] || continue
		free_port "$v"
		[[ $seen != *" ${!v} "* ]] || return 1
		seen+="${!v} "
	done
}

# nginx_listening [PORTVAR | unix:PATH]...: until nginx accepts on each
# (a socket file is there once nginx listens on it); fails if it exits.
nginx_listening() {
	local a _
	for a in "$@"; do
		if [[ $a != unix:* ]]; then
			wait_port "${!a}" "$NGINX_PID" || return 1
			continue
		fi
		for _ in $(seq 1 100); do
			[[ ! -S ${a#unix:} ]] || break
			kill -0 "$NGINX_PID" 2>/dev/null || return 1
			sleep 0.05
		done
		[[ -S ${a#unix:} ]] || return 1
	done
}

# nginx_stop: stops the nginx of nginx_start, which must exit with status
# 0, and fails if it logged an alert, a critical or an emergency error.
nginx_stop() {
	stop_server "$NGINX_PID"
	! grep -E '\[(alert|emerg|crit)\]' "$NGINX_DIR/error.log" >&2 ||
		fail "nginx logged alerts"
}

# nginx_log_count LINE [FILE]: how many lines of FILE (the access log of
# nginx_start's nginx) are exactly LINE ("-" stands for an empty field).
nginx_log_count() {
	grep -cxF -- "$1" "${2:-$NGINX_DIR/access.log}" || true
}
