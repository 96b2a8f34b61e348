#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 60
#
# One protection domain per network namespace and RDMA device (issue 24,
# finding 2): a netns reaches the rxe device of init_net through a
# macvlan over its netdev, and registers a region there; a user-space
# peer connected to init_net (rdmacm_peer.py crossns) reads init_net's
# region but not that netns's, whose key it is given. On 6.1, rxe carries
# rdma_cm traffic in init_net only, so the peer cannot be the other
# netns's; the device's refusal shows the same thing: two PDs, and a
# queue pair of one cannot reach a region of the other. With one PD for
# every namespace, as before, the peer read the other netns's secret.
# (The debug build has no macvlan: there it is skipped.)
# A netns's share of the device's regions (issue 37): init_net holding
# max_mrs_per_netns of them gets EAGAIN, the macvlan netns still
# registers.
# Then finding 3: a peer that connects and never posts a receive stalls
# our queue pair to it; another tenant's RDS_GET_MR, RDS_FREE_MR and
# close() still return in bounded time: registrations and invalidations
# go on the domain's own queue pair, never on a connection's.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ib_lib.sh"

PEER="python3 $(dirname "$0")/rdmacm_peer.py"
MR="python3 $(dirname "$0")/rds_mr.py"
NS=rdsdom
NA=10.77.0.9

ns_setup() {
	ip netns add $NS &&
	ip link add mv0 link rv0 type macvlan mode bridge &&
	ip link set mv0 netns $NS &&
	ip -n $NS -batch - <<-EOF
	addr add $NA/32 dev mv0
	link set mv0 up
	link set lo up
	EOF
}

ktap_plan 5
ib_start "rxe pair and rds_rdma set up"
desc="a peer of init_net reads its region, not a macvlan netns's"
share="init_net holds its share of the device's regions (max_mrs_per_netns): the netns still registers"
if ! ip link add mvprobe link rv0 type macvlan mode bridge 2>/dev/null; then
	ktap_skip "$desc: no macvlan in this kernel"
	ktap_skip "$share: no macvlan in this kernel"
else
	ip link del mvprobe
	if ns_setup; then
		ktap_test "$desc" $PEER crossns $IB $IA $NS $NA || ib_diag
		ktap_test "$share" $MR share $IA $NS $NA || ib_diag
	else
		ktap_fail "$desc: the netns's macvlan"
		ktap_fail "$share: the netns's macvlan"
	fi
	cleanup_netns
fi
ktap_test "a peer that never receives: another tenant's regions come and go in bounded time" \
	$PEER stall $IB $IA || ib_diag
ktap_test "rmmod rds_rdma after" rds_rmmod rds_rdma || ib_diag
ib_cleanup
ktap_finished
