#!/usr/bin/env bash
# Installs what building and testing shb needs (Debian 12 packages), then
# configures and builds into ./build. Sourced or run by demo.sh and test.sh.
#   scripts/setup.sh [--with-test-servers] [--with-bench]
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
pkgs=(gcc meson ninja-build pkgconf liburing-dev libgnutls28-dev libjansson-dev
      libcunit1-dev libevent-dev)
for arg in "$@"; do
	case "$arg" in
	--with-test-servers) pkgs+=(nginx-light openssl caddy ngtcp2-server ngtcp2-client) ;;
	--with-bench) pkgs+=(nginx-light wrk nghttp2-client time) ;;
	*) echo "setup.sh: unknown option $arg" >&2; exit 2 ;;
	esac
done

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
if ((${#missing[@]})); then
	echo "setup: installing ${missing[*]}" >&2
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq
	# nginx's package starts a system service where systemd runs; the tests
	# start their own instances on other ports, so that does not matter.
	$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cd "$root"
if [ ! -f build/build.ninja ]; then
	meson setup build --buildtype=release >/dev/null
fi
ninja -C build >/dev/null
