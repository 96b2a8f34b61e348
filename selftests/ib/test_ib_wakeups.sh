#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 60
#
# One wakeup a run of the receive CQ's poller, not a message (issue #27):
# RDS/IB polls its receive CQ itself and wakes each socket's reader once
# for the messages one run gave it in a row. That must lose no wakeup.
# The bursts of selftests/tcp/test_wakeups.sh, pinned to IB: 64 B from
# one socket to two in turn and from a second socket to the first, read
# with edge-triggered epoll (a message queued with no wakeup after it
# stalls that reader for good) and with a blocking thread a socket:
# every message once and in order, no more wakeups than messages. (A
# device removed under traffic, which stops a connection's poller with
# its CQ: test_ib_traffic.sh and test_ib_domains.sh.)

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ib_lib.sh"
. "$(dirname "$0")/../tcp/wakeups_lib.sh"

n=$(ib_count 3000 500)

# run MODE: one burst from IA to IB, pinned to IB (wakeups_run).
run() {
	wakeups_run ib_counter - - "$1" $IA $IB "$n" --ib
}

ktap_plan 4
ib_start "rxe pair and rds_rdma set up"
ib_first_ping "rds-ping over IB" 4 $IA $IB
ktap_test "edge-triggered epoll" run et
ktap_test "blocking reader threads" run block
ib_cleanup
ktap_finished
