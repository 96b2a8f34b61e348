#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rds-ping, rds-info and rds-stress against the distribution's in-tree RDS/TCP:
# the reference that selftests/tools/test_tools.sh holds our modules to.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../tools/tools_lib.sh"

tools_tests intree_load
