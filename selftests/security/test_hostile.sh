#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 275
#
# A hostile peer on the wire: rds_rawpeer.py sends rds-b one malformed
# input per case. A header that cannot be trusted (a length over 1 MiB)
# resets the connection, and the reset is counted; what only looks odd
# (unknown extension headers, sequence jumps, a congestion map of the wrong
# size, data before the multipath handshake) is dropped or delivered as
# in-tree would; an unknown extension type ends the walk of a message's
# extensions, the known ones before it taken; a number again on its
# connection, which in-tree would deliver twice when not flagged as
# retransmitted, is dropped. After every
# case rds-b still answers rds-a's pings over IPv6 (a connection the
# hostile one shares nothing with), and at the end over IPv4 too; its
# unreclaimable slab has not grown; dmesg stays clean.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../tcp/tcp_lib.sh"
. "$(dirname "$0")/sec_lib.sh"

log=$(mktemp)
peer=$(mktemp)
trap 'rm -f "$log" "$peer"; stop_listener' EXIT

# stop_listener: the listener in rds-b (kill the shell that started it and
# its python lives on, bound, pinning rds_tcp).
stop_listener() {
	ip netns pids $B 2>/dev/null | xargs -r kill 2>/dev/null
}

sunreclaim_kb() {
	awk '$1 == "SUnreclaim:" { print $2 }' /proc/meminfo
}

# hostile CASE: the raw peer sends CASE; then an IPv6 ping must work.
hostile() {
	rawpeer hostile 4000 "$1" >"$peer" 2>&1
	local rc=$?
	cat "$peer"
	echo "rds-b: tcp_accept_refused $(counter tcp_accept_refused)," \
		"conn_reset $(counter conn_reset); its connection to $A4:"
	ip netns exec $B "$BIN/rds-info" -n | grep " $A4 "
	[ $rc = 0 ] && ip netns exec $A "$BIN/rds-ping" -c 1 -I $A6 $B6 >/dev/null
}

delivered() {
	grep -qx "$1" "$log"
}

not_delivered() {
	! grep -qx "$1" "$log"
}

# case_reset CASE: the raw peer saw its connection reset, and conn_reset
# went up.
case_reset() {
	local before after
	before=$(counter conn_reset)
	hostile "$1" && grep -q "connection reset" "$peer" || return 1
	after=$(counter conn_reset)
	echo "conn_reset $before -> $after"
	[ "$after" -gt "$before" ]
}

cong_ignored() {
	local before after dropped_before dropped_after
	before=$(counter cong_update_received)
	dropped_before=$(counter recv_drop_bad_cong_map)
	hostile cong-size || return 1
	after=$(counter cong_update_received)
	dropped_after=$(counter recv_drop_bad_cong_map)
	echo "cong_update_received $before -> $after," \
		"recv_drop_bad_cong_map $dropped_before -> $dropped_after"
	[ "$after" = "$before" ] && [ "$dropped_after" -gt "$dropped_before" ] &&
		delivered after-cong
}

# case_counted CASE COUNTER: the raw peer sends CASE; $moved is how far
# COUNTER went meanwhile, and what was delivered has reached the log.
case_counted() {
	local before after
	before=$(counter "$2")
	hostile "$1" || return 1
	after=$(counter "$2")
	echo "$2 $before -> $after"
	moved=$((after - before))
	sleep 1
}

old_seq_dropped() {
	case_counted seq recv_drop_old_seq || return 1
	[ "$moved" -gt 0 ] && not_delivered seq-old &&
		delivered seq-10 && delivered seq-far && delivered seq-wrap &&
		delivered seq-zero
}

# dup_seq_dropped: a number seen on its connection comes again without
# the retransmit flag: dropped, counted; a new connection may start over.
dup_seq_dropped() {
	case_counted dup recv_drop_dup_seq || return 1
	[ "$moved" -ge 2 ] && delivered dup-first &&
		not_delivered dup-again && not_delivered dup-back &&
		delivered dup-next && delivered dup-restart &&
		[ "$(grep -cx dup-first "$log")" = 1 ]
}

ext_delivered() {
	hostile ext-unknown && sleep 1 && delivered ext-junk && delivered ext-overrun
}

# ext_known_unknown: the walk of a message's extensions takes the known
# ones before an unknown type (the reader gets the RDMA_DEST's cookie,
# r_key 0x1234 at offset 0x5678) and stops at it (an RDMA_DEST after it
# gives none).
ext_known_unknown() {
	hostile ext-known-unknown && sleep 1 &&
		delivered "ext-dest-unknown rdma_dest=0x567800001234" &&
		delivered ext-unknown-dest
}

ext_2026_delivered() {
	hostile ext-2026 && sleep 1 && delivered ext-rdma-bytes && delivered ext-uek
}

cut_payload() {
	hostile cut-payload && sleep 1 && ! grep -q '^x' "$log"
}

early_data() {
	hostile early-data && sleep 1 && delivered early-0
}

# conns_gone: from $A4 at most the 8 paths of the real peer's connection
# are left.
conns_gone() {
	local n
	sleep 3
	n=$(ip netns exec $B ss -tnH state established '( sport = :16385 )' |
		grep -c " $A4:")
	echo "$n RDS/TCP connections from $A4 in rds-b"
	[ "$n" -le 8 ]
}

# slab_settled BEFORE: the raw peer's connections are gone and
# SUnreclaim is back within 4 MiB of BEFORE (kB) within 20 s.
slab_settled() {
	local i now
	for i in $(seq 20); do
		now=$(sunreclaim_kb)
		[ "$now" -lt $(($1 + 4096)) ] && break
		sleep 1
	done
	echo "SUnreclaim: $1 kB before, $now kB after"
	[ "$now" -lt $(($1 + 4096)) ]
}

# A quarter of the connections on slow kernels, where each costs ten times
# as much.
export RDS_HOSTILE_CONNS=$(tcp_count 1000 250)
ktap_plan 16
ktap_test "load rds_tcp, netns pair" sec_setup || ktap_finished
tcp_warm $A6 $B6 >/dev/null
listen $B $B4 4000 600 >"$log" 2>&1 &
wait_bound "$log" || ktap_finished
slab0=$(sunreclaim_kb)

ktap_test "h_len 1 MiB + 1: connection reset, counted" case_reset hlen-1m
ktap_test "h_len 0xffffffff: connection reset, counted" case_reset hlen-max
ktap_test "unknown and overrunning extension headers: messages still delivered" \
	ext_delivered
ktap_test "upstream 2026 and UEK extension headers on data: delivered" \
	ext_2026_delivered
ktap_test "known extension headers, then an unknown type: those taken, the walk stops" \
	ext_known_unknown
ktap_test "sequence numbers ahead, old, far, wrapping, 0: the old retransmission dropped" \
	old_seq_dropped
ktap_test "a number again on its connection, unflagged: dropped; a new connection starts over" \
	dup_seq_dropped
ktap_test "congestion maps of the wrong size: ignored, connection usable" cong_ignored
ktap_test "a header cut off, then disconnect" hostile cut-header
ktap_test "a payload cut off, then disconnect: nothing delivered" cut_payload
ktap_test "data before the handshake, on path 0: delivered" early_data
ktap_test "$RDS_HOSTILE_CONNS connections from different source ports" hostile conns
ktap_test "IPv4 traffic from a real peer works again afterwards" \
	rds_exchange $A $A4 $B $B4 4201 after-hostile
stop_listener
wait
echo "delivered to rds-b port 4000:"; grep -v '^bound$' "$log" | sed 's/^/  /'
ktap_test "the raw peer's connections are gone from rds-b" conns_gone
ktap_test "unreclaimable slab back where it was" slab_settled "$slab0"
cleanup_netns
ktap_finished
