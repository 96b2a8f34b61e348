// SPDX-License-Identifier: GPL-2.0
/* Counters of the generic layer.  They are per cpu so that the fast paths
 * never share a cache line; RDS_INFO_COUNTERS sums them when asked and
 * appends every transport's own counters.
 */
#include <linux/module.h>
#include <linux/string.h>
#include <linux/rds.h>

#include "stats.h"
#include "info.h"
#include "transports.h"

DEFINE_PER_CPU_SHARED_ALIGNED(struct rds_statistics, rds_stats);

/* The names user space sees: the enum names, lower case, without RDS_STAT_. */
static const char *const rds_stat_names[RDS_STAT_NR] = {
	[RDS_STAT_CONN_RESET]			= "conn_reset",
	[RDS_STAT_RECV_DROP_BAD_CHECKSUM]	= "recv_drop_bad_checksum",
	[RDS_STAT_RECV_DROP_OLD_SEQ]		= "recv_drop_old_seq",
	[RDS_STAT_RECV_DROP_NO_SOCK]		= "recv_drop_no_sock",
	[RDS_STAT_RECV_DROP_DEAD_SOCK]		= "recv_drop_dead_sock",
	[RDS_STAT_RECV_DELIVER_RACED]		= "recv_deliver_raced",
	[RDS_STAT_RECV_DELIVERED]		= "recv_delivered",
	[RDS_STAT_RECV_QUEUED]			= "recv_queued",
	[RDS_STAT_RECV_IMMEDIATE_RETRY]		= "recv_immediate_retry",
	[RDS_STAT_RECV_DELAYED_RETRY]		= "recv_delayed_retry",
	[RDS_STAT_RECV_ACK_REQUIRED]		= "recv_ack_required",
	[RDS_STAT_RECV_RDMA_BYTES]		= "recv_rdma_bytes",
	[RDS_STAT_RECV_PING]			= "recv_ping",
	[RDS_STAT_SEND_QUEUE_EMPTY]		= "send_queue_empty",
	[RDS_STAT_SEND_QUEUE_FULL]		= "send_queue_full",
	[RDS_STAT_SEND_LOCK_CONTENTION]		= "send_lock_contention",
	[RDS_STAT_SEND_LOCK_QUEUE_RACED]	= "send_lock_queue_raced",
	[RDS_STAT_SEND_IMMEDIATE_RETRY]		= "send_immediate_retry",
	[RDS_STAT_SEND_DELAYED_RETRY]		= "send_delayed_retry",
	[RDS_STAT_SEND_DROP_ACKED]		= "send_drop_acked",
	[RDS_STAT_SEND_ACK_REQUIRED]		= "send_ack_required",
	[RDS_STAT_SEND_QUEUED]			= "send_queued",
	[RDS_STAT_SEND_RDMA]			= "send_rdma",
	[RDS_STAT_SEND_RDMA_BYTES]		= "send_rdma_bytes",
	[RDS_STAT_SEND_PONG]			= "send_pong",
	[RDS_STAT_PAGE_REMAINDER_HIT]		= "page_remainder_hit",
	[RDS_STAT_PAGE_REMAINDER_MISS]		= "page_remainder_miss",
	[RDS_STAT_COPY_TO_USER]			= "copy_to_user",
	[RDS_STAT_COPY_FROM_USER]		= "copy_from_user",
	[RDS_STAT_CONG_UPDATE_QUEUED]		= "cong_update_queued",
	[RDS_STAT_CONG_UPDATE_RECEIVED]		= "cong_update_received",
	[RDS_STAT_CONG_SEND_ERROR]		= "cong_send_error",
	[RDS_STAT_CONG_SEND_BLOCKED]		= "cong_send_blocked",
	[RDS_STAT_RECV_BYTES_ADDED_TO_SOCK]	= "recv_bytes_added_to_sock",
	/* sic: in-tree's spelling, which scripts match */
	[RDS_STAT_RECV_BYTES_FREED_FROM_SOCK]	= "recv_bytes_freed_fromsock",
	[RDS_STAT_SEND_STUCK_RM]		= "send_stuck_rm",
	[RDS_STAT_SEND_RETRANSMITTED]		= "send_retransmitted",
	[RDS_STAT_CONN_CONNECT_ATTEMPTS]	= "conn_connect_attempts",
	[RDS_STAT_CONN_UP]			= "conn_up",
	[RDS_STAT_CONG_RESYNC]			= "cong_resync",
	[RDS_STAT_SEND_PONG_DROPPED]		= "send_pong_dropped",
	[RDS_STAT_RECV_PING_RATELIMITED]	= "recv_ping_ratelimited",
	[RDS_STAT_RECV_DROP_RCVBUF]		= "recv_drop_rcvbuf",
	[RDS_STAT_RECV_DROP_BAD_CONG_MAP]	= "recv_drop_bad_cong_map",
	[RDS_STAT_CONN_HEARTBEAT_SENT]		= "conn_heartbeat_sent",
	[RDS_STAT_CONN_HEARTBEAT_TIMEOUT]	= "conn_heartbeat_timeout",
	[RDS_STAT_RECV_BUSY_POLLED]		= "recv_busy_polled",
	[RDS_STAT_SEND_PONG_DIRECT]		= "send_pong_direct",
	[RDS_STAT_RECV_WAKEUPS]			= "recv_wakeups",
	[RDS_STAT_RECV_DROP_DUP_SEQ]		= "recv_drop_dup_seq",
};

/* The counter's name, as rds-info -c shows it; trace events give reasons
 * in the same words.
 */
const char *rds_stat_name(enum rds_stat which)
{
	return which < RDS_STAT_NR ? rds_stat_names[which] : "unknown";
}

/* Copies @nr counters as struct rds_info_counter items.  Items that do not
 * fit are dropped by rds_info_copy(); the caller reports the full count, so
 * a short buffer ends in ENOSPC rather than in a partial table.
 */
unsigned int rds_stats_info_copy(struct rds_info_iterator *iter,
				 const u64 *values, const char *const *names,
				 size_t nr)
{
	struct rds_info_counter ctr;
	size_t i;

	for (i = 0; i < nr; i++) {
		memset(&ctr, 0, sizeof(ctr));
		strscpy(ctr.name, names[i], sizeof(ctr.name));
		ctr.value = values[i];
		rds_info_copy(iter, &ctr, sizeof(ctr));
	}
	return nr;
}
EXPORT_SYMBOL_GPL(rds_stats_info_copy);

static void rds_stats_info(struct socket *sock, unsigned int len,
			   struct rds_info_iterator *iter,
			   struct rds_info_lengths *lens)
{
	const size_t each = sizeof(struct rds_info_counter);
	u64 sum[RDS_STAT_NR] = { };
	unsigned int avail = len / each;
	unsigned int nr;
	int cpu, i;

	for_each_possible_cpu(cpu) {
		const struct rds_statistics *s = per_cpu_ptr(&rds_stats, cpu);

		for (i = 0; i < RDS_STAT_NR; i++)
			sum[i] += READ_ONCE(s->s[i]);
	}

	nr = rds_stats_info_copy(iter, sum, rds_stat_names, RDS_STAT_NR);
	avail = avail > nr ? avail - nr : 0;
	nr += rds_trans_stats_info_copy(iter, avail);

	lens->nr = nr;
	lens->each = each;
}

int rds_stats_init(void)
{
	rds_info_register_func(RDS_INFO_COUNTERS, rds_stats_info);
	return 0;
}

void rds_stats_exit(void)
{
	rds_info_deregister_func(RDS_INFO_COUNTERS, rds_stats_info);
}
