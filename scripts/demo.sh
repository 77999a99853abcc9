#!/usr/bin/env bash
# The main job: build shb, start the built-in loopback target (a small
# HTTP/1.1 server from the test harness) and load it for a few seconds.
#   scripts/demo.sh [extra shb options]     e.g. scripts/demo.sh -c 100 -z 10s
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh"
cd "$root"

portfile=$(mktemp)
build/tests/harness/shb-testserver --port 0 --port-file "$portfile" >/dev/null &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -f "$portfile"' EXIT
for _ in $(seq 100); do
	[ -s "$portfile" ] && break
	sleep 0.05
done
port=$(cat "$portfile")
[ -n "$port" ] || { echo "demo: the loopback target did not start" >&2; exit 1; }

export SHB_PLUGIN_PATH="$root/build/plugins/h1:$root/build/plugins/reporters"
build/core/shb -c 50 -z 5s "$@" "http://127.0.0.1:$port/"
