#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 90
#
# Paths that must not get stuck on their way back up. Two 2026 in-tree
# fixes were about connections that never came back:
#
# CVE-2026-43226: a multipath RDS/TCP path in RDS_CONN_ERROR took the
# peer's new connection straight to CONNECTING, skipping the shutdown;
# the next reset then met a state the shutdown did not expect and left
# the path down with its shutdown work flagged queued for ever. Ours
# leaves ERROR through the shutdown only: an accepted socket for a path
# still going down is parked and adopted once it is DOWN
# (tcp_accept_parked counts those). Here the acceptor (rds-b, the larger
# address) resets its own paths over and over (ss -K, and net.rds.tcp
# sysctl writes) while traffic runs on eight paths, so that the
# initiator's reconnects arrive while rds-b's paths are in ERROR or
# shutting down; every path that was up before is up again on both ends
# and nothing is lost.
#
# CVE-2026-43230: a reconnect cancelled before its work ran left the
# reconnect-pending bit set, and no reconnect was queued again. Ours
# cancels the connect work only when the path is destroyed, and clears
# the bit where the work fails to queue. Here rds-b sends nothing (netem
# drops all it sends), so rds-a's connects hang in CONNECTING, while
# rds-a's connections are reset every 0.3 s (a write of
# net.rds.tcp.rds_tcp_sndbuf): resets meet connects under way and
# reconnects waiting out their backoff. Then rds-b's packets go again,
# and every path must be up within 30 s (the longest backoff is 1 s).

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tcp_lib.sh"

n=$(tcp_count 20000 2000)
kills=30
[ "$RDS_PROFILE" = short ] && kills=10

# up_paths NS: the paths of NS that are up, one "LADDR FADDR INDEX" a line.
up_paths() {
	ip netns exec "$1" "$BIN/rds-info" --json -p | python3 -c '
import json, sys
for p in json.load(sys.stdin).get("paths", []):
    if p["state"] == "up":
        print(p["local_addr"], p["remote_addr"], p["path"])' | sort
}

# all_back NS BEFORE: every path of BEFORE is up in NS within 30 s (by
# the clock: one look takes a second or more on the debug kernel).
all_back() {
	local now start=$SECONDS

	while :; do
		now=$(up_paths "$1")
		[ -z "$(comm -23 <(echo "$2") <(echo "$now"))" ] && return 0
		[ $((SECONDS - start)) -lt 30 ] || break
		sleep 0.2
	done
	echo "$1: paths not back up after 30 s:"
	comm -23 <(echo "$2") <(echo "$now")
	ip netns exec "$1" "$BIN/rds-info" -p
	return 1
}

# resets_in_b K: in one process in rds-b (each `ip netns exec` costs
# seconds on the debug kernel), K resets of rds-b's paths 0.1 to 0.5 s
# apart, one line each: by ss -K of its TCP sockets (the path sees its
# socket close) every other time where the kernel has
# CONFIG_INET_DIAG_DESTROY, else by a write of
# net.rds.tcp.rds_tcp_rcvbuf (the path is reset by rds_tcp itself).
resets_in_b() {
	local kill=0

	grep -q '^CONFIG_INET_DIAG_DESTROY=y' "/boot/config-$(uname -r)" && kill=1
	ip netns exec $B bash -c '
	for i in $(seq '"$1"'); do
		sleep 0.$((1 + RANDOM % 5))
		if [ '$kill' = 1 ] && [ $((i % 2)) = 0 ]; then
			ss -tnK "( sport = :16385 or dport = :16385 )" |
				grep -q 16385 && echo "ss -K"
		else
			echo $(((i % 2) * 262144)) \
				>/proc/sys/net/rds/tcp/rds_tcp_rcvbuf && echo sysctl
		fi
	done'
}

# storm: traffic on eight sockets each way while rds-b resets its paths
# $kills times; then the paths come back and the traffic ends clean.
storm() {
	local pa pb pid did parked rc=0

	# All eight paths up first, to compare with after.
	traffic -a $A4 -b $B4 -k 8 -d both -n 200 -t 120 || return 1
	pa=$(up_paths $A)
	pb=$(up_paths $B)
	echo "up before: $(grep -c . <<<"$pa") paths in rds-a, $(grep -c . <<<"$pb") in rds-b"
	parked=$(counter tcp_accept_parked)
	"$TRAFFIC" -A $A -B $B -a $A4 -b $B4 -k 8 -d both -n "$n" -t 900 &
	pid=$!
	did=$(resets_in_b $kills | sort | uniq -c | tr -s ' \n' ' ')
	wait $pid || rc=1
	echo "rds-b reset its paths:$did; accepts parked for a path" \
		"going down: $(($(counter tcp_accept_parked) - parked))"
	all_back $A "$pa" && all_back $B "$pb" || rc=1
	[ -n "$did" ] || rc=1
	return $rc
}

# reset_while_waiting: rds-a's connections reset every 0.3 s for 6 s
# while nothing of rds-b's gets through, then its packets again.
reset_while_waiting() {
	local pa attempts rc=0

	pa=$(up_paths $A)
	attempts=$(counter conn_connect_attempts)
	# Not the link down, which would take the IPv6 addresses with it.
	ip netns exec $B tc qdisc add dev veth0 root netem loss 100% || return 1
	# One process for the 20 writes: each `ip netns exec sysctl` would
	# take seconds on the debug kernel.
	ip netns exec $A bash -c 'for i in $(seq 20); do
		echo $(((i % 2) * 262144)) >/proc/sys/net/rds/tcp/rds_tcp_sndbuf || exit 1
		sleep 0.3
	done' || rc=1
	echo "connect attempts meanwhile: $(($(counter conn_connect_attempts) - attempts))"
	ip netns exec $B tc qdisc del dev veth0 root || return 1
	all_back $A "$pa" || rc=1
	traffic -a $A4 -b $B4 -k 8 -d both -n 500 -t 120 || rc=1
	return $rc
}

ktap_plan 3
ktap_test "load rds_tcp, netns pair, handshake" tcp_setup || ktap_finished
ktap_test "acceptor resets its paths $kills times under load: every path back (CVE-2026-43226)" \
	storm
ktap_test "resets while reconnects wait, no answers: every path back after (CVE-2026-43230)" \
	reset_while_waiting
ktap_finished
