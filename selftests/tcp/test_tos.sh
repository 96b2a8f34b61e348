#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Sockets of different TOS (SIOCRDSSETTOS) to one RDS/TCP peer. The peer
# cannot learn a TOS: it accepts every TCP connection into its TOS 0
# connection. When each TOS had its own connection on the sending side,
# they took the peer's paths from each other, resetting one another
# without end (rds_fuzz found it: 100,000 resets, and the TOS 0 traffic
# stuck behind them). Now they share one: everything is delivered, with
# no reset on the way.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tcp_lib.sh"
. "$(dirname "$0")/../security/sec_lib.sh"

log=$(mktemp)
trap 'rm -f "$log"' EXIT

# send_tos: from rds-a, 5 sockets of TOS 0..4, 20 messages each to rds-b.
send_tos() {
	ip netns exec $A python3 - $A4 $B4 <<-'PY'
	import fcntl, socket, struct, sys, time
	SIOCRDSSETTOS = 0x89e0
	socks = []
	for tos in range(5):
	    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
	    fcntl.ioctl(s.fileno(), SIOCRDSSETTOS, struct.pack("B", tos))
	    s.bind((sys.argv[1], 0))
	    socks.append(s)
	for i in range(20):
	    for tos, s in enumerate(socks):
	        s.sendto(b"tos%d-%d" % (tos, i), (sys.argv[2], 4000))
	time.sleep(8)
	PY
}

run() {
	local pid before after n
	listen $B $B4 4000 15 >"$log" 2>&1 &
	pid=$!
	wait_bound "$log" || return 1
	before=$(counter conn_reset)
	send_tos
	after=$(counter conn_reset)
	wait $pid
	n=$(grep -c '^tos' "$log")
	echo "$n of 100 delivered, conn_reset $before -> $after"
	[ "$n" = 100 ] && [ "$after" -le $((before + 2)) ]
}

ktap_plan 2
ktap_test "load rds_tcp, netns pair, connected" tcp_setup || ktap_finished
ktap_test "5 TOS to one peer: all delivered, no path reset" run
cleanup_netns
ktap_finished
