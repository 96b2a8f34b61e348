#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 5
# rds-test: source-only
#
# Our uapi/linux/rds.h must describe exactly the ABI of the system's 6.1
# <linux/rds.h>: abi_check prints every constant, size, offset and field
# signedness, built once against each header (abi_check.c and
# abi_check_sys.c, both by selftests/Makefile), and the outputs must match.
# Prints TAP; exits 0 on pass, 4 on skip, 1 on failure.

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SYSHDR=/usr/include/linux/rds.h
OURS=$ROOT/build/bin/abi_check
THEIRS=$ROOT/build/bin/abi_check_sys

ntest=0
nfail=0
ok()
{
	ntest=$((ntest + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $ntest - $2"
	else
		echo "not ok $ntest - $2"
		nfail=$((nfail + 1))
	fi
}

skip_all()
{
	echo "1..0 # SKIP $1"
	exit 4
}

[ -r "$SYSHDR" ] || skip_all "no system $SYSHDR to compare with"

TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT

# Prefer the binaries `make selftests` built; if they are missing or stale,
# build into the scratch directory if a compiler is around.
# selftests/Makefile does not track header dependencies: a binary older than
# the header or the checker source is stale.
fresh()
{
	[ -x "$1" ] && [ ! "$ROOT/uapi/linux/rds.h" -nt "$1" ] &&
		[ ! "$HERE/abi_check.c" -nt "$1" ]
}

if ! fresh "$OURS" || ! fresh "$THEIRS"; then
	command -v gcc >/dev/null || skip_all "abi_check not built and no gcc"
	OURS=$TMP/abi_check
	THEIRS=$TMP/abi_check_sys
	gcc -O2 -Wall -I "$ROOT/uapi" -o "$OURS" "$HERE/abi_check.c" &&
		gcc -O2 -Wall -I "$ROOT/uapi" -o "$THEIRS" "$HERE/abi_check_sys.c" ||
		skip_all "could not build abi_check"
fi

echo "1..8"

"$OURS" >"$TMP/ours" && "$THEIRS" >"$TMP/theirs"
ok $? "both checkers run"

lines=$(wc -l <"$TMP/ours")
[ "$lines" -ge 200 ]
ok $? "checker output is not trivial ($lines lines)"

diff -u "$TMP/theirs" "$TMP/ours" >"$TMP/diff"
rc=$?
[ $rc -eq 0 ] || sed 's/^/# /' "$TMP/diff"
ok $rc "our header matches $SYSHDR line for line"

expect()
{
	grep -qxF "$1" "$TMP/ours"
	ok $? "$1"
}
expect "type struct rds_info_counter size 40 align 1"
expect "const SOL_RDS = 276"
expect "const RDS_INFO_LAST = 10017"

# Everything the system header defines must be covered by the checker,
# so that a constant or struct added upstream cannot slip past the diff.
missing=
for name in $(sed -n 's/^#define[[:space:]]\+\([A-Za-z0-9_]\+\).*/\1/p' "$SYSHDR"); do
	[ "$name" = _LINUX_RDS_H ] && continue
	grep -qE "^const $name( |\()" "$TMP/ours" || missing="$missing $name"
done
for name in $(sed -n 's/^struct \([a-z0-9_]\+\) {.*/\1/p' "$SYSHDR"); do
	grep -q "^type struct $name " "$TMP/ours" || missing="$missing struct:$name"
done
[ -z "$missing" ]
ok $? "checker covers every define and struct of the system header${missing:+ (missing:$missing)}"

# The header must stand alone, before any libc header.
ret=4
if command -v gcc >/dev/null; then
	echo '#include <linux/rds.h>' >"$TMP/alone.c"
	gcc -Wall -Werror -I "$ROOT/uapi" -c "$TMP/alone.c" -o "$TMP/alone.o"
	ret=$?
fi
if [ $ret -eq 4 ]; then
	ntest=$((ntest + 1))
	echo "ok $ntest - # SKIP header compiles on its own (no gcc)"
else
	ok $ret "header compiles on its own"
fi

[ $nfail -eq 0 ]
