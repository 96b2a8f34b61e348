#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs the selftests inside the test guest and prints TAP for the whole suite.
#
#   selftests/run_tests.sh                  every selftests/*/test_*.sh but intree/
#   selftests/run_tests.sh --intree         only selftests/intree/test_*.sh
#   selftests/run_tests.sh PATH...          the given tests, or all tests of the
#                                           given area directories
#
# From the host: selftests/vm/run-guest.sh -- selftests/run_tests.sh [ARGS]
#
# Each test runs with the checkout as cwd, its output shown as "# " lines,
# under a timeout: 120 s, or "timeout=N" from the area's settings file (as in
# the kernel's kselftests), three times that with RDS_PROFILE=short;
# RDS_TEST_TIMEOUT overrides them all. Exit 0 is ok, 4 is a skip, anything
# else a failure. After each test the network namespaces are deleted and the RDS
# modules unloaded, so every test starts fresh; a module that cannot be unloaded
# (a leaked reference) fails the test that left it. With RDS_SOURCE_CHECKS=0,
# tests marked "# rds-test: source-only" (they check the source tree, not the
# kernel) are skipped.

cd "$(dirname "$0")/.." || exit 1
. selftests/lib.sh

if [ "$(hostname)" != rdsvm ] && [ -z "${RDS_ALLOW_HOST:-}" ]; then
	echo "run_tests.sh loads kernel modules: run it in the guest," >&2
	echo "  selftests/vm/run-guest.sh -- selftests/run_tests.sh $*" >&2
	exit 2
fi

# test_timeout TEST: its time limit in seconds.
test_timeout() {
	local t=120 settings
	settings=$(dirname "$1")/settings
	if [ -r "$settings" ]; then
		t=$(sed -n 's/^timeout=\([0-9]*\)$/\1/p' "$settings" | tail -n 1)
		t=${t:-120}
	fi
	[ "$RDS_PROFILE" = short ] && t=$((t * 3))
	echo "${RDS_TEST_TIMEOUT:-$t}"
}

tests=()
if [ "${1:-}" = --intree ]; then
	tests=(selftests/intree/test_*.sh)
elif [ $# = 0 ]; then
	for t in selftests/*/test_*.sh; do
		case $t in selftests/intree/*) continue ;; esac
		tests+=("$t")
	done
else
	for arg in "$@"; do
		arg=${arg%/}
		[ -e "$arg" ] || arg=selftests/$arg
		if [ -d "$arg" ]; then
			tests+=("$arg"/test_*.sh)
		else
			tests+=("$arg")
		fi
	done
fi
# An empty glob stays literal: drop it.
list=()
for t in "${tests[@]}"; do
	[ -e "$t" ] && list+=("$t")
done

echo "TAP version 13"
echo "1..${#list[@]}"
echo "# kernel $(uname -r), profile $RDS_PROFILE"

passed=0 failed=0 skipped=0 n=0
for t in "${list[@]}"; do
	n=$((n + 1))
	name=${t#selftests/}
	# A test of the source tree alone says so ("# rds-test: source-only"):
	# its answer is the same on every kernel, so a run on an extra kernel
	# (RDS_SOURCE_CHECKS=0, from check.sh) leaves it to the default one's.
	if [ "${RDS_SOURCE_CHECKS:-1}" = 0 ] && grep -q '^# rds-test: source-only$' "$t"; then
		echo "ok $n $name # SKIP source-tree check: the default kernel's run has it"
		skipped=$((skipped + 1))
		continue
	fi
	# CI's runs on the debug kernel and on 6.12 (RDS_CI_SUBSET=debug or
	# 612, from .ci/run) take only the tests that say
	# "# rds-ci-NAME: run: WHY": on the debug kernel the paths where
	# KASAN, lockdep and kmemleak find most, on 6.12 those whose kernel
	# interfaces differ from 6.1's, in the time CI has beside the whole
	# suite on the stock kernel. A make check on either kernel runs them
	# all.
	subset=${RDS_CI_SUBSET:-}
	if [ -n "$subset" ] && ! grep -q "^# rds-ci-$subset: run: " "$t"; then
		echo "ok $n $name # SKIP not in CI's $subset subset: make check on that kernel runs it"
		skipped=$((skipped + 1))
		continue
	fi
	start=$SECONDS
	timeout=$(test_timeout "$t")
	if [ -x "$t" ]; then
		timeout --kill-after=10 "$timeout" "./$t" 2>&1 | sed -u 's/^/# /'
		rc=${PIPESTATUS[0]}
		if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
			# Tasks stuck in the kernel, to dmesg and here.
			echo w >/proc/sysrq-trigger
			dmesg | tail -n 40 | sed 's/^/# dmesg: /'
		fi
	else
		echo "# $t is not executable (chmod +x)"
		rc=1
	fi
	note=
	cleanup_netns
	rds_unload 2>&1 | sed 's/^/# /'
	if [ -e /sys/module/rds ]; then
		note=", cannot unload the rds modules"
		[ $rc = 0 ] && rc=1
	fi
	secs=$((SECONDS - start))
	case $rc in
	0) echo "ok $n $name # ${secs}s"; passed=$((passed + 1)) ;;
	4) echo "ok $n $name # SKIP"; skipped=$((skipped + 1)) ;;
	124 | 137) echo "not ok $n $name # TIMEOUT after ${timeout}s$note"; failed=$((failed + 1)) ;;
	*) echo "not ok $n $name # exit $rc, ${secs}s$note"; failed=$((failed + 1)) ;;
	esac
done

echo "# Totals: pass:$passed fail:$failed skip:$skipped"
[ $failed = 0 ]
