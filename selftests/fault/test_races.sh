#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 260
#
# Teardown races of RDS/TCP, each looped under traffic: netns deletion,
# link down/up, a sysctl written through a file opened in a netns that is
# going away, a TCP connect to 16385 from a throwaway netns, RDS_INFO read
# while connections come and go, a socket closed while its messages wait
# for retransmission, rmmod of rds_tcp, an IPv6 bind while its address is
# deleted and added again. Where two sides race, each runs
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

# IPv6 binds in rds-a racing the deletion and re-adding of the address
# they bind (CVE-2026-74563: the bind's address check raced its removal):
# a global one, fd00::11, and a link-local one, fe80::11 on veth0 (the
# check then looks the link up by index too); each bound with the
# transport left to the bind (the first whose address check passes) and
# with SO_RDS_TRANSPORT set to TCP. The binder, on CPU 0, keeps its last
# eight bound sockets and sends from each, every turn, to rds-b (fd00::2,
# fe80::12, a port nobody has), so that sockets bound before a deletion
# send after it; on CPU 1 the addresses go and come back (nodad: usable
# at once), in a window of 10 to 50 ms each way. Python's AF_RDS knows
# IPv4 only: bind and sendto go through libc.
#  - A bind returns 0, or says the address is not there: EADDRNOTAVAIL,
#    or with SO_RDS_TRANSPORT in-tree's ENOPROTOOPT (the transport set
#    cannot have it).
#  - A send goes (its connection carries it once it can) or is refused
#    for room: EAGAIN, ENOBUFS.
#  - Each address and kind of bind both succeeded and was refused at
#    least once: else the race did not happen. Not on the short profile,
#    whose three rounds of a slow kernel may leave a kind of bind no turn
#    in the three windows without the address: its counts are only shown.
#  - Afterwards, rds-ping from each address gets its answer.
ipv6_bind_vs_addr_del() {
	local ready stop pid rc=0

	ip -n $A -6 addr add fd00::11/64 dev veth0 nodad &&
		ip -n $A -6 addr add fe80::11/64 dev veth0 nodad &&
		ip -n $B -6 addr add fe80::12/64 dev veth0 nodad || return 1
	ready=$(mktemp -u)
	stop=$(mktemp -u)
	$ON_CPU0 ip netns exec $A python3 - "$ready" "$stop" "$RDS_PROFILE" <<-'PY' &
	import ctypes, errno, os, socket, struct, sys, time
	libc = ctypes.CDLL(None, use_errno=True)
	libc.bind.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
	libc.sendto.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t,
	                        ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
	libc.sendto.restype = ctypes.c_ssize_t
	SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_TCP = 276, 8, 2
	link = socket.if_nametoindex("veth0")

	def sin6(addr, port, scope):
	    return (struct.pack("=H", socket.AF_INET6) + struct.pack("!HI", port, 0) +
	            socket.inet_pton(socket.AF_INET6, addr) + struct.pack("=I", scope))

	# Source, its scope, where its sockets send.
	pairs = [("fd00::11", 0, "fd00::2"), ("fe80::11", link, "fe80::12")]
	binds, sends, ring, bad, turn = {}, {}, [], [], 0
	open(sys.argv[1], "w").close()
	start = time.time()
	end = start + 120
	while not os.path.exists(sys.argv[2]) and time.time() < end:
	    src, scope, dst = pairs[turn % 2]
	    tcp = turn // 2 % 2
	    turn += 1
	    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
	    if tcp:
	        s.setsockopt(SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_TCP)
	    a = sin6(src, 0, scope)
	    err = ctypes.get_errno() if libc.bind(s.fileno(), a, len(a)) else 0
	    binds[src, tcp, err] = binds.get((src, tcp, err), 0) + 1
	    if err not in (0, errno.ENOPROTOOPT if tcp else errno.EADDRNOTAVAIL):
	        bad.append("bind to %s, transport %s: %s" %
	                   (src, "tcp" if tcp else "any", os.strerror(err)))
	    if err:
	        s.close()
	    else:
	        ring.append((s, sin6(dst, 4300, scope)))
	    for s, d in ring:
	        n = libc.sendto(s.fileno(), b"x", 1, socket.MSG_DONTWAIT, d, len(d))
	        err = ctypes.get_errno() if n < 0 else 0
	        sends[err] = sends.get(err, 0) + 1
	        if err not in (0, errno.EAGAIN, errno.ENOBUFS):
	            bad.append("send from a socket bound earlier: %s" % os.strerror(err))
	    while len(ring) > 8:
	        ring.pop(0)[0].close()
	for src, _, _ in pairs:
	    for tcp in (0, 1):
	        ok = binds.get((src, tcp, 0), 0)
	        no = sum(n for (a, t, e), n in binds.items() if (a, t) == (src, tcp) and e)
	        print("bind to %s, transport %s: %d bound, %d refused" %
	              (src, "tcp" if tcp else "any", ok, no))
	        if (not ok or not no) and sys.argv[3] != "short":
	            bad.append("%s, transport %s: the race did not happen" %
	                       (src, "tcp" if tcp else "any"))
	print("%d turns in %.1f s" % (turn, time.time() - start))
	print("sends: " + ", ".join("%d %s" % (n, os.strerror(e) if e else "sent")
	                            for e, n in sorted(sends.items())))
	for line in bad[:10]:
	    print(line)
	sys.exit(1 if bad else 0)
	PY
	pid=$!
	for _ in $(seq 100); do
		[ -e "$ready" ] && break
		sleep 0.1
	done
	# One ip for all the rounds, fed a line at a time: an ip and a sleep
	# started for each step cost more than the steps under TCG.
	$ON_CPU1 python3 - "$rounds" <<-'PY' | $ON_CPU1 ip -n $A -force -batch - || rc=1
	import random, sys, time
	for _ in range(int(sys.argv[1])):
	    for verb, opt in (("del", ""), ("add", " nodad")):
	        for addr in ("fd00::11", "fe80::11"):
	            print("addr %s %s/64 dev veth0%s" % (verb, addr, opt), flush=True)
	        time.sleep(random.uniform(0.01, 0.05))
	PY
	touch "$stop"
	wait $pid || rc=1
	rm -f "$ready" "$stop"
	[ $rc = 0 ] && pinged $A fd00::11 $B6 && pinged $A fe80::11%veth0 fe80::12%veth0
}

ktap_plan 9
ktap_test "load rds_tcp, netns pair" tcp_setup || ktap_finished
ktap_test "$netns_rounds netns deletions under traffic" netns_del_under_traffic
ktap_test "$rounds link flaps under traffic: nothing lost" link_flaps_under_traffic
ktap_test "$netns_rounds sysctl writes racing their netns' exit" sysctl_write_netns_exit
ktap_test "$netns_rounds netns exits with a connection to 16385 open" connect_and_exit
ktap_test "$rounds sockets closed while their messages wait" close_while_retransmitting
ktap_test "$netns_rounds rmmods of rds_tcp under traffic" rmmod_under_traffic
ktap_test "IPv6 binds racing $rounds deletions of their address" ipv6_bind_vs_addr_del
# Last: it leaves B's link renamed.
ktap_test "$netns_rounds connection churns under RDS_INFO reads" info_while_conns_churn
cleanup_netns
ktap_finished
