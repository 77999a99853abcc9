# Caddy 2.6 (Debian package caddy; HTTP/3 through quic-go) on loopback
# for the HTTP/3 tests, configured by the Caddyfile beside this script.
#   source caddy.sh; h3srv_start_caddy DIR   -> H3SRV_PORT, H3SRV_PID
#   bash caddy.sh [DIR]                       -> runs until Ctrl-C
# h1 and h2 on TCP, h3 on UDP, same port number. Binds 127.0.0.1, and ::1
# too when the loopback has it (H3SRV_BIND overrides, e.g. "127.0.0.1").
# DIR receives cert.pem/key.pem (made unless present), www/ (the files),
# caddy-state/ (Caddy's storage and config dirs) and caddy.log.
# Stop it with h3srv_stop "$H3SRV_PID".

# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

h3srv_caddy_bin() {
	command -v "${CADDY:-caddy}"
}

h3srv_default_bind() {
	if grep -q '^00000000000000000000000000000001 ' /proc/net/if_inet6 2>/dev/null; then
		echo "127.0.0.1 ::1"
	else
		echo "127.0.0.1"
	fi
}

h3srv_launch_caddy() {
	local dir=$1 port=$2 bin state=$1/caddy-state
	bin=$(h3srv_caddy_bin) || { echo "h3srv: caddy is not installed" >&2; return 1; }
	mkdir -p "$state"
	# HOME and XDG_* keep Caddy's data (its local CA, autosave.json) in
	# the temporary directory instead of the user's home.
	SHB_H3_PORT=$port SHB_H3_BIND=${H3SRV_BIND:-$(h3srv_default_bind)} \
	SHB_H3_CERT=$dir/cert.pem SHB_H3_KEY=$dir/key.pem \
	SHB_H3_DOCROOT=$dir/www SHB_H3_STATE=$state \
	HOME=$state XDG_DATA_HOME=$state XDG_CONFIG_HOME=$state \
		"$bin" run --config "$H3SRV_DIR/Caddyfile" --adapter caddyfile \
		>"$dir/caddy.log" 2>&1 </dev/null &
	H3SRV_PID=$!
}

# h3srv_start_caddy DIR
h3srv_start_caddy() {
	local dir=$1
	h3srv_make_cert "$dir" && h3srv_make_docroot "$dir/www" &&
		h3srv_start_loop caddy tcp+udp "$dir"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
	set -euo pipefail
	dir=${1:-$(mktemp -d -t shb-h3-caddy.XXXXXX)}
	h3srv_start_caddy "$dir"
	trap 'h3srv_stop "$H3SRV_PID"' EXIT INT TERM
	echo "caddy: https://localhost:$H3SRV_PORT/ (TCP and UDP) pid $H3SRV_PID, files in $dir; Ctrl-C stops it"
	wait "$H3SRV_PID"
fi
