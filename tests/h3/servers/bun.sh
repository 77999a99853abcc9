# Bun's HTTP server (npm package bun; HTTP/3 through lsquic) on loopback
# for the HTTP/3 tests, running bun-server.js beside this script.
#   source bun.sh; h3srv_start_bun DIR   -> H3SRV_PORT, H3SRV_PID
#   bash bun.sh [DIR]                     -> runs until Ctrl-C
# h1 and h2 on TCP, h3 on UDP, same port number, on H3SRV_HOST
# (127.0.0.1). The bun binary: $BUN if set, else bun on PATH. DIR
# receives cert.pem/key.pem (made unless present), www/ and bun.log.
# Stop it with h3srv_stop "$H3SRV_PID".

# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

h3srv_bun_bin() {
	command -v "${BUN:-bun}"
}

h3srv_launch_bun() {
	local dir=$1 port=$2 bin
	bin=$(h3srv_bun_bin) || { echo "h3srv: bun is not installed" >&2; return 1; }
	SHB_H3_PORT=$port SHB_H3_HOST=${H3SRV_HOST:-127.0.0.1} \
	SHB_H3_CERT=$dir/cert.pem SHB_H3_KEY=$dir/key.pem SHB_H3_DOCROOT=$dir/www \
		"$bin" "$H3SRV_DIR/bun-server.js" >"$dir/bun.log" 2>&1 </dev/null &
	H3SRV_PID=$!
}

# h3srv_start_bun DIR
h3srv_start_bun() {
	local dir=$1
	h3srv_make_cert "$dir" && h3srv_make_docroot "$dir/www" &&
		h3srv_start_loop bun tcp+udp "$dir"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
	set -euo pipefail
	dir=${1:-$(mktemp -d -t shb-h3-bun.XXXXXX)}
	h3srv_start_bun "$dir"
	trap 'h3srv_stop "$H3SRV_PID"' EXIT INT TERM
	echo "bun: https://localhost:$H3SRV_PORT/ (TCP and UDP) pid $H3SRV_PID, files in $dir; Ctrl-C stops it"
	wait "$H3SRV_PID"
fi
