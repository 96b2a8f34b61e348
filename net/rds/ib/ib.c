// SPDX-License-Identifier: GPL-2.0
/* rds_rdma.ko: the module, the transport, per-netns and per-connection
 * state.
 */
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <rds/version.h>

#include "ib.h"

static unsigned int rds_ib_netid;

/* An rdma_cm id bound to @addr, which tells the device that serves it. */
static struct rdma_cm_id *rds_ib_addr_bind(struct net *net,
					   const struct in6_addr *addr,
					   u32 scope_id)
{
	struct sockaddr_storage ss;
	struct rdma_cm_id *id;
	int ret;

	/* rdma_bind_addr() takes any link-local address; ask the stack. */
	if (!ipv6_addr_v4mapped(addr) &&
	    (ipv6_addr_type(addr) & IPV6_ADDR_LINKLOCAL)) {
		struct net_device *dev;
		bool found;

		rcu_read_lock();
		dev = scope_id ? dev_get_by_index_rcu(net, scope_id) : NULL;
		found = dev && ipv6_chk_addr(net, addr, dev, 1);
		rcu_read_unlock();
		if (!found)
			return ERR_PTR(-EADDRNOTAVAIL);
	}

	/* No context: the handler ignores whatever happens to this id. */
	id = rdma_create_id(net, rds_ib_cm_handler, NULL, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return id;
	rds_ib_sockaddr(&ss, addr, 0, scope_id);
	ret = rdma_bind_addr(id, (struct sockaddr *)&ss);
	if (ret) {
		rdma_destroy_id(id);
		return ERR_PTR(ret);
	}
	return id;
}

/* An address is ours when rdma_cm binds it to an InfiniBand-type device. */
static int rds_ib_laddr_check(struct net *net, const struct in6_addr *addr,
			      u32 scope_id)
{
	struct rdma_cm_id *id;
	bool ours;

	id = rds_ib_addr_bind(net, addr, scope_id);
	if (IS_ERR(id))
		return -EADDRNOTAVAIL;
	ours = id->device && id->device->node_type == RDMA_NODE_IB_CA;
	rdma_destroy_id(id);
	return ours ? 0 : -EADDRNOTAVAIL;
}

/* The device serving @addr now, with a reference, or NULL: the one a
 * socket was bound through may have gone since.
 */
struct rds_ib_device *rds_ib_addr_device(struct net *net,
					 const struct in6_addr *addr,
					 u32 scope_id)
{
	struct rds_ib_device *rdev = NULL;
	struct rdma_cm_id *id;

	id = rds_ib_addr_bind(net, addr, scope_id);
	if (IS_ERR(id))
		return NULL;
	if (id->device)
		rdev = rds_ib_device_get(id->device);
	rdma_destroy_id(id);
	return rdev;
}

struct rds_ib_net *rds_ib_net(struct net *net)
{
	return net_generic(net, rds_ib_netid);
}

/* A socket may bind without listeners: it can still connect out. */
static void rds_ib_sock_bound(struct net *net)
{
	struct rds_ib_net *rin = rds_ib_net(net);
	int ret;

	mutex_lock(&rin->rin_lock);
	rin->rin_socks++;
	if (!rin->rin_listen) {
		ret = rds_ib_listen_init(rin);
		if (ret)
			pr_debug("rds_rdma: no listener in a netns: %d\n", ret);
	}
	mutex_unlock(&rin->rin_lock);
}

/* The listeners go first, so that no request makes a connection behind
 * the destroy's back.
 */
static void rds_ib_sock_unbound(struct net *net)
{
	struct rds_ib_net *rin = rds_ib_net(net);

	mutex_lock(&rin->rin_lock);
	if (!--rin->rin_socks && !net_eq(net, &init_net)) {
		rds_ib_listen_stop(rin);
		rds_conn_destroy_all(net, &rds_ib_transport);
	}
	mutex_unlock(&rin->rin_lock);
}

static int rds_ib_conn_alloc(struct rds_connection *conn, gfp_t gfp)
{
	struct rds_ib_connection *ics;
	unsigned int i;

	ics = kcalloc(conn->c_path_count, sizeof(*ics), gfp);
	if (!ics)
		return -ENOMEM;
	for (i = 0; i < conn->c_path_count; i++) {
		struct rds_ib_connection *ic = &ics[i];

		ic->i_cp = &conn->c_path[i];
		INIT_LIST_HEAD(&ic->i_dev_item);
		mutex_init(&ic->i_mutex);
		INIT_DELAYED_WORK(&ic->i_connect_w, rds_ib_connect_expired);
		INIT_DELAYED_WORK(&ic->i_ack_quiet_w, rds_ib_ack_quiet);
		init_llist_head(&ic->i_recv_free);
		atomic64_set(&ic->i_ack_next, 0);
		ic->i_proposed_version = RDS_PROTOCOL_4_1;
		conn->c_path[i].cp_home.ca_data = ic;
	}
	conn->c_transport_data = ics;
	return 0;
}

/* Shutdown has run, but a request handler may have attached an id to a
 * path since: once they are done, shut down again.  A connection that lost
 * the race to be hashed was never seen by one.
 */
static void rds_ib_conn_free(struct rds_connection *conn)
{
	struct rds_ib_connection *ics = conn->c_transport_data;
	unsigned int i;

	if (!ics)
		return;
	if (READ_ONCE(conn->c_destroying))
		rds_ib_req_barrier();
	for (i = 0; i < conn->c_path_count; i++) {
		/* After the barrier: no handler attaches an id, so none arms
		 * the deadline again.
		 */
		cancel_delayed_work_sync(&ics[i].i_connect_w);
		rds_ib_conn_path_shutdown(&conn->c_path[i].cp_home);
		/* The QP is gone: no receive arms it again. */
		cancel_delayed_work_sync(&ics[i].i_ack_quiet_w);
		mutex_destroy(&ics[i].i_mutex);
		conn->c_path[i].cp_home.ca_data = NULL;
	}
	conn->c_transport_data = NULL;
	kfree(ics);
}

struct rds_transport rds_ib_transport = {
	.t_name			= "infiniband",
	.t_owner		= THIS_MODULE,
	.t_type			= RDS_TRANS_IB,
	.t_xmit_in_softirq	= true,
	.laddr_check		= rds_ib_laddr_check,
	.sock_bound		= rds_ib_sock_bound,
	.sock_unbound		= rds_ib_sock_unbound,
	.conn_alloc		= rds_ib_conn_alloc,
	.conn_free		= rds_ib_conn_free,
	.conn_path_connect	= rds_ib_conn_path_connect,
	.conn_path_shutdown	= rds_ib_conn_path_shutdown,
	.xmit			= rds_ib_xmit,
	.xmit_path_complete	= rds_ib_xmit_path_complete,
	.xmit_rdma		= rds_ib_xmit_rdma,
	.xmit_atomic		= rds_ib_xmit_rdma,	/* op_atomic tells */
	.recv_path		= rds_ib_recv_path,
	.inc_copy_to_user	= rds_ib_inc_copy_to_user,
	.inc_free		= rds_ib_inc_free,
	.stats_info_copy	= rds_ib_stats_info_copy,
	.device_get		= rds_ib_device_get_api,
	.device_put		= rds_ib_device_put_api,
	.mr_register		= rds_ib_mr_register,
	.mr_invalidate		= rds_ib_mr_invalidate,
	.mr_release		= rds_ib_mr_release,
	.mr_sync		= rds_ib_mr_sync,
};

static __net_init int rds_ib_net_init(struct net *net)
{
	struct rds_ib_net *rin = rds_ib_net(net);

	rin->rin_net = net;
	mutex_init(&rin->rin_lock);
	spin_lock_init(&rin->rin_accept_lock);
	hash_init(rin->rin_peers);
	/* Peers choose their addresses: keep them from choosing a bucket. */
	rin->rin_peer_seed = get_random_u32();
	if (!net_eq(net, &init_net))
		return 0;
	return rds_ib_listen_init(rin);
}

/* No new connection once the listeners are gone, then none at all.  Only
 * init_net has any left here (at module unload): another netns cannot
 * exit while we hold an id in it, and its last socket took them all.
 */
static __net_exit void rds_ib_net_exit(struct net *net)
{
	struct rds_ib_net *rin = rds_ib_net(net);

	rds_ib_listen_stop(rin);
	rds_conn_destroy_all(net, &rds_ib_transport);
	WARN_ON_ONCE(rin->rin_socks);
	/* Every path let go of its accepted id in its shutdown. */
	WARN_ON_ONCE(rin->rin_accepted || !hash_empty(rin->rin_peers));
	mutex_destroy(&rin->rin_lock);
}

static struct pernet_operations rds_ib_net_ops = {
	.init	= rds_ib_net_init,
	.exit	= rds_ib_net_exit,
	.id	= &rds_ib_netid,
	.size	= sizeof(struct rds_ib_net),
};

/* The shared receive queues' refill (srq.c), on no CPU in particular:
 * queued from a receive completion, a bound work item would run on the
 * CPU whose softirq brings the completions, and under rxe on the debug
 * kernel that CPU had no time left for it (peers' RNR retries, all in
 * softirq there): the queue stayed empty, the retries went on, and the
 * pool's other work waited behind the refill ("workqueue lockup").
 */
struct workqueue_struct *rds_ib_refill_wq;

static int __init rds_ib_init(void)
{
	int ret;

	rds_ib_incoming_slab = KMEM_CACHE(rds_ib_incoming, 0);
	if (!rds_ib_incoming_slab)
		return -ENOMEM;
	ret = rds_ib_recv_cache_init();
	if (ret)
		goto err_slab;
	rds_ib_refill_wq = alloc_workqueue("krdsd_ib_refill",
					   WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!rds_ib_refill_wq) {
		ret = -ENOMEM;
		goto err_cache;
	}
	ret = rds_ib_sysctl_init();
	if (ret)
		goto err_wq;
	ret = rds_ib_device_init();
	if (ret)
		goto err_sysctl;
	ret = rds_trans_register(&rds_ib_transport);
	if (ret)
		goto err_device;
	ret = register_pernet_subsys(&rds_ib_net_ops);
	if (ret)
		goto err_trans;
	rds_ib_info_init();
	return 0;

err_trans:
	rds_trans_unregister(&rds_ib_transport);
err_device:
	rds_ib_device_exit();
err_sysctl:
	rds_ib_sysctl_exit();
err_wq:
	destroy_workqueue(rds_ib_refill_wq);
err_cache:
	rds_ib_recv_cache_exit();
err_slab:
	kmem_cache_destroy(rds_ib_incoming_slab);
	return ret;
}

/* Connections go before the devices they hold (a device's removal waits
 * for them), and incoming messages pin the module, so the slab is idle.
 */
static void __exit rds_ib_exit(void)
{
	rds_ib_info_exit();
	unregister_pernet_subsys(&rds_ib_net_ops);
	rds_trans_unregister(&rds_ib_transport);
	rds_ib_device_exit();
	rds_ib_sysctl_exit();
	/* Every SRQ went with its domain, its refill cancelled. */
	destroy_workqueue(rds_ib_refill_wq);
	rds_ib_recv_cache_exit();
	kmem_cache_destroy(rds_ib_incoming_slab);
}

module_init(rds_ib_init);
module_exit(rds_ib_exit);

MODULE_DESCRIPTION("RDS: InfiniBand and RoCE transport (out-of-tree)");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDS_VERSION);
MODULE_AUTHOR("RDS developers <rds@localhost>");
