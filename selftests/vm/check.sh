#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: the whole suite in two guest boots, then one summary line.
#
#   ours     selftests/run_tests.sh           our modules (every area but intree/)
#   intree   selftests/run_tests.sh --intree  the distribution's modules
#
# The two stacks never share a guest. Prints the TAP of both runs and, as the
# very last line, "N passed, N failed" over both. A run that fails without a
# failed test (a kernel splat, a guest timeout or crash) counts as one failed
# test. Exits non-zero on any failure.
#
#   selftests/vm/check.sh [--kver KVER]
#
# Debug kernels (KASAN) get RDS_PROFILE=short and longer timeouts;
# RDS_GUEST_TIMEOUT overrides the timeout of each guest, in seconds.

set -u
vm_dir=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$vm_dir/../.." && pwd)

kver=
if [ "${1:-}" = --kver ]; then
	kver=${2:-}
fi
if [ -z "$kver" ]; then
	kver=$(ls /boot/vmlinuz-6.1.0-*-amd64 2>/dev/null | sed 's|^/boot/vmlinuz-||' | sort -V | tail -n 1)
fi

if grep -q '^CONFIG_KASAN=y' "/boot/config-$kver" 2>/dev/null; then
	export RDS_PROFILE=${RDS_PROFILE:-short}
	timeouts=(1200 480)
else
	timeouts=(600 240)
fi

passed=0 failed=0 skipped=0

# run NAME TIMEOUT RUN_TESTS_ARGS...: one guest boot, counted.
run() {
	local name=$1 timeout=${RDS_GUEST_TIMEOUT:-$2} out=$root/build/vm/check-$kver-$1 rc ok bad skip
	shift 2

	echo "# === $name: $kver, selftests/run_tests.sh $* ==="
	rm -rf "$out"
	"$vm_dir/run-guest.sh" --kver "$kver" --timeout "$timeout" --out "$out" \
		-- selftests/run_tests.sh "$@"
	rc=$?

	skip=$(grep -c -E '^ok [0-9]+ .*# SKIP' "$out/output.log" 2>/dev/null)
	ok=$(grep -c -E '^ok [0-9]+ ' "$out/output.log" 2>/dev/null)
	bad=$(grep -c -E '^not ok [0-9]+ ' "$out/output.log" 2>/dev/null)
	ok=$((${ok:-0} - ${skip:-0}))
	bad=${bad:-0}
	if [ "$rc" != 0 ] && [ "$bad" = 0 ]; then
		echo "not ok - $name: the guest run failed (exit $rc, see build/vm/check-$kver-$name/)"
		bad=1
	fi
	echo "# $name: $ok passed, $bad failed, ${skip:-0} skipped"
	passed=$((passed + ok))
	failed=$((failed + bad))
	skipped=$((skipped + ${skip:-0}))
}

start=$SECONDS
run ours "${timeouts[0]}"
run intree "${timeouts[1]}" --intree

echo "# $kver: $((SECONDS - start)) s, $skipped skipped"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
