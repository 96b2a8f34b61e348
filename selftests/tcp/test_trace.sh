#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 70
#
# The trace events (system "rds", net/rds/trace.h and the transports'):
# each reason is provoked and its event checked, with the namespace's inode
# number and both addresses. A connection made (rds_tcp_connect in rds-a,
# rds_tcp_accept in rds-b, rds_path_state connecting->up in both); a
# message to a port nobody bound (rds_recv_drop recv_drop_no_sock); the
# connections reset by a sysctl write (rds_path_drop with the reason,
# rds_tcp_shutdown; ss -K needs CONFIG_INET_DIAG_DESTROY, which the debug
# kernel has not); a
# peer gone silent (rds_heartbeat sent, then timeout, and the drop it
# causes); each reset's reason also in rds-info -p, at both ends; a receiver that does not read (rds_cong_update); and nothing
# recorded once the events are off.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tcp_lib.sh"

T=/sys/kernel/tracing
RDS_EVENTS="rds_path_state rds_path_drop rds_recv_drop rds_retransmit rds_heartbeat
	rds_cong_update rds_tcp_connect rds_tcp_accept rds_tcp_shutdown
	rds_ib_cm_event rds_ib_cm_refuse rds_ib_credit_stall rds_mr"

# wait_for SECS CMD...: until CMD succeeds, at most SECS seconds.
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.2
	done
}

# ns_inode NS: the inode number the events name NS by.
ns_inode() {
	stat -L -c %i "/run/netns/$1"
}

trace_setup() {
	rds_load tcp rdma || return 1
	[ -d $T/events ] || mount -t tracefs nodev $T || return 1
	local e
	for e in $RDS_EVENTS; do
		[ -e "$T/events/rds/$e/format" ] || { echo "no event $e"; return 1; }
	done
	echo 8192 >$T/buffer_size_kb
	echo >$T/trace
	echo 1 >$T/events/rds/enable
	netns_pair $A $B $A4 $B4 $A6 $B6
}

# seen PATTERN...: the trace has a line matching every PATTERN (extended
# regexps, all on one line); prints the lines of the first one's event.
seen() {
	local lines=$(cat $T/trace) p
	for p in "$@"; do
		lines=$(echo "$lines" | grep -E -- "$p")
	done
	if [ -z "$lines" ]; then
		echo "no event line matching: $*"
		grep -E -- "$1" $T/trace | tail -n 5
		return 1
	fi
	echo "$lines" | tail -n 3
}

connect_traced() {
	local a b
	a=$(ns_inode $A) b=$(ns_inode $B)
	tcp_warm $A4 $B4 || return 1
	seen "rds_tcp_connect:" "netns=$a $A4->$B4" "path=0" "err=0" &&
		seen "rds_tcp_accept:" "netns=$b $B4->$A4" "path=0 accepted" &&
		seen "rds_path_state:" "netns=$a $A4->$B4" "path=0 connecting->up" &&
		seen "rds_path_state:" "netns=$b $B4->$A4" "path=0 connecting->up"
}

no_sock_traced() {
	in_netns $A python3 -c '
import socket, sys
s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
s.bind((sys.argv[1], 4711))
s.sendto(b"nobody", (sys.argv[2], 4712))' $A4 $B4 || return 1
	wait_for 10 grep -q "reason=recv_drop_no_sock" $T/trace
	seen "rds_recv_drop:" "netns=$(ns_inode $B) $B4->$A4" "sport=4711 dport=4712" \
		"reason=recv_drop_no_sock"
}

# reset_a: rds-a's RDS/TCP connections reset (rds_tcp_sndbuf written).
reset_a() {
	ip netns exec $A sysctl -qw net.rds.tcp.rds_tcp_sndbuf=0
}

reset_traced() {
	reset_a || return 1
	wait_for 10 grep -q "rds_path_drop: netns=$(ns_inode $A)" $T/trace
	seen "rds_path_drop:" "netns=$(ns_inode $A) $A4->$B4" 'why="connection reset"' &&
		seen "rds_path_state:" "$A4->$B4" "up->error" &&
		seen "rds_tcp_shutdown:" "$A4->$B4" &&
		rds_path_reset_seen "connection reset" $A
}

# The other end of the reset: rds-b's paths were dropped too, and the
# event and rds-info say why, in the same words.
peer_reset_traced() {
	local why
	why=$(grep -o "rds_path_drop: netns=$(ns_inode $B) $B4->$A4 .*" $T/trace |
		tail -n 1 | sed -n 's/.* why="\(.*\)"$/\1/p')
	[ -n "$why" ] || { echo "no rds_path_drop in rds-b"; seen "rds_path_drop:"; return 1; }
	echo "# rds-b: $why"
	rds_path_reset_seen "$why" $B
}

# Every packet between the two is lost: the heartbeat (1 s, timeout 2 s)
# of an idle connection gets no answer and drops the path, at both ends.
heartbeat_traced() {
	local rc=0
	tcp_warm $A4 $B4 || return 1
	sysctl -qw net.rds.conn_heartbeat_timeout_secs=2
	sysctl -qw net.rds.conn_heartbeat_interval_secs=1
	wait_for 10 grep -q "rds_heartbeat:.* answered" $T/trace || rc=1
	ip netns exec $A tc qdisc add dev veth0 root netem loss 100%
	ip netns exec $B tc qdisc add dev veth0 root netem loss 100%
	wait_for 20 grep -q "rds_heartbeat: netns=$(ns_inode $A) .* timeout" $T/trace || rc=1
	ip netns exec $A tc qdisc del dev veth0 root
	ip netns exec $B tc qdisc del dev veth0 root
	sysctl -qw net.rds.conn_heartbeat_interval_secs=0
	sysctl -qw net.rds.conn_heartbeat_timeout_secs=10
	[ $rc = 0 ] || { seen "rds_heartbeat:"; return 1; }
	seen "rds_heartbeat:" "netns=$(ns_inode $A)" "sent" &&
		seen "rds_heartbeat:" "netns=$(ns_inode $A)" "timeout" &&
		seen "rds_path_drop:" "netns=$(ns_inode $A)" 'why="heartbeat timeout"' &&
		rds_path_reset_seen "heartbeat timeout" $A
}

# rds-b binds a socket with a small receive buffer and never reads: once
# its port is congested rds-a's sender learns it from a map.
cong_traced() {
	local pid
	tcp_warm $A4 $B4 || return 1
	in_netns $B python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.bind((sys.argv[1], 4800))
time.sleep(15)' $B4 &
	pid=$!
	sleep 1
	in_netns $A python3 -c '
import errno, socket, sys, time
s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
s.bind((sys.argv[1], 0))
end = time.time() + 10
while time.time() < end:
    try:
        s.sendto(b"x" * 1024, socket.MSG_DONTWAIT, (sys.argv[2], 4800))
    except OSError as e:
        if e.errno == errno.ENOBUFS:
            print("congested")
            break
        time.sleep(0.01)' $A4 $B4
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
	seen "rds_cong_update:" "netns=$(ns_inode $A) $A4->$B4" "congested=[1-9]"
}

off_quiet() {
	echo 0 >$T/events/rds/enable
	echo >$T/trace
	tcp_warm $A4 $B4 || return 1
	reset_a
	tcp_warm $A4 $B4 || return 1
	! grep -q "rds_" $T/trace || { grep "rds_" $T/trace | head -n 3; return 1; }
}

ktap_plan 8
ktap_test "load rds_tcp and rds_rdma, every event there, enabled" trace_setup ||
	ktap_finished
ktap_test "a connection: rds_tcp_connect, rds_tcp_accept, connecting->up, netns of each" \
	connect_traced
ktap_test "to a port nobody bound: rds_recv_drop recv_drop_no_sock" no_sock_traced
ktap_test "connections reset: rds_path_drop with the reason, up->error, rds_tcp_shutdown, rds-info -p" \
	reset_traced
ktap_test "the peer's end: the same reason in its event and its rds-info -p" \
	peer_reset_traced
ktap_test "a silent peer: rds_heartbeat sent, timeout, the drop it causes, rds-info -p" \
	heartbeat_traced
ktap_test "a receiver that does not read: rds_cong_update" cong_traced
ktap_test "events off: nothing recorded" off_quiet
echo 0 >$T/events/rds/enable 2>/dev/null
cleanup_netns
ktap_finished
