#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-ci-612: run: MSG_ZEROCOPY's completions through 6.12's skb and socket code
# rds-cost: 40
#
# MSG_ZEROCOPY over RDS/TCP (rds_zcopy): messages of assorted sizes and page
# offsets arrive intact, and every send's cookie comes back exactly once in
# an RDS_CMSG_ZCOPY_COMPLETION. Before, the cookie was taken and never
# completed, and an application waiting for it stalled.
#
# Then zerocopy sends that fail after their pages were charged to
# RLIMIT_MEMLOCK, as nobody (with CAP_IPC_LOCK, root's pins are charged
# nothing) under a limit of 32 pages, each followed by a send of the
# whole limit (rds_zcopy.c, do_fault): one whose pinning faults part way
# (CVE-2026-43494: EFAULT) and ones freed after the pinning but before the
# send queue took them (CVE-2026-43502: an RDMA_DEST with no region,
# EINVAL; a full queue to a dead peer, EAGAIN). A page they left charged
# fails the next whole-limit send; a cookie of theirs must never complete,
# and a leaked socket reference keeps rds from unloading (run_tests.sh).

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tcp_lib.sh"

# zcopy_run DST PORT COUNT LEN SENDER...: a receiver on DST:PORT in rds-b
# for COUNT messages (of LEN bytes each, from the start of the sender's
# pattern; "": rds_zcopy send's assorted ones), then SENDER... in rds-a.
zcopy_run() {
	local log pid rc dst=$1 port=$2 count=$3 len=$4

	shift 4
	log=$(mktemp)
	ip netns exec $B "$BIN/rds_zcopy" recv "$dst" "$port" "$count" ${len:+"$len"} >"$log" 2>&1 &
	pid=$!
	for _ in $(seq 100); do
		grep -q '^bound' "$log" && break
		sleep 0.1
	done
	ip netns exec $A "$@"
	rc=$?
	wait $pid || rc=1
	grep -v '^bound$' "$log"
	rm -f "$log"
	return $rc
}

# zcopy COUNT SRC DST PORT: COUNT zerocopy sends from SRC in rds-a to DST in rds-b.
zcopy() {
	zcopy_run "$3" "$4" "$1" "" "$BIN/rds_zcopy" send "$2" "$3" "$4" "$1"
}

# zcopy_fault KIND PORT [DEAD]: rds_zcopy's fault rounds, as nobody under
# an RLIMIT_MEMLOCK of $memlock pages, from A4 to B4:PORT; DEAD is an
# address of the veth's subnet nobody has. Its good sends are the whole
# limit less the 2 pages of slack the kernel charges each (x86's 4 KiB
# pages, as rds_zcopy computes them).
memlock=32
zcopy_fault() {
	zcopy_run $B4 "$2" "$rounds" $(((memlock - 2) * 4096)) \
		prlimit --memlock=$((memlock * 4096)) \
		setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$BIN/rds_zcopy" fault "$1" $A4 $B4 "$2" "$rounds" ${3:+"$3"}
}

n=$(tcp_count 300)
rounds=$(tcp_count 100)
ktap_plan 5
ktap_test "load rds_tcp, netns pair" tcp_setup || ktap_finished
ktap_test "IPv4: $n zerocopy sends, completions" zcopy "$n" $A4 $B4 4000
ktap_test "IPv6: $n zerocopy sends, completions" zcopy "$n" $A6 $B6 4001
ktap_test "$rounds zerocopy sends failing part way through pinning: EFAULT, nothing left charged or completed" \
	zcopy_fault pin 4002
ktap_test "$rounds zerocopy sends freed after pinning, before queueing: EINVAL, EAGAIN, nothing left charged or completed" \
	zcopy_fault queue 4003 192.0.2.99
cleanup_netns
ktap_finished
