#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Builds the Debian packages into build/pkg/, from a copy of the checkout
# (dpkg-buildpackage writes beside the source tree, and cleans it).

set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/build/pkg

rm -rf "$out"
mkdir -p "$out/src"
rsync -a --exclude=/build --exclude=/.git "$root/" "$out/src/"
(cd "$out/src" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1 ||
	{ tail -n 30 "$out/build.log"; exit 1; }
rm -rf "$out/src"
ls "$out"/*.deb
