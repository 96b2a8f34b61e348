/* SPDX-License-Identifier: GPL-2.0 */
/* Per network namespace state.  Every socket, connection and congestion map
 * belongs to exactly one netns and dies with it.
 */
#ifndef _RDS_NETNS_H
#define _RDS_NETNS_H

#include <linux/rbtree.h>
#include <linux/rhashtable-types.h>
#include <net/net_namespace.h>

#define RDS_CONN_HASH_BITS	8

/* Locks:
 *  - bind_table is an rhashtable: its own locking, lookups under RCU.
 *  - sock_lock (spinlock, BH-safe) protects sock_list and sock_count.
 *  - conn_lock (spinlock, BH-safe) protects writers of conn_hash and
 *    conn_count; readers walk conn_hash under RCU.
 *  - cong_lock (spinlock, BH-safe) protects cong_tree.
 */
struct rds_net {
	struct net		*net;
	bool			exiting;	/* no new connections */

	struct rhashtable	bind_table;

	spinlock_t		sock_lock;	/* sock_list, sock_count */
	struct list_head	sock_list;
	unsigned int		sock_count;

	spinlock_t		conn_lock;	/* conn_hash writers, conn_count */
	struct hlist_head	conn_hash[1 << RDS_CONN_HASH_BITS];
	unsigned int		conn_count;

	spinlock_t		cong_lock;	/* cong_tree */
	struct rb_root		cong_tree;
};

struct rds_net *rds_net(const struct net *net);

int rds_netns_init(void);
void rds_netns_exit(void);

#endif /* _RDS_NETNS_H */
