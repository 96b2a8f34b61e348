// SPDX-License-Identifier: GPL-2.0
/* The RDS_INFO_IB_CONNECTIONS / RDS6_INFO_IB_CONNECTIONS tables: every
 * RDS/IB connection of the caller's netns, with its GIDs, ring sizes and
 * service level while a queue pair is attached, as in-tree; and our
 * counters at the end of RDS_INFO_COUNTERS.
 */
#include <net/ipv6.h>

#include "ib.h"

struct rds_ib_info_walk {
	struct rds_info_iterator	*iter;
	bool				v6;
	unsigned int			nr;
};

/* What the table says of a path, read under its attachment lock. */
static void rds_ib_info_path(struct rds_ib_connection *ic,
			     struct rds6_info_rdma_connection *item)
{
	mutex_lock(&ic->i_mutex);
	if (ic->i_cm_id && ic->i_qp && rds_conn_path_up(ic->i_cp)) {
		rdma_read_gids(ic->i_cm_id, (union ib_gid *)item->src_gid,
			       (union ib_gid *)item->dst_gid);
		item->max_send_wr = ic->i_send_nr;
		/* 0 on an SRQ: the QP has no receive queue of its own. */
		item->max_recv_wr = ic->i_recv_nr;
		/* What a work request of ours may carry: RDMA ones use it all. */
		item->max_send_sge = ic->i_max_send_sge;
		if (ic->i_cm_id->route.path_rec)
			item->sl = ic->i_cm_id->route.path_rec->sl;
	}
	mutex_unlock(&ic->i_mutex);
}

/* The paths of @conn live until its destroy, which happens when the last
 * socket bound through us in its netns is released (under rin_lock, which
 * the walk holds), when its netns goes (no caller there any more) or when
 * we unload (after the tables are unregistered, which waits for running
 * callers).
 */
static void rds_ib_info_conn(struct rds_connection *conn, void *arg)
{
	struct rds_ib_info_walk *w = arg;
	struct rds6_info_rdma_connection item = { };

	if (!w->v6 && !ipv6_addr_v4mapped(&conn->c_faddr))
		return;
	/* A connection to our own address is listed once, as in-tree: the
	 * connecting end, not its passive twin (the accepted end).
	 */
	if (conn->c_passive)
		return;
	item.src_addr = conn->c_laddr;
	item.dst_addr = conn->c_faddr;
	item.tos = conn->c_tos;
	rds_ib_info_path(conn->c_path[0].cp_home.ca_data, &item);

	if (w->v6) {
		rds_info_copy(w->iter, &item, sizeof(item));
	} else {
		struct rds_info_rdma_connection item4 = {
			.src_addr	= item.src_addr.s6_addr32[3],
			.dst_addr	= item.dst_addr.s6_addr32[3],
			.max_send_wr	= item.max_send_wr,
			.max_recv_wr	= item.max_recv_wr,
			.max_send_sge	= item.max_send_sge,
			.tos		= item.tos,
			.sl		= item.sl,
		};

		memcpy(item4.src_gid, item.src_gid, sizeof(item4.src_gid));
		memcpy(item4.dst_gid, item.dst_gid, sizeof(item4.dst_gid));
		rds_info_copy(w->iter, &item4, sizeof(item4));
	}
	w->nr++;
}

static void rds_ib_info(struct socket *sock, struct rds_info_iterator *iter,
			struct rds_info_lengths *lens, bool v6)
{
	struct rds_ib_info_walk w = { .iter = iter, .v6 = v6 };
	struct net *net = sock_net(sock->sk);
	struct rds_ib_net *rin = rds_ib_net(net);

	mutex_lock(&rin->rin_lock);
	rds_conn_for_each(net, &rds_ib_transport, rds_ib_info_conn, &w);
	mutex_unlock(&rin->rin_lock);
	lens->nr = w.nr;
	lens->each = v6 ? sizeof(struct rds6_info_rdma_connection) :
			  sizeof(struct rds_info_rdma_connection);
}

static void rds_ib_info4(struct socket *sock, unsigned int len,
			 struct rds_info_iterator *iter,
			 struct rds_info_lengths *lens)
{
	rds_ib_info(sock, iter, lens, false);
}

static void rds_ib_info6(struct socket *sock, unsigned int len,
			 struct rds_info_iterator *iter,
			 struct rds_info_lengths *lens)
{
	rds_ib_info(sock, iter, lens, true);
}

DEFINE_PER_CPU(struct rds_ib_statistics, rds_ib_stats);

static const char *const rds_ib_stat_names[RDS_IB_STAT_NR] = {
	[RDS_IB_STAT_TX_RING_FULL]		= "ib_tx_ring_full",
	[RDS_IB_STAT_TX_THROTTLE]		= "ib_tx_throttle",
	[RDS_IB_STAT_TX_CREDIT_UPDATES]		= "ib_tx_credit_updates",
	[RDS_IB_STAT_RX_ALLOC_LIMIT]		= "ib_rx_alloc_limit",
	[RDS_IB_STAT_RX_TOTAL_FRAGS]		= "ib_rx_total_frags",
	[RDS_IB_STAT_RX_TOTAL_INCS]		= "ib_rx_total_incs",
	[RDS_IB_STAT_RX_CREDIT_UPDATES]		= "ib_rx_credit_updates",
	[RDS_IB_STAT_ACK_SENT]			= "ib_ack_sent",
	[RDS_IB_STAT_ACK_SEND_FAILURE]		= "ib_ack_send_failure",
	[RDS_IB_STAT_ACK_SEND_PIGGYBACKED]	= "ib_ack_send_piggybacked",
	[RDS_IB_STAT_ACK_RECEIVED]		= "ib_ack_received",
	[RDS_IB_STAT_RDMA_MR_8K_ALLOC]		= "ib_rdma_mr_8k_alloc",
	[RDS_IB_STAT_RDMA_MR_8K_FREE]		= "ib_rdma_mr_8k_free",
	[RDS_IB_STAT_RDMA_MR_8K_REUSED]		= "ib_rdma_mr_8k_reused",
	[RDS_IB_STAT_RDMA_MR_1M_ALLOC]		= "ib_rdma_mr_1m_alloc",
	[RDS_IB_STAT_RDMA_MR_1M_FREE]		= "ib_rdma_mr_1m_free",
	[RDS_IB_STAT_RDMA_MR_1M_REUSED]		= "ib_rdma_mr_1m_reused",
	/* Ours: invalidations completed, each an MR back in its pool. */
	[RDS_IB_STAT_RDMA_MR_INVALIDATE]	= "ib_rdma_mr_invalidate",
	/* Ours: connect requests refused because their private data names
	 * other addresses than rdma_cm saw, or because the peer or the netns
	 * has as many accepted connections as the sysctls allow.
	 */
	[RDS_IB_STAT_ACCEPT_ADDR_MISMATCH]	= "ib_accept_addr_mismatch",
	[RDS_IB_STAT_ACCEPT_OVER_LIMIT]		= "ib_accept_over_limit",
	/* Ours: receive pages a ring took at or over max_recv_allocation,
	 * within its own size (see struct rds_ib_recv_budget).
	 */
	[RDS_IB_STAT_RX_ALLOC_RESERVE]		= "ib_rx_alloc_reserve",
	/* Ours: attempts not up within RDS_IB_CONNECT_MS, dropped (cm.c). */
	[RDS_IB_STAT_CONNECT_TIMEOUT]		= "ib_connect_timeout",
	[RDS_IB_STAT_ACK_QUIET]			= "ib_ack_quiet",
	/* Ours: connections given smaller rings, or refused, for want of
	 * ring memory (mem.c).
	 */
	[RDS_IB_STAT_RING_SHRUNK]		= "ib_ring_shrunk",
	[RDS_IB_STAT_RING_REFUSED]		= "ib_ring_refused",
	/* Ours: fragments whose length was not their share of the message
	 * (recv.c): the connection was reset.
	 */
	[RDS_IB_STAT_RX_BAD_FRAG_LEN]		= "ib_rx_bad_frag_len",
	[RDS_IB_STAT_SRQ_CREATED]		= "ib_srq_created",
	[RDS_IB_STAT_SRQ_QP]			= "ib_srq_qp",
	[RDS_IB_STAT_SRQ_REFILL_SHORT]		= "ib_srq_refill_short",
	[RDS_IB_STAT_TX_ZEROCOPY]		= "ib_tx_zerocopy",
	[RDS_IB_STAT_TX_ZEROCOPY_COPIED]	= "ib_tx_zerocopy_copied",
	/* Ours: receive pages taken from the recycled ones (recv.c). */
	[RDS_IB_STAT_RX_PAGE_RECYCLED]		= "ib_rx_page_recycled",
};

unsigned int rds_ib_stats_info_copy(struct rds_info_iterator *iter,
				    unsigned int avail)
{
	u64 sum[RDS_IB_STAT_NR] = { };
	int cpu, i;

	for_each_possible_cpu(cpu) {
		const struct rds_ib_statistics *s = per_cpu_ptr(&rds_ib_stats, cpu);

		for (i = 0; i < RDS_IB_STAT_NR; i++)
			sum[i] += READ_ONCE(s->s[i]);
	}
	return rds_stats_info_copy(iter, sum, rds_ib_stat_names, RDS_IB_STAT_NR);
}

void rds_ib_info_init(void)
{
	rds_info_register_func(RDS_INFO_IB_CONNECTIONS, rds_ib_info4);
	rds_info_register_func(RDS6_INFO_IB_CONNECTIONS, rds_ib_info6);
}

void rds_ib_info_exit(void)
{
	rds_info_deregister_func(RDS_INFO_IB_CONNECTIONS, rds_ib_info4);
	rds_info_deregister_func(RDS6_INFO_IB_CONNECTIONS, rds_ib_info6);
}
