# shellcheck shell=bash disable=SC2034 # the variables are read by run.sh
# python3-grpcio (gRPC's C core under Python, the server of the SDK's gRPC
# example's own tests): server.py serves shb.interop.Echo/Echo (the
# request back), /Fail (INVALID_ARGUMENT) and the streaming /Stream,
# /Collect and /Chat over h2c on one port and TLS on another. Sourced by interop/run.sh.

grpcio_packages="python3-grpcio"
grpcio_protos="grpc grpcs"

grpcio_bin() {
	/usr/bin/python3 -c 'import grpc' || return 1
	echo /usr/bin/python3
}

grpcio_start() {
	local dir=$1 plain tls
	iop_pick_port plain && iop_pick_port tls || return 1
	iop_spawn "$dir/server.log" env PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 \
		"$IOP_HOME/grpcio/server.py" "$plain" "$tls" "$IOP_CERT" "$IOP_KEY"
	IOP_SERVER_LOGS="$dir/server.log"
	iop_wait_ready "$IOP_LAST_PID" 15 "tcp:$plain" "tcp:$tls" || return 1
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
