#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-ci-debug: run: the RDMA operations' bounds between tenants
# rds-cost: 90
#
# What one tenant of an RDS/IB device must not be able to do to the
# kernel or to another, each shown by a test first (findings of the
# tenant review, issue 24): a region released by a peer's use-once WRITE
# while RDS_GET_MR still writes its cookie (1); statuses reported while
# RDS_CANCEL_SENT_TO and close() take the operations away (5); a send
# whose RDMA_MAP registered a region and then failed (10, in
# test_ib_rdma.sh's RDMA_DEST point). Finding 7 (a queue pair drained
# with its rings full, no room for the drain's own request, which
# ib_drain_qp() warns of) is every teardown under traffic, in
# test_ib_stress.sh and test_ib_linkdown.sh, where a warning fails the run.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ib_lib.sh"

RDMA="python3 $(dirname "$0")/rds_rdma.py"

ktap_plan 4
ib_start "rxe pair and rds_rdma set up"
# It needs userfaultfd, which the debug build lacks: skipped there (the
# stock kernel's refcount check caught the double release all the same).
desc="GET_MR: a use-once release racing a faulting cookie write"
out=$($RDMA cookie_race $IA $IB 2>&1)
rc=$?
[ -z "$out" ] || echo "$out" | sed 's/^/# /'
case $rc in
0) ktap_ok "$desc" ;;
4) ktap_skip "$desc: no userfaultfd" ;;
*)
	ktap_fail "$desc (exit $rc)"
	ib_diag
	;;
esac
ktap_test "cancel and close racing RDMA completions with SO_RECVERR" \
	$RDMA notify_race $IA $IB || ib_diag
ktap_test "rmmod rds_rdma after" rds_rmmod rds_rdma || ib_diag
ib_cleanup
ktap_finished
