#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The in-tree modules' errnos for every bad input of the AF_RDS system calls
# against the golden file made from them (selftests/abi/errno_lib.sh): the
# reference selftests/abi/test_errno.sh holds ours to must stay right.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../abi/modprobe_lib.sh"
. "$(dirname "$0")/../abi/errno_lib.sh"

ktap_plan 4
ktap_test "modprobe rds (in-tree, no transport)" modprobe rds || ktap_finished
ktap_test "veth with local addresses" errno_link
if modprobe_wrap_start --intree; then
	ktap_test "errnos as in the golden file (rds_errno)" errno_run
	ktap_test "SO_RDS_TRANSPORT loads rds_tcp" errno_requests
else
	ktap_fail "cannot install the modprobe wrapper"
fi
modprobe_wrap_stop
cleanup_netns
intree_unload
ktap_finished
