/* SPDX-License-Identifier: GPL-2.0 */
/* Per-cpu counters, reported through RDS_INFO_COUNTERS. */
#ifndef _RDS_STATS_H
#define _RDS_STATS_H

#include <linux/percpu.h>

/* The first ones are in-tree's RDS_INFO_COUNTERS, in its order: scripts
 * reading rds-info -c expect every name, even those that stay 0 here.
 */
enum rds_stat {
	RDS_STAT_CONN_RESET,
	RDS_STAT_RECV_DROP_BAD_CHECKSUM,
	RDS_STAT_RECV_DROP_OLD_SEQ,
	RDS_STAT_RECV_DROP_NO_SOCK,
	RDS_STAT_RECV_DROP_DEAD_SOCK,
	RDS_STAT_RECV_DELIVER_RACED,
	RDS_STAT_RECV_DELIVERED,
	RDS_STAT_RECV_QUEUED,
	RDS_STAT_RECV_IMMEDIATE_RETRY,
	RDS_STAT_RECV_DELAYED_RETRY,
	RDS_STAT_RECV_ACK_REQUIRED,
	RDS_STAT_RECV_RDMA_BYTES,		/* 0: RDMA is not counted here yet */
	RDS_STAT_RECV_PING,
	RDS_STAT_SEND_QUEUE_EMPTY,
	RDS_STAT_SEND_QUEUE_FULL,
	RDS_STAT_SEND_LOCK_CONTENTION,
	RDS_STAT_SEND_LOCK_QUEUE_RACED,
	RDS_STAT_SEND_IMMEDIATE_RETRY,
	RDS_STAT_SEND_DELAYED_RETRY,
	RDS_STAT_SEND_DROP_ACKED,
	RDS_STAT_SEND_ACK_REQUIRED,
	RDS_STAT_SEND_QUEUED,
	RDS_STAT_SEND_RDMA,			/* 0: RDMA is not counted here yet */
	RDS_STAT_SEND_RDMA_BYTES,		/* 0: RDMA is not counted here yet */
	RDS_STAT_SEND_PONG,
	RDS_STAT_PAGE_REMAINDER_HIT,		/* 0: the per-CPU page small */
	RDS_STAT_PAGE_REMAINDER_MISS,		/* payloads share is not counted */
	RDS_STAT_COPY_TO_USER,
	RDS_STAT_COPY_FROM_USER,
	RDS_STAT_CONG_UPDATE_QUEUED,
	RDS_STAT_CONG_UPDATE_RECEIVED,
	RDS_STAT_CONG_SEND_ERROR,
	RDS_STAT_CONG_SEND_BLOCKED,
	RDS_STAT_RECV_BYTES_ADDED_TO_SOCK,
	RDS_STAT_RECV_BYTES_FREED_FROM_SOCK,
	RDS_STAT_SEND_STUCK_RM,			/* 0: a full path waits, never spins */
	RDS_STAT_SEND_RETRANSMITTED,
	RDS_STAT_CONN_CONNECT_ATTEMPTS,
	RDS_STAT_CONN_UP,
	RDS_STAT_CONG_RESYNC,
	RDS_STAT_SEND_PONG_DROPPED,
	RDS_STAT_RECV_PING_RATELIMITED,
	RDS_STAT_RECV_DROP_RCVBUF,
	RDS_STAT_RECV_DROP_BAD_CONG_MAP,	/* a map of the wrong size */
	RDS_STAT_CONN_HEARTBEAT_SENT,
	RDS_STAT_CONN_HEARTBEAT_TIMEOUT,
	RDS_STAT_RECV_BUSY_POLLED,		/* recvmsg spun, did not sleep */
	RDS_STAT_SEND_PONG_DIRECT,		/* sent from the receive path */
	RDS_STAT_RECV_WAKEUPS,			/* data_ready for queued messages */
	RDS_STAT_RECV_DROP_DUP_SEQ,		/* seen on this connection */
	RDS_STAT_NR
};

struct rds_statistics {
	u64 s[RDS_STAT_NR];
};

DECLARE_PER_CPU_SHARED_ALIGNED(struct rds_statistics, rds_stats);

static inline void rds_stats_add(enum rds_stat which, u64 n)
{
	this_cpu_add(rds_stats.s[which], n);
}

static inline void rds_stats_inc(enum rds_stat which)
{
	rds_stats_add(which, 1);
}

int rds_stats_init(void);	/* registers RDS_INFO_COUNTERS */
void rds_stats_exit(void);
const char *rds_stat_name(enum rds_stat which);

#endif /* _RDS_STATS_H */
