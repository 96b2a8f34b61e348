#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 260
#
# Teardown races of RDS/TCP, each looped under traffic: netns deletion,
# link down/up, a sysctl written through a file opened in a netns that is
# going away, a TCP connect to 16385 from a throwaway netns, RDS_INFO read
# while connections come and go, a socket closed while its messages wait
# for retransmission, rmmod of rds_tcp. Where two sides race, each runs
# pinned to its CPU ($ON_CPU0, $ON_CPU1), the traffic or the reader on
# CPU 0 and what tears down on CPU 1, so that they meet at the same
# moment, not by turns.
# Forty rounds (three on slow kernels) where a round is cheap; five (one)
# where each makes and deletes a netns or reloads a module, which costs
# seconds under TCG;
# RDS_RACE_ROUNDS=N sets both, for a longer run than CI has time for.
# Nothing acknowledged may be lost where traffic is checked, and the
# harness fails the run on any splat, kmemleak report or module that no
# longer unloads.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../tcp/tcp_lib.sh"

rounds=${RDS_RACE_ROUNDS:-$(tcp_count 40 3)}
netns_rounds=${RDS_RACE_ROUNDS:-$(tcp_count 5 1)}

# Traffic that outlasts the loop and is killed at its end.
background_traffic() {
	$ON_CPU0 "$TRAFFIC" -A $A -B $B -a $A4 -b $B4 -n 100000000 -t 3600 >/dev/null 2>&1 &
	bg=$!
}

stop_background() {
	kill -9 "$bg" 2>/dev/null
	wait "$bg" 2>/dev/null
	true
}

netns_del_under_traffic() {
	local i

	cleanup_netns
	for i in $(seq "$netns_rounds"); do
		netns_pair $A $B $A4 $B4 || return 1
		background_traffic
		sleep 0.$((RANDOM % 10))
		$ON_CPU1 ip netns del $B
		$ON_CPU1 ip netns del $A
		stop_background
	done
	tcp_setup
}

# The traffic must survive every flap whole: it runs to its end.
link_flaps_under_traffic() {
	local i pid

	$ON_CPU0 "$TRAFFIC" -A $A -B $B -a $A4 -b $B4 -n "$((rounds * 50))" -m 8192 -t 600 &
	pid=$!
	for i in $(seq "$rounds"); do
		$ON_CPU1 ip -n $A link set veth0 down
		sleep 0.0$((RANDOM % 10))
		$ON_CPU1 ip -n $A link set veth0 up
		sleep 0.$((RANDOM % 3))
	done
	wait $pid
}

# A file of the netns' sysctls kept open past the netns' deletion, written
# before, during and after: what the write reaches must still exist. The
# deletion waits until the files are open (the writer says so by making
# $ready): on two CPUs it could otherwise come before ip netns exec.
sysctl_write_netns_exit() {
	local i t ready

	ready=$(mktemp -u)
	for i in $(seq "$netns_rounds"); do
		ip netns add rds-sysctl || return 1
		$ON_CPU0 ip netns exec rds-sysctl python3 - "$ready" <<-'PY' &
		import os, sys, time
		fds = [os.open("/proc/sys/net/rds/tcp/" + n, os.O_WRONLY)
		       for n in ("rds_tcp_rcvbuf", "rds_tcp_sndbuf")]
		open(sys.argv[1], "w").close()
		end = time.time() + 0.5
		while time.time() < end:
		    for fd in fds:
		        os.pwrite(fd, b"131072\n", 0)
		PY
		for t in $(seq 100); do
			[ -e "$ready" ] && break
			sleep 0.1
		done
		rm -f "$ready"
		sleep 0.$((RANDOM % 5))
		$ON_CPU1 ip netns del rds-sysctl
		wait $! || return 1
	done
}

# A netns made for one RDS bind and a TCP connect to its listener, left
# with the connection open: the netns' exit tears both down. The client's
# address is the smaller one, from which the listener accepts (the larger
# connects); a reset (the peer being local) is fine too: what counts is
# what the exit finds.
connect_and_exit() {
	local i

	for i in $(seq "$netns_rounds"); do
		unshare -n python3 - <<-'PY' || return 1
		import socket, subprocess
		subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
		r = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
		r.bind(("127.0.0.2", 4000))
		try:
		    t = socket.create_connection(("127.0.0.2", 16385),
		                                 source_address=("127.0.0.1", 0))
		    t.send(b"\0" * 24)
		except ConnectionError as e:
		    print("connect:", e)
		PY
	done
}

# Connections to B come and go (its netns is deleted and made again, a
# peer restarting) while A's side of them is listed over and over. The
# old veth goes with the old netns, in the background: each round has its
# own. Each round's connection is checked with pings (the kernel answers
# them: no python to start), through the reconnect backoff.
info_while_conns_churn() {
	local i pid

	$ON_CPU0 ip netns exec $A python3 - <<-'PY' &
	import socket, time
	SOL_RDS = 276
	# RDS_INFO_COUNTERS .. RDS_INFO_TCP_SOCKETS and the IPv6 tables
	tables = list(range(10000, 10008)) + list(range(10011, 10017))
	s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
	while True:
	    for t in tables:
	        try:
	            s.getsockopt(SOL_RDS, t, 65536)
	        except OSError:
	            pass
	    time.sleep(0.01)
	PY
	pid=$!
	for i in $(seq "$netns_rounds"); do
		pinged $A $A4 $B4 || break
		$ON_CPU1 ip netns del $B
		ip netns add $B
		ip link add "rc$i" netns $A type veth peer name "rc$i" netns $B
		ip -n $A addr add $A4/24 dev "rc$i"
		ip -n $B addr add $B4/24 dev "rc$i"
		ip -n $B link set lo up
		ip -n $A link set "rc$i" up
		ip -n $B link set "rc$i" up
	done
	kill $pid
	wait $pid 2>/dev/null
	[ "$i" = "$netns_rounds" ] && rds_exchange $A $A4 $B $B4 4100 "churn-end" >/dev/null
}

# Messages queued behind a dead link, their socket closed, the link back:
# one python for all the rounds, its start costing more than a round.
close_while_retransmitting() {
	ip netns exec $A python3 - "$A4" "$B4" "$rounds" <<-'PY' || return 1
	import socket, subprocess, sys
	def link(state):
	    subprocess.run(["ip", "link", "set", "veth0", state], check=True)
	for _ in range(int(sys.argv[3])):
	    link("down")
	    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
	    s.bind((sys.argv[1], 0))
	    s.setblocking(False)
	    for n in range(16):
	        try:
	            s.sendto(b"x" * 4096, (sys.argv[2], 4200))
	        except BlockingIOError:
	            break
	    s.close()
	    link("up")
	PY
	# Then traffic on every path: back-to-back flaps grow the paths'
	# reconnect backoff past rds_exchange's 10 s on a slow kernel.
	"$TRAFFIC" -A $A -B $B -a $A4 -b $B4 -n 200 -t 300
}

# pinged NS SRC DST: DST answers an rds-ping from SRC within some 20 s.
pinged() {
	local t
	for t in $(seq 20); do
		ip netns exec "$1" "$BIN/rds-ping" -c 1 -i 1 -I "$2" "$3" >/dev/null &&
			return 0
	done
	echo "$3 does not answer $2"
	return 1
}

rmmod_under_traffic() {
	local i

	for i in $(seq "$netns_rounds"); do
		background_traffic
		sleep 0.$((RANDOM % 10))
		stop_background
		rmmod rds_tcp || return 1
		tcp_load || return 1
	done
	rds_exchange $A $A4 $B $B4 4100 after-rmmod >/dev/null
}

ktap_plan 8
ktap_test "load rds_tcp, netns pair" tcp_setup || ktap_finished
ktap_test "$netns_rounds netns deletions under traffic" netns_del_under_traffic
ktap_test "$rounds link flaps under traffic: nothing lost" link_flaps_under_traffic
ktap_test "$netns_rounds sysctl writes racing their netns' exit" sysctl_write_netns_exit
ktap_test "$netns_rounds netns exits with a connection to 16385 open" connect_and_exit
ktap_test "$rounds sockets closed while their messages wait" close_while_retransmitting
ktap_test "$netns_rounds rmmods of rds_tcp under traffic" rmmod_under_traffic
# Last: it leaves B's link renamed.
ktap_test "$netns_rounds connection churns under RDS_INFO reads" info_while_conns_churn
cleanup_netns
ktap_finished
