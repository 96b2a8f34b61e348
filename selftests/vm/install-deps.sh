#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Installs the Debian 12 packages that building and testing need, when some are
# missing (a fresh machine), and does nothing when all are there. Not root and
# something missing: prints the apt-get line to run and fails, so that the
# user learns it now rather than from a build error later.
#
# RDS_DEPS_EXTRA adds to the list (make bench: iperf3, sockperf, gnuplot);
# RDS_DEPS_PACKAGES replaces it (selftests/build/ uses it).
#
# A kernel other than the default 6.1 series adds its packages: RDS_KVER (the
# Makefile's KVER, when given) a Debian flavour such as 6.12.117+deb12-amd64
# adds that image and its headers; RDS_SERIES (SERIES=6.12) adds the
# series' metapackages, whose newest version the Makefile then builds for.
# Other KVERs (the debug kernel) are installed by whoever asks for them.

# ibverbs-providers: without rxe's provider librdmacm sees no device, and
# the rdma_cm peer of the IB tests (selftests/ib/rdmacm_peer.py) cannot
# start; libibverbs1 only recommends it. iptables: its legacy tables drop
# one peer's packets in ib/test_ib_deadpeer.sh, on every kernel.
packages=(
	make gcc libc6-dev linux-libc-dev sparse rsync xz-utils cpio kmod
	linux-image-amd64 linux-headers-amd64 linux-source-6.1
	qemu-system-x86 busybox-static
	iproute2 iputils-ping procps python3 rdma-core ibverbs-utils
	ibverbs-providers librdmacm1 iptables
	trinity
)
# The package test (check.sh) builds the .debs and installs them; ccache
# carries the host's compile of the modules to DKMS in the guest.
[ "${RDS_PKG_TEST:-1}" = 1 ] && packages+=(dkms debhelper dh-dkms dpkg-dev fakeroot ccache)
case "${RDS_KVER:-}" in
*-amd64) packages+=("linux-image-$RDS_KVER" "linux-headers-$RDS_KVER") ;;
esac
if [ -n "${RDS_SERIES:-}" ] && [ "$RDS_SERIES" != 6.1 ]; then
	packages+=("linux-image-$RDS_SERIES-amd64" "linux-headers-$RDS_SERIES-amd64")
fi
read -r -a extra <<<"${RDS_DEPS_EXTRA:-}"
packages+=("${extra[@]}")
if [ -n "${RDS_DEPS_PACKAGES:-}" ]; then
	read -r -a packages <<<"$RDS_DEPS_PACKAGES"
fi

missing=()
for pkg in "${packages[@]}"; do
	dpkg-query -W -f='${Status}\n' "$pkg" 2>/dev/null | grep -q '^install ok installed$' ||
		missing+=("$pkg")
done
[ ${#missing[@]} = 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "install-deps: these packages are missing; as root, run:" >&2
	echo "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
	exit 1
fi
echo "install-deps: installing ${missing[*]} (a first run: a few minutes)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q && apt-get install -y -q --no-install-recommends "${missing[@]}"
