#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Receive memory. A socket that never reads, and a peer that ignores the
# congestion map and keeps sending (rds_flood.py: plain TCP speaking the RDS
# wire format): what the socket holds stays bounded (a multiple of its
# rcvbuf), the rest is dropped and counted in recv_drop_rcvbuf, in the
# socket's own count (rds-info -d) and as rds_recv_drop events, and small
# messages do not pin the big skbs they came in. A well-behaved pair
# sending many small messages loses nothing.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tcp_lib.sh"

FLOOD=$(dirname "$0")/rds_flood.py
n=$(tcp_count 20000)
# The flood must take the receiver past its hard limit even in the short
# profile: 2,000 messages hold about 3.5 MiB, under the 4 MiB.
nflood=$(tcp_count 20000 6000)
PORT=7777
T=/sys/kernel/tracing
RCVBUF=65536		# sk_rcvbuf 128 KiB; the memory budget is that, but
			# at least 256 KiB, and the hard limit 16 times it
BUDGET=$((2 * RCVBUF > 262144 ? 2 * RCVBUF : 262144))
HARD=$((BUDGET * 16))

mem_avail_kb() {
	awk '$1 == "MemAvailable:" { print $2 }' /proc/meminfo
}

# Neither side has an RDS connection yet: the flood's TCP connection is the
# only one between A4 and B4, so B puts it on path 0.
setup() {
	tcp_load && netns_pair $A $B $A4 $B4 $A6 $B6
}

well_behaved() {
	local before after
	before=$(counter recv_drop_rcvbuf)
	traffic -a $A6 -b $B6 -p 6000 -n "$n" -m 64 -k 4 -t 600 || return 1
	after=$(counter recv_drop_rcvbuf)
	echo "recv_drop_rcvbuf $before -> $after"
	[ "$before" = "$after" ]
}

flood() {
	local q0 d0 q1 d1 m0 m1 queued bytes got sock_drops traced rc=0

	coproc HOLD { ip netns exec $B python3 "$FLOOD" hold $B4 $PORT $RCVBUF; }
	read -r -t 10 got <&"${HOLD[0]}"
	[ "$got" = ready ] || { echo "receiver not ready"; return 1; }
	[ -d $T/events ] || mount -t tracefs nodev $T || return 1
	echo >$T/trace
	echo 1 >$T/events/rds/rds_recv_drop/enable || return 1
	q0=$(counter recv_queued)
	d0=$(counter recv_drop_rcvbuf)
	m0=$(mem_avail_kb)

	# Every 100th message is 60000 bytes, the others 10.
	timeout 300 ip netns exec $A python3 "$FLOOD" flood $A4 $B4 $PORT \
		"$nflood" 10 100 60000 || rc=1
	sleep 1
	q1=$(counter recv_queued)
	d1=$(counter recv_drop_rcvbuf)
	m1=$(mem_avail_kb)
	read -r queued bytes < <(ip netns exec $B "$BIN/rds-info" -r |
		awk -v p=$PORT 'NF == 7 && ($2 == p || $4 == p) { n++; b += $7 }
				END { print n + 0, b + 0 }')
	# The holder's own count (rds-info -d: BoundAddr BPort Inode RcvBuf...).
	sock_drops=$(ip netns exec $B "$BIN/rds-info" -d |
		awk -v a=$B4 -v p=$PORT '$1 == a && $2 == p { print $4 }')
	echo 0 >$T/events/rds/rds_recv_drop/enable
	traced=$(grep -c "rds_recv_drop: .* dport=$PORT .*reason=recv_drop_rcvbuf" $T/trace)
	echo "sent $nflood, queued $((q1 - q0)), dropped $((d1 - d0))"
	echo "receive queue: $queued messages, $bytes bytes (hard limit $HARD)"
	echo "MemAvailable went down by $(((m0 - m1) / 1024)) MiB"
	echo "the socket's recv_rcvbuf (rds-info -d): $sock_drops; rds_recv_drop events: $traced"
	exec {HOLD[1]}>&-
	wait

	[ $rc = 0 ] || { echo "flood failed"; return 1; }
	# Everything reached the socket: queued or dropped, nothing else.
	[ $((q1 - q0 + d1 - d0)) = "$nflood" ] || return 1
	[ $((d1 - d0)) -gt 0 ] || return 1
	# Each drop is the holder's, and traced with its reason (the trace
	# buffer may have overflowed: at least one).
	[ "$sock_drops" = $((d1 - d0)) ] && [ "$traced" -gt 0 ] || return 1
	[ "$queued" -gt 0 ] && [ "$bytes" -le $HARD ] || return 1
	# What the queue holds is what the flood costs (slack for the rest).
	[ $(((m0 - m1) / 1024)) -lt 64 ]
}

ktap_plan 3
ktap_test "load rds_tcp, netns pair" setup || ktap_finished
ktap_test "many small messages, a reader: nothing dropped" \
	well_behaved
ktap_test "peer ignoring congestion: memory bounded, drops counted" flood
ip netns exec $A "$BIN/rds-info" -c | grep -E 'recv_drop|recv_queued' | sed 's/^/# /'
cleanup_netns
ktap_finished
