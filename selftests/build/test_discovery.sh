#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 5
# rds-test: source-only
#
# The Makefile's kernel discovery as a fresh machine sees it. `make check` and
# `make run` install the kernel headers first and then start a new make, which
# must find them: a make that exported the empty KVER/KDIR it had computed
# before the install once made every first run fail. Each case builds a
# made-up root (SYSROOT) and a DEPS step standing in for install-deps.sh.

. "$(dirname "$0")/../lib.sh"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# fake_kernel ROOT VERSION [image]: the headers of VERSION as Debian lays them
# out (and its kernel image too, with "image").
fake_kernel() {
	local hdr=$1/usr/src/linux-headers-$2

	mkdir -p "$hdr/include/generated" "$1/boot"
	echo "#define UTS_RELEASE \"$2\"" >"$hdr/include/generated/utsrelease.h"
	[ "${3:-}" = image ] && touch "$1/boot/vmlinuz-$2"
	return 0
}

# found ROOT [MAKE_ARGS...]: what `make kernel-info` prints, on one line.
found() {
	local root=$1
	shift
	make -s -C "$RDS_ROOT" SYSROOT="$root" "$@" kernel-info 2>&1 | tr '\n' ' '
}

# expect DESC WANT GOT: one test point.
expect() {
	if [ "$2" = "$3" ]; then
		ktap_ok "$1"
	else
		echo "# want: $2"
		echo "# got:  $3"
		ktap_fail "$1"
	fi
}

ktap_plan 8

r=$tmp/fresh
mkdir -p "$r"
{
	declare -f fake_kernel
	echo "fake_kernel $r 6.1.0-99-amd64 image"
} >"$tmp/deps.sh"
expect "headers installed by the deps step are found by the next make" \
	"KVER=6.1.0-99-amd64 KDIR=$r/usr/src/linux-headers-6.1.0-99-amd64 " \
	"$(found "$r" DEPS="bash $tmp/deps.sh")"

# A parent that exports empty values (as the old Makefile did) must not blind us.
expect "empty KVER and KDIR in the environment are ignored" \
	"KVER=6.1.0-99-amd64 KDIR=$r/usr/src/linux-headers-6.1.0-99-amd64 " \
	"$(KVER='' KDIR='' found "$r" DEPS=true)"

r=$tmp/two
fake_kernel "$r" 6.1.0-9-amd64 image
fake_kernel "$r" 6.1.0-10-amd64 image
fake_kernel "$r" 6.1.0-11-amd64
expect "the newest headers with a bootable image win, in version order" \
	"KVER=6.1.0-10-amd64 KDIR=$r/usr/src/linux-headers-6.1.0-10-amd64 " \
	"$(found "$r" DEPS=true)"

expect "KVER on the command line wins" \
	"KVER=6.1.0-9-amd64 KDIR=$r/lib/modules/6.1.0-9-amd64/build " \
	"$(found "$r" DEPS=true KVER=6.1.0-9-amd64)"

expect "KDIR on the command line gives its own KVER" \
	"KVER=6.1.0-11-amd64 KDIR=$r/usr/src/linux-headers-6.1.0-11-amd64 " \
	"$(found "$r" DEPS=true KDIR="$r/usr/src/linux-headers-6.1.0-11-amd64")"

r=$tmp/series
fake_kernel "$r" 6.1.0-10-amd64 image
fake_kernel "$r" 6.12.38+deb12-amd64 image
expect "a newer series installed beside 6.1 is used only when asked for" \
	"KVER=6.1.0-10-amd64 KDIR=$r/usr/src/linux-headers-6.1.0-10-amd64 " \
	"$(found "$r" DEPS=true)"

r=$tmp/empty
mkdir -p "$r"
out=$(make -s -C "$RDS_ROOT" SYSROOT="$r" BUILD="$tmp/build" modules 2>&1)
rc=$?
if [ $rc != 0 ] && grep -q 'apt-get install linux-headers-amd64' <<<"$out"; then
	ktap_ok "no headers: make modules stops and names the package"
else
	echo "$out" | sed 's/^/# /'
	ktap_fail "no headers: make modules stops and names the package (exit $rc)"
fi

out=$(RDS_DEPS_PACKAGES="rds-no-such-package" \
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
	"$RDS_ROOT/selftests/vm/install-deps.sh" 2>&1)
rc=$?
if [ $rc != 0 ] && grep -q 'apt-get install -y --no-install-recommends rds-no-such-package$' <<<"$out"; then
	ktap_ok "not root, a package missing: install-deps fails with the apt-get line"
else
	echo "$out" | sed 's/^/# /'
	ktap_fail "not root, a package missing: install-deps fails with the apt-get line (exit $rc)"
fi

ktap_finished
