#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 45
#
# Our rds_rdma answers RDMA requests as in-tree does: the errno of every
# malformed or oversized RDMA_ARGS (a remote range over 1 MiB is EMSGSIZE
# whatever the local side, more local bytes than remote EINVAL after the
# pages were found, EFAULT first) and the status of each operation
# (rds_rdma.py golden against rds_rdma.golden, which intree/test_rdma.sh
# makes the in-tree modules match). Then the statuses in-tree gives for
# failures, which its slow recovery on rxe keeps out of the golden file:
# SO_RECVERR alone hears of a failed WRITE as RDS_RDMA_DROPPED when its
# message is dropped at the reconnect, and WRITEs flushed with a
# connection are DROPPED, never CANCELED. Last, where we do better than
# in-tree: the WRITEs of another socket that a bad key's failure flushed
# go again on the next connection instead of being dropped unreported.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ib_lib.sh"

RDMA="python3 $(dirname "$0")/rds_rdma.py"

ktap_plan 4
ib_start "rxe pair and rds_rdma set up"
ktap_test "errnos and statuses as in ib/rds_rdma.golden (in-tree's)" \
	ib_golden || ib_diag
ktap_test "failed and flushed operations: DROPPED, as in-tree" \
	$RDMA dropped $IA $IB || ib_diag
ktap_test "another socket's WRITEs flushed by a bad key go again, none lost" \
	$RDMA neighbour $IA $IB || ib_diag
ib_cleanup
ktap_finished
