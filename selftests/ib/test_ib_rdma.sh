#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-ci-612: run: memory registration and RDMA operations on 6.12's verbs
# rds-cost: 190
#
# RDMA READ and WRITE through RDS/IB sockets (rds_rdma.py does the socket
# calls) over the rxe pair: 1 B .. 1 MiB both ways with the data checked
# and every RDS_CMSG_RDMA_STATUS exactly once; use-once and invalidated
# regions; RDS_CMSG_RDMA_DEST and RDS_CMSG_RDMA_MAP; atomics (FADD from
# four senders at once, CSWP, the masked ones rxe lacks); RDS_RDMA_SILENT;
# in-tree's errnos for bad requests and for transports without RDMA; MRs
# invalidated and taken again from the pool, old keys dead, new ones
# random; a region exposes the bytes named, not whole pages; a
# region freed under WRITEs in flight; `rdma link del` under WRITEs in
# flight; RDS_CMSG_RDMA_MAP on the first send to a peer with no connection
# yet (ours succeeds where in-tree says ENODEV or EAGAIN). Pins are
# counted in /proc/vmstat, and the harness fails the run on any splat or
# kmemleak report.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ib_lib.sh"

RDMA="python3 $(dirname "$0")/rds_rdma.py"

ktap_plan 15
ib_start "rxe pair and rds_rdma set up"

ktap_test "WRITE and READ, 1 B .. 1 MiB, data and statuses" \
	$RDMA data $IA $IB || ib_diag
ktap_test "use-once and invalidated regions: REMOTE_ERROR after" \
	$RDMA once $IA $IB || ib_diag
ktap_test "RDMA_DEST and RDMA_MAP carry the cookie" \
	$RDMA dest $IA $IB || ib_diag
ktap_test "atomics: 4 senders FADD, CSWP, masked ones, errnos" \
	$RDMA atomic $IA $IB || ib_diag
ktap_test "RDS_RDMA_SILENT: no message reaches the peer" \
	$RDMA silent $IA $IB || ib_diag
ktap_test "bad requests: in-tree's errnos, nothing pinned" \
	$RDMA errnos $IA $IB
# Ours, before SO_RDS_TRANSPORT would modprobe whatever rds_tcp there is.
notsupp() {
	rds_load tcp && $RDMA notsupp $IA $IB
}
ktap_test "TCP and loopback sockets: EOPNOTSUPP" notsupp
ktap_test "MR pools: LOCAL_INV, reuse, stale keys, close with many" \
	$RDMA pool $IA $IB || ib_diag
ktap_test "a region exposes its bytes, not its pages" \
	$RDMA exact $IA $IB || ib_diag
ktap_test "region freed under WRITEs in flight" \
	$RDMA freed $IA $IB || ib_diag
ktap_test "rdma link del under WRITEs in flight, link back" \
	$RDMA linkdel $IA $IB rxe0 rv0 || ib_diag
ktap_test "the connections come back" ib_both_warm || ib_diag
# A peer nothing in this test sent to: a second address on rv1, reached
# from IA as IB is, so that a real receiver sits behind a connection that
# does not exist yet. ib_peers_add makes its addresses peers of IA only,
# so the socket that maps is bound on IA (rxe0's), not on IB. Last before
# the rmmod, which takes that connection away: the earlier points, the
# link deletion's above all, never see it.
NEW=10.77.0.5
mapnew() {
	local rc=0

	ib_peers_add $NEW/32 $NEW || return 1
	$RDMA mapnew $IA $NEW || rc=1
	ib_peers_del
	return $rc
}
ktap_test "RDMA_MAP to a peer not connected yet: sent, its cookie arrives" \
	mapnew || ib_diag
ktap_test "rmmod rds_rdma after" rds_rmmod rds_rdma || ib_diag

ib_cleanup
ktap_finished
