#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 150
#
# POLLOUT wakes its sleepers, over RDS/IB: what ../common/pollout_lib.sh
# says, on the rxe pair of ib_lib.sh with 50 ms of netem delay on each
# veth. The sender is IA on rxe0; the peers are IB and seven more /32s of
# rv1, on rxe1, reached from IA out of rv0 as IB is (policy rules before
# the local table, static neighbours). The dead peer is an address routed
# out of rv0 that nobody has: its neighbour is never resolved, so its
# connection never comes up.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ib_lib.sh"
. "$(dirname "$0")/../common/pollout_lib.sh"

PO_NS_A=-
PO_NS_B=-
PO_A=$IA
PO_DESTS="$IB 10.77.0.16 10.77.0.17 10.77.0.18 10.77.0.19 10.77.0.20 10.77.0.21 10.77.0.22"
PO_DEAD=10.77.0.30

# The seven more peers on rv1 (ib_peers_add); the dead destination only
# routed, so that its packets leave rv0 and meet no one.
more_peers() {
	local d

	# shellcheck disable=SC2046 # the addresses are words
	ib_peers_add 10.77.0.16/28 $(for d in $PO_DESTS; do [ "$d" = $IB ] || echo "$d"; done) &&
	ip route replace $PO_DEAD/32 dev rv0 src $IA table 101 || return 1
	for d in rv0 rv1; do
		tc qdisc add dev $d root netem delay 50ms || return 1
	done
}

warm_all() {
	local d

	for d in $PO_DESTS; do
		ib_warm $IA "$d" || { echo "no pong from $d"; return 1; }
	done
}

cleanup() {
	tc qdisc del dev rv0 root 2>/dev/null
	tc qdisc del dev rv1 root 2>/dev/null
	ib_peers_del
	ib_cleanup
}

ktap_plan 13
trap cleanup EXIT
ib_start "rxe pair, rds_rdma, seven more addresses on rv1, 50 ms each way" more_peers
ib_first_ping "rds-ping from IA to IB" 12 $IA $IB
if ! ktap_test "IA connected to the other seven" warm_all; then
	ib_diag
	while [ $ktap_num -lt 13 ]; do
		ktap_fail "not run: no RDS/IB connection"
	done
	ktap_finished
fi
pollout_tests
ktap_finished
