# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Guest slots: at most RDSVM_SLOTS guests run at once, over every checkout of
# this user's (sourced by run-guest.sh and run-pair.sh).
#
# A TCG guest with two CPUs keeps two host threads busy whenever it computes.
# Seven of them on CI's two cores (three lanes of make checks, each split
# over guests) took 85 minutes where their tests add up to far less: a vCPU
# the host does not run holds its spinlocks, and the other vCPU spins on
# them; the clocks of all guests slow down together; and every guest's time
# limit has to allow for it. With a slot each, the guests queue instead:
# what waits has not booted, and what runs has the cores.
#
# The queue is in order of RDSVM_SLOT_PRIO (0..999, default 500; lower goes
# first), then of arrival: a caller that knows which guests run longest
# starts them first, so that no long one is left to run alone at the end.
#
# Unset or 0: no limit (a single make check, make run). The slot is held
# from before QEMU starts until the guest's run ends, boot retries included.
# RDSVM_SLOT_HELD=1 says the caller holds one for this guest already (a
# pair's two guests share the one run-pair.sh took).

# vm_slot_head DIR: the first live waiter's name in the queue DIR. A waiter
# that died without leaving (its name ends in its PID) is taken out.
vm_slot_head() {
	local f

	# A glob comes sorted, and the names differ first in their digits.
	for f in "$1"/[0-9]*; do
		[ -e "$f" ] || continue
		if kill -0 "${f##*-}" 2>/dev/null; then
			echo "${f##*/}"
			return
		fi
		rm -f "$f"
	done
}

# vm_slot_take: blocks until this guest is first in the queue and one of
# the slots is free, then keeps the slot, as fd 8, until this shell exits.
# Prints how long it waited, when it did.
vm_slot_take() {
	local n=${RDSVM_SLOTS:-0} dir=${TMPDIR:-/tmp} i waited=0 queue me

	[ "$n" -gt 0 ] 2>/dev/null || return 0
	[ "${RDSVM_SLOT_HELD:-0}" = 1 ] && return 0
	queue=$dir/rds-vm-queue.$(id -u)
	mkdir -p "$queue"
	me=$(printf '%03d' "$((10#${RDSVM_SLOT_PRIO:-500} % 1000))")-$(date +%s%N)-$$
	: >"$queue/$me"
	# Guests started together (a make check's parts) reach the queue a
	# few seconds apart: the first to come must not take a slot before
	# the others are there to say they come first.
	sleep "${RDSVM_SLOT_GRACE:-10}"
	while :; do
		if [ "$(vm_slot_head "$queue")" = "$me" ]; then
			for ((i = 1; i <= n; i++)); do
				exec 8>>"$dir/rds-vm-slot.$(id -u).$i"
				if flock -n 8; then
					rm -f "$queue/$me"
					[ "$waited" = 0 ] ||
						echo "run-guest: waited $waited s for a guest slot ($n at once)"
					export RDSVM_SLOT_HELD=1
					return 0
				fi
				exec 8>&-
			done
		fi
		sleep 2
		waited=$((waited + 2))
	done
}
