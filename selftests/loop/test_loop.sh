#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Traffic over the loopback transport, IPv4 and IPv6: message sizes up to
# 1 MiB, ordering with several senders, many sockets, rds ping, cancel,
# congestion, and the RDS_INFO tables (rds_loop); then the same in a netns
# that is deleted with its connections still there, and a module unload.

. "$(dirname "$0")/../lib.sh"

LOOP=$BIN/rds_loop
[ -x "$LOOP" ] || { echo "1..0 # SKIP $LOOP not built (make selftests)"; exit $KSFT_SKIP; }

ktap_plan 16
ktap_test "load rds.ko" rds_load || { ktap_finished; }

for addr in 127.0.0.1 ::1; do
	for t in sizes order many ping cong; do
		ktap_test "$t over $addr" "$LOOP" $t $addr
	done
done
ktap_test "RDS_CANCEL_SENT_TO" "$LOOP" cancel
ktap_test "RDS_INFO tables" "$LOOP" info

# Connections of a netns die with it: nothing may leak or splat.
in_netns() {
	ip netns add rdsloop || return 1
	ip -n rdsloop link set lo up &&
		ip netns exec rdsloop "$LOOP" many 127.0.0.1 &&
		ip netns exec rdsloop "$LOOP" ping ::1
	local rc=$?
	ip netns del rdsloop
	return $rc
}
ktap_test "traffic in a netns, then delete it" in_netns
# Wait for the netns cleanup work so that the unload below sees it done.
sleep 1
ktap_test "a second netns round" in_netns
sleep 1
ktap_test "rds.ko unloads" rds_unload
ktap_finished
