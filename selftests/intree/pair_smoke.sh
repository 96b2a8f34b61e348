#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The in-tree RDS/TCP in two guests: b sends a message to a, which answers.
# It proves the two-guest harness; interop tests swap one side for our modules.
#
#   selftests/vm/run-pair.sh --a selftests/intree/pair_smoke.sh \
#                            --b selftests/intree/pair_smoke.sh

. "$(dirname "$0")/../lib.sh"

ktap_plan 3
ktap_test "link to $RDS_PAIR_PEER" pair_link_up || ktap_finished
ktap_test "modprobe rds_tcp (in-tree)" intree_load || ktap_finished
if [ "$RDS_PAIR_ROLE" = a ]; then
	ktap_test "receive and answer one message" rds_recv - "$RDS_PAIR_ADDR" 4000 1 60
else
	# a may not have bound its port yet: a message sent before is lost.
	send() {
		local try
		for try in 1 2 3 4 5; do
			rds_send - "$RDS_PAIR_ADDR" "$RDS_PAIR_PEER" 4000 "hello from b" && return 0
		done
		return 1
	}
	ktap_test "send one message, get the answer" send
fi
ktap_finished
