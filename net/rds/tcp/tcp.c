// SPDX-License-Identifier: GPL-2.0
/* rds_tcp.ko: the module, the transport, per-netns and per-connection state.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/random.h>
#include <linux/tcp.h>
#include <net/addrconf.h>
#include <net/ip_fib.h>
#include <net/tcp.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <rds/version.h>

#include "tcp.h"

unsigned int rds_tcp_netid;

/* Paths with a socket, for RDS_INFO_TCP_SOCKETS. */
DEFINE_SPINLOCK(rds_tcp_tc_lock);
LIST_HEAD(rds_tcp_tc_list);

static bool rds_tcp_unloading_flag;

static int rds_tcp_laddr_check(struct net *net, const struct in6_addr *addr,
			       u32 scope_id)
{
	struct net_device *dev = NULL;
	bool found;

	if (ipv6_addr_v4mapped(addr)) {
		if (inet_addr_type_table(net, addr->s6_addr32[3],
					 RT_TABLE_LOCAL) == RTN_LOCAL)
			return 0;
		return -EADDRNOTAVAIL;
	}

	rcu_read_lock();
	if (ipv6_addr_type(addr) & IPV6_ADDR_LINKLOCAL) {
		/* A link-local address means nothing without its link. */
		dev = scope_id ? dev_get_by_index_rcu(net, scope_id) : NULL;
		if (!dev) {
			rcu_read_unlock();
			return -EADDRNOTAVAIL;
		}
	}
	found = ipv6_chk_addr(net, addr, dev, 0);
	rcu_read_unlock();
	return found ? 0 : -EADDRNOTAVAIL;
}

bool rds_tcp_destroying(struct rds_conn_path *cp)
{
	return test_bit(RDS_DESTROY_PENDING, &cp->cp_flags) ||
	       READ_ONCE(cp->cp_conn->c_destroying) ||
	       READ_ONCE(rds_tcp_unloading_flag);
}

/* Socket options every RDS/TCP socket gets, connected or accepted: no
 * Nagle (RDS corks while it sends a batch), keepalive so that a peer that
 * vanished is noticed, and the netns' buffer sizes.
 */
void rds_tcp_tune(struct socket *sock, struct rds_tcp_net *rtn)
{
	struct sock *sk = sock->sk;
	int sndbuf = READ_ONCE(rtn->rtn_sndbuf);
	int rcvbuf = READ_ONCE(rtn->rtn_rcvbuf);

	tcp_sock_set_nodelay(sk);
	sock_set_keepalive(sk);
	tcp_sock_set_keepidle(sk, 5);
	tcp_sock_set_keepintvl(sk, 1);
	tcp_sock_set_keepcnt(sk, 5);

	lock_sock(sk);
	if (sndbuf > 0) {
		WRITE_ONCE(sk->sk_sndbuf, sndbuf);
		sk->sk_userlocks |= SOCK_SNDBUF_LOCK;
	}
	if (rcvbuf > 0) {
		WRITE_ONCE(sk->sk_rcvbuf, rcvbuf);
		sk->sk_userlocks |= SOCK_RCVBUF_LOCK;
	}
	release_sock(sk);
}

static int rds_tcp_conn_alloc(struct rds_connection *conn, gfp_t gfp)
{
	unsigned int i, n = conn->c_path_count;
	struct rds_tcp_conn *tcn;

	tcn = kzalloc(struct_size(tcn, tcn_path, n), gfp);
	if (!tcn)
		return -ENOMEM;
	tcn->tcn_npaths = n;
	for (i = 0; i < n; i++) {
		struct rds_tcp_connection *tc = &tcn->tcn_path[i];

		INIT_LIST_HEAD(&tc->t_list);
		mutex_init(&tc->t_conn_path_lock);
		INIT_DELAYED_WORK(&tc->t_adopt_w, rds_tcp_adopt_worker);
		tc->t_cpath = &conn->c_path[i];
		tc->t_tcn = tcn;
		tc->t_port_group = get_random_u16();
		conn->c_path[i].cp_home.ca_data = tc;
	}
	conn->c_transport_data = tcn;
	return 0;
}

static void rds_tcp_conn_free(struct rds_connection *conn)
{
	struct rds_tcp_conn *tcn = conn->c_transport_data;
	unsigned int i;

	if (!tcn)
		return;
	for (i = 0; i < tcn->tcn_npaths; i++) {
		struct rds_tcp_connection *tc = &tcn->tcn_path[i];

		cancel_delayed_work_sync(&tc->t_adopt_w);
		rds_tcp_path_release(tc);
		mutex_destroy(&tc->t_conn_path_lock);
		conn->c_path[i].cp_home.ca_data = NULL;
	}
	conn->c_transport_data = NULL;
	kfree(tcn);
}

struct rds_transport rds_tcp_transport = {
	.t_name			= "tcp",
	.t_owner		= THIS_MODULE,
	.t_type			= RDS_TRANS_TCP,
	.t_mp_capable		= true,
	.t_prefer_loopback	= true,
	.t_tos_blind		= true,
	.laddr_check		= rds_tcp_laddr_check,
	.conn_alloc		= rds_tcp_conn_alloc,
	.conn_free		= rds_tcp_conn_free,
	.conn_path_connect	= rds_tcp_conn_path_connect,
	.conn_path_shutdown	= rds_tcp_conn_path_shutdown,
	.xmit			= rds_tcp_xmit,
	.xmit_path_prepare	= rds_tcp_xmit_path_prepare,
	.xmit_path_complete	= rds_tcp_xmit_path_complete,
	.recv_path		= rds_tcp_recv_path,
	.inc_copy_to_user	= rds_tcp_inc_copy_to_user,
	.inc_free		= rds_tcp_inc_free,
	.stats_info_copy	= rds_tcp_stats_info_copy,
};

static __net_init int rds_tcp_net_init(struct net *net)
{
	struct rds_tcp_net *rtn = rds_tcp_net(net);
	int ret;

	rtn->rtn_net = net;
	ret = rds_tcp_sysctl_init(rtn);
	if (ret)
		return ret;
	ret = rds_tcp_listen_init(rtn);
	if (ret)
		goto err_sysctl;
	return 0;

err_sysctl:
	rds_tcp_sysctl_exit(rtn);
	return ret;
}

/* Our kernel sockets hold no reference on the netns, so everything that
 * uses it must be gone when this returns: the listener first (no new
 * connections), then every RDS/TCP connection of the netns.  We register
 * after rds.ko, so this runs before the generic layer's netns exit.
 */
static __net_exit void rds_tcp_net_exit(struct net *net)
{
	struct rds_tcp_net *rtn = rds_tcp_net(net);

	rds_tcp_listen_stop(rtn);
	rds_tcp_sysctl_exit(rtn);
	rds_conn_destroy_all(net, &rds_tcp_transport);
}

static struct pernet_operations rds_tcp_net_ops = {
	.init	= rds_tcp_net_init,
	.exit	= rds_tcp_net_exit,
	.id	= &rds_tcp_netid,
	.size	= sizeof(struct rds_tcp_net),
};

static int __init rds_tcp_init(void)
{
	int ret;

	ret = rds_tcp_recv_init();
	if (ret)
		return ret;
	ret = rds_trans_register(&rds_tcp_transport);
	if (ret)
		goto err_recv;
	ret = register_pernet_subsys(&rds_tcp_net_ops);
	if (ret)
		goto err_trans;
	rds_tcp_info_init();
	return 0;

err_trans:
	rds_trans_unregister(&rds_tcp_transport);
err_recv:
	rds_tcp_recv_exit();
	return ret;
}

static void __exit rds_tcp_exit(void)
{
	WRITE_ONCE(rds_tcp_unloading_flag, true);
	rds_tcp_info_exit();
	unregister_pernet_subsys(&rds_tcp_net_ops);
	rds_trans_unregister(&rds_tcp_transport);
	rds_tcp_recv_exit();
}

module_init(rds_tcp_init);
module_exit(rds_tcp_exit);

MODULE_DESCRIPTION("RDS: TCP transport (out-of-tree)");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDS_VERSION);
MODULE_AUTHOR("RDS developers <rds@localhost>");
