#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 60
#
# A dead peer costs only its own traffic, over RDS/TCP: what
# ../common/deadpeer_lib.sh says, with A, X and Y in netns of their own,
# A with a veth to each.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tcp_lib.sh"
. "$(dirname "$0")/../common/deadpeer_lib.sh"

DP_NS_A=$A
DP_NS_X=rds-x
DP_NS_Y=rds-y
DP_A=$A4
DP_X=192.0.2.2
DP_Y=192.0.2.3

# A's address is on its lo and routed out of one veth to each peer (no
# bridge: the debug kernel has none).
setup() {
	local n

	tcp_load || return 1
	for n in $A $DP_NS_X $DP_NS_Y; do
		ip netns add $n && ip -n $n link set lo up || return 1
	done
	ip -n $A addr add $A4/32 dev lo || return 1
	for n in x y; do
		ip link add veth-$n netns $A type veth peer name veth0 netns rds-$n || return 1
		ip -n $A link set veth-$n up
		ip -n rds-$n link set veth0 up
	done
	ip -n $DP_NS_X addr add $DP_X/24 dev veth0 && ip -n $DP_NS_Y addr add $DP_Y/24 dev veth0 &&
	ip -n $A route add $DP_X/32 dev veth-x src $A4 &&
	ip -n $A route add $DP_Y/32 dev veth-y src $A4 || return 1
	dp_heartbeats_on &&
	ip netns exec $A "$BIN/rds-ping" -c 2 -i 0.2 -I $A4 $DP_X >/dev/null &&
	ip netns exec $A "$BIN/rds-ping" -c 2 -i 0.2 -I $A4 $DP_Y >/dev/null
}

dp_silence_x() {
	tc -n $A qdisc "$1" dev veth-x root netem loss 100% &&
	tc -n $DP_NS_X qdisc "$1" dev veth0 root netem loss 100%
}

ktap_plan 7
ktap_test "A with a veth to X and one to Y, connected to both" setup || ktap_finished
deadpeer_tests
cleanup_netns
ktap_finished
