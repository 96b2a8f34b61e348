#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-ci-612: run: MSG_ZEROCOPY's completions through 6.12's skb and socket code
# rds-cost: 40
#
# MSG_ZEROCOPY over RDS/TCP (rds_zcopy): messages of assorted sizes and page
# offsets arrive intact, and every send's cookie comes back exactly once in
# an RDS_CMSG_ZCOPY_COMPLETION. Before, the cookie was taken and never
# completed, and an application waiting for it stalled.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tcp_lib.sh"

# zcopy COUNT SRC DST PORT: COUNT zerocopy sends from SRC in rds-a to DST in rds-b.
zcopy() {
	local log pid rc i
	log=$(mktemp)
	ip netns exec $B "$BIN/rds_zcopy" recv "$3" "$4" "$1" >"$log" 2>&1 &
	pid=$!
	for i in $(seq 100); do
		grep -q '^bound' "$log" && break
		sleep 0.1
	done
	ip netns exec $A "$BIN/rds_zcopy" send "$2" "$3" "$4" "$1"
	rc=$?
	wait $pid || rc=1
	grep -v '^bound$' "$log"
	rm -f "$log"
	return $rc
}

n=$(tcp_count 300)
ktap_plan 3
ktap_test "load rds_tcp, netns pair" tcp_setup || ktap_finished
ktap_test "IPv4: $n zerocopy sends, completions" zcopy "$n" $A4 $B4 4000
ktap_test "IPv6: $n zerocopy sends, completions" zcopy "$n" $A6 $B6 4001
cleanup_netns
ktap_finished
