#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The in-tree rds.ko's sysctls against the expectations that
# selftests/socket/test_socket.sh holds ours to (selftests/abi/sysctl_lib.sh):
# if in-tree ever disagrees, the expectations are wrong, not just ours.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../abi/sysctl_lib.sh"

ktap_plan 5
ktap_test "modprobe rds_tcp (in-tree)" intree_load || ktap_finished
ktap_test "sysctls have their defaults" sysctl_defaults
ktap_test "sysctls take valid values" sysctl_writes
ktap_test "sysctls refuse bad values" sysctl_bad_values
ktap_test "sysctls restored" sysctl_restore
intree_unload
ktap_finished
