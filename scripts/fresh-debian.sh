#!/usr/bin/env bash
# The README's Quick start on a fresh Debian 12 system: a chroot made with
# debootstrap, a clean clone of this repository's HEAD in it, then
# scripts/demo.sh and scripts/test.sh inside it as root, each with its log.
#
# CI runs on a machine that keeps what was ever installed on it, so it
# cannot tell that a fresh one would fail. This can: a package only the
# developer's machine had (build-essential), a newer release of a server
# than Debian's (nodejs 20 from elsewhere against Debian's 18), a stock
# /etc/hosts where localhost is ::1 first. Run it before saying that
# something works on a fresh machine.
#
#   sudo scripts/fresh-debian.sh [--dir DIR] [--mirror URL]
#       [--copy SRC[:DEST]]... [--demo-only]
#
# The chroot shares the machine's kernel, network and loopback: the tests'
# servers bind loopback ports as they would anywhere. Package daemons are
# kept from starting (policy-rc.d): a fresh machine would start them under
# systemd, and none of the tests uses them. The chroot stays on disk (its
# path is printed; remove it once nothing is mounted in it).
set -euo pipefail

prog=fresh-debian.sh
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir="" mirror=http://deb.debian.org/debian demo_only=0
copies=()

usage() {
	cat <<'EOF'
Usage: sudo scripts/fresh-debian.sh [options]

Makes a Debian 12 chroot with debootstrap, clones this repository's HEAD
into it (committed work only) and runs ./scripts/demo.sh, then
./scripts/test.sh, inside it as root. Exit status: test.sh's (demo.sh's
with --demo-only), 2 for bad options.

Options:
  --dir DIR          where the chroot goes (new, or empty; default: a new
                     directory under /var/tmp)
  --mirror URL       the Debian mirror, ending in /debian; the security
                     updates come from the same host's /debian-security
                     (default: http://deb.debian.org/debian)
  --copy SRC[:DEST]  copy a file of this machine into the chroot (to DEST,
                     default the same path) before anything is installed
                     there: what a site needs to reach its mirrors and
                     registries (apt proxy settings, apt sources, npmrc).
                     A certificate copied under /usr/local/share/ca-certificates
                     is added to the chroot's trusted ones. Repeatable.
  --demo-only        run scripts/demo.sh only
  -h, --help         print this help and exit
EOF
}

die() {
	echo "$prog: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	-h | --help) usage; exit 0 ;;
	--demo-only) demo_only=1; shift; continue ;;
	--dir | --mirror | --copy) [ $# -ge 2 ] || die "option $1 needs a value" ;;
	*) die "unknown option '$1' (try --help)" ;;
	esac
	case $1 in
	--dir) dir=$2 ;;
	--mirror) mirror=$2 ;;
	--copy) copies+=("$2") ;;
	esac
	shift 2
done
[[ $mirror == */debian ]] || die "--mirror $mirror: expected a URL ending in /debian"
for c in "${copies[@]}"; do
	[ -f "${c%%:*}" ] || die "--copy ${c%%:*}: no such file"
done
[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap, chroot and mounts need it)"
if [ -z "$dir" ]; then
	dir=$(mktemp -d /var/tmp/shb-fresh.XXXXXX)
elif [ -e "$dir" ] && [ -n "$(ls -A "$dir")" ]; then
	die "--dir $dir is not empty"
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null ||
	die "debootstrap is not installed and could not be (apt-get install debootstrap)"

# Everything the chroot runs ends with the script, and nothing stays
# mounted: processes whose root is the chroot are killed, then the mounts
# go, innermost first.
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$dir" ] && kill -9 "${p#/proc/}" 2>/dev/null
	done
	umount -R "$dir/dev" 2>/dev/null || umount -lR "$dir/dev" 2>/dev/null || true
	umount -R "$dir/sys" 2>/dev/null || umount -lR "$dir/sys" 2>/dev/null || true
	umount "$dir/proc" 2>/dev/null || umount -l "$dir/proc" 2>/dev/null || true
}
trap cleanup EXIT

in_chroot() { # command line, run by bash as a root login would
	chroot "$dir" /usr/bin/env -i HOME=/root TERM="${TERM:-xterm}" LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		bash -lc "$1"
}

say() { echo "$prog: $*" >&2; }

say "debootstrap bookworm into $dir from $mirror"
debootstrap bookworm "$dir" "$mirror" >"$dir.debootstrap.log" 2>&1 ||
	{ tail -5 "$dir.debootstrap.log" >&2; echo "$prog: debootstrap failed (log: $dir.debootstrap.log)" >&2; exit 1; }
# What the Debian installer writes: localhost is ::1 as well.
grep -q '^::1' "$dir/etc/hosts" 2>/dev/null ||
	printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\nff02::1\t\tip6-allnodes\nff02::2\t\tip6-allrouters\n' \
		>"$dir/etc/hosts"
# And the installer's sources: security updates and stable updates too
# (debootstrap's list has the release alone).
printf 'deb %s bookworm main\ndeb %s bookworm-updates main\ndeb %s bookworm-security main\n' \
	"$mirror" "$mirror" "${mirror%/debian}/debian-security" >"$dir/etc/apt/sources.list"
cp /etc/resolv.conf "$dir/etc/resolv.conf"
printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d"
chmod 755 "$dir/usr/sbin/policy-rc.d"
certs=0
for c in "${copies[@]}"; do
	src=${c%%:*}
	dst=$src
	[[ $c != *:* ]] || dst=${c#*:}
	mkdir -p "$dir$(dirname "$dst")"
	cp "$src" "$dir$dst"
	[[ $dst != /usr/local/share/ca-certificates/* ]] || certs=1
done

mount -t proc proc "$dir/proc"
mount --rbind /sys "$dir/sys"
mount --rbind /dev "$dir/dev"

say "git and ca-certificates (a fresh machine needs some way to get the code)"
in_chroot 'apt-get update -qq && apt-get install -y -qq git ca-certificates' >"$dir/root/base.log" 2>&1 ||
	{ tail -5 "$dir/root/base.log" >&2; echo "$prog: installing git failed" >&2; exit 1; }
[ "$certs" -eq 0 ] || in_chroot 'update-ca-certificates' >>"$dir/root/base.log" 2>&1
git clone -q --no-local "$root" "$dir/root/shb"
say "testing $(git -C "$dir/root/shb" log -1 --format='%h %s')"

run_step() { # name command summary-pattern
	local t0 rc=0
	t0=$(date +%s)
	in_chroot "cd /root/shb && $2" >"$dir/root/$1.log" 2>&1 || rc=$?
	say "$2: exit $rc after $(($(date +%s) - t0)) s (log: $dir/root/$1.log)"
	grep -E "$3" "$dir/root/$1.log" | tail -n 1 >&2 || true
	return "$rc"
}
# The demo's report line, and the test script's closing count.
run_step demo ./scripts/demo.sh '^Requests: ' || exit $?
[ "$demo_only" -eq 1 ] && exit 0
rc=0
run_step test ./scripts/test.sh ' passed, [0-9]+ failed, [0-9]+ skipped$' || rc=$?
say "the chroot stays in $dir (nothing is mounted in it after this script)"
exit "$rc"
