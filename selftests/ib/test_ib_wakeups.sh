#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 60
# rds-ci-debug: run: the receive CQ's own poller, in softirq (lockdep, KASAN)
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

TOOL=$(dirname "$0")/../tcp/rds_wakeups.py
n=$(ib_count 3000 500)
port=4700

# run MODE: one burst from IA to IB, read the MODE way.
run() {
	local mode=$1 q0 w0 queued woken server rc=0

	port=$((port + 4))
	q0=$(ib_counter recv_queued)
	w0=$(ib_counter recv_wakeups)
	python3 "$TOOL" --ib recv $IB $port "$mode" "$n" >/tmp/ib-wakeups.log 2>&1 &
	server=$!
	for _ in $(seq 50); do
		grep -q ready /tmp/ib-wakeups.log && break
		sleep 0.2
	done
	python3 "$TOOL" --ib send $IA $IB $port "$n" || rc=1
	wait $server || rc=1
	grep -v '^ready$' /tmp/ib-wakeups.log | sed 's/^/# /'
	queued=$(($(ib_counter recv_queued) - q0))
	woken=$(($(ib_counter recv_wakeups) - w0))
	echo "# recv_queued +$queued, recv_wakeups +$woken"
	if [ "$queued" -lt $((3 * n)) ] || [ "$woken" -gt "$queued" ]; then
		echo "# fewer messages than sent, or more wakeups than messages"
		rc=1
	fi
	return $rc
}

ktap_plan 4
ib_start "rxe pair and rds_rdma set up"
ib_first_ping "rds-ping over IB" 4 $IA $IB
ktap_test "edge-triggered epoll" run et
ktap_test "blocking reader threads" run block
ib_cleanup
ktap_finished
