#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 40
#
# What a peer other than ourselves may ask of our listener, played by a
# user-space rdma_cm peer (rdmacm_peer.py) on the rxe pair: a request for
# one RDMA READ each way gets an accept within that (not the device's
# maxima); a 4.0-only offer (minor mask 0x1) is accepted as 4.0 and the
# connection kept, as in-tree, with no reset and no reconnect; a version we
# cannot speak is rejected once as incompatible and nothing retries it.
# Then our connect over IPv6 to the peer listening on port 16385: a reply
# of 4.0 is kept, and a later reply that names no version leaves the
# version we offered, not the one the connection before spoke.
# Last, RDMA READ and WRITE of many more local vectors than one work
# request takes (the READ split by max_sge_rd) move their data intact.
# rds_rdma is loaded afresh between the cases: each connection our side
# keeps would otherwise reconnect to our own listener once the peer
# leaves, and count in the next case.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ib_lib.sh"

PEER="python3 $(dirname "$0")/rdmacm_peer.py"
RDMA="python3 $(dirname "$0")/rds_rdma.py"

# reload: rds_rdma anew, its connections gone.
reload() {
	rds_rmmod rds_rdma && rds_load rdma
}

ktap_plan 7
ib_start "rxe pair and rds_rdma set up"

ktap_test "accept: RDMA depths within the request's 1 and 1" \
	$PEER depths $IB $IA || ib_diag
reload
ktap_test "a 4.0-only offer: accepted and kept, no reset" \
	$PEER v40 $IB $IA || ib_diag
reload
ktap_test "a 5.0 offer: rejected once as incompatible, not retried" \
	$PEER incompat $IB $IA || ib_diag
reload
ktap_test "READ and WRITE of 100 one-page local vectors" \
	$RDMA vectors $IA $IB 100 || ib_diag
# The peer listens where our IPv6 listener would, before rds_rdma loads.
noversion() {
	ib_setup6 && rds_rmmod rds_rdma &&
	$PEER noversion "$IB6%rv1" "$IB6%rv0" "$IA6%rv0" \
		"$RDS_MODDIR/rds_rdma.ko"
}
ktap_test "a reply without a version: ours, not the last connection's" \
	noversion || ib_diag
ktap_test "rmmod rds_rdma after" rds_rmmod rds_rdma || ib_diag

ib_cleanup
ktap_finished
