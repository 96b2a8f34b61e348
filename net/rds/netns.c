// SPDX-License-Identifier: GPL-2.0
/* Per network namespace state of rds.ko.  User sockets hold a reference on
 * their netns, so by the time rds_net_exit() runs every RDS socket of the
 * namespace is gone; what may remain are connections (kept by transports or
 * by peers) and congestion maps, which their owners tear down from here.
 */
#include <linux/module.h>
#include <net/netns/generic.h>

#include "netns.h"
#include "socket.h"
#include "connection.h"
#include "cong.h"

static unsigned int rds_net_id __read_mostly;

struct rds_net *rds_net(const struct net *net)
{
	return net_generic(net, rds_net_id);
}

static int __net_init rds_net_init(struct net *net)
{
	struct rds_net *rn = rds_net(net);
	unsigned int i;

	/* The pernet core hands us rn zeroed. */
	rn->net = net;
	spin_lock_init(&rn->sock_lock);
	INIT_LIST_HEAD(&rn->sock_list);
	spin_lock_init(&rn->conn_lock);
	for (i = 0; i < ARRAY_SIZE(rn->conn_hash); i++)
		INIT_HLIST_HEAD(&rn->conn_hash[i]);
	spin_lock_init(&rn->cong_lock);
	rn->cong_tree = RB_ROOT;

	return rds_bind_net_init(net);
}

static void __net_exit rds_net_exit(struct net *net)
{
	struct rds_net *rn = rds_net(net);

	/* Refuse new connections before tearing down the existing ones. */
	WRITE_ONCE(rn->exiting, true);
	rds_conn_net_exit(net);
	rds_cong_net_exit(net);
	/* Sockets pin the netns: an RDS socket left over here is a bug. */
	WARN_ON_ONCE(!list_empty(&rn->sock_list));
	rds_bind_net_exit(net);
}

static struct pernet_operations rds_net_ops = {
	.init	= rds_net_init,
	.exit	= rds_net_exit,
	.id	= &rds_net_id,
	.size	= sizeof(struct rds_net),
};

int rds_netns_init(void)
{
	return register_pernet_subsys(&rds_net_ops);
}

void rds_netns_exit(void)
{
	unregister_pernet_subsys(&rds_net_ops);
}
