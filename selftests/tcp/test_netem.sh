#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 135
#
# RDS/TCP over a bad link: netem on both veths (loss 5%, corrupt 5%,
# duplicate 5%, reordering) while the buffer sysctls are rewritten in both
# namespaces every half second, each write resetting the connections.
# Every message still arrives exactly once and in order.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tcp_lib.sh"

n=$(tcp_count 2500 400)
ktap_plan 4
ktap_test "load rds_tcp, netns pair" tcp_setup || ktap_finished
netem() {
	local ns
	for ns in $A $B; do
		ip netns exec $ns tc qdisc add dev veth0 root netem \
			loss 5% corrupt 5% duplicate 5% delay 2ms reorder 25% 50% || return 1
	done
}
ktap_test "netem loss/corrupt/duplicate/reorder on both veths" netem

sysctl_flapper $A $B &
flapper=$!
ktap_test "IPv4: $n messages under netem and sysctl resets" \
	traffic -a $A4 -b $B4 -n "$n" -t 900
ktap_test "IPv6: $((n / 2)) messages under netem and sysctl resets" \
	traffic -a $A6 -b $B6 -p 6000 -n $((n / 2)) -t 900
kill $flapper
wait $flapper 2>/dev/null
ip netns exec $A "$BIN/rds-info" -c | grep -E 'conn_reset|tcp_' | sed 's/^/# /'
cleanup_netns
ktap_finished
