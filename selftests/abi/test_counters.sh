#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RDS_INFO_COUNTERS has every counter name in-tree has, spelled the same.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/counters_lib.sh"

ktap_plan 2
ktap_test "load rds.ko" rds_load || ktap_finished
ktap_test "rds-info -c lists every in-tree counter" counters_have_intree_names
ktap_finished
