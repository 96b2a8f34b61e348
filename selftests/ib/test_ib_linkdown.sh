#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 150
#
# RDS/IB when the link goes away, on the rxe pair of ib_lib.sh: rv1 taken
# down and brought up again under traffic pinned to IB (its rxe port goes
# down, the QPs run out of retries, reconnects fail until the link is
# back, and rxe is made again, see link_bounce): traffic resumes and every
# message arrives exactly once and in order. Then rds_rdma unloaded while
# its connections are up but idle and no socket uses it, and loaded again:
# it connects as before. Last, a peer that answers no connect request (rv1
# drops everything for longer than the connect deadline, RDS_IB_CONNECT_MS
# in ib.h): each attempt is dropped at the deadline (ib_connect_timeout)
# rather than after rdma_cm's minute of resends, and the connections are
# up within seconds of the link carrying again.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ib_lib.sh"

ktap_plan 7
ib_start "rxe pair and rds_rdma set up"

ktap_test "rds-ping over IB, both ways" ib_both_warm || ib_diag

# Taking rv1 down flushes its routes and neighbours: ib_paths puts them
# back once it is up. Debian 6.1's rxe does not get its CM traffic back
# after its port went down: every connect after that times out
# ("unreachable"), with a freshly loaded rds_rdma too. So both rxe
# devices are made again once the link is up, as an administrator would.
link_bounce() {
	sleep 3
	ip link set rv1 down || return 1
	sleep 3
	ip link set rv1 up && ib_paths || return 1
	rdma link del rxe0 && rdma link del rxe1 && ib_rxe_add
}
ib_traffic_across "ip link set rv1 down and up mid-stream" link_bounce \
	-T ib -a $IA -b $IB -p 7000 -n "$(ib_count 20000)" -m 16384 -t 300

# Idle: the traffic's sockets are closed, the connections stay up.
ktap_test "two RDS/IB connections up, no socket" ib_conns_up 2
ktap_test "rmmod rds_rdma with idle connections up" rds_rmmod rds_rdma ||
	ib_diag
reload() {
	rds_load rdma && ib_both_warm
}
ktap_test "rds_rdma loaded again: rds-ping over IB, both ways" reload ||
	ib_diag

# Reloaded, so no connection is up: the first attempts meet the blackout.
blackout() {
	local before after i

	rds_rmmod rds_rdma && rds_load rdma || return 1
	before=$(ib_counter ib_connect_timeout)
	tc qdisc add dev rv1 root netem loss 100% || return 1
	# Ping from both sides: each path connects, and gets no answer.
	"$BIN/rds-ping" -c 1 -i 1 -I $IB $IA >/dev/null 2>&1
	"$BIN/rds-ping" -c 1 -i 1 -I $IA $IB >/dev/null 2>&1
	sleep 20
	after=$(ib_counter ib_connect_timeout)
	tc qdisc del dev rv1 root
	echo "ib_connect_timeout: $before before the blackout, $after after it"
	[ "${after:-0}" -gt "${before:-0}" ] || return 1
	for i in $(seq 20); do
		"$BIN/rds-ping" -c 1 -i 1 -I $IB $IA >/dev/null 2>&1 &&
			"$BIN/rds-ping" -c 1 -i 1 -I $IA $IB >/dev/null 2>&1 && {
			echo "both ways up in $i tries after the blackout"
			return 0
		}
	done
	return 1
}
ktap_test "a peer that answers no request: dropped at the deadline, up after" \
	blackout || ib_diag

ib_cleanup
ktap_finished
