#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 20
#
# A sender whose buffers are just big enough for its pipeline (issue #22):
# SO_SNDBUF and SO_RCVBUF of 2 KiB on both ends, as the classic rds-stress
# sets them for 64-byte requests and answers at depth 8; 8 messages kept in
# flight to an echoing peer, blocking, with poll and with epoll, over IPv4
# and IPv6. After each answer the next send must go at once: no wait over
# 100 ms (500 on the slow kernels of the short profile) but one in a
# thousand, whose vCPU the host did not run (two-CPU guests beside CI's
# others: 1 of 2000 took 112 to 260 ms there), none over ten times that,
# and no send
# refused (EAGAIN for a full send buffer, ENOBUFS for a congested port),
# since the pipeline fits. Our stack charged the
# receiver for the bookkeeping of each small message against that 2 KiB,
# marked its port congested every few messages, and the sender spun on
# ENOBUFS for a congestion map round trip: half of in-tree's rate.
# RDS_TCP_INTREE=1 runs it against in-tree RDS/TCP.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tcp_lib.sh"

n=$(tcp_count 2000 500)
port=4600
# The debug kernel (the short profile) takes tens of ms for one send.
bound=$([ "$RDS_PROFILE" = short ] && echo 500 || echo 100)

pipeline() {
	port=$((port + 2))
	"$BIN/rds_pipeline" -A $A -B $B -p $port -n "$n" -d 8 -s 64 -S 2048 -w "$bound" \
		-W $((n / 1000)) "$@"
}

counters() {
	ip netns exec $A "$BIN/rds-info" -c |
		grep -E '^ *(cong_update_queued|cong_send_error|send_queue_full) ' | sed 's/^ */# /'
}

ktap_plan 7
ktap_test "load rds_tcp, netns pair, connections up" tcp_setup || ktap_finished
ktap_test "IPv4, non-blocking, poll" pipeline -a $A4 -b $B4 -m poll
ktap_test "IPv4, non-blocking, epoll" pipeline -a $A4 -b $B4 -m epoll
ktap_test "IPv4, blocking" pipeline -a $A4 -b $B4 -m block
ktap_test "IPv6, non-blocking, poll" pipeline -a $A6 -b $B6 -m poll
ktap_test "IPv6, blocking" pipeline -a $A6 -b $B6 -m block
# 8 KiB requests at depth 8, the buffers the classic formula gives them.
ktap_test "IPv4, 8 KiB, buffers of 132 KiB, epoll" \
	pipeline -a $A4 -b $B4 -m epoll -s 8192 -S 132096
counters
cleanup_netns
ktap_finished
