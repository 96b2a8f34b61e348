#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The in-tree counter names selftests/abi/test_counters.sh expects of ours
# (selftests/abi/counters_lib.sh) are the in-tree modules' own, and so is
# what its byte counters count.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../abi/counters_lib.sh"

ktap_plan 3
ktap_test "modprobe rds and rds_tcp (in-tree)" intree_load tcp || ktap_finished
ktap_test "rds-info -c lists every name of the list" counters_have_intree_names
ktap_test "copy_to_user and recv_bytes_freed_fromsock in bytes, close's too" \
	counters_count_bytes
intree_unload
ktap_finished
