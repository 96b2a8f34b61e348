#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Many RDS/IB connections from a second machine, ours on both, over
# Soft-RoCE on the link between two guests (run-pair.sh): b bounds its
# ring memory a few MiB above what it pins, a opens one connection per TOS
# (200; 50 on slow kernels) and sends a message over each, which b echoes.
# Under the bound b refuses or shrinks some of them and never passes it;
# traffic over the TOS 0 connection made before goes on meanwhile; once b
# raises the bound, every message and every echo arrives exactly once.
# Last, each side deletes its rxe0, and every connection goes with it:
# what the rings pinned comes back (ring_memory 0).

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../interop/ib_interop_lib.sh"

MANY="python3 $(dirname "$0")/rds_pair_many.py"
n=200
[ "$RDS_PROFILE" = short ] && n=50

diag() {
	"$BIN/rds-info" -c | grep -E 'ib_|conn_reset' | grep -v ' 0$' |
		sed 's/^/# /'
	dmesg | tail -n 20 | sed 's/^/# /'
}

# rds_traffic over TOS 0 beside the flood, the two guests' sides at once.
# Its output is kept for the point that waits for it.
tos0_traffic() {
	"$BIN/rds_traffic" -T ib -S "$RDS_PAIR_ROLE" -a 192.0.2.1 -b 192.0.2.2 \
		-p 7600 -n "$(ib_interop_count)" -m 8192 -t 400 -l 5 \
		>/tmp/tos0_traffic.out 2>&1
}

tos0_done() {
	local rc

	wait "$1"
	rc=$?
	cat /tmp/tos0_traffic.out
	return $rc
}

# Both sides' traffic is over before either takes its device away: a
# listens once its own is, b connects once its own is, a waits for that.
both_done() {
	if [ "$RDS_PAIR_ROLE" = a ]; then
		ib_sync_serve && wait $!
	else
		ib_sync_wait
	fi
}

# rxe0 gone, and every connection with it: ring_memory 0 within 30 s.
rxe_gone_ring_memory_zero() {
	local i

	both_done && rdma link del rxe0 || return 1
	for i in $(seq 150); do
		[ "$(sysctl -n net.rds.ib.ring_memory)" = 0 ] && return 0
		sleep 0.2
	done
	echo "# ring_memory $(sysctl -n net.rds.ib.ring_memory) with no device"
	return 1
}

ktap_plan 7
ktap_test "link to $RDS_PAIR_PEER" pair_link_up || ktap_finished
ktap_test "rxe0 on the link" ib_rxe_up || ktap_finished
# Send rings of 64 (256 KiB): a's own bound (an eighth of a 2 GiB guest,
# half of it for the netns) admits 124 connections with rings of 256.
load_small() {
	rds_load rdma && sysctl -qw net.rds.ib.max_send_wr=64
}

ktap_test "load our rds_rdma, send rings of 64" load_small || ktap_finished
if [ "$RDS_PAIR_ROLE" = a ]; then
	ktap_test "the peer listens; rds-ping it: connects" ib_connect_first
	tos0_traffic &
	traffic=$!
	sleep 2
	ktap_test "$n connections to the peer, one per TOS: every echo once" \
		$MANY send "$RDS_PAIR_ADDR" "$RDS_PAIR_PEER" $n || diag
else
	ib_sync_serve
	ktap_test "connected to by the peer" ib_wait_conn
	tos0_traffic &
	traffic=$!
	ktap_test "$n connections from the peer under the bound, then above" \
		$MANY serve "$RDS_PAIR_ADDR" $n $((4 << 20)) 60 || diag
fi
# Not in ktap_test's subshell: only this shell can wait for it.
tos0_done $traffic >/tmp/tos0_done.out 2>&1
rc=$?
ktap_test "TOS 0 traffic beside them: nothing lost" \
	bash -c "cat /tmp/tos0_done.out; exit $rc" || diag
diag
ktap_test "rxe0 gone: what the rings pinned comes back" rxe_gone_ring_memory_zero
ktap_finished
