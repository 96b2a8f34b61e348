#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 5
# rds-test: source-only
#
# Documentation/counters.rst has an entry for every counter rds-info -c
# prints and none for a counter that does not exist, checked against the
# name tables in the source: a counter added without saying what it
# counts fails here, on any kernel, without loading a module.

. "$(dirname "$0")/../lib.sh"

ktap_plan 1
ktap_test "Documentation/counters.rst: every counter rds-info -c prints" \
	python3 "$RDS_ROOT/selftests/tools/check_counters_doc.py"
ktap_finished
