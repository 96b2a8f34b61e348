#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Our errnos for every bad input of the AF_RDS system calls against the
# in-tree modules' (selftests/abi/rds_errno.golden, with the deliberate
# differences of rds_errno.ours in place; see errno_lib.sh), and
# SO_RDS_TRANSPORT loading rds_tcp on demand, as in-tree does.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/modprobe_lib.sh"
. "$(dirname "$0")/errno_lib.sh"

ktap_plan 4
ktap_test "load rds.ko (no transport)" rds_load || ktap_finished
ktap_test "veth with local addresses" errno_link
if modprobe_wrap_start; then
	ktap_test "errnos as in-tree (rds_errno)" errno_run --ours
	ktap_test "SO_RDS_TRANSPORT loads rds_tcp, fails for rds_rdma" errno_requests
else
	ktap_fail "cannot install the modprobe wrapper"
fi
modprobe_wrap_stop
cleanup_netns
ktap_finished
