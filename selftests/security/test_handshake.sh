#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 130
#
# The multipath handshake cannot be forged: no socket may bind the probe
# port 1 (EINVAL, as in-tree), and a 1 -> 0 message without the probe's
# extension headers leaves the peer's path count alone, so the peer still
# accepts our other paths, and leaves alone what the real probe said about
# source ports carrying path indexes. Probes laid out as upstream's 2026
# series and UEK send them (several extensions, types 4, 7 and 9 before the
# ones that matter, all 16 bytes) are understood; an unknown type ends the
# walk, after the known types before it have been taken. A connection
# accepted on a path its source port does not name is dropped once a
# handshake says the ports name paths, as upstream does.
# As the client of an upstream 2026 server, ours sends upstream's probe,
# keeps every socket's messages on path 0 until the pong, connects each
# path from its own port group, drops paths 1..N when the server's
# generation changes, closes when the server half-closes, and probes again
# on a new path 0; through all that each path's sequence numbers go on
# where they left off, and no message is lost or comes twice. A peer with
# fewer than 8 paths gets that many, in either role.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../tcp/tcp_lib.sh"
. "$(dirname "$0")/sec_lib.sh"

# bind_errno NS ADDR PORT: prints the errno name of the bind, or "ok".
bind_errno() {
	ip netns exec "$1" python3 - "$2" "$3" <<-'PY'
	import errno, socket, sys
	s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
	try:
	    s.bind((sys.argv[1], int(sys.argv[2])))
	    print("ok")
	except OSError as e:
	    print(errno.errorcode[e.errno])
	PY
}

expect_bind() {
	local got
	got=$(bind_errno "$1" "$2" "$3")
	echo "bind to $2:$3: $got"
	[ "$got" = "$4" ]
}

# forged_sportidx: after the forgery a connection of path 0's port group
# must still be taken as path 0 (replacing the old one as stale), not as
# another path.
forged_sportidx() {
	local before after
	before=$(counter tcp_listen_closed_stale)
	rawpeer forge-sportidx || return 1
	after=$(counter tcp_listen_closed_stale)
	echo "tcp_listen_closed_stale: $before -> $after"
	[ "$after" -gt "$before" ]
}

# chain_sportidx LAYOUT PORT EXPECT PONG [FIRST]: a probe whose extensions
# are laid out as LAYOUT (rds_rawpeer.py's CHAINS) after one laid out as
# FIRST, or one that said nothing of source ports; EXPECT "mapped" when
# the walk must reach its SPORT_IDX (a second connection of path 0's group
# closes the first as stale), "not mapped" when it must not. PONG is how
# the probe must be taken: "handshake" when the walk finds its NPATHS (the
# pong carries ours), "plain" when not (a ping's pong).
chain_sportidx() {
	local before after got out
	before=$(counter tcp_listen_closed_stale)
	out=$(rawpeer chain "$1" "$2" ${5:+"$5"}) || { echo "$out"; return 1; }
	echo "$out"
	after=$(counter tcp_listen_closed_stale)
	got=mapped
	[ "$after" -gt "$before" ] || got="not mapped"
	echo "tcp_listen_closed_stale: $before -> $after: source ports $got"
	[ "$got" = "$3" ] && grep -q "^its pong: $4\b" <<<"$out"
}

# wrong_lane: over IPv6, a connection the test has not used (so the
# other side knows nothing of the peer yet), path 3 connects first.
wrong_lane() {
	local before after
	before=$(counter tcp_accept_wrong_path)
	timeout 90 ip netns exec $A $RAWPEER wrong-lane $A6 $B6 40200 || return 1
	after=$(counter tcp_accept_wrong_path)
	echo "tcp_accept_wrong_path: $before -> $after"
	[ "$after" -gt "$before" ]
}

# lane_reconnect: path 3 of an upstream 2026 client reconnects from
# another port of its group and sends its last message again, flagged:
# dropped as old (the path's receive sequence survived), the rest
# delivered once each.
lane_reconnect() {
	local log pid before after rc=0
	log=$(mktemp)
	before=$(counter recv_drop_old_seq)
	listen $B $B4 4300 20 3 >"$log" &
	pid=$!
	wait_bound "$log" || { kill $pid; return 1; }
	rawpeer lane-reconnect 40320 4300 || rc=1
	wait $pid
	after=$(counter recv_drop_old_seq)
	echo "delivered: $(grep -v '^bound$' "$log" | tr '\n' ' ')"
	echo "recv_drop_old_seq: $before -> $after"
	[ $rc = 0 ] && [ "$after" -gt "$before" ] &&
		[ "$(grep -c '^lane3-' "$log")" = 3 ] && ! grep -q lane3-2-again "$log"
	rc=$?
	rm -f "$log"
	return $rc
}

# addr_pair A_ADDR B_ADDR: another IPv4 address on each side, for a
# connection no earlier point has used (the peer's path count is learnt
# once per connection).
addr_pair() {
	ip -n $A addr add "$1/24" dev veth0 && ip -n $B addr add "$2/24" dev veth0
}

# few_lanes N PORT: an upstream 2026 client that has N paths sends one
# message on each: all N delivered, and a connection from the port of
# path N refused.
few_lanes() {
	local a=192.0.2.$((10 + $1)) b=192.0.2.$((20 + $1))
	local log pid before after rc=0
	addr_pair $a $b || return 1
	log=$(mktemp)
	before=$(counter tcp_accept_refused)
	listen $B $b 4400 20 "$1" >"$log" &
	pid=$!
	wait_bound "$log" || { kill $pid; return 1; }
	timeout 60 ip netns exec $A $RAWPEER lanes $a $b "$2" 4400 "$1" || rc=1
	wait $pid
	after=$(counter tcp_accept_refused)
	echo "delivered: $(grep -v '^bound$' "$log" | sort | tr '\n' ' ')"
	echo "tcp_accept_refused: $before -> $after"
	[ $rc = 0 ] && [ "$(grep -c '^lane' "$log")" = "$1" ] &&
		[ "$after" -gt "$before" ]
	rc=$?
	rm -f "$log"
	return $rc
}

# ours_client SRC DST [N]: ours in rds-a (the smaller address) is the
# client of a raw peer in rds-b that plays an upstream 2026 server of N
# paths (rds_rawpeer.py serve) and checks what ours sends there from 8
# sockets, one for each path (rds_rawpeer.py feed); rds-b's own listener
# is bypassed by a DNAT of 16385 to the raw peer's port (iptables-legacy:
# the debug kernel has no nf_tables).
ours_client() {
	local src=$1 dst=$2 npaths=${3:-8} ctl pid feed rc=0
	[ "$src" = $A4 ] || addr_pair "$src" "$dst" || return 1
	ctl=$(mktemp -d)
	ip netns exec $B iptables-legacy -w -t nat -A PREROUTING -p tcp -d $dst \
		--dport 16385 -j DNAT --to-destination $dst:26385 || return 1
	timeout 200 ip netns exec $B $RAWPEER serve $dst 26385 60 $npaths "$ctl" \
		>"$ctl/serve" 2>&1 &
	pid=$!
	for _ in $(seq 100); do
		grep -q '^listening' "$ctl/serve" && break
		sleep 0.1
	done
	timeout 300 ip netns exec $A $RAWPEER feed $src $dst 4000 "$ctl" \
		>"$ctl/feed" 2>&1 &
	feed=$!
	wait $pid || rc=1
	# serve says done when it ends, but not when it is killed.
	touch "$ctl/stop" "$ctl/done"
	wait $feed || rc=1
	cat "$ctl/serve" "$ctl/feed"
	rm -rf "$ctl"
	ip netns exec $B iptables-legacy -w -t nat -F
	return $rc
}

ktap_plan 20
ktap_test "load rds_tcp, netns pair" sec_setup || ktap_finished
ktap_test "bind to port 1 (the probe port) fails with EINVAL" \
	expect_bind $B $B4 1 EINVAL
ktap_test "bind to port 2 works" expect_bind $B $B4 2 ok
ktap_test "a forged 1 -> 0 leaves the path count: second path accepted" \
	rawpeer forge
ktap_test "a forged 1 -> 0 leaves the source-port path mapping" forged_sportidx
# Extension chains as upstream's 2026 series and UEK send them (each from
# its own port group: the last one's ports linger in TIME_WAIT).
ktap_test "probe as upstream 2026 sends it: SPORT_IDX found" \
	chain_sportidx upstream-2026 40016 mapped handshake
ktap_test "probe as UEK sends it (no generation): SPORT_IDX found" \
	chain_sportidx uek 40032 mapped handshake
ktap_test "RDMA_BYTES (type 4) first: stepped over, SPORT_IDX found" \
	chain_sportidx rdma-bytes-first 40048 mapped handshake
ktap_test "UEK's type 7 first: stepped over, SPORT_IDX found" \
	chain_sportidx uek-cap-first 40064 mapped handshake
ktap_test "UEK's type 9 first: stepped over, SPORT_IDX found" \
	chain_sportidx uek-csum-first 40080 mapped handshake
ktap_test "16 bytes of extensions, no terminator: SPORT_IDX found" \
	chain_sportidx full-16 40096 mapped handshake
# After upstream's probe mapped source ports: the known ones make it a
# handshake, and what it says of source ports (nothing, the walk having
# stopped) replaces what upstream's said. Right after a point that left
# them mapped, so that path 0's connection is taken as path 0 for its
# port, whatever state the last one's paths are still in.
ktap_test "known types, then an unknown one: those taken, the walk stops at it" \
	chain_sportidx known-then-unknown 40112 "not mapped" handshake \
	upstream-2026
ktap_test "an unknown type first: the walk stops, no handshake" \
	chain_sportidx unknown-first 40128 "not mapped" plain
ktap_test "path 3 accepted first as path 0: dropped once the pong says so" \
	wrong_lane
ktap_test "path 3 back from another port of its group: its sequence kept, nothing twice" \
	lane_reconnect
ktap_test "ours as an upstream 2026 server's client: probe, paths, generation, half-close" \
	ours_client $A4 $B4
ktap_test "an upstream 2026 client of 3 paths: 3 delivered, path 3 refused" \
	few_lanes 3 40400
ktap_test "an upstream 2026 client of 1 path: path 1 refused" few_lanes 1 40416
ktap_test "ours as the client of a 2026 server of 3 paths: paths 1 and 2 only" \
	ours_client 192.0.2.31 192.0.2.32 3
ktap_test "ours as the client of a 2026 server of 1 path: everything on path 0" \
	ours_client 192.0.2.33 192.0.2.34 1
cleanup_netns
ktap_finished
