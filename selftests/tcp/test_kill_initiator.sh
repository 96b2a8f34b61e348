#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The side with the smaller address connects every path, so it is the one
# whose sockets are our own connects. Here it kills them itself, over and
# over, while the larger side streams to it: whatever its TCP acked before
# the kill must still be delivered, exactly once and in order, just as when
# the accepting side is the one that lets go.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tcp_lib.sh"

n=$(tcp_count 10000 1000)

# kill_loop SECONDS CMD...: CMD every 0.4 s for SECONDS, or until the
# traffic ($pid) is done. Prints how often CMD did something.
kill_loop() {
	local end=$((SECONDS + $1)) did=0
	shift
	while [ $SECONDS -lt $end ] && kill -0 $pid 2>/dev/null; do
		"$@" && did=$((did + 1))
		sleep 0.4
	done
	echo "killed $did times"
	[ $did -gt 0 ]
}

# storm NAME CMD...: traffic mostly from b to a (a receives, a kills),
# CMD in a loop meanwhile, then every message must have arrived once.
storm() {
	local out
	shift
	"$TRAFFIC" -A $A -B $B -a $A4 -b $B4 -d ba -n "$n" -t 900 &
	pid=$!
	kill_loop 30 "$@" || { wait $pid; return 1; }
	wait $pid || return 1
	out=$(ip netns exec $A "$BIN/rds-info" -c | grep -E 'conn_reset|drained')
	echo "$out"
}

ss_kill_a() {
	ip netns exec $A ss -tnK '( sport = :16385 or dport = :16385 )' | grep -q 16385
}

sysctl_reset_a() {
	ip netns exec $A sysctl -qw net.rds.tcp.rds_tcp_rcvbuf=0
}

ktap_plan 3
ktap_test "load rds_tcp, netns pair" tcp_setup || ktap_finished
ktap_test "initiator resets its own paths by sysctl under load" \
	storm x sysctl_reset_a
if ! grep -q '^CONFIG_INET_DIAG_DESTROY=y' "/boot/config-$(uname -r)"; then
	ktap_skip "ss -K by the initiator (no CONFIG_INET_DIAG_DESTROY)"
else
	ktap_test "initiator ss -K's its own sockets under load" storm x ss_kill_a
fi
cleanup_netns
ktap_finished
