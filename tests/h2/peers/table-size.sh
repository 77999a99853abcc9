#!/bin/bash
# shb --proto h2 against a peer that lowers SETTINGS_HEADER_TABLE_SIZE
# below the default 4096: the first header block shb sends after ACKing
# those SETTINGS must begin with a dynamic table size update to the new
# size (RFC 7541 Section 4.2), exactly once per connection; a block
# without it is reset with COMPRESSION_ERROR, which would show as errors.
# A size that does not lower the table must not produce an update.
# shellcheck disable=SC2154 # NAME_URL: set by start_h2peer
source "$(dirname "$0")/lib.sh"

# table_run NAME SIZE N SHB_ARGS...: -n N against a peer announcing SIZE.
table_run() {
	local name=$1 size=$2 n=$3 url="${1}_URL"
	shift 3
	start_h2peer "$name" "table-size $size"
	run_shb "$name" --proto h2 -n "$n" "$@" "${!url}"
	expect_rc "$name" 0
	counts "$name" "$n"
	stop_h2peer "$name"
	peer_check "$name" "answered == $n" 'missingUpdates == 0' \
		'resetsSent == 0' 'clientResets == 0' 'clientGoawayErrors == 0'
	same "$name" connectionsOpened "$name" connections
	same_bytes "$name" "$name"
}

# One update per connection: 0x20 (size 0, one octet).
table_run t0 0 300 -c 3 -p 4
peer_check t0 'sizeUpdates == 3' 'connections == 3'
# Sizes that need more octets: 100 is 3f 45; 4095 is 3f e0 1f. Each
# connection's request stream is that much longer than without.
table_run t100 100 200 -c 2 -p 8
peer_check t100 'sizeUpdates == 2'
table_run t4095 4095 100 -c 1 -p 1
peer_check t4095 'sizeUpdates == 1'
# Not lower than 4096: no update at all.
table_run t4096 4096 100 -c 2 -p 2
peer_check t4096 'sizeUpdates == 0'
table_run t8192 8192 100 -c 2 -p 2
peer_check t8192 'sizeUpdates == 0'
# The same requests with and without the update differ by its octets.
table_run base 4096 100 -c 1 -p 1
table_run t31 31 100 -c 1 -p 1
[[ $(( $(get t31 bytesSent) - $(get base bytesSent) )) -eq 2 ]] ||
	fail "a size update to 31 (3f 00) is not exactly 2 octets more"
note "passed"
