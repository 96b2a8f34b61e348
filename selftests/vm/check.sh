#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: the whole suite, then one summary line.
#
#   ours     selftests/run_tests.sh           our modules (every area but
#                                             intree/): one guest, or
#                                             RDS_CHECK_JOBS guests side by
#                                             side, the tests dealt out
#                                             among them
#   intree   selftests/run_tests.sh --intree  one guest: the distribution's modules
#   pairs    selftests/*/pair_*.sh            each in two guests joined by a
#                                             link (run-pair.sh), one test each
#   pkg      selftests/pkg/pkg_debs.sh        the .debs (built here by
#                                             selftests/pkg/build-debs.sh)
#                                             installed in a guest whose root
#                                             is writable (run-guest --overlay);
#                                             RDS_PKG_TEST=0 leaves it out
#   bench    bench/bench.sh --profile smoke   two guests (in-tree, ours), one
#                                             test: the harness of make bench
#                                             still produces its table
#
# pkg and bench test no kernel, intree/ (pair_smoke too) only the
# distribution's modules: the short profile skips them.
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
# RDS_CHECK_JOBS (default 2) splits our suite between that many guests:
# one guest of two CPUs leaves the host's cores idle while its tests wait
# for timers and peers. On two cores two guests took the stock suite in
# 1,165 s (338cc5e). RDSVM_SLOTS=N (run-guest.sh) caps how many guests
# run at once, over every make check of this user's.
# RDS_CHECK_PARTS="ours intree pairs pkg bench" (the default) says which
# of those to run.

set -u
vm_dir=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$vm_dir/../.." && pwd)

default_kver=$(ls /boot/vmlinuz-6.1.0-*-amd64 2>/dev/null | sed 's|^/boot/vmlinuz-||' | sort -V | tail -n 1)
kver=$default_kver
if [ "${1:-}" = --kver ]; then
	kver=${2:-$default_kver}
fi
# A run on another kernel than the default one leaves the checks of the
# source tree alone to the default run (run_tests.sh: "source-only").
[ "$kver" = "$default_kver" ] || export RDS_SOURCE_CHECKS=0

# The first limit is the ours guest's: about twice what it takes here with
# the stock and debug runs side by side (.ci/run), as CI's machine was seen
# a fifth slower, and a guest cut off is a failed run; CI's own limit is
# the one that matters. The second is
# the pairs': with RDS_PROFILE=short a pair test gives its traffic 300 s
# (interop_lib.sh), which a 300 s guest cuts off at 210 s before the test
# can print the state of the stacks. CI asks for the short profile on the
# stock 6.12 kernel too, so that follows the profile, not only KASAN.
# The full profile's is 600 s as well: in-tree's suite, which runs in a
# guest of that limit, took 314 s beside CI's debug guests, and a pair
# test was cut off at 210 s.
# The short profile's first was 2400 s: in CI (32d8ed2) 6.12's suite had
# run 47 of its 52 tests when the guest's 1800 s for the command were up,
# 2020 s by the guest's clock, 40 minutes of wall time.
if grep -q '^CONFIG_KASAN=y' "/boot/config-$kver" 2>/dev/null; then
	export RDS_PROFILE=${RDS_PROFILE:-short}
	timeouts=(5400 600)
elif [ "${RDS_PROFILE:-}" = short ]; then
	timeouts=(4200 600)
else
	timeouts=(4800 600)
fi

passed=0 failed=0 skipped=0

# boot NAME TIMEOUT RUN_TESTS_ARGS...: one guest, its exit code kept in
# build/vm/check-KVER-NAME.rc for tally.
boot() {
	local name=$1 timeout=${RDS_GUEST_TIMEOUT:-$2} out=$root/build/vm/check-$kver-$1
	shift 2

	rm -rf "$out"
	# shellcheck disable=SC2086 # guest_args is a list of words
	"$vm_dir/run-guest.sh" --kver "$kver" --timeout "$timeout" --out "$out" ${guest_args:-} \
		-- selftests/run_tests.sh "$@"
	echo $? >"$out.rc"
}

# tally NAME START: count what boot NAME printed.
tally() {
	local name=$1 start=$2 out=$root/build/vm/check-$kver-$1 rc ok bad skip

	rc=$(cat "$out.rc" 2>/dev/null || echo 1)
	skip=$(grep -c -E '^ok [0-9]+ .*# SKIP' "$out/output.log" 2>/dev/null)
	ok=$(grep -c -E '^ok [0-9]+ ' "$out/output.log" 2>/dev/null)
	bad=$(grep -c -E '^not ok [0-9]+ ' "$out/output.log" 2>/dev/null)
	ok=$((${ok:-0} - ${skip:-0}))
	bad=${bad:-0}
	if [ "$rc" != 0 ] && [ "$bad" = 0 ]; then
		echo "not ok - $name: the guest run failed (exit $rc, see build/vm/check-$kver-$name/)"
		bad=1
	fi
	echo "# $name: $ok passed, $bad failed, ${skip:-0} skipped, $((SECONDS - start)) s"
	passed=$((passed + ok))
	failed=$((failed + bad))
	skipped=$((skipped + ${skip:-0}))
}

# run NAME TIMEOUT RUN_TESTS_ARGS...: one guest boot, counted.
run() {
	local start=$SECONDS

	echo "# === $1: $kver, selftests/run_tests.sh ${*:3} ==="
	boot "$@"
	tally "$1" "$start"
}

# cost TEST: what TEST takes on the debug kernel under CI's load, in
# seconds, as its "# rds-cost: N" line says (60 without one): the weight
# by which ours() deals the tests out.
cost() {
	local c

	c=$(sed -n '1,5s/^# rds-cost: \([0-9][0-9]*\)$/\1/p' "$root/selftests/$1")
	# What a CI subset leaves out (run_tests.sh) costs nothing there.
	[ -n "${RDS_CI_SUBSET:-}" ] &&
		! grep -q "^# rds-ci-$RDS_CI_SUBSET: run: " "$root/selftests/$1" && c=0
	echo "${c:-60}"
}

# ours: our suite, in RDS_CHECK_JOBS guests at once, the tests dealt out
# by cost, the longest first, each to the guest with the least so far, so
# that the guests end together. Their outputs follow each other once all
# are done.
ours() {
	local jobs=${RDS_CHECK_JOBS:-2} start=$SECONDS load=() mine=() t c j min

	if [ "$jobs" -le 1 ]; then
		run ours "${timeouts[0]}"
		return
	fi
	for ((j = 1; j <= jobs; j++)); do
		load[j]=0
		mine[j]=
	done
	while read -r c t; do
		min=1
		for ((j = 2; j <= jobs; j++)); do
			[ "${load[j]}" -lt "${load[min]}" ] && min=$j
		done
		load[min]=$((load[min] + c))
		mine[min]+=" $t"
	done < <(for t in "$root"/selftests/*/test_*.sh; do
			case $t in */selftests/intree/*) continue ;; esac
			t=${t#"$root"/selftests/}
			echo "$(cost "$t") $t"
		done | sort -k1,1nr -k2,2)
	for ((j = 1; j <= jobs; j++)); do
		# Each guest runs its tests in name order, as a single one would.
		# shellcheck disable=SC2046,SC2086 # a list of test names
		boot "ours-$j" "${timeouts[0]}" $(printf '%s\n' ${mine[j]} | sort) \
			>"$root/build/vm/check-$kver-ours-$j.log" 2>&1 &
	done
	wait
	for ((j = 1; j <= jobs; j++)); do
		echo "# === ours-$j of $jobs: $kver ==="
		cat "$root/build/vm/check-$kver-ours-$j.log"
		tally "ours-$j" "$start"
	done
}

# pair TEST: one two-guest test; the script runs in both, as a and as b.
pair() {
	local name=${1#selftests/} start=$SECONDS

	echo "# === pair: $kver, $name ==="
	# In-tree rds_rdma trips lockdep on the debug kernel: its tests say so
	# ("# rds-pair: in-tree rds_rdma") and are not booted there at all.
	if grep -q '^# rds-pair: in-tree rds_rdma$' "$root/$1" &&
	   grep -q '^CONFIG_LOCKDEP=y' "/boot/config-$kver" 2>/dev/null; then
		echo "ok - pair $name # SKIP in-tree rds_rdma trips lockdep on $kver"
		skipped=$((skipped + 1))
		return
	fi
	if "$vm_dir/run-pair.sh" --kver "$kver" --timeout "${RDS_GUEST_TIMEOUT:-${timeouts[1]}}" \
		--a "$1" --b "$1"; then
		echo "ok - pair $name # $((SECONDS - start)) s"
		passed=$((passed + 1))
	else
		echo "not ok - pair $name"
		failed=$((failed + 1))
	fi
}

# bench_smoke: make bench's harness, one short round, must give every ratio.
bench_smoke() {
	local start=$SECONDS out=$root/build/vm/check-$kver-bench

	echo "# === bench smoke: $kver ==="
	rm -rf "$out"
	mkdir -p "$out"
	if "$root/bench/bench.sh" --kver "$kver" --profile smoke --out "$out" >"$out.log" 2>&1 &&
	   [ -s "$out/results.md" ] && [ -s "$out/results.svg" ]; then
		sed 's/^/# /' "$out/results.md"
		echo "ok - bench smoke # $((SECONDS - start)) s"
		passed=$((passed + 1))
	else
		sed 's/^/# /' "$out.log" | tail -n 30
		echo "not ok - bench smoke"
		failed=$((failed + 1))
	fi
}

# pkg: the packages are built on the host, where dpkg-buildpackage is.
pkg() {
	if ! "$root/selftests/pkg/build-debs.sh" "$kver" >/dev/null; then
		echo "not ok - pkg: the packages do not build (build/pkg/build.log)"
		failed=$((failed + 1))
		return
	fi
	# DKMS compiles the modules in the guest from the compiler cache
	# build-debs.sh filled: 8 minutes alone, past 15 beside CI's other
	# guests. The guest leaves its command a quarter less than its own
	# limit, and the command must outlast the test's 1800 s
	# (selftests/pkg/settings).
	guest_args=--overlay run pkg 2600 selftests/pkg/pkg_debs.sh
}

# part NAME: whether RDS_CHECK_PARTS (default: all of them) names NAME.
part() {
	[[ " ${RDS_CHECK_PARTS:-ours intree pairs pkg bench} " == *" $1 "* ]]
}

# pairs: every pair test, one after the other.
pairs() {
	local t

	for t in "$root"/selftests/*/pair_*.sh; do
		case $t in
		*/selftests/intree/*) [ "${RDS_PROFILE:-}" != short ] || continue ;;
		esac
		[ -e "$t" ] && pair "${t#"$root"/}"
	done
}

# With guest slots (RDSVM_SLOTS, run-guest.sh) the parts run side by side,
# their guests queued for the slots: ours first (RDS_CHECK_PRIO, default
# 500, the slot queue's order), the others after every guest of ours
# (+100), the longest of them first. Their outputs follow each other in
# the order below once all are done. Without slots, one after the other.
parts_dir=$root/build/vm/check-$kver-parts
# in_part NAME PRIO_OFFSET FUNCTION [ARGS...]: one part, maybe in the
# background, counted in parts_dir/NAME.count.
in_part() {
	local name=$1 prio=$((${RDS_CHECK_PRIO:-500} + $2))

	shift 2
	if [ "${RDSVM_SLOTS:-0}" -gt 0 ] 2>/dev/null; then
		(
			passed=0 failed=0 skipped=0
			RDSVM_SLOT_PRIO=$prio "$@"
			echo "$passed $failed $skipped" >"$parts_dir/$name.count"
		) >"$parts_dir/$name.out" 2>&1 &
	else
		"$@"
	fi
}

# Two guests at once by default: each has two CPUs, and two cores are
# what this project's machines have. RDSVM_SLOTS=0 runs the parts one
# after the other, with no limit on the guests of ours.
export RDSVM_SLOTS=${RDSVM_SLOTS:-2}
begin=$SECONDS
mkdir -p "$root/build/vm"
rm -rf "$parts_dir"
mkdir -p "$parts_dir"
order=()
part ours && order+=(ours) && in_part ours 0 ours
if [ "${RDS_PROFILE:-}" != short ]; then
	# Packaging is not kernel-specific: the short profile (the debug
	# kernel, and 6.12 in CI) leaves it to the full one, as it leaves the
	# bench harness, which only has to be shown not to have rotted.
	[ "${RDS_PKG_TEST:-1}" = 1 ] && part pkg && order+=(pkg) && in_part pkg 110 pkg
	part intree && order+=(intree) && in_part intree 140 run intree "${timeouts[1]}" --intree
	part bench && order+=(bench) && in_part bench 130 bench_smoke
fi
part pairs && order+=(pairs) && in_part pairs 120 pairs
wait
for name in "${order[@]}"; do
	[ -e "$parts_dir/$name.out" ] || continue
	cat "$parts_dir/$name.out"
	if read -r p f k <"$parts_dir/$name.count" 2>/dev/null; then
		passed=$((passed + p))
		failed=$((failed + f))
		skipped=$((skipped + k))
	else
		echo "not ok - $name: the part ended without its count"
		failed=$((failed + 1))
	fi
done

echo "# $kver: $((SECONDS - begin)) s, $skipped skipped"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
