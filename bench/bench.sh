#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: our RDS stack against the distribution's in-tree one, on the
# same kernel, in guests that alternate within one run (in-tree, ours,
# in-tree, ours...), so that both see the same machine. Writes to OUT
# (default build/bench/): results.json, results.md and results.svg (and
# results.png when gnuplot is installed), and perf-STACK-WORKLOAD.txt, the
# profiles of round 1 (PERF_WORKLOADS of the profile).
#
#   bench/bench.sh [--kver KVER] [--profile full|smoke|latency|FILE]
#                  [--cpus 1|2] [--out DIR]
#
# Under TCG absolute figures mean little: quote the ratios of one run. The
# guests have two CPUs (run-guest.sh), as RDS hosts have several: a round
# trip's two ends, a sender and the receive softirq, a busy-polling
# receiver and the task that answers it run at once. CPU per message is
# the whole guest's busy time over the messages. --cpus 1 boots
# uniprocessor guests, to compare with the runs before issue #35.
# PIN_VCPUS=1 (a profile's; RDS_BENCH_PIN_VCPUS overrides) puts each vCPU
# of the guest on a host core of its own (run-guest.sh's RDSVM_PIN_VCPUS).
# Nothing else should run on the machine meanwhile.

set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)

kver= profile=full out=$root/build/bench cpus=2
while [ $# -gt 0 ]; do
	case "$1" in
	--kver) kver=$2; shift 2 ;;
	--profile) profile=$2; shift 2 ;;
	--cpus) cpus=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	*) echo "usage: $0 [--kver K] [--profile full|smoke|latency] [--cpus 1|2] [--out DIR]" >&2; exit 2 ;;
	esac
done
case $cpus in
1|2) ;;
*) echo "$0: --cpus takes 1 or 2" >&2; exit 2 ;;
esac
case $profile in
*/*) profile=$(cd "$(dirname "$profile")" && pwd)/$(basename "$profile") ;;
esac
case $profile in
/*) . "$profile" || exit 2 ;;
*) . "$here/profiles/$profile" || exit 2 ;;
esac

# The guest's clock is the TSC, not run-guest.sh's jiffies (4 ms steps
# that make every latency 0 or 4000 us) nor the HPET (a trap into QEMU at
# every read). Under TCG the guest's TSC is the host's: telling it the
# rate, with tsc=reliable against the watchdog (the TSCs of two vCPUs
# look unsynchronised to it), gives it a TSC clock. RDS_BENCH_TSC_KHZ
# overrides the host's figure.
tsc_khz=${RDS_BENCH_TSC_KHZ:-$(dmesg 2>/dev/null | sed -n 's/.*tsc: Detected \([0-9]*\)\.\([0-9]*\) MHz processor.*/\1\2/p' | head -n 1)}
[ -n "$tsc_khz" ] || tsc_khz=$(awk '/^cpu MHz/ { printf "%d", $4 * 1000; exit }' /proc/cpuinfo)
append="tsc=reliable clocksource=tsc${tsc_khz:+ tsc_early_khz=$tsc_khz}"
# Without KASLR: under TCG what a message costs moved from boot to boot
# by up to two times for RDS (both stacks' modules) and not for plain TCP;
# with the kernel and the modules where they were in the last boot, three
# rounds of four TCP rows spread 1.05-1.28 (max over min) against
# 1.09-1.58 with KASLR the same hour (Documentation/performance.rst,
# "Boots without KASLR"). KASLR=1 (a profile's) keeps it.
[ "${KASLR:-0}" = 1 ] || append+=" nokaslr"
# GUEST_APPEND (a profile's): more of the guests' kernel command line.
append+="${GUEST_APPEND:+ $GUEST_APPEND}"

mkdir -p "$out"
raw=$out/raw.jsonl
# The checkout's commit, and whether it had changes: the modules are
# built from the working tree.
echo "{\"round\": 0, \"stack\": \"host\", \"ncpu\": 0, \"workload\": \"tree\", \"kind\": \"info\", \"result\": {\"git\": \"$(git -C "$root" describe --always --dirty 2>/dev/null)\"}}" >"$raw"
failed=0
for round in $(seq 1 "$ROUNDS"); do
	for stack in intree ours; do
		echo "bench: round $round/$ROUNDS, $stack"
		log=$out/guest-$stack-$round
		# Profiles (PERF_WORKLOADS) in round 1 only: they cost a run each.
		if ! RDS_BENCH_PERF=$([ "$round" = 1 ] && echo 1 || echo 0) RDSVM_CPUS=$cpus \
			RDSVM_PIN_VCPUS=${RDS_BENCH_PIN_VCPUS:-${PIN_VCPUS:-0}} \
			"$root/selftests/vm/run-guest.sh" ${kver:+--kver "$kver"} --quiet \
			--append "$append" --timeout "${GUEST_TIMEOUT:-2400}" --out "$log" \
			-- bench/guest-bench.sh "$stack" "$profile"; then
			echo "bench: the $stack guest of round $round failed (see $log)"
			failed=1
		fi
		sed -n "s/^BENCH {/{\"round\": $round, /p" "$log/output.log" >>"$raw"
		for f in "$log"/perf-*.txt; do
			[ -e "$f" ] && cp "$f" "$out/"
		done
	done
done
python3 "$here/report.py" --profile "$profile" "$raw" "$out" || failed=1
exit $failed
