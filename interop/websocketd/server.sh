# shellcheck shell=bash disable=SC2034 # the variables are read by run.sh
# websocketd (Go, gorilla/websocket) running `cat` for each connection:
# one websocketd for ws, one with --ssl for wss. In its default text mode
# websocketd writes each text message to the program as a line and sends
# each line back as a message, and drops binary messages; shb sends
# binary messages (-d), so it runs with --binary: the message's octets go
# to cat's stdin and each read of cat's stdout goes back as one binary
# message. That is a byte stream, not messages: two messages in flight
# come back as one. So shb keeps one message in flight per connection
# here (-p 1). Sourced by interop/run.sh.

websocketd_packages="websocketd"
websocketd_protos="ws wss"

websocketd_bin() {
	command -v websocketd
}

websocketd_start() {
	local dir=$1 plain tls p
	iop_pick_port plain && iop_pick_port tls || return 1
	IOP_SERVER_LOGS="$dir/plain.log $dir/tls.log"
	iop_spawn "$dir/plain.log" "$(websocketd_bin)" --address 127.0.0.1 --port "$plain" \
		--binary --loglevel error cat
	iop_wait_ready "$IOP_LAST_PID" 10 "tcp:$plain" || return 1
	iop_spawn "$dir/tls.log" "$(websocketd_bin)" --address 127.0.0.1 --port "$tls" \
		--ssl --sslcert "$IOP_CERT" --sslkey "$IOP_KEY" --binary --loglevel error cat
	iop_wait_ready "$IOP_LAST_PID" 10 "tcp:$tls" || return 1
	for p in ws wss; do
		iop_parallel "$p" 1
		iop_na "$p" ws:close "websocketd closes a connection only when its program exits, and cannot count messages (a byte stream in --binary mode)"
	done
	iop_url ws ws:echo "ws://127.0.0.1:$plain/"
	iop_url ws ws:64k "ws://127.0.0.1:$plain/"
	iop_url wss ws:echo "wss://127.0.0.1:$tls/"
	iop_url wss ws:64k "wss://127.0.0.1:$tls/"
}
