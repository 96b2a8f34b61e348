// SPDX-License-Identifier: GPL-2.0
/* The RDS_INFO_IB_CONNECTIONS / RDS6_INFO_IB_CONNECTIONS tables: every
 * RDS/IB connection of the caller's netns, with its GIDs, ring sizes and
 * service level while a queue pair is attached, as in-tree.
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
		item->max_recv_wr = ic->i_recv_nr;
		item->max_send_sge = 2;
		if (ic->i_cm_id->route.path_rec)
			item->sl = ic->i_cm_id->route.path_rec->sl;
	}
	mutex_unlock(&ic->i_mutex);
}

/* The paths of @conn live until its destroy, which happens only when its
 * netns goes (no caller there any more) or when we unload (after the
 * tables are unregistered, which waits for running callers).
 */
static void rds_ib_info_conn(struct rds_connection *conn, void *arg)
{
	struct rds_ib_info_walk *w = arg;
	struct rds6_info_rdma_connection item = { };

	if (!w->v6 && !ipv6_addr_v4mapped(&conn->c_faddr))
		return;
	item.src_addr = conn->c_laddr;
	item.dst_addr = conn->c_faddr;
	item.tos = conn->c_tos;
	rds_ib_info_path(conn->c_path[0].cp_transport_data, &item);

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

	rds_conn_for_each(sock_net(sock->sk), &rds_ib_transport,
			  rds_ib_info_conn, &w);
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
