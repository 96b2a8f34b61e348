#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Memory registration through RDS/IB sockets (rds_mr.py does the socket
# calls): RDS_GET_MR and RDS_GET_MR_FOR_DEST give cookies before any
# connection exists, RDS_FREE_MR frees them (with RDS_RDMA_INVALIDATE too,
# and cookie 0 flushes); in-tree's errnos for every bad request and for
# transports without RDMA; many regions go with their socket; a user
# without CAP_IPC_LOCK held to RLIMIT_MEMLOCK (regions and RDMA operations,
# ENOMEM beyond) and the region caps per socket and per device (EAGAIN
# beyond); a cookie that cannot be written back (RDS_GET_MR,
# RDS_GET_MR_FOR_DEST, RDS_CMSG_RDMA_MAP) is EFAULT and leaves no region
# (CVE-2026-46053); the rxe device removed under registered regions, which stay
# pinned until freed; last, rds_rdma unloads. The basic case's
# registrations and frees are traced (rds_mr). Pins are counted in
# /proc/vmstat, and the harness fails the run on any splat or kmemleak
# report.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ib_lib.sh"

MR="python3 $(dirname "$0")/rds_mr.py"

T=/sys/kernel/tracing

# What the basic case does is traced (rds_mr), by the socket's address:
# registrations, frees with and without RDS_RDMA_INVALIDATE, the region
# the socket took with it.
mr_traced() {
	local rc=0 what
	echo 0 >$T/events/rds/rds_mr/enable
	for what in register free invalidate release; do
		grep -m 1 -E "rds_mr: netns=[0-9]+ $IA key=0x[0-9a-f]+ pages=[0-9]+ $what\$" \
			$T/trace || { echo "no rds_mr $what"; rc=1; }
	done
	[ $rc = 0 ] || grep rds_mr $T/trace | tail -n 5
	return $rc
}

ktap_plan 11
ib_start "rxe pair and rds_rdma set up"

[ -d $T/events ] || mount -t tracefs nodev $T
echo >$T/trace
echo 1 >$T/events/rds/rds_mr/enable
ktap_test "GET_MR, GET_MR_FOR_DEST, FREE_MR (invalidate, flush), no connection" \
	$MR basic $IA $IB
ktap_test "each registration and free traced (rds_mr)" mr_traced
ktap_test "in-tree's errnos: unbound, optlen, bad vectors, unknown cookies" \
	$MR errnos $IA $IB
# Ours, before SO_RDS_TRANSPORT would modprobe whatever rds_tcp there is.
notsupp() {
	rds_load tcp && $MR notsupp $IA $IB
}
ktap_test "TCP and loopback sockets: EOPNOTSUPP, FREE_MR EINVAL" notsupp

n=$(ib_count 10000 500)
ktap_test "$n regions, then close: every one released" \
	$MR many $IA "$n"

ktap_test "RLIMIT_MEMLOCK as nobody: regions and RDMA ops, ENOMEM, nothing pinned" \
	$MR memlock $IA $IB || ib_diag
ktap_test "max_mrs_per_socket, max_mrs_per_device: EAGAIN, room after a free" \
	$MR caps $IA $IB || ib_diag

ktap_test "a cookie that cannot be written back: EFAULT, no region left (CVE-2026-46053)" \
	$MR cookie_fault $IA $IB || ib_diag

ktap_test "rdma link del under registered regions, FREE_MR, close, link back" \
	$MR linkdel $IA rxe0 rv0 || ib_diag

ktap_test "rmmod rds_rdma after" rds_rmmod rds_rdma || ib_diag

ib_cleanup
ktap_finished
