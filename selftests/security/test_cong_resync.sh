#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 115
#
# A peer that sends its congestion map on any path (in-tree RDS does) can
# leave us with a stale map that marks a port congested. A blocking sender
# to that port, even one that arrives just after the map, asks for the map
# again itself (path 0 is reset) and is woken when the open map arrives;
# and however many senders keep trying a port that stays congested, path 0
# is reset at growing intervals (2 s, then 8 s...), not every 2 s: once in
# the 8 s this test tries.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../tcp/tcp_lib.sh"
. "$(dirname "$0")/sec_lib.sh"

peer=$(mktemp)
cnt=$(mktemp)
trap 'rm -f "$peer" "$cnt"' EXIT

# sender SNDTIMEO NONBLOCK_SECS: from 192.0.2.2:5000 (path 0) to
# 192.0.2.1:4000. NONBLOCK_SECS 0: one blocking send (SNDTIMEO seconds, 0
# for none), prints "sent" or the errno, killed after 30 s (python's
# start alone takes seconds on a loaded debug guest). Else
# nonblocking sends every 0.2 s for that long, printing how many were
# refused.
sender() {
	timeout 30 ip netns exec $B python3 - $B4 $A4 "$1" "$2" <<-'PY'
	import errno, socket, struct, sys, time
	src, dst, timeo, secs = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
	s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
	s.bind((src, 5000))
	if secs == 0:
	    if timeo:
	        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", timeo, 0))
	    try:
	        s.sendto(b"x", (dst, 4000))
	        print("sent")
	    except OSError as e:
	        print(errno.errorcode[e.errno])
	    sys.exit(0)
	refused, end = 0, time.time() + secs
	while time.time() < end:
	    try:
	        s.sendto(b"x", socket.MSG_DONTWAIT, (dst, 4000))
	    except OSError as e:
	        if e.errno != errno.ENOBUFS:
	            raise
	        refused += 1
	    time.sleep(0.2)
	print("refused %d" % refused)
	PY
}

# stale_peer MODE SECS: the raw peer in the background, until its map is in.
stale_peer() {
	local i
	: >"$peer"
	rawpeer stale 4000 "$1" "$2" >"$peer" 2>&1 &
	for i in $(seq 50); do
		grep -q "congested sent on path 1" "$peer" && sleep 0.3 && return 0
		sleep 0.2
	done
	cat "$peer"
	return 1
}

# peer_done: wait for the raw peer to end, show what it saw.
peer_done() {
	local i
	for i in $(seq 30); do
		grep -q "resets seen" "$peer" && break
		sleep 1
	done
	cat "$peer"
}

resyncs() {
	echo $(($(counter cong_resync) - $(cat "$cnt")))
}

blocked_sender_woken() {
	local out
	counter cong_resync >"$cnt"
	stale_peer open 20 || return 1
	out=$(sender 0 0)
	echo "blocking sender: ${out:-still blocked after 30 s}"
	peer_done
	echo "cong_resync: +$(resyncs)"
	[ "$out" = sent ] && [ "$(resyncs)" = 1 ]
}

one_reset_per_stale_map() {
	local out
	counter cong_resync >"$cnt"
	stale_peer congested 20 || return 1
	out=$(sender 0 8)
	echo "nonblocking senders for 8 s: $out"
	peer_done
	echo "cong_resync: +$(resyncs)"
	[ "$(resyncs)" = 1 ]
}

ktap_plan 4
ktap_test "load rds_tcp, netns pair" sec_setup || ktap_finished
ktap_test "a blocking sender behind a stale map is woken" blocked_sender_woken
cleanup_netns
ktap_test "netns pair again" netns_pair $A $B $A4 $B4 $A6 $B6
ktap_test "a port that stays congested: path 0 reset once, not every 2 s" \
	one_reset_per_stale_map
cleanup_netns
ktap_finished
