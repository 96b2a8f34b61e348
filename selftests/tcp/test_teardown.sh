#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tearing RDS/TCP down under load: rmmod rds_tcp with live connections
# right after the senders are gone, and netns deletion while messages
# flow, the traffic on CPU 0 and the deletion on CPU 1. The harness fails
# the run on any kernel splat or kmemleak report.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tcp_lib.sh"

busy_then_rmmod() {
	local pid
	"$TRAFFIC" -A $A -B $B -a $A4 -b $B4 -n 1000000 -t 900 >/dev/null 2>&1 &
	pid=$!
	sleep 4
	kill -9 $pid
	wait $pid 2>/dev/null
	tcp_conns $A | wc -l | sed 's/^/TCP connections before rmmod: /'
	rmmod rds_tcp
}

busy_then_netns_del() {
	local pid
	$ON_CPU0 "$TRAFFIC" -A $A -B $B -a $A4 -b $B4 -n 1000000 -t 900 >/dev/null 2>&1 &
	pid=$!
	sleep 4
	$ON_CPU1 ip netns del $B
	sleep 2
	kill -9 $pid
	wait $pid 2>/dev/null
	ip netns del $A
	sleep 1
}

ktap_plan 6
ktap_test "load rds_tcp, netns pair" tcp_setup || ktap_finished
ktap_test "rmmod rds_tcp with live connections" busy_then_rmmod
reload() {
	rds_load tcp && tcp_warm $A4 $B4
}

ktap_test "load rds_tcp again" reload
ktap_test "traffic after reload" traffic -a $A4 -b $B4 -n 2000 -t 300
ktap_test "delete the netns while messages flow" busy_then_netns_del
ktap_test "rmmod rds_tcp rds" rds_unload
cleanup_netns
ktap_finished
