#!/usr/bin/env bash
# Installs what building and testing shb needs (Debian 12 packages), then
# configures and builds into ./build. Sourced or run by demo.sh and test.sh.
#   scripts/setup.sh [--with-test-servers] [--with-bench]
# --with-test-servers installs every server, client and tool any test needs, so
# that nothing is installed in the middle of a test run and no test skips
# for want of a package: the end-to-end tests (tests/e2e, tests/h2,
# tests/h3/e2e) and the interop suite (interop/<server>/server.sh names
# each server's packages; keep this list in step with them).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
pkgs=(gcc g++ meson ninja-build pkgconf liburing-dev libgnutls28-dev libjansson-dev
      libcunit1-dev libevent-dev bash-completion libncurses-dev libluajit-5.1-dev)
bun=0
hdrjs=0
for arg in "$@"; do
	case "$arg" in
	--with-test-servers)
		pkgs+=(coreutils openssl nginx-light nghttp2-server caddy ngtcp2-server
		       ngtcp2-client apache2 h2o haproxy lighttpd lighttpd-mod-openssl varnish
		       golang-go golang-golang-x-net-dev nodejs python3-hypercorn
		       trafficserver jetty9 default-jdk-headless websocketd
		       golang-google-grpc-dev)
		# tests/e2e/proxy.sh: a forward proxy (started with its own
		# configuration and ports; the package's service does not matter).
		pkgs+=(squid)
		# tests/e2e/prom.sh: a Prometheus (its remote-write receiver)
		# started on its own port, configuration and data directory; the
		# package's service does not matter.
		pkgs+=(prometheus)
		# tests/e2e/tui.sh: shb --tui in a tmux pane, read with capture-pane.
		pkgs+=(tmux)
		# tests/e2e/ring-only-fds.sh: ss, the server's open connections.
		pkgs+=(iproute2)
		# tests/e2e/html.sh: the html report rendered by a headless browser.
		pkgs+=(chromium)
		# scripts/deb-check.sh: builds, lints and installs the packages
		# (dpkg-buildpackage checks for build-essential, which a fresh
		# machine does not have: gcc and g++ alone do not satisfy it).
		pkgs+=(build-essential debhelper dpkg-dev fakeroot lintian)
		# The fuzz smoke run in test.sh: clang and its libFuzzer runtime
		# (only recommended by clang, and recommends are not installed).
		pkgs+=(clang libclang-rt-14-dev)
		# scripts/analyze.sh in test.sh: clang's analyzer (scan-build).
		pkgs+=(clang-tools-14)
		# tests/report/check_schema.py: the JSON reports against the schema.
		pkgs+=(python3-jsonschema)
		# tests/e2e/slurm.sh: a one-machine Slurm cluster (munged,
		# slurmctld, slurmd in the foreground, their own configuration).
		pkgs+=(slurm-wlm munge)
		# tests/deploy/k8s.sh: the Kubernetes manifests linted (and read
		# as YAML through yamllint's python3-yaml).
		pkgs+=(yamllint)
		# tests/h3/e2e/h3-tls.sh: decrypts shb's QUIC Initial packets.
		pkgs+=(python3-cryptography)
		# sdk/examples/websocket: its tests' echo server.
		pkgs+=(python3-websockets)
		# tests/docs/bench.sh: the bench/ scripts linted.
		pkgs+=(shellcheck)
		# sdk/examples/grpc: its tests' gRPC server.
		pkgs+=(python3-grpcio)
		# sdk/examples/redis: its tests' server, and redis-cli to read
		# the counts back (redis-tools comes with redis-server).
		pkgs+=(redis-server redis-tools)
		# sdk/examples/dns and interop/dnsmasq: the DNS server (the
		# dnsmasq binary alone, without the system service of Debian's
		# dnsmasq package).
		pkgs+=(dnsmasq-base)
		# tests/e2e/h2-fp.sh: its observer decodes header blocks with
		# hpack, and Debian's own curl is checked against the curl profile.
		pkgs+=(python3-hpack curl)
		# bun (tests/h3/servers/bun.sh) comes from npm; npm from Debian
		# unless some npm is already there (NodeSource's nodejs has one).
		bun=1
		command -v npm >/dev/null || pkgs+=(npm)
		# tests/e2e/hdr-js.sh: HdrHistogram's JavaScript decoder, and
		# tests/deploy/k8s.sh: Kubernetes' OpenAPI schemas compiled by
		# kubernetes-models (npm), into a cache outside the tree.
		hdrjs=1
		;;
	--with-bench) pkgs+=(nginx-light wrk nghttp2-client apache2-utils time)
		# bench/redis.sh: redis-server and redis-benchmark.
		pkgs+=(redis-server redis-tools)
		# bench/dns.sh: dnsmasq and dnsperf.
		pkgs+=(dnsmasq-base dnsperf) ;;
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
if ((bun)) && ! command -v bun >/dev/null; then
	echo "setup: installing bun (npm install -g bun)" >&2
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	$sudo npm install -g --no-fund --no-audit bun >/dev/null
	command -v bun >/dev/null || { echo "setup: bun is not on PATH after npm install -g bun" >&2; exit 1; }
fi
node_dir=${XDG_CACHE_HOME:-$HOME/.cache}/shb-test/node
# One npm install for both: another one without a package.json would
# remove what the first put there.
if ((hdrjs)) && { [ ! -f "$node_dir/node_modules/hdr-histogram-js/package.json" ] ||
	[ ! -f "$node_dir/node_modules/kubernetes-models/package.json" ]; }; then
	echo "setup: installing hdr-histogram-js and kubernetes-models into $node_dir (npm)" >&2
	mkdir -p "$node_dir"
	npm install --prefix "$node_dir" --no-fund --no-audit --no-save \
		hdr-histogram-js@3.0.1 kubernetes-models@5.1.0 >/dev/null
fi

cd "$root"
if [ ! -f build/build.ninja ]; then
	meson setup build --buildtype=release -Db_lto=true >/dev/null
fi
ninja -C build >/dev/null
