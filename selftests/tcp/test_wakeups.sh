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
. "$(dirname "$0")/wakeups_lib.sh"

n=$(tcp_count 3000 500)
# 3 x 1000 messages of 112 B on the wire take 3 s at 1 Mbit/s.
slow_n=1000

# run MODE SRC DST: one burst, from netns A to B (wakeups_run).
run() {
	wakeups_run counter $B $A "$1" "$2" "$3" "$n"
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
