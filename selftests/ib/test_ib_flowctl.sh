#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RDS/IB credit-based flow control (sysctl flow_control, off by default as
# in-tree) and max_recv_allocation, over the rxe pair of ib_lib.sh: with a
# receive ring of 32 the senders run out of credits all the time, and
# messages still arrive exactly once and in order, each stall traced;
# then with the receive
# pages of both connections capped at 96, fewer than the rings want.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ib_lib.sh"

T=/sys/kernel/tracing

ktap_plan 7
ib_start "rxe pair and rds_rdma set up"

ktap_test "flow_control is off by default, max_recv_allocation is set" \
	bash -c "[ \$(sysctl -n net.rds.ib.flow_control) = 0 ] &&
		 [ \$(sysctl -n net.rds.ib.max_recv_allocation) -gt 0 ]"

# Read when a queue pair is built: before the first connection.  Credits
# count a connection's own receives: rings, not the shared queue.
sysctl -qw net.rds.ib.flow_control=1 net.rds.ib.max_recv_wr=32 \
	net.rds.ib.srq=0
ktap_test "rds-ping over IB with flow control, both ways" ib_both_warm ||
	ib_diag

# The stalls are traced too (rds_ib_credit_stall), with the connection.
[ -d $T/events ] || mount -t tracefs nodev $T
echo >$T/trace
echo 1 >$T/events/rds/rds_ib_credit_stall/enable
n=$(ib_count 2000)
ktap_test "$n messages up to 64 KiB, 2+2 sockets, both ways, ring of 32" \
	"$BIN/rds_traffic" -T ib -a $IA -b $IB -n "$n" -m 65536 -t 120 ||
	ib_diag
echo 0 >$T/events/rds/rds_ib_credit_stall/enable
ktap_test "the stalls traced: rds_ib_credit_stall with the connection" \
	grep -m 2 -E "rds_ib_credit_stall: netns=[0-9]+ ($IA->$IB|$IB->$IA) tos=0 posted=[0-9]+" $T/trace

ktap_test "credits were given and ran out (counters)" bash -c \
	"c=\$('$BIN/rds-info' -c | grep '^ *ib_'); echo \"\$c\"
	 echo \"\$c\" | awk '\$2 > 0 { n[\$1] = 1 }
	      END { exit !(n[\"ib_tx_credit_updates\"] && n[\"ib_rx_credit_updates\"] &&
			   n[\"ib_tx_throttle\"]) }'"

limited=$(ib_counter ib_rx_alloc_limit)
sysctl -qw net.rds.ib.max_recv_allocation=96
# The short profile's tenth (100) went through the debug kernel without
# ever meeting the cap (its readers kept up): 400 do.
n=$(ib_count 1000 400)
ktap_test "$n messages with max_recv_allocation 96: the limit holds, all arrive" \
	bash -c "'$BIN/rds_traffic' -T ib -a $IA -b $IB -p 6000 -n $n -m 65536 -t 120 &&
		 [ \$('$BIN/rds-info' -c | awk '\$1 == \"ib_rx_alloc_limit\" { print \$2 }') -gt $limited ]" ||
	ib_diag

ib_cleanup
ktap_finished
