#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The in-tree rds_rdma's answers to RDMA requests (rds_rdma.py golden, on
# the rxe pair in init_net, where in-tree works): the errno of every
# malformed or oversized RDMA_ARGS and the status of each operation, as
# in the golden file that ib/test_ib_golden.sh holds ours to. It keeps the
# reference right: regenerate the file from this guest, never from ours.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../ib/ib_lib.sh"

setup() {
	ib_link_setup || return
	intree_load rdma
}

ktap_plan 2
setup
case $? in
0) ktap_ok "rxe pair, in-tree rds_rdma" ;;
4)
	ib_cleanup
	ktap_skip "no rdma_rxe or no rdma tool"
	ktap_finished
	;;
*)
	ktap_fail "rxe pair, in-tree rds_rdma"
	ib_cleanup
	ktap_finished
	;;
esac
ktap_test "errnos and statuses as in ib/rds_rdma.golden" ib_golden || ib_diag
intree_unload
ib_cleanup
ktap_finished
