#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: our RDS stack against the distribution's in-tree one, on the
# same kernel, in guests that alternate within one run (in-tree, ours,
# in-tree, ours...), so that both see the same machine. Writes to OUT
# (default build/bench/): results.json, results.md and results.svg (and
# results.png when gnuplot is installed).
#
#   bench/bench.sh [--kver KVER] [--profile full|smoke] [--out DIR]
#
# Under TCG absolute figures mean little: quote the ratios of one run. The
# guests have one CPU (QEMU's MP table without ACPI), so CPU per message is
# the whole guest's busy time over the messages.
# Nothing else should run on the machine meanwhile.

set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)

kver= profile=full out=$root/build/bench
while [ $# -gt 0 ]; do
	case "$1" in
	--kver) kver=$2; shift 2 ;;
	--profile) profile=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	*) echo "usage: $0 [--kver K] [--profile full|smoke] [--out DIR]" >&2; exit 2 ;;
	esac
done
. "$here/profiles/$profile" || exit 2

mkdir -p "$out"
raw=$out/raw.jsonl
: >"$raw"
failed=0
for round in $(seq 1 "$ROUNDS"); do
	for stack in intree ours; do
		echo "bench: round $round/$ROUNDS, $stack"
		log=$out/guest-$stack-$round
		# tsc=reliable: a TSC clock, not jiffies (4 ms steps) for the latencies.
		if ! "$root/selftests/vm/run-guest.sh" ${kver:+--kver "$kver"} --quiet \
			--append tsc=reliable --timeout 1800 --out "$log" -- bench/guest-bench.sh "$stack" "$profile"; then
			echo "bench: the $stack guest of round $round failed (see $log)"
			failed=1
		fi
		sed -n "s/^BENCH {/{\"round\": $round, /p" "$log/output.log" >>"$raw"
	done
done
python3 "$here/report.py" --profile "$profile" "$raw" "$out" || failed=1
exit $failed
