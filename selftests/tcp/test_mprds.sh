#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 85
#
# Multipath RDS/TCP: eight sockets whose bound ports hash to eight paths
# send over several TCP connections (seen with ss), each socket's messages
# in order.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tcp_lib.sh"

n=$(tcp_count 10000 1000)

conns_at_least() {
	local ns=$1 min=$2 nr
	nr=$(tcp_conns "$ns" | wc -l)
	tcp_conns "$ns"
	echo "$nr TCP connections in $ns"
	[ "$nr" -ge "$min" ]
}

ktap_plan 5
ktap_test "load rds_tcp, netns pair, handshake" tcp_setup || ktap_finished
ktap_test "8 sockets a -> b (ports 4000..4007), per-socket order" \
	traffic -a $A4 -b $B4 -p 4000 -k 8 -d ab -n "$n" -t 900
ktap_test "traffic went over 8 TCP connections" conns_at_least $A 8
ktap_test "8 sockets both ways, per-socket order" \
	traffic -a $A4 -b $B4 -p 4000 -k 8 -n "$n" -t 900
ktap_test "still 8 TCP connections (no churn)" conns_at_least $B 8
cleanup_netns
ktap_finished
