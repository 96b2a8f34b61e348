#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Builds the Debian packages into build/pkg/, from a copy of the checkout
# (dpkg-buildpackage writes beside the source tree, and cleans it).
#
#   selftests/pkg/build-debs.sh [KVER]
#
# With KVER, also fills build/pkg/ccache: the compiler cache of DKMS's
# build of rds-dkms for KVER, done here as DKMS does it in the guest, at
# the same path, with the same flags. Under TCG each of our 40 files takes
# the guest's compiler 20 to 30 s; from the cache, DKMS's build in the
# guest (pkg_debs.sh) takes a few minutes, and is otherwise the same:
# dkms.conf's make, kbuild, modpost, objtool and BTF all run there.
# Debian's kernel headers put ccache in front of the compiler when
# DEBIAN_KERNEL_USE_CCACHE is set (their .kernelvariables).

set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/build/pkg
kver=${1:-}

rm -rf "$out"
mkdir -p "$out/src"
rsync -a --exclude=/build --exclude=/.git "$root/" "$out/src/"
(cd "$out/src" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1 ||
	{ tail -n 30 "$out/build.log"; exit 1; }
rm -rf "$out/src"
ls "$out"/*.deb
[ -n "$kver" ] || exit 0

# DKMS's tree is /var/lib/dkms: a tmpfs over it, in a mount namespace of
# our own, gives the build its path without touching the host's DKMS.
version=$(dpkg-deb -f "$out"/rds-dkms_*_all.deb Version)
version=${version%-*}
export out kver version
ns=(unshare -m --propagation private)
[ "$(id -u)" = 0 ] || ns=(unshare -r -m --propagation private)
"${ns[@]}" bash -eu -c '
	tree=/var/lib/dkms/rds/$version/build
	mkdir -p /var/lib/dkms
	mount -t tmpfs tmpfs /var/lib/dkms
	dpkg-deb -x "$out"/rds-dkms_*_all.deb "$out/x"
	mkdir -p "$tree"
	cp -a "$out/x/usr/src/rds-$version/." "$tree/"
	rm -rf "$out/x"
	cd "$tree"
	# dkms.conf'"'"'s own make line, as dkms runs it: the cache only hits
	# for the very flags the guest'"'"'s DKMS will pass.
	kernel_source_dir=/lib/modules/$kver/build dkms_tree=/var/lib/dkms
	. ./dkms.conf
	export LC_ALL=C LANG=C DEBIAN_KERNEL_USE_CCACHE=1 CCACHE_DIR="$out/ccache"
	eval "${MAKE[0]/#make/make -j$(nproc) KERNELRELEASE=$kver}"
	# The guest'"'"'s ccache -s then counts only the guest'"'"'s compiles.
	ccache -z
' >"$out/ccache.log" 2>&1 || { tail -n 30 "$out/ccache.log"; exit 1; }
