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
small_rings() {
	echo 0 >/proc/sys/net/rds/ib/srq &&
	echo 32 >/proc/sys/net/rds/ib/max_recv_wr &&
	echo 192 >/proc/sys/net/rds/ib/max_recv_allocation
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
