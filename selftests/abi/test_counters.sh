#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RDS_INFO_COUNTERS has every counter name in-tree has, spelled the same,
# and counts bytes where in-tree does.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/counters_lib.sh"

ktap_plan 3
ktap_test "load rds.ko and rds_tcp" rds_load tcp || ktap_finished
ktap_test "rds-info -c lists every in-tree counter" counters_have_intree_names
ktap_test "copy_to_user and recv_bytes_freed_fromsock in bytes, close's too" \
	counters_count_bytes
ktap_finished
