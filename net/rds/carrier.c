// SPDX-License-Identifier: GPL-2.0
/* Carriers: what a path sends through (see struct rds_carrier), and the
 * RDS_INFO_CARRIERS table that says, per path, which one that is.  Every
 * path has a home carrier, its connection's own transport; nothing moves a
 * path to another one yet, so this is where a carrier starts out.
 */
#include <linux/string.h>
#include <net/sock.h>

#include "carrier.h"
#include "connection.h"
#include "info.h"

void rds_carrier_init_home(struct rds_conn_path *cp)
{
	struct rds_carrier *ca = &cp->cp_home;

	ca->ca_trans = cp->cp_conn->c_trans;
	ca->ca_cp = cp;
	ca->ca_data = NULL;	/* the transport's conn_alloc() sets it */
	cp->cp_carrier = ca;
}

/* ---- RDS_INFO_CARRIERS ------------------------------------------------ */

struct rds_carrier_info_walk {
	struct rds_info_iterator	*iter;
	unsigned int			nr;	/* items seen, copied or not */
};

/* No path moves yet, so a carrier is its path's home one: no moves, no
 * time of the last, no device to name (an IB carrier's would need a call
 * into rds_rdma that only a move will have a use for).
 */
static void rds_carrier_info_fill(struct rds_info_carrier *ic,
				  struct rds_conn_path *cp)
{
	struct rds_connection *conn = cp->cp_conn;
	struct rds_carrier *ca = cp->cp_carrier;

	memset(ic, 0, sizeof(*ic));
	ic->laddr = conn->c_laddr;
	ic->faddr = conn->c_faddr;
	strscpy(ic->transport, conn->c_trans->t_name, sizeof(ic->transport));
	strscpy(ic->carrier, ca->ca_trans->t_name, sizeof(ic->carrier));
	ic->tos = conn->c_tos;
	ic->index = cp->cp_index;
	if (ca == &cp->cp_home)
		ic->flags |= RDS_INFO_CARRIER_HOME;
}

/* Under RCU: rds_info_copy() drops what does not fit and the count tells
 * the caller how much room the whole table wants.
 */
static void rds_carrier_info_one(struct rds_connection *conn, void *arg)
{
	struct rds_carrier_info_walk *w = arg;
	struct rds_info_carrier ic;
	unsigned int i;

	/* As in the other tables: the connecting end only. */
	if (conn->c_passive)
		return;
	for (i = 0; i < conn->c_path_count; i++) {
		rds_carrier_info_fill(&ic, &conn->c_path[i]);
		rds_info_copy(w->iter, &ic, sizeof(ic));
		w->nr++;
	}
}

/* Every path of every connection of the reader's netns, both families. */
static void rds_carrier_info(struct socket *sock, unsigned int len,
			     struct rds_info_iterator *iter,
			     struct rds_info_lengths *lens)
{
	struct rds_carrier_info_walk w = { .iter = iter };

	rds_conn_visit_rcu(sock_net(sock->sk), rds_carrier_info_one, &w);
	lens->nr = w.nr;
	lens->each = sizeof(struct rds_info_carrier);
}

void rds_carrier_init(void)
{
	rds_info_register_func(RDS_INFO_CARRIERS, rds_carrier_info);
}

void rds_carrier_exit(void)
{
	rds_info_deregister_func(RDS_INFO_CARRIERS, rds_carrier_info);
}
