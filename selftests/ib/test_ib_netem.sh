#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 260
#
# RDS/IB over a bad link: netem on both veths of the rxe pair (loss 5%,
# corrupt 5%, duplicate 5%) under traffic pinned to IB. rxe's reliable
# connection retransmits what is lost and drops what is corrupt (ICRC) or
# duplicated; when it runs out of retries the QP fails, RDS reconnects and
# retransmits, and the receiver drops what it already had. Every message
# still arrives exactly once and in order.
#
# The hardware retry count is 1 by default, as in-tree: on a healthy fabric
# a lost packet means a broken link, and RDS reconnecting is the cure. On
# a link that loses one packet in twenty, a QP with one retry fails every
# second or two, and rebuilding it costs more than the traffic it carried:
# an operator raises sysctl retry_count there, and so does this test
# before it connects.  To 6, not 7: rxe (6.1) takes 7 as "retry for ever",
# as IB does for the RNR count only, and a queue pair whose responder
# stopped answering then never fails: the path stayed up, its send ring
# full, for the rest of the run.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ib_lib.sh"

netem_on() {
	local dev
	for dev in rv0 rv1; do
		tc qdisc add dev $dev root netem loss 5% corrupt 5% duplicate 5% ||
			return 1
	done
}

netem_off() {
	tc qdisc del dev rv0 root 2>/dev/null
	tc qdisc del dev rv1 root 2>/dev/null
	true
}

# And the ACK timeout down from rdma_cm's half second to 67 ms (14): rxe
# resends a lost packet that nothing follows only when it expires.
lossy_link_sysctls() {
	sysctl -qw net.rds.ib.retry_count=6 &&
		sysctl -qw net.rds.ib.ack_timeout=14
}

ktap_plan 6
ib_start "rxe pair, rds_rdma set up, retry_count 6, ack_timeout 14" lossy_link_sysctls

# Connect on a clean link: rdma_cm's own exchanges have few retries.
if ! ktap_test "rds-ping over IB, both ways" ib_both_warm; then
	ib_diag
	ib_cleanup
	ktap_finished
fi
ktap_test "netem loss/corrupt/duplicate 5% on rv0 and rv1" netem_on

# The integrity run of test_ib_traffic.sh, 1 B .. 1 MiB, under netem, at
# a twentieth of its count: rxe answers a loss by sending again all that
# followed it, and at some 20 messages a second (against 400 on the clean
# link) 20,000 would take a quarter of an hour.
n=$(ib_count 500 200)
ktap_test "$n messages of 1 B .. 1 MiB, 2+2 sockets, both ways, under netem" \
	"$BIN/rds_traffic" -T ib -a $IA -b $IB -n "$n" -m 32768 -M 1048576 -t 500 ||
	ib_diag
# The small cluster of test_ib_selfaddr.sh under the same netem: 3
# sockets on each address, each to every other, those on its own address
# included (whose connections to themselves stay off the veths), with
# its 20,000 messages: mostly small, they go at 200 a second here.
n=$(ib_count 6000 1000)
ktap_test "$n messages of 1 B .. 64 KiB, 3+3 sockets, each to every other, under netem" \
	"$BIN/rds_traffic" -T ib -X -a $IA -b $IB -k 3 -p 7000 -n "$n" -m 8192 \
	-M 65536 -t 500 || ib_diag
netem_off
n=$(ib_count 100)
ktap_test "then $n messages up to 1 MiB on the clean link" \
	"$BIN/rds_traffic" -T ib -a $IA -b $IB -p 6000 -n "$n" -m 1048576 \
	-t 300 || ib_diag
"$BIN/rds-info" -c | grep -E 'ib_|conn_reset|recv_drop' | grep -v ' 0$' |
	sed 's/^/# /'

ib_cleanup
ktap_finished
