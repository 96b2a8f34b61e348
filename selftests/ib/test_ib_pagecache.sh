#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 120
#
# Recycled receive pages over RDS/IB (net.rds.ib.recv_page_cache, issue
# 38): with it on, the pages readers free go to a ring of at most 512
# for the next refill instead of back to the page allocator, which zeroes
# each new page first. The integrity run of test_ib_traffic.sh (1 B ..
# 1 MiB, both ways, each message once and in order) takes most of its
# receive pages from that ring (ib_rx_page_recycled grows); turned off,
# the refills drain the ring and then take none from it; rds_rdma
# unloads with pages in the ring and frees them, the ring with them.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ib_lib.sh"

PC=net.rds.ib.recv_page_cache

pc_sysctl() {
	[ "$(sysctl -n $PC)" = 0 ] &&
		! sysctl -qw $PC=2 2>/dev/null &&
		sysctl -qw $PC=1 &&
		[ "$(sysctl -n $PC)" = 1 ]
}

# RECYCLED: ib_rx_page_recycled's growth over CMD...
recycled_over() {
	local r0 rc

	r0=$(ib_counter ib_rx_page_recycled)
	"$@"
	rc=$?
	RECYCLED=$(($(ib_counter ib_rx_page_recycled) - r0))
	echo "# receive pages taken from the ring: $RECYCLED"
	return $rc
}

traffic() {
	"$BIN/rds_traffic" -T ib -a $IA -b $IB -p "$1" -n "$2" \
		-m 32768 -M 1048576 -t 600
}

integrity() {
	recycled_over traffic 6000 "$(ib_count 6000 800)" || return 1
	# The rings' first pages are new; the rest come back.
	[ "$RECYCLED" -gt 0 ]
}

# Off: the ring empties into the next refills (at most its 512 pages),
# after which none is taken from it.
drained() {
	sysctl -qw $PC=0 || return 1
	recycled_over traffic 7000 "$(ib_count 2000 400)" || return 1
	[ "$RECYCLED" -le 512 ] || return 1
	recycled_over traffic 8000 "$(ib_count 2000 400)" || return 1
	[ "$RECYCLED" = 0 ]
}

# Pages in the ring when rds_rdma goes: freed by its exit.
unload_full() {
	sysctl -qw $PC=1 &&
		traffic 9000 "$(ib_count 2000 400)" &&
		rds_rmmod rds_rdma && rds_load rdma &&
		[ "$(sysctl -n $PC)" = 0 ]
}

ktap_plan 6
ib_start "rxe pair and rds_rdma set up"
ktap_test "recv_page_cache: off by default, 0 or 1, on" pc_sysctl || ib_diag
ib_first_ping "rds-ping over IB, both ways" 6 $IA $IB $IB $IA
ktap_test "1 B .. 1 MiB both ways on recycled pages: nothing lost, pages reused" \
	integrity || ib_diag
ktap_test "off: the ring drains into the refills, then none is taken" \
	drained || ib_diag
ktap_test "rds_rdma unloaded with pages in the ring, loaded again" \
	unload_full || ib_diag
ib_cleanup
ktap_finished
