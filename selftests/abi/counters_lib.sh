# SPDX-License-Identifier: GPL-2.0
#
# The counter names of the in-tree 6.1 RDS_INFO_COUNTERS (net/rds/stats.c),
# which scripts reading `rds-info -c` look for. selftests/abi/test_counters.sh
# checks that ours has every one, selftests/intree/test_counters.sh that the
# list is in-tree's. Source it after lib.sh; rds.ko must be loaded.

INTREE_COUNTERS="conn_reset recv_drop_bad_checksum recv_drop_old_seq
recv_drop_no_sock recv_drop_dead_sock recv_deliver_raced recv_delivered
recv_queued recv_immediate_retry recv_delayed_retry recv_ack_required
recv_rdma_bytes recv_ping send_queue_empty send_queue_full
send_lock_contention send_lock_queue_raced send_immediate_retry
send_delayed_retry send_drop_acked send_ack_required send_queued send_rdma
send_rdma_bytes send_pong page_remainder_hit page_remainder_miss copy_to_user
copy_from_user cong_update_queued cong_update_received cong_send_error
cong_send_blocked recv_bytes_added_to_sock recv_bytes_freed_fromsock
send_stuck_rm"

counters_have_intree_names() {
	local names name rc=0
	names=$("$BIN/rds-info" -c | awk 'NF == 2 { print $1 }') || return 1
	for name in $INTREE_COUNTERS; do
		if ! echo "$names" | grep -qx "$name"; then
			echo "no counter $name"
			rc=1
		fi
	done
	return $rc
}
