#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 120
#
# Busy polling (SO_BUSY_POLL, net.core.busy_poll) gives the same messages
# as sleeping: round trips of 8 B .. 8 KiB and bursts of 32, each back
# once, in order and intact, with blocking recvfrom() and with poll(),
# busy polling off and on. Over RDS/TCP between two netns (on the veths
# as they are, then with GRO on, which gives the receiver a NAPI context
# to poll), then over RDS/IB (rxe). Off, recv_busy_polled does not move;
# on, what it counted and the p50 of each run are printed. In this
# one-CPU guest the spin gives way at once to the task that answers (it
# would only keep it waiting), so it finds nothing here and costs
# nothing: what it gains, with the answer coming from elsewhere, is for
# make bench to show.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../tcp/tcp_lib.sh"
. "$(dirname "$0")/../ib/ib_lib.sh"

TOOL=$(dirname "$0")/rds_busypoll.py
n=$(tcp_count 400 100)
port=5000
busy_poll_was=$(cat /proc/sys/net/core/busy_poll)

# The counter, from init_net (they are global).
busy_polled() {
	rds_counter recv_busy_polled
}

# round NS_SERVER NS_CLIENT SRC DST BUSY_US TRANSPORT WAIT: one run of
# the tool, on a port of its own.
round() {
	local ns_s=$1 ns_c=$2 src=$3 dst=$4 busy=$5 tr=$6 how=$7 server before out rc

	port=$((port + 1))
	before=$(busy_polled)
	$ns_s python3 "$TOOL" serve "$dst" $port "$busy" "$tr" >/tmp/busypoll-serve.log 2>&1 &
	server=$!
	for _ in $(seq 50); do
		grep -q ready /tmp/busypoll-serve.log && break
		sleep 0.2
	done
	out=$($ns_c python3 "$TOOL" ping "$src" "$dst" $port "$n" "$busy" "$tr" "$how" 2>&1)
	rc=$?
	echo "$out"
	wait $server || rc=1
	grep -v '^ready$' /tmp/busypoll-serve.log
	echo "recv_busy_polled: $before -> $(busy_polled)"
	[ $rc = 0 ] || return 1
	if [ "$busy" = 0 ] && [ "$(busy_polled)" != "$before" ]; then
		echo "busy polling off, yet recv_busy_polled moved"
		return 1
	fi
}

tcp_round() {
	round "ip netns exec $B" "ip netns exec $A" $A4 $B4 "$@"
}

tcp_gro_round() {
	ip netns exec $A python3 "$TOOL" gro veth0 on &&
		ip netns exec $B python3 "$TOOL" gro veth0 on &&
		tcp_round "$@"
}

ib_round() {
	round "" "" $IA $IB "$@"
}

ktap_plan 10
ktap_test "load rds_tcp, netns pair" tcp_setup || ktap_finished
ktap_test "TCP: busy polling off, blocking recvfrom" tcp_round 0 tcp recv
ktap_test "TCP: SO_BUSY_POLL 20 ms, blocking recvfrom" tcp_round 20000 tcp recv
echo 20000 >/proc/sys/net/core/busy_poll
ktap_test "TCP: SO_BUSY_POLL and net.core.busy_poll 20 ms, poll()" tcp_round 20000 tcp poll
ktap_test "TCP: GRO on both veths (NAPI), SO_BUSY_POLL 20 ms" \
	tcp_gro_round 20000 tcp recv
echo "$busy_poll_was" >/proc/sys/net/core/busy_poll
cleanup_netns

ib_start "rxe pair and rds_rdma set up"
ktap_test "IB: busy polling off, blocking recvfrom" ib_round 0 ib recv || ib_diag
ktap_test "IB: SO_BUSY_POLL 20 ms, blocking recvfrom" ib_round 20000 ib recv || ib_diag
echo 20000 >/proc/sys/net/core/busy_poll
ktap_test "IB: SO_BUSY_POLL and net.core.busy_poll 20 ms, poll()" ib_round 20000 ib poll || ib_diag
echo "$busy_poll_was" >/proc/sys/net/core/busy_poll
ktap_test "rmmod rds_rdma after" rds_rmmod rds_rdma || ib_diag
ib_cleanup
ktap_finished
