#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make lint: the kernel's style and static checks, failing on any finding.
#
#   1. checkpatch.pl --strict over every .c/.h in net/ include/ uapi/, and over
#      the user space C files in tools/ and selftests/ (see *_IGNORE below)
#   2. a W=1 build of the modules in a fresh tree (build/lint/obj/)
#   3. sparse over every module source file (kbuild C=2) in that tree
#
# checkpatch.pl and the two data files it reads come from Debian's
# linux-source-6.1 tarball, unpacked once into build/lint/scripts/.
# KDIR and KVER come from the top-level Makefile.

set -u
cd "$(dirname "$0")/../.." || exit 1

lint=build/lint
tarball=/usr/src/linux-source-6.1.tar.xz
checkpatch=$lint/scripts/checkpatch.pl

# Rules that ask for identifiers only the kernel has: __printf(), __packed...
# (user space cannot use them, and uapi headers are user space too) and the
# u32-style types (user space uses <stdint.h>). Everything else applies.
UAPI_IGNORE=PREFER_DEFINED_ATTRIBUTE_MACRO
USERSPACE_IGNORE=PREFER_DEFINED_ATTRIBUTE_MACRO,PREFER_KERNEL_TYPES
# The ABI checker's macros take a type and a member name, name each twice
# (stringified and in offsetof/sizeof) and cannot parenthesize a type in a
# cast: names have neither side effects nor precedence.
SELFTEST_IGNORE=$USERSPACE_IGNORE,MACRO_ARG_REUSE,MACRO_ARG_PRECEDENCE
# include/rds/compat.h exists to test kernel versions where no feature macro
# tells (checkpatch wants in-tree code never to); only it is let off, and
# only those two rules, the second being how every such test is written.
COMPAT=include/rds/compat.h
COMPAT_IGNORE=LINUX_VERSION_CODE,CONSTANT_COMPARISON
# Trace event headers are written in TRACE_EVENT()'s own layout, which the
# kernel's trace headers share: a macro per part, lines ending in "(",
# field lists that are no expression, the connection's macros naming it
# twice (it is always a plain pointer). Only these files, only these rules.
TRACE_HEADERS="net/rds/trace.h net/rds/tcp/trace.h net/rds/ib/trace.h include/rds/trace_conn.h"
TRACE_IGNORE=COMPLEX_MACRO,MACRO_ARG_REUSE,PARENTHESIS_ALIGNMENT,OPEN_ENDED_LINE

failures=()

get_checkpatch() {
	local f files=()

	[ -x "$checkpatch" ] && return 0
	[ -r "$tarball" ] || { echo "lint: $tarball missing (apt-get install linux-source-6.1)"; return 1; }
	echo "lint: unpacking checkpatch.pl from $tarball (once)"
	for f in checkpatch.pl spelling.txt const_structs.checkpatch; do
		files+=("linux-source-6.1/scripts/$f")
	done
	mkdir -p "$lint"
	tar -xJf "$tarball" -C "$lint" --strip-components=1 "${files[@]}"
}

# checkpatch_on NAME IGNORE DIR...: checkpatch every .c/.h under the DIRs.
checkpatch_on() {
	local name=$1 ignore=$2 files
	shift 2

	mapfile -t files < <(find "$@" -name '*.[ch]' 2>/dev/null | sort |
			     if [ "$name" = kernel ]; then
				     grep -vxF -e "$COMPAT" -e ${TRACE_HEADERS// / -e }
			     else
				     cat
			     fi)
	echo "lint: checkpatch --strict on ${#files[@]} $name files${ignore:+ (--ignore $ignore)}"
	[ ${#files[@]} -gt 0 ] || return 0
	"$checkpatch" --strict --no-tree --quiet --show-types ${ignore:+--ignore "$ignore"} \
		-f "${files[@]}" || failures+=("checkpatch ($name)")
}

run_checkpatch() {
	get_checkpatch || { failures+=(checkpatch); return; }
	checkpatch_on kernel "" net include
	checkpatch_on compat "$COMPAT_IGNORE" "$COMPAT"
	# shellcheck disable=SC2086 # a list of paths
	checkpatch_on "trace event" "$TRACE_IGNORE" $TRACE_HEADERS
	checkpatch_on uapi "$UAPI_IGNORE" uapi
	checkpatch_on "user space" "$USERSPACE_IGNORE" tools
	checkpatch_on selftest "$SELFTEST_IGNORE" selftests
}

# build NAME MAKE_ARGS...: a modules build into build/lint/obj/, failing on any
# compiler or sparse diagnostic in its log.
build() {
	local name=$1 log=$lint/$1.log
	shift

	echo "lint: $name build ($*)"
	if ! make --no-print-directory modules BUILD="$PWD/$lint/obj" "$@" >"$log" 2>&1; then
		tail -n 30 "$log"
		failures+=("$name build")
	elif grep -E 'warning:|error:' "$log"; then
		failures+=("$name")
	fi
}

run_checkpatch
rm -rf "$lint/obj"
build W=1 W=1
build sparse C=2

echo
if [ ${#failures[@]} = 0 ]; then
	echo "lint: clean (checkpatch --strict, W=1, sparse) for $KVER"
	exit 0
fi
echo "lint: FAILED: ${failures[*]} (logs in $lint/)"
exit 1
