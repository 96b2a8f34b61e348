#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 90
#
# The receive page budget (max_recv_allocation) against a tenant that
# never reads (finding 9 of issue 24), over the rxe pair of ib_lib.sh:
# receive rings of 32 and a cap of 192 pages, a little more than the four
# rings of the two connections (TOS 0 and TOS 1, IA to IB) take. The
# hoarder's sender fills a socket that never reads over the TOS 0
# connection until its sends stop going out; the messages of the TOS 1
# connection to a socket that reads must still all arrive, in bounded
# time, and the hoarder's too once it reads. With one budget for all,
# the hoarder's unread pages took every page the cap allowed and the
# other connection's ring, once used, was never refilled: its peer
# stalled in RNR retries.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ib_lib.sh"

BUDGET="python3 $(dirname "$0")/rds_budget.py"

# Read when a queue pair is built: before the first connection.  The
# reserve is a ring's: each connection has its own (srq 0; on an SRQ the
# pages beyond its size come from the cap for all, rds.rst says).
#
# On a KASAN kernel, with credits (flow_control 1; the note it prints
# must not name KASAN, which run-guest.sh takes for a splat): the
# hoarder's sender then stops when the ring it fills is empty, where
# without them it retries into it, an RNR NAK every 0.32 ms (both
# stacks' RNR timer) for as long as nobody reads. rxe handles those in softirq on the receiving
# CPU, and under KASAN and TCG they took 96 % of that CPU (/proc/stat,
# 114 s of a run): the refill work queued there, runnable in
# __alloc_pages, did not run for 33 s ("BUG: workqueue lockup", the
# full make check on the debug kernel), and the hoarder's messages did
# not all arrive once it read. A device does RNR retries itself; the
# stock and 6.12 kernels keep testing this without credits, the default.
small_rings() {
	echo 0 >/proc/sys/net/rds/ib/srq &&
	echo 32 >/proc/sys/net/rds/ib/max_recv_wr &&
	echo 192 >/proc/sys/net/rds/ib/max_recv_allocation || return 1
	if grep -q '^CONFIG_KASAN=y' "/boot/config-$(uname -r)" 2>/dev/null; then
		echo "# a debug kernel: credits on (flow_control 1), no RNR retry storm"
		echo 1 >/proc/sys/net/rds/ib/flow_control
	fi
}

ktap_plan 3
ib_start "rxe pair and rds_rdma set up, rings of 32, 192 pages" small_rings

limited=$(ib_counter ib_rx_alloc_limit)
n=$(ib_count 400 100)
ktap_test "a socket that never reads does not starve another connection" \
	$BUDGET $IA $IB "$n" 60 || ib_diag

ktap_test "the cap was reached (ib_rx_alloc_limit grew)" \
	bash -c "'$BIN/rds-info' -c | grep '^ *ib_rx_alloc'
		 [ \$('$BIN/rds-info' -c |
		      awk '\$1 == \"ib_rx_alloc_limit\" { print \$2 }') -gt $limited ]"

ib_cleanup
ktap_finished
