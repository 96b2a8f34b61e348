#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 200
#
# The memory RDS/IB rings pin, bounded for the host and per netns
# (net.rds.ib.max_ring_memory, max_ring_memory_per_netns; ring_memory
# says what they pin now). The defaults: an eighth of memory, half of it
# per netns. Then, with the bound set a few MiB above what the rings pin:
# 200 connections from our own sockets (one per TOS, IA -> IB), while
# test_ib_traffic.sh's integrity run goes on over the TOS 0 connection
# made before: the bound is never passed, some rings are shrunk, some
# connections refused, the traffic on the old one arrives whole; once the
# bound is raised, every one of the 200 messages arrives, once. Then a
# peer's 200 requests (the user-space rdma_cm peer, one per TOS): the
# same limits, refused as a limit (RDS_IB_REJ_REFUSED, never "incompatible",
# which would make a peer fall back a version), while traffic goes on over
# a TOS 0 connection made before. Then 100 connections of our own against
# the netns's share alone (the host's bound far above it): the share
# binds as the host's bound did. Last, rds_rdma anew (the
# paths the refused requests made keep trying to connect, and fill the
# netns's share once the bound is back), one connection, and with the rxe
# devices gone, and every connection with them: ring_memory is 0. Small rings (64
# sends, 64 receives) keep 200 connections cheap; each connection has
# rings of its own (srq 0).

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ib_lib.sh"

PEER="python3 $(dirname "$0")/rdmacm_peer.py"
MANY="python3 $(dirname "$0")/rds_many.py"

defaults() {
	local total max netns

	total=$(awk '$1 == "MemTotal:" { print $2 * 1024 }' /proc/meminfo)
	max=$(sysctl -n net.rds.ib.max_ring_memory) &&
	netns=$(sysctl -n net.rds.ib.max_ring_memory_per_netns) &&
	echo "# max_ring_memory $max, per netns $netns, MemTotal $total" &&
	[ "$max" -le $((total / 8)) ] && [ "$max" -ge $((total / 9)) ] &&
	[ "$netns" = $((max / 2)) ] &&
	[ "$(sysctl -n net.rds.ib.ring_memory)" -gt 0 ] &&
	! echo 1 2>/dev/null >/proc/sys/net/rds/ib/ring_memory
}

# Rings of their own (srq 0): test_ib_srq.sh has the shared queue's.
small_rings() {
	sysctl -qw net.rds.ib.max_send_wr=64 net.rds.ib.max_recv_wr=64 \
		net.rds.ib.srq=0
}

# beside CMD...: rds_traffic over a TOS 0 connection made before, while
# CMD opens (or asks for) the others.
beside() {
	local tpid rc=0

	ib_warm $IA $IB || { echo "# no TOS 0 connection $IA -> $IB"; return 1; }
	"$BIN/rds_traffic" -T ib -a $IA -b $IB -n "$(ib_count 2000 500)" \
		-m 8192 -t 400 &
	tpid=$!
	"$@" || rc=1
	wait $tpid || { echo "# rds_traffic over TOS 0 failed"; rc=1; }
	return $rc
}

# rds_rdma anew: the peer's requests name the tuples (IA, IB, TOS) that
# the local flood's connections have.
reload() {
	rds_rmmod rds_rdma && rds_load rdma && small_rings
}

# A connection again, then the devices go, and every connection with them.
memory_returns() {
	ib_warm $IA $IB || { echo "# no connection $IA -> $IB"; return 1; }
	echo "# ring_memory $(sysctl -n net.rds.ib.ring_memory) with it"
	ib_rxe_gone_ring_memory_zero
}

ktap_plan 10
ib_start "rxe pair and rds_rdma set up" small_rings
ib_first_ping "rds-ping $IA -> $IB" 8 $IA $IB
ktap_test "the bound's defaults; ring_memory read only" defaults || ib_diag
ktap_test "200 connections of our own under the bound, TOS 0 traffic goes on" \
	beside $MANY $IA $IB 200 $((4 << 20)) || ib_diag
ktap_test "rds_rdma reloaded" reload || ib_diag
ktap_test "a peer's 200 requests under the bound: refused as a limit, TOS 0 traffic goes on" \
	beside $PEER memory $IB $IA 200 $((4 << 20)) || ib_diag
ktap_test "rds_rdma reloaded again" reload || ib_diag
ktap_test "100 connections under the netns's share alone, TOS 0 traffic goes on" \
	beside $MANY $IA $IB 100 $((4 << 20)) netns || ib_diag
ktap_test "rds_rdma reloaded a third time" reload || ib_diag
ktap_test "the rxe devices gone: ring_memory 0" memory_returns || ib_diag
ib_cleanup
ktap_finished
