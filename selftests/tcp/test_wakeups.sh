#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 30
#
# One wakeup a read, not a message (issue #27): RDS/TCP wakes a socket's
# reader once for the messages one read of the TCP stream gives it in a
# row. That must lose no wakeup. Bursts of 64 B messages from one socket
# to two in turn (the destination changes every message, on one path) and
# from a second socket to the first, read with edge-triggered epoll (each
# socket read until EAGAIN on its event; a message queued with no wakeup
# after it would stall the reader for good) and with a blocking thread a
# socket: every message once and in order, and no more wakeups than
# messages. On a fast veth a read mostly holds one message; over a slow
# link TCP packs several into a segment, and there recv_wakeups must be
# well below recv_queued. (IPv4 only: Python's AF_RDS takes no IPv6
# address; the batch does not look at addresses.)

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tcp_lib.sh"

TOOL=$(dirname "$0")/rds_wakeups.py
n=$(tcp_count 3000 500)
# 3 x 1000 messages of 112 B on the wire take 3 s at 1 Mbit/s.
slow_n=1000
port=4700

# run MODE SRC DST: one burst, read the MODE way; the counters' moves in
# queued and woken.
run() {
	local mode=$1 src=$2 dst=$3 q0 w0 server rc=0

	port=$((port + 4))
	q0=$(counter recv_queued)
	w0=$(counter recv_wakeups)
	ip netns exec $B python3 "$TOOL" recv "$dst" $port "$mode" "$n" \
		>/tmp/wakeups-recv.log 2>&1 &
	server=$!
	for _ in $(seq 50); do
		grep -q ready /tmp/wakeups-recv.log && break
		sleep 0.2
	done
	ip netns exec $A python3 "$TOOL" send "$src" "$dst" $port "$n" || rc=1
	wait $server || rc=1
	grep -v '^ready$' /tmp/wakeups-recv.log | sed 's/^/# /'
	queued=$(($(counter recv_queued) - q0))
	woken=$(($(counter recv_wakeups) - w0))
	echo "# recv_queued +$queued, recv_wakeups +$woken"
	if [ "$woken" -gt "$queued" ]; then
		echo "# more wakeups than messages"
		rc=1
	fi
	return $rc
}

# slow MODE: a run over a link of 1 Mbit/s (netem on A's veth). TCP
# then holds back what it sends and fills each segment with several
# messages: a read has several in a row for one socket, which must share
# a wakeup: fewer wakeups than messages by a tenth at least (0.71 of them
# here: S1's messages alternate between R1 and R2, so only S2's to R1 run
# long).
slow() {
	local rc=0

	ip netns exec $A tc qdisc replace dev veth0 root netem rate 1mbit || return 1
	n=$slow_n run "$1" $A4 $B4 || rc=1
	ip netns exec $A tc qdisc del dev veth0 root
	[ $rc = 0 ] && [ "$queued" -gt 0 ] && [ $((woken * 10)) -le $((queued * 9)) ]
}

ktap_plan 5
ktap_test "load rds_tcp, netns pair, connections up" tcp_setup || ktap_finished
ktap_test "edge-triggered epoll" run et $A4 $B4
ktap_test "blocking reader threads" run block $A4 $B4
ktap_test "1 Mbit/s link, edge-triggered epoll: shared wakeups" slow et
ktap_test "1 Mbit/s link, blocking reader threads: shared wakeups" slow block
cleanup_netns
ktap_finished
