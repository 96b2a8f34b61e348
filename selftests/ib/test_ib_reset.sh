#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 240
#
# Both ends of an RDS/IB connection reset at once, six times (four in the
# short profile), while messages flow both ways (issue #36, part 3): the
# rxe pair's link drops every packet until neither end's connection is up
# (its QP out of retries or its heartbeat unanswered, each end on its
# own), then carries again and both reconnect at the same moment: crossed
# connects, rejects, a fresh QP on each side. Nothing may be lost or
# duplicated, and once the traffic is through, both ends' send and
# retransmit queues are empty within 10 s: what a reset put back on the
# send queue, and an ack of the new connection already covered, must not
# stay there (d85e38a; the stall ib_deadpeer.sh saw).

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ib_lib.sh"

if [ "$RDS_PROFILE" = short ]; then rounds=4; else rounds=6; fi
old_hb=

# Heartbeats a second apart, two without an answer declare the path dead:
# an idle end notices the silence too.
hb_on() {
	old_hb="$(sysctl -n net.rds.conn_heartbeat_interval_secs) $(sysctl -n net.rds.conn_heartbeat_timeout_secs)"
	sysctl -qw net.rds.conn_heartbeat_interval_secs=1 &&
	sysctl -qw net.rds.conn_heartbeat_timeout_secs=2
}

cleanup() {
	local interval timeout

	tc qdisc del dev rv0 root 2>/dev/null
	tc qdisc del dev rv1 root 2>/dev/null
	if [ -n "$old_hb" ]; then
		read -r interval timeout <<<"$old_hb"
		sysctl -qw net.rds.conn_heartbeat_interval_secs="$interval"
		sysctl -qw net.rds.conn_heartbeat_timeout_secs="$timeout"
	fi
	ib_cleanup
}

# silence_until_both_down: every packet of the pair dropped (netem, which
# every kernel here has) until no connection is up, at most 30 s; then let
# through.
silence_until_both_down() {
	local rc=1

	tc qdisc add dev rv0 root netem loss 100% &&
	tc qdisc add dev rv1 root netem loss 100% || return 1
	for _ in $(seq 150); do
		if [ "$(ib_conns_count)" = 0 ]; then
			rc=0
			break
		fi
		sleep 0.2
	done
	tc qdisc del dev rv0 root && tc qdisc del dev rv1 root || return 1
	[ $rc = 0 ] || { echo "a connection stayed up 30 s into the silence"; "$BIN/rds-info" -n -v; }
	return $rc
}

# reset_often: ROUNDS silences, each ended only once both ends have
# reset, each next one only once both are up again, with traffic both
# ways throughout: an rds_traffic run that ends (each checks its own
# messages) is followed by the next, on other ports.
reset_often() {
	local pid did=0 runs=1 before after

	before=$(ib_counter conn_reset)
	traffic() {
		"$BIN/rds_traffic" -T ib -a $IA -b $IB -p $((7300 + 16 * runs)) \
			-n "$(ib_count 20000 4000)" -m 4096 -t 900 &
		pid=$!
	}
	traffic
	for _ in $(seq $rounds); do
		sleep 1
		if ! kill -0 $pid 2>/dev/null; then
			wait $pid || { echo "traffic run $runs failed"; return 1; }
			runs=$((runs + 1))
			traffic
			sleep 1
		fi
		silence_until_both_down && ib_conns_up 2 || break
		did=$((did + 1))
	done
	wait $pid || { echo "traffic run $runs failed after $did resets of both ends"; return 1; }
	after=$(ib_counter conn_reset)
	echo "both ends reset $did times under $runs traffic runs; conn_reset $before -> $after"
	[ $did = $rounds ] && rds_queues_empty
}

ktap_plan 3
trap cleanup EXIT
ib_start "rxe pair and rds_rdma set up, heartbeats 1 s / 2 s" hb_on
ib_first_ping "rds-ping over IB, both ways" 3 $IA $IB $IB $IA
ktap_test "both ends reset at once, $rounds times: nothing lost, nothing stays queued" \
	reset_often || ib_diag
ktap_finished
