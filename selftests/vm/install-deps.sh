#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Installs the Debian 12 packages that building and testing need, when some are
# missing (a fresh machine). Does nothing when all are there; only warns when not
# root.

packages=(
	make gcc libc6-dev linux-libc-dev sparse rsync xz-utils cpio kmod
	linux-image-amd64 linux-headers-amd64 linux-source-6.1
	qemu-system-x86 busybox-static
	iproute2 iputils-ping procps python3 rdma-core ibverbs-utils
)

missing=()
for pkg in "${packages[@]}"; do
	dpkg-query -W -f='${Status}\n' "$pkg" 2>/dev/null | grep -q '^install ok installed$' ||
		missing+=("$pkg")
done
[ ${#missing[@]} = 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing packages (not root, not installing): ${missing[*]}" >&2
	exit 0
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q && apt-get install -y -q --no-install-recommends "${missing[@]}"
