#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-ci-debug: run: namespace exit with sockets and connections
# rds-cost: 35
#
# Network namespaces holding RDS sockets: each namespace has its own bind
# table and socket list; deleting a namespace whose sockets are still open,
# then closing them, tears its connections down; the module unloads after.

. "$(dirname "$0")/../lib.sh"

rounds=10
[ "$RDS_PROFILE" = short ] && rounds=3

# hold_sockets NS: in NS, rds_hold binds IPv4 and IPv6 sockets, sends over
# loopback, leaves messages queued, says "ready" and waits for stdin to close.
hold_sockets() {
	ip netns exec "$1" "$BIN/rds_hold" 127.0.0.1 ::1
}

# Binding the same address and port in two namespaces works, and the info
# table of init_net shows only its own socket (one struct rds_info_socket,
# 28 bytes), not the four held in rdsns1.
same_port_two_netns() {
	local line pid out in rc=0
	coproc holder { hold_sockets rdsns1; }
	pid=$holder_PID out=${holder[0]} in=${holder[1]}
	read -r -t 30 line <&"$out" || rc=1
	[ "$line" = ready ] || { echo "holder said '$line'"; rc=1; }
	python3 -c '
import socket
s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
s.bind(("127.0.0.1", 7000))
table = s.getsockopt(276, 10006, 1024)	# SOL_RDS, RDS_INFO_SOCKETS
assert len(table) == 28, len(table)
' || rc=1
	eval "exec $in>&-"
	wait "$pid" || rc=1
	return $rc
}

# One round: a namespace with sockets is deleted while they are open.
netns_round() {
	local line pid out in rc=0
	ip netns add rdsns || return 1
	ip -n rdsns link set lo up
	coproc holder { hold_sockets rdsns; }
	pid=$holder_PID out=${holder[0]} in=${holder[1]}
	read -r -t 30 line <&"$out" || rc=1
	[ "$line" = ready ] || { echo "holder said '$line'"; rc=1; }
	ip netns del rdsns || rc=1
	# Closing stdin lets the holder exit: its sockets close, the netns dies.
	eval "exec $in>&-"
	wait "$pid" || rc=1
	return $rc
}

netns_rounds() {
	local i
	for i in $(seq "$rounds"); do
		netns_round || { echo "round $i failed"; return 1; }
	done
}

# The namespaces are freed asynchronously: give cleanup_net time.
unload_after_netns() {
	local i
	for i in $(seq 50); do
		rds_unload 2>/dev/null && return 0
		sleep 0.2
	done
	rds_unload
}

ktap_plan 3
if ! rds_load; then
	ktap_fail "load rds.ko"
	ktap_finished
fi
ip netns add rdsns1 && ip -n rdsns1 link set lo up
ktap_test "same address and port bound in two namespaces" same_port_two_netns
ip netns del rdsns1
ktap_test "$rounds namespaces deleted while holding sockets" netns_rounds
ktap_test "rds.ko unloads" unload_after_netns
ktap_finished
