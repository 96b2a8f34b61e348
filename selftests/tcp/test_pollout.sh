#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 90
#
# POLLOUT wakes its sleepers, over RDS/TCP: what ../common/pollout_lib.sh
# says, from rds-a to eight addresses of rds-b on one veth pair with 50 ms
# of netem delay each way; the dead peer is an address of the veth's
# subnet nobody has (its connection never comes up).

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tcp_lib.sh"
. "$(dirname "$0")/../common/pollout_lib.sh"

PO_NS_A=$A
PO_NS_B=$B
PO_A=$A4
PO_DESTS="$B4 192.0.2.10 192.0.2.11 192.0.2.12 192.0.2.13 192.0.2.14 192.0.2.15 192.0.2.16"
PO_DEAD=192.0.2.99

setup() {
	local d

	tcp_load && netns_pair $A $B $A4 $B4 || return 1
	for d in $PO_DESTS; do
		[ "$d" = $B4 ] || ip -n $B addr add "$d/24" dev veth0 || return 1
	done
	tc -n $A qdisc add dev veth0 root netem delay 50ms &&
	tc -n $B qdisc add dev veth0 root netem delay 50ms || return 1
	# Connected (and the multipath handshake done) before anything counts.
	for d in $PO_DESTS; do
		ip netns exec $A "$BIN/rds-ping" -c 1 -i 0.2 -I $A4 "$d" >/dev/null ||
			ip netns exec $A "$BIN/rds-ping" -c 2 -i 0.5 -I $A4 "$d" >/dev/null ||
			{ echo "no pong from $d"; return 1; }
	done
}

ktap_plan 11
if ! ktap_test "rds-a to eight addresses of rds-b, 50 ms each way, connected" setup; then
	cleanup_netns
	ktap_finished
fi
pollout_tests
cleanup_netns
ktap_finished
