#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The in-tree counter names selftests/abi/test_counters.sh expects of ours
# (selftests/abi/counters_lib.sh) are the in-tree modules' own.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../abi/counters_lib.sh"

ktap_plan 2
ktap_test "modprobe rds (in-tree)" modprobe rds || ktap_finished
ktap_test "rds-info -c lists every name of the list" counters_have_intree_names
intree_unload
ktap_finished
