#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RDS/IB over IPv6 on the rxe pair of ib_lib.sh: link-local addresses with
# their scope (fe80::a1%rv0, fe80::b2%rv1), since rdma_cm resolves a global
# pair of one host as loopback. rds-ping both ways, the IPv6 listener on
# port 16385 as in-tree, then messages of random sizes both ways pinned to
# IB, exactly once and in order.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ib_lib.sh"

A6=$IA6%rv0
B6=$IB6%rv1

ktap_plan 6
ib_start "rxe pair, link-local addresses and rds_rdma set up" ib_setup6

# Each side names its own link, in the source and in the destination.
if ! ktap_test "rds-ping over IB on IPv6 link-local, both ways" bash -c \
	"$(declare -f ib_warm); BIN='$BIN';
	 ib_warm $A6 $IB6%rv0 && ib_warm $B6 $IA6%rv1 &&
	 '$BIN/rds-ping' -c 3 -i 0.2 -I $A6 $IB6%rv0 &&
	 '$BIN/rds-ping' -c 3 -i 0.2 -I $B6 $IA6%rv1"; then
	ib_diag
	ib_cleanup
	while [ $ktap_num -lt 6 ]; do
		ktap_fail "not run: no RDS/IB connection"
	done
	ktap_finished
fi

ktap_test "the IPv6 connections are RDS/IB" bash -c \
	"'$BIN/rds-info' -a -n -v | tee /dev/stderr |
	 grep -c 'fe80::.*infiniband' | grep -qx 2"

# RoCE GIDs of IPv6 addresses are the addresses themselves.
ktap_test "RDS_INFO6_IB_CONNECTIONS: both connections with their GIDs" \
	bash -c "'$BIN/rds-info' -a -I -v | tee /dev/stderr | grep -cE \
		 '$IA6 +$IB6 .*$IA6 +$IB6|$IB6 +$IA6 .*$IB6 +$IA6' | grep -qx 2"

# The active side connected to the IPv6 port, and it listens there. The
# rdma tool in the guests often lists no cm_id at all (nothing with a
# port): skip then.
cm_ids=$(rdma resource show cm_id 2>&1)
if ! echo "$cm_ids" | grep -q 'src-port'; then
	ktap_skip "rdma_cm: listening on 16385 (rdma lists no cm_id)"
else
	ktap_test "rdma_cm: listening on 16385, connected to 16385" bash -c \
		"echo '$cm_ids' | tee /dev/stderr | grep -q 'state LISTEN.*src-port 16385' &&
		 echo '$cm_ids' | grep -q 'dst-addr \($IB6\|$IA6\) dst-port 16385'"
fi

n=$(ib_count 1000)
ktap_test "$n messages up to 64 KiB, 2+2 sockets, both ways, IPv6" \
	"$BIN/rds_traffic" -T ib -a $A6 -b $B6 -n "$n" -m 65536 -t 180 ||
	ib_diag

ib_cleanup
ktap_finished
