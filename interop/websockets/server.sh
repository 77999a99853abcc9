# shellcheck shell=bash disable=SC2034 # the variables are read by run.sh
# python3-websockets (asyncio, the server of the SDK's WebSocket example's
# own tests): server.py echoes every message, over ws on one port and wss
# on another; /close ends the connection with close code 1000 after the
# 5th answer. Every run is also checked from the server's side: each of
# its connections ended with a close handshake, the client's close code
# 1000 (websockets_check). Sourced by interop/run.sh.

websockets_packages="python3-websockets"
websockets_protos="ws wss"

websockets_bin() {
	/usr/bin/python3 -c 'import websockets' || return 1
	echo /usr/bin/python3
}

websockets_start() {
	local dir=$1 plain tls
	iop_pick_port plain && iop_pick_port tls || return 1
	# No bytecode written next to server.py, in the source tree.
	websockets_closes=$dir/closes
	: >"$websockets_closes"
	iop_spawn "$dir/server.log" env PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 \
		"$IOP_HOME/websockets/server.py" "$plain" "$tls" "$IOP_CERT" "$IOP_KEY" \
		"$websockets_closes"
	IOP_SERVER_LOGS="$dir/server.log"
	iop_wait_ready "$IOP_LAST_PID" 15 "tcp:$plain" "tcp:$tls" || return 1
	iop_url ws ws:echo "ws://127.0.0.1:$plain/"
	iop_url ws ws:64k "ws://127.0.0.1:$plain/"
	iop_url ws ws:close "ws://127.0.0.1:$plain/close"
	iop_url wss ws:echo "wss://127.0.0.1:$tls/"
	iop_url wss ws:64k "wss://127.0.0.1:$tls/"
	iop_url wss ws:close "wss://127.0.0.1:$tls/close"
}

# websockets_check PROTO ENDPOINT JSON: after a run that passed, prints
# why it fails from the server's side, or nothing. The server has logged
# one close code per connection that ended after its upgrade: every one
# must be 1000, the client's close frame after shb's last message or in
# answer to the server's (ws:close). On ws:echo and ws:64k nothing makes
# shb reconnect, so the server must have seen every connection shb opened
# (connectionsOpened). On ws:close the server closes after 5 answers and
# shb resends what was in flight on new connections: one of those may
# still be in its TLS handshake when the last request ends, or not have
# sent its upgrade yet, and shb then drops it without an upgrade the
# server could log (one whose upgrade went out waits for the 101 and
# closes with 1000). There the server must have seen at least the 40
# connections that 200 answers take, and no more than shb opened.
websockets_check() {
	local opened got i codes least
	# shellcheck disable=SC2154 # jcheck: run.sh's JSON checker
	opened=$("$jcheck" --get "$3" connectionsOpened) || { echo "no connectionsOpened in the report"; return; }
	least=$opened
	[[ $2 == ws:close ]] && least=40
	# The server writes the line once the connection is gone; shb may
	# have exited a moment before.
	for ((i = 0; i < 100; i++)); do
		got=$(wc -l <"$websockets_closes")
		((got >= opened)) && break
		sleep 0.05
	done
	codes=$(sort "$websockets_closes" | uniq -c | awk '{ printf "%s%s x%s", (NR > 1 ? ", " : ""), $2, $1 }')
	: >"$websockets_closes"
	if ((got < least || got > opened)); then
		echo "the server saw $got connections end, shb opened $opened (close codes: ${codes:-none})"
	elif [[ $codes != "1000 x$got" ]]; then
		echo "close codes the server received: $codes (want 1000 x$got)"
	fi
}
