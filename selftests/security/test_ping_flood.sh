#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A peer that pings us without end and never reads its socket cannot make
# us queue pongs without end: they are rate limited per connection and
# bounded per path, the rest dropped and counted, and slab memory stays
# flat. Other peers still get their pongs.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../tcp/tcp_lib.sh"
. "$(dirname "$0")/sec_lib.sh"

N=$(tcp_count 100000)
MAX_SLAB_KB=8192	# the old code grew by about 50 MB for 100000 pings
cnt=$(mktemp)
trap 'rm -f "$cnt"' EXIT

slab_kb() {
	awk '$1 == "Slab:" { print $2 }' /proc/meminfo
}

dropped() {
	echo $(($(counter recv_ping_ratelimited) + $(counter send_pong_dropped)))
}

# flood: the raw peer's pings, until the other side has read them all.
flood() {
	local i ping0 slab0
	ping0=$(counter recv_ping)
	slab0=$(slab_kb)
	echo "$slab0 $(dropped)" >"$cnt"
	rawpeer flood "$N" 15 >/dev/null 2>&1 &
	for i in $(seq 120); do
		[ $(($(counter recv_ping) - ping0)) -ge "$N" ] && break
		sleep 1
	done
	sleep 2
	echo "$(slab_kb) $(dropped)" >>"$cnt"
	echo "pings read: $(($(counter recv_ping) - ping0)) of $N"
	[ $(($(counter recv_ping) - ping0)) -ge "$N" ]
}

slab_flat() {
	local grew=$(($(awk 'NR == 2 { print $1 }' "$cnt") - $(awk 'NR == 1 { print $1 }' "$cnt")))
	echo "slab grew by $grew kB (at most $MAX_SLAB_KB)"
	[ "$grew" -le "$MAX_SLAB_KB" ]
}

drops_counted() {
	local d=$(($(awk 'NR == 2 { print $2 }' "$cnt") - $(awk 'NR == 1 { print $2 }' "$cnt")))
	echo "pongs dropped or rate limited: $d of $N"
	[ "$d" -ge $((N * 9 / 10)) ]
}

ktap_plan 5
ktap_test "load rds_tcp, netns pair" sec_setup || ktap_finished
ktap_test "$N pings from a peer that never reads" flood
ktap_test "slab memory stays flat" slab_flat
ktap_test "the pongs over the bounds are dropped and counted" drops_counted
ktap_test "another peer (IPv6 connection) still gets its pongs" \
	ip netns exec $A "$BIN/rds-ping" -c 3 -i 0.2 -I $A6 $B6
# The raw peer holds its socket 15 s after its last ping.
for i in $(seq 30); do
	[ -z "$(ip netns pids $A)" ] && break
	sleep 1
done
cleanup_netns
ktap_finished
