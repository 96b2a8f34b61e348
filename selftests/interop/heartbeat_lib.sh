# SPDX-License-Identifier: GPL-2.0
#
# Heartbeats against an in-tree peer (issue 26), for interop_lib.sh and
# ib_interop_lib.sh: our side turns them on (1 s interval, 3 s timeout)
# before any traffic, with hb_on; after the traffic, hb_answered gives the
# idle connection 5 s of heartbeats and checks that the in-tree peer
# answered each (none timed out, the connection stayed up), while the
# in-tree side stays up with hb_peer_waits.

hb_on() {
	sysctl -qw net.rds.conn_heartbeat_interval_secs=1 \
		net.rds.conn_heartbeat_timeout_secs=3
}

# counter NAME: one of the RDS counters.
counter() {
	rds_counter "$1"
}

# Our heartbeats (1 s, on from the start) went to the in-tree peer while
# the connection was idle after the traffic, and each was answered: none
# timed out, the connection stayed up.
hb_answered() {
	local sent timeouts

	sleep 5
	sent=$(counter conn_heartbeat_sent)
	timeouts=$(counter conn_heartbeat_timeout)
	echo "heartbeats sent $sent, timed out $timeouts"
	sysctl -qw net.rds.conn_heartbeat_interval_secs=0
	[ "$sent" -gt 0 ] && [ "$timeouts" = 0 ]
}

hb_peer_waits() {
	sleep 8
}
