#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 60
#
# Which connect requests our listener accepts, asked by the user-space
# rdma_cm peer of rdmacm_peer.py on the rxe pair, after a look at the
# defaults of the two accept limits (sysctls). A request whose private
# data names other addresses than the ones it came from and to (a source
# it does not have, or the IA -> IB connection rds-ping made, which would
# drop it) is refused and counted in ib_accept_addr_mismatch, over IPv4
# and over IPv6 link-local, and the real connection keeps answering. Then
# one peer's flood of requests, one per TOS: with max_accepted_per_peer 8,
# 8 are accepted and the rest refused (ib_accept_over_limit); with
# max_accepted 12, 4 more; a request over the limit for a path that is up
# still drops it. The rings are small there, to keep each accept cheap.
# rds_rdma unloads afterwards: nothing of the refused requests is left.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ib_lib.sh"

PEER="python3 $(dirname "$0")/rdmacm_peer.py"

# 1024 per peer; in all 16384, or fewer with less memory, but 256 at least.
# 0 would refuse every request: it is not taken.
defaults() {
	local max

	max=$(sysctl -n net.rds.ib.max_accepted) &&
	[ "$(sysctl -n net.rds.ib.max_accepted_per_peer)" = 1024 ] &&
	[ "$max" -ge 256 ] && [ "$max" -le 16384 ] &&
	! echo 0 2>/dev/null >/proc/sys/net/rds/ib/max_accepted &&
	[ "$(sysctl -n net.rds.ib.max_accepted)" = "$max" ]
}

forged6() {
	ib_setup6 && $PEER forged "$IB6%rv1" "$IA6%rv1"
}

# rds_rdma anew first, without the connections the cases before left to
# reconnect: none of them may count against the limits.
flood() {
	rds_rmmod rds_rdma && rds_load rdma &&
		sysctl -qw net.rds.ib.max_send_wr=64 net.rds.ib.max_recv_wr=64 &&
		$PEER limits $IB $IA "$(ib_count 200 40)"
}

ktap_plan 8
ib_start "rxe pair and rds_rdma set up"
ib_first_ping "rds-ping $IA -> $IB" 8 $IA $IB
ktap_test "the accept limits' defaults" defaults || ib_diag

ktap_test "private data naming other addresses: refused, nothing reset" \
	$PEER forged $IB $IA || ib_diag
ktap_test "rds-ping $IA -> $IB still answers" \
	"$BIN/rds-ping" -c 3 -i 0.2 -I $IA $IB || ib_diag
ktap_test "the same over IPv6 link-local: refused" forged6 || ib_diag
ktap_test "one peer's flood: no more than the limits accepted" flood ||
	ib_diag
ktap_test "rmmod rds_rdma after" rds_rmmod rds_rdma || ib_diag

ib_cleanup
ktap_finished
