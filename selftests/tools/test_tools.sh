#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 105
#
# rds-ping, rds-info and rds-stress against our modules, between two network
# namespaces. selftests/intree/test_tools.sh runs the same checks against the
# in-tree modules.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tools_lib.sh"

if [ ! -e "$RDS_MODDIR/rds_tcp.ko" ]; then
	ktap_plan 0
	echo "# $RDS_MODDIR/rds_tcp.ko not built"
	exit "$KSFT_SKIP"
fi
tools_tests rds_load tcp
