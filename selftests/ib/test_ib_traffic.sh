#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-ci-612: run: 6.12's rdma core and rxe under RDS/IB traffic
# rds-cost: 240
#
# RDS over Soft-RoCE (rds_rdma on two rxe devices joined by a veth pair, in
# init_net): rds-ping both ways, then 20,000 messages of random sizes
# (1 B .. 1 MiB) both ways between two sockets on each side, pinned to IB
# with SO_RDS_TRANSPORT, each arriving exactly once and in order; then
# large ones only (many fragments each). Then an rxe device removed
# mid-stream and added back: the connection is torn down, comes back, and
# nothing is lost, and the trace events and rds-info -p say why (the
# device's removal).
# Last, rds_rdma unloaded under traffic.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ib_lib.sh"

ktap_plan 10
ib_start "rxe pair and rds_rdma set up"

ib_first_ping "rds-ping over IB, both ways" 9 $IA $IB $IB $IA

ktap_test "the connections are RDS/IB" \
	bash -c "'$BIN/rds-info' -n -v | tee /dev/stderr | grep -q infiniband"

# RoCE GIDs of IPv4 addresses are the v4-mapped addresses.
ktap_test "RDS_INFO_IB_CONNECTIONS: both connections with their GIDs" \
	bash -c "'$BIN/rds-info' -I -v | tee /dev/stderr |
		 grep -c '::ffff:10.77.0.1 *::ffff:10.77.0.2\|::ffff:10.77.0.2 *::ffff:10.77.0.1' |
		 grep -qx 2"

# The integrity run: sizes 1 B .. 1 MiB, one in 64 above 32 KiB (-M), so
# that 20,000 messages move about 0.5 GB, not the 10 GB of sizes uniform
# up to 1 MiB, which TCG would take a quarter of an hour over.
n=$(ib_count 8000 2000)
ktap_test "$n messages of 1 B .. 1 MiB, 2+2 sockets, both ways" \
	"$BIN/rds_traffic" -T ib -a $IA -b $IB -n "$n" -m 32768 -M 1048576 -t 600 ||
	ib_diag

n=$(ib_count 100)
ktap_test "$n messages all up to 1 MiB, both ways" \
	"$BIN/rds_traffic" -T ib -a $IA -b $IB -p 6000 -n "$n" -m 1048576 -t 120 ||
	ib_diag

# Memory registration works after traffic (test_ib_mr.sh has the rest,
# test_ib_rdma.sh the RDMA and atomic operations).
mr_works() {
	python3 - "$IA" <<-'EOF'
	import ctypes, mmap, socket, struct, sys
	SOL_RDS, RDS_GET_MR, RDS_FREE_MR = 276, 2, 3
	SO_RDS_TRANSPORT, RDS_TRANS_IB = 8, 0
	s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
	s.setsockopt(SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_IB)
	s.bind((sys.argv[1], 4000))
	buf = mmap.mmap(-1, mmap.PAGESIZE)
	addr = ctypes.addressof(ctypes.c_char.from_buffer(buf))
	cookie = ctypes.c_uint64()
	try:
	    s.setsockopt(SOL_RDS, RDS_GET_MR, struct.pack(
	        "=QQQQ", addr, 8, ctypes.addressof(cookie), 0))
	    s.setsockopt(SOL_RDS, RDS_FREE_MR, struct.pack("=QQ", cookie.value, 0))
	except OSError as e:
	    print("RDS_GET_MR and RDS_FREE_MR failed with", e)
	    sys.exit(1)
	EOF
}
ktap_test "RDS_GET_MR and RDS_FREE_MR work" mr_works

# An rxe device goes away under traffic and comes back: the paths on it go
# down, retransmit on reconnect, and the receiver drops what it had.
T=/sys/kernel/tracing
trace_on() {
	[ -d $T/events ] || mount -t tracefs nodev $T || return 1
	echo >$T/trace
	echo 1 >$T/events/rds/rds_ib_cm_event/enable &&
		echo 1 >$T/events/rds/rds_path_drop/enable
}

# removal_traced: the paths on rxe1 were dropped for its removal, and
# rds-info -p says so too. Whoever tells first names it: our ib_client's
# remove ("RDMA device removed"), which ib_core calls before rdma_cm's
# (clients leave in reverse order), or rdma_cm's event ("device
# removal") on an id the path still holds.
removal_traced() {
	local rc=0 why='(RDMA device removed|device removal)'
	grep -m 2 -E "rds_path_drop: .* why=\"$why\"" $T/trace || rc=1
	rds_path_reset_seen "$why" || rc=1
	[ $rc = 0 ] || grep -E 'rds_' $T/trace | tail -n 20
	echo 0 >$T/events/rds/enable
	return $rc
}

link_bounce() {
	sleep 3
	rdma link del rxe1 || return 1
	sleep 2
	rdma link add rxe1 type rxe netdev rv1
}
trace_on || echo "# no trace events"
"$BIN/rds_traffic" -T ib -a $IA -b $IB -p 7000 -n "$(ib_count 10000 4000)" \
	-m 16384 -t 300 &
traffic=$!
link_bounce
bounced=$?
# A run about to time out shows its queues while they still exist.
waited=0
while kill -0 $traffic 2>/dev/null; do
	sleep 5
	waited=$((waited + 5))
	if [ $waited = 280 ]; then
		"$BIN/rds-info" -n -s -t -r | head -n 40
		"$BIN/rds-info" -I -v
	fi
done
wait $traffic
ok=$?
ib_both_ok "rdma link del and add back mid-stream" $bounced $ok
ktap_test "the removal traced: rds_path_drop and rds-info -p say the device went" \
	removal_traced

# rmmod under traffic: the sockets pin rds_rdma, so stop them first; the
# connections themselves must not keep it.
"$BIN/rds_traffic" -T ib -a $IA -b $IB -p 8000 -n 1000000 -t 4 >/dev/null 2>&1
ktap_test "rmmod rds_rdma after traffic" rds_rmmod rds_rdma || ib_diag

ib_cleanup
ktap_finished
