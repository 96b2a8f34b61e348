#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The initiator encodes the path index in the low three bits of its TCP
# source ports, and the acceptor believes them. With ip_local_port_range
# narrowed to two groups of eight and both ports of path 1 taken, path 1
# must stay down (retrying) rather than connect from a port that names
# another path; once a port frees up it connects, and the traffic that
# waited for it arrives exactly once and in order.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tcp_lib.sh"

n=$(tcp_count 5000 200)
LOW=40000

setup() {
	tcp_load && netns_pair $A $B $A4 $B4 $A6 $B6 &&
	ip netns exec $A sysctl -qw net.ipv4.ip_local_port_range="$LOW $((LOW + 15))"
}

# The RDS/TCP source ports of a, one per line.
a_ports() {
	tcp_conns $A | awk '{ n = split($3, p, ":"); print p[n] }' |
		grep -v '^16385$'
}

# ports_sane [any]: no two connections of a name the same path, and none
# names path 1 unless "any".
ports_sane() {
	local ports
	ports=$(a_ports)
	[ -n "$ports" ] || return 0
	echo "$ports" | awk -v low=$LOW -v any="${1:-}" '
		{ r = ($1 - low) % 8; if ((r == 1 && !any) || seen[r]++) bad = 1 }
		END { exit bad }'
}

blocked_then_freed() {
	local i pid hold bad=0

	coproc HOLD { ip netns exec $A python3 -c '
import socket, sys
ls = []
for p in map(int, sys.argv[1:]):
    s = socket.socket()
    s.bind(("0.0.0.0", p))
    s.listen()
    ls.append(s)
print("ready", flush=True)
sys.stdin.read()' $((LOW + 1)) $((LOW + 9)); }
	read -r -t 10 hold <&"${HOLD[0]}"
	[ "$hold" = ready ] || { echo "blocker not ready"; return 1; }

	tcp_warm $A4 $B4 || return 1
	# Eight sockets hash to eight paths: one waits for path 1.
	"$TRAFFIC" -A $A -B $B -a $A4 -b $B4 -p 4000 -k 8 -n "$n" -t 600 &
	pid=$!
	# Checked for 6 s (2 on slow kernels, where each check takes a second
	# and a longer block only grows the reconnect backoff waited out after).
	for i in $(seq "$(tcp_count 20 4)"); do
		ports_sane || { bad=1; echo "bad ports:" $(a_ports); }
		sleep 0.3
	done
	echo "while blocked, a's ports:" $(a_ports)
	exec {HOLD[1]}>&-
	wait $HOLD_PID
	wait $pid || return 1
	echo "after, a's ports:" $(a_ports)
	[ $bad = 0 ] && ports_sane any
}

ktap_plan 2
ktap_test "load rds_tcp, netns pair, 16 local ports in a" setup || ktap_finished
ktap_test "path 1 without a port waits, then delivers in order" \
	blocked_then_freed
cleanup_netns
ktap_finished
