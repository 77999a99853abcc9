# shellcheck shell=bash disable=SC2034 # the variables are read by run.sh
# Go's google.golang.org/grpc (1.33, Debian's golang-google-grpc-dev):
# server.go, built here at run time and offline like interop/go's server
# (GOPATH mode over /usr/share/gocode, GOPROXY=off), with a codec that
# passes message bytes through, so no protoc is needed. It serves
# shb.interop.Echo/Echo (the request back), /Fail (INVALID_ARGUMENT) and
# the streaming /Stream, /Collect and /Chat over h2c on one port and TLS
# on another. Sourced by interop/run.sh.

grpcgo_packages="golang-go golang-google-grpc-dev"
grpcgo_protos="grpc grpcs"
grpcgo_gopath=/usr/share/gocode

grpcgo_bin() {
	[[ -d $grpcgo_gopath/src/google.golang.org/grpc/credentials ]] || return 1
	command -v go
}

# grpcgo_build: the server binary, built once per run into $IOP_TMP/grpcgo;
# the Go build cache is shared with interop/go's build of the same run.
grpcgo_build() {
	local out=$IOP_TMP/grpcgo/server
	[[ -x $out ]] && return 0
	mkdir -p "$IOP_TMP/grpcgo"
	(cd "$IOP_TMP/grpcgo" && env GO111MODULE=off GOPATH="$grpcgo_gopath" GOPROXY=off GOFLAGS= \
		GOCACHE="$IOP_TMP/go/cache" GOTOOLCHAIN=local CGO_ENABLED=0 \
		"$(grpcgo_bin)" build -o "$out" "$IOP_HOME/grpcgo/server.go") >"$IOP_TMP/grpcgo/build.log" 2>&1
}

grpcgo_start() {
	local dir=$1 plain tls
	IOP_SERVER_LOGS="$IOP_TMP/grpcgo/build.log"
	grpcgo_build || return 1
	iop_pick_port plain && iop_pick_port tls || return 1
	iop_spawn "$dir/server.log" "$IOP_TMP/grpcgo/server" -plain "127.0.0.1:$plain" \
		-tls "127.0.0.1:$tls" -cert "$IOP_CERT" -key "$IOP_KEY"
	IOP_SERVER_LOGS="$dir/server.log"
	iop_wait_ready "$IOP_LAST_PID" 10 "tcp:$plain" "tcp:$tls" || return 1
	iop_url grpc grpc:echo "grpc://127.0.0.1:$plain/shb.interop.Echo/Echo"
	iop_url grpc grpc:fail "grpc://127.0.0.1:$plain/shb.interop.Echo/Fail"
	iop_url grpc grpc:1m "grpc://127.0.0.1:$plain/shb.interop.Echo/Echo"
	iop_url grpc grpc:stream "grpc://127.0.0.1:$plain/shb.interop.Echo/Stream"
	iop_url grpc grpc:client "grpc://127.0.0.1:$plain/shb.interop.Echo/Collect"
	iop_url grpc grpc:bidi "grpc://127.0.0.1:$plain/shb.interop.Echo/Chat"
	iop_url grpcs grpc:echo "grpcs://127.0.0.1:$tls/shb.interop.Echo/Echo"
	iop_url grpcs grpc:fail "grpcs://127.0.0.1:$tls/shb.interop.Echo/Fail"
	iop_url grpcs grpc:1m "grpcs://127.0.0.1:$tls/shb.interop.Echo/Echo"
	iop_url grpcs grpc:stream "grpcs://127.0.0.1:$tls/shb.interop.Echo/Stream"
	iop_url grpcs grpc:client "grpcs://127.0.0.1:$tls/shb.interop.Echo/Collect"
	iop_url grpcs grpc:bidi "grpcs://127.0.0.1:$tls/shb.interop.Echo/Chat"
}
