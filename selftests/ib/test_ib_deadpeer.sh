#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 150
#
# A dead peer costs only its own traffic, over RDS/IB: what
# ../common/deadpeer_lib.sh says, on the rxe pair of ib_lib.sh. A is IA
# on rxe0; X is IB and Y a second address of rv1 (10.77.0.3), both on
# rxe1, so the two peers share the link and only X's packets are dropped:
# by iptables (the legacy tables, which the debug kernel has built in,
# where it has no classful qdisc or clsact to filter with), as they
# arrive, from X and to X. Heartbeats over IB are plain pings from port 2,
# as over TCP.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ib_lib.sh"
. "$(dirname "$0")/../common/deadpeer_lib.sh"

DP_NS_A=-
DP_NS_X=-
DP_NS_Y=-
DP_A=$IA
DP_X=$IB
DP_Y=10.77.0.3

# Y the way ib_link_setup made IB: a /32 on rv1, reached from IA out of rv0.
add_y() {
	ib_peers_add $DP_Y/32 $DP_Y && dp_heartbeats_on
}

# iptables-legacy: the nf_tables of Debian's default iptables are not in
# the debug kernel. The packets are dropped as they arrive (INPUT), as a
# wire loses them: dropped on the way out (OUTPUT, or a tc filter on
# egress) they fail rxe's transmit, which tries again at once, and the
# guest's CPU goes to that loop (hundreds of thousands of failures a
# phase) instead of to the sender: the 0.42 this test once measured.
can_filter() {
	command -v iptables-legacy >/dev/null && iptables-legacy -w -L INPUT -n >/dev/null
}

dp_silence_x() {
	local op=-I

	[ "$1" = add ] || op=-D
	iptables-legacy -w $op INPUT -d $DP_X/32 -j DROP &&
	iptables-legacy -w $op INPUT -s $DP_X/32 -j DROP
}

cleanup() {
	iptables-legacy -w -F INPUT 2>/dev/null
	ib_peers_del
	ib_cleanup
}

ktap_plan 8
trap cleanup EXIT
ib_start "rxe pair and rds_rdma set up, a second address on rv1" add_y
if ! can_filter; then
	echo "# no iptables-legacy (install-deps installs iptables): nothing drops one address only"
	dp_restore
	while [ $ktap_num -lt 8 ]; do
		ktap_skip "no iptables to silence one peer"
	done
	ktap_finished
fi
ib_first_ping "rds-ping from IA to X and to Y over IB" 8 $IA $DP_X $IA $DP_Y
deadpeer_tests
ktap_finished
