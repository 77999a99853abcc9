# shellcheck shell=bash disable=SC2034 # the variables are read by run.sh
# Go's net/http with golang.org/x/net/http2: server.go, built here at run
# time and offline, in GOPATH mode over the sources Debian installs under
# /usr/share/gocode (golang-golang-x-net-dev; the module proxy is never
# asked: GOPROXY=off, GO111MODULE=off). One process: HTTP/1.1 and h2c on
# one cleartext port, HTTP/1.1 and h2 on one TLS port, and two more pairs
# for the HTTP/2 cases (4 concurrent streams; a 1 KB initial stream
# window). /close sets "Connection: close", which Go's HTTP/2 server
# turns into a GOAWAY; h2:goaway does so on every 5th request of a
# connection. Sourced by interop/run.sh.

go_packages="golang-go golang-golang-x-net-dev"
go_protos="h1 h1s h2c h2"
go_gopath=/usr/share/gocode

go_bin() {
	[[ -d $go_gopath/src/golang.org/x/net/http2/h2c ]] || return 1
	command -v go
}

# go_build: the server binary, built once per run into $IOP_TMP/go.
go_build() {
	local out=$IOP_TMP/go/server
	[[ -x $out ]] && return 0
	mkdir -p "$IOP_TMP/go"
	(cd "$IOP_TMP/go" && env GO111MODULE=off GOPATH="$go_gopath" GOPROXY=off GOFLAGS= \
		GOCACHE="$IOP_TMP/go/cache" GOTOOLCHAIN=local CGO_ENABLED=0 \
		"$(go_bin)" build -o "$out" "$IOP_HOME/go/server.go") >"$IOP_TMP/go/build.log" 2>&1
}

go_start() {
	local dir=$1 plain tls sp st wp wt ep
	IOP_SERVER_LOGS="$IOP_TMP/go/build.log"
	go_build || return 1
	iop_pick_port plain && iop_pick_port tls && iop_pick_port sp && iop_pick_port st &&
		iop_pick_port wp && iop_pick_port wt || return 1
	iop_big_headers 'X-Big-%02d: %s' >"$dir/bigheaders.txt"
	iop_spawn "$dir/server.log" "$IOP_TMP/go/server" -docroot "$IOP_DOCROOT" \
		-headers "$dir/bigheaders.txt" -cert "$IOP_CERT" -key "$IOP_KEY" \
		-plain "127.0.0.1:$plain" -tls "127.0.0.1:$tls" \
		-streams-plain "127.0.0.1:$sp" -streams-tls "127.0.0.1:$st" -max-streams 4 \
		-window-plain "127.0.0.1:$wp" -window-tls "127.0.0.1:$wt" -window 1024 \
		-goaway-after 5
	IOP_SERVER_LOGS="$dir/server.log"
	iop_wait_ready "$IOP_LAST_PID" 10 "tcp:$plain" "tcp:$tls" "tcp:$sp" "tcp:$st" \
		"tcp:$wp" "tcp:$wt" || return 1

	for ep in / /1m /bigheaders /close /echo; do
		iop_url h1 "$ep" "http://127.0.0.1:$plain$ep"
		iop_url h1s "$ep" "https://127.0.0.1:$tls$ep"
		iop_url h2c "$ep" "http://127.0.0.1:$plain$ep"
		iop_url h2 "$ep" "https://127.0.0.1:$tls$ep"
	done
	iop_url h2c h2:streams "http://127.0.0.1:$sp/"
	iop_url h2 h2:streams "https://127.0.0.1:$st/"
	iop_url h2c h2:window "http://127.0.0.1:$wp/echo"
	iop_url h2 h2:window "https://127.0.0.1:$wt/echo"
	iop_url h2c h2:goaway "http://127.0.0.1:$plain/goaway"
	iop_url h2 h2:goaway "https://127.0.0.1:$tls/goaway"
}
