#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 105
#
# RDS/TCP connections killed mid-stream, while messages flow both ways:
# by ss -K on either side (the other sees a reset), on both at once, ten
# times (issue #36: crossed reconnects), by the link going down for a
# while, and by a buffer sysctl write. Nothing is lost, nothing
# duplicated, and once the traffic is through both ends' send and
# retransmit queues are empty within 10 s: nothing stays queued on a
# path that is back up.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tcp_lib.sh"

n=$(tcp_count 10000)

# kill_while_sending NAME CMD...: traffic in the background, CMD three times
# while it runs, then the traffic must finish clean. The first comes after
# a second: the short profile's traffic lasts two on a fast kernel (6.12).
kill_while_sending() {
	local pid delay did=0
	shift
	"$TRAFFIC" -A $A -B $B -a $A4 -b $B4 -n "$n" -t 900 &
	pid=$!
	for delay in 1 3 3; do
		sleep $delay
		kill -0 $pid 2>/dev/null || break
		"$@" && did=$((did + 1))
	done
	wait $pid || return 1
	echo "killed $did times"
	[ $did -gt 0 ]
}

# ss -K lists what it closed: it must have closed something.
ss_kill() {
	ip netns exec "$1" ss -tnK '( sport = :16385 or dport = :16385 )' | grep -q 16385
}

ss_kill_both() {
	local a

	ss_kill $A &
	a=$!
	ss_kill $B || { wait $a; return 1; }
	wait $a
}

# kill_often CMD...: as kill_while_sending, CMD ten times, 0.5 to 1.4 s
# apart, then the queues of both ends must empty.
kill_often() {
	local pid i did=0

	"$TRAFFIC" -A $A -B $B -a $A4 -b $B4 -n "$n" -t 900 &
	pid=$!
	for i in $(seq 10); do
		sleep 0.$((5 + RANDOM % 10))
		kill -0 $pid 2>/dev/null || break
		"$@" && did=$((did + 1))
	done
	wait $pid || return 1
	echo "killed $did times"
	[ $did -gt 0 ] && rds_queues_empty $A $B
}

link_flap() {
	ip -n $A link set veth0 down
	sleep 2
	ip -n $A link set veth0 up
}

sysctl_reset() {
	ip netns exec $A sysctl -qw net.rds.tcp.rds_tcp_sndbuf=0
}

ktap_plan 6
ktap_test "load rds_tcp, netns pair" tcp_setup || ktap_finished
if ! grep -q '^CONFIG_INET_DIAG_DESTROY=y' "/boot/config-$(uname -r)"; then
	ktap_skip "ss -K in a (no CONFIG_INET_DIAG_DESTROY)"
	ktap_skip "ss -K in b (no CONFIG_INET_DIAG_DESTROY)"
	ktap_skip "ss -K in both (no CONFIG_INET_DIAG_DESTROY)"
else
	ktap_test "ss -K of a's TCP sockets mid-stream" kill_while_sending x ss_kill $A
	ktap_test "ss -K of b's TCP sockets mid-stream" kill_while_sending x ss_kill $B
	ktap_test "ss -K on both ends at once, ten times: nothing stays queued" \
		kill_often ss_kill_both
fi
ktap_test "link down for 2 s mid-stream" kill_while_sending x link_flap
ktap_test "sysctl write resets mid-stream" kill_while_sending x sysctl_reset
ip netns exec $A "$BIN/rds-info" -c | grep -E 'conn_reset|tcp_' | sed 's/^/# /'
cleanup_netns
ktap_finished
