// SPDX-License-Identifier: GPL-2.0
/* The AF_RDS socket family: socket(2) and the proto_ops around the send,
 * receive, bind and option code, the RDS_INFO_SOCKETS tables, and module
 * init and exit for the whole generic layer.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/poll.h>
#include <linux/rds.h>
#include <linux/uaccess.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <rds/version.h>

#include "carrier.h"
#include "socket.h"
#include "netns.h"
#include "rdma.h"
#include "info.h"
#include "message.h"
#include "recv.h"
#include "send.h"
#include "sndbuf.h"
#include "cong.h"
#include "connection.h"
#include "stats.h"
#include "sysctl.h"
#include "transports.h"

/* Writers blocked on sndbuf, readers and pollers all sleep on sk_wq.  The
 * wakeup carries @events (0: any) so that a poller that waits for other
 * events stays asleep: a reader polling for POLLIN alone is not pulled
 * out of poll() by every ack that makes send room, only to sleep again.
 * Blocked senders and readers wake whatever the events.
 */
void rds_wake_sk_sleep(struct rds_sock *rs, __poll_t events)
{
	struct sock *sk = rds_rs_to_sk(rs);
	struct socket_wq *wq;

	rcu_read_lock();
	wq = rcu_dereference(sk->sk_wq);
	if (skwq_has_sleeper(wq))
		__wake_up(&wq->wait, TASK_INTERRUPTIBLE, 0,
			  events ? poll_to_key(events) : NULL);
	rcu_read_unlock();
}

static void rds_sock_list_del(struct rds_sock *rs)
{
	struct rds_net *rn = rds_net(sock_net(rds_rs_to_sk(rs)));

	spin_lock_bh(&rn->sock_lock);
	list_del_init(&rs->rs_item);
	rn->sock_count--;
	spin_unlock_bh(&rn->sock_lock);
}

/* Once SOCK_DEAD is set (sock_orphan) receivers stop queueing and the bind
 * lookup skips us; after that the queues can be emptied for good.  The last
 * reference may be a queued message's (m_rs), so sk is freed later.
 */
static int rds_release(struct socket *sock)
{
	struct sock *sk = sock->sk;
	struct rds_sock *rs;

	if (!sk)
		return 0;
	rs = rds_sk_to_rs(sk);

	sock_orphan(sk);
	rds_remove_bound(rs);
	rds_clear_recv_queue(rs);
	rds_cong_remove_socket(rs);
	rds_send_drop_to(rs, NULL, 0);
	rds_sndbuf_destruct(rs);
	rds_rdma_drop_mrs(rs);
	rds_sock_list_del(rs);

	if (rs->rs_conn) {
		rds_conn_put(rs->rs_conn);
		rs->rs_conn = NULL;
	}
	if (rs->rs_transport) {
		/* rs_bound outlives rds_remove_bound(): set iff bind worked. */
		if (rds_sock_bound(rs) && rs->rs_transport->sock_unbound)
			rs->rs_transport->sock_unbound(sock_net(sk));
		rds_trans_put(rs->rs_transport);
		rs->rs_transport = NULL;
	}

	sock->sk = NULL;
	sock_put(sk);
	return 0;
}

static bool rds_ipv4_unicast(__be32 addr)
{
	return addr != htonl(INADDR_BROADCAST) && !ipv4_is_multicast(addr);
}

/* connect() only records the default destination: RDS has no handshake.
 * A link-local one needs a scope id, the bound one if the socket has one.
 */
static int rds_connect_parse(const struct rds_sock *rs,
			     const struct sockaddr *uaddr, int addr_len,
			     struct in6_addr *addr, __be16 *port, u32 *scope_id)
{
	const struct sockaddr_in6 *sin6;
	const struct sockaddr_in *sin;
	__be32 v4;
	int type;

	if (addr_len < (int)offsetofend(struct sockaddr, sa_family))
		return -EINVAL;

	switch (uaddr->sa_family) {
	case AF_INET:
		if (addr_len < (int)sizeof(*sin))
			return -EINVAL;
		sin = (const struct sockaddr_in *)uaddr;
		if (sin->sin_addr.s_addr == htonl(INADDR_ANY))
			return -EDESTADDRREQ;
		if (!rds_ipv4_unicast(sin->sin_addr.s_addr))
			return -EINVAL;
		ipv6_addr_set_v4mapped(sin->sin_addr.s_addr, addr);
		*port = sin->sin_port;
		return 0;
	case AF_INET6:
		if (addr_len < (int)sizeof(*sin6))
			return -EINVAL;
		sin6 = (const struct sockaddr_in6 *)uaddr;
		type = ipv6_addr_type(&sin6->sin6_addr);
		if (!(type & IPV6_ADDR_UNICAST)) {
			if (!(type & IPV6_ADDR_MAPPED))
				return -EPROTOTYPE;
			v4 = sin6->sin6_addr.s6_addr32[3];
			if (v4 == htonl(INADDR_ANY) || !rds_ipv4_unicast(v4))
				return -EPROTOTYPE;
		}
		if (type & IPV6_ADDR_LINKLOCAL) {
			if (!sin6->sin6_scope_id ||
			    (rds_sock_bound(rs) && rs->rs_bound.scope_id &&
			     sin6->sin6_scope_id != rs->rs_bound.scope_id))
				return -EINVAL;
			*scope_id = sin6->sin6_scope_id;
		}
		*addr = sin6->sin6_addr;
		*port = sin6->sin6_port;
		return 0;
	default:
		return -EAFNOSUPPORT;
	}
}

static int rds_connect(struct socket *sock, struct sockaddr *uaddr,
		       int addr_len, int flags)
{
	struct sock *sk = sock->sk;
	struct rds_sock *rs = rds_sk_to_rs(sk);
	struct in6_addr addr;
	u32 scope_id = 0;
	__be16 port;
	int ret;

	lock_sock(sk);
	ret = rds_connect_parse(rs, uaddr, addr_len, &addr, &port, &scope_id);
	if (!ret) {
		rs->rs_conn_addr = addr;
		rs->rs_conn_port = port;
		rs->rs_conn_scope_id = scope_id;
	}
	release_sock(sk);
	return ret;
}

/* Fills @uaddr with @addr:@port in the family it was given in. */
static int rds_fill_sockaddr(struct sockaddr *uaddr, const struct in6_addr *addr,
			     __be16 port, u32 scope_id)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)uaddr;
	struct sockaddr_in *sin = (struct sockaddr_in *)uaddr;

	if (ipv6_addr_v4mapped(addr)) {
		memset(sin, 0, sizeof(*sin));
		sin->sin_family = AF_INET;
		sin->sin_port = port;
		sin->sin_addr.s_addr = addr->s6_addr32[3];
		return sizeof(*sin);
	}
	memset(sin6, 0, sizeof(*sin6));
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = port;
	sin6->sin6_addr = *addr;
	sin6->sin6_scope_id = scope_id;
	return sizeof(*sin6);
}

static int rds_getname(struct socket *sock, struct sockaddr *uaddr, int peer)
{
	struct sock *sk = sock->sk;
	struct rds_sock *rs = rds_sk_to_rs(sk);
	struct in6_addr addr;
	int len;

	lock_sock(sk);
	if (peer) {
		len = -ENOTCONN;
		if (!ipv6_addr_any(&rs->rs_conn_addr))
			len = rds_fill_sockaddr(uaddr, &rs->rs_conn_addr,
						rs->rs_conn_port, 0);
	} else if (rds_sock_bound(rs)) {
		len = rds_fill_sockaddr(uaddr, &rs->rs_bound.addr,
					rs->rs_bound.port,
					rs->rs_bound.scope_id);
	} else {
		/* Unbound: the any address in the family connect() used. */
		addr = in6addr_any;
		if (ipv6_addr_any(&rs->rs_conn_addr) ||
		    ipv6_addr_v4mapped(&rs->rs_conn_addr))
			ipv6_addr_set_v4mapped(htonl(INADDR_ANY), &addr);
		len = rds_fill_sockaddr(uaddr, &addr, 0, 0);
	}
	release_sock(sk);
	return len;
}

static __poll_t rds_poll(struct file *file, struct socket *sock,
			 poll_table *wait)
{
	struct sock *sk = sock->sk;
	struct rds_sock *rs = rds_sk_to_rs(sk);
	__poll_t mask = 0;
	unsigned long flags;

	/* Congestion news for a refused sender comes on this queue too
	 * (rds_cong_map_updated() wakes it), so epoll, which hooks only the
	 * queues of its first call, hears it.
	 */
	sock_poll_wait(file, sock, wait);

	spin_lock_irqsave(&rs->rs_lock, flags);
	if (rs->rs_cong_monitor) {
		if (rs->rs_cong_notify)
			mask |= EPOLLIN | EPOLLRDNORM;
	} else if (rs->rs_seen_congestion &&
		   rds_cong_updated_since(&rs->rs_cong_track)) {
		/* A map changed: a port we were refused on may be open. */
		rs->rs_seen_congestion = false;
		mask |= EPOLLIN | EPOLLRDNORM | EPOLLWRBAND;
	}
	if (rds_sndbuf_writable(rs, poll_requested_events(wait) & RDS_POLL_ROOM))
		mask |= RDS_POLL_ROOM;
	spin_unlock_irqrestore(&rs->rs_lock, flags);

	if (!list_empty(&rs->rs_recv_queue) ||
	    !list_empty_careful(&rs->rs_zcopy_queue) ||
	    !list_empty_careful(&rs->rs_notify_queue))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (READ_ONCE(sk->sk_err) || !skb_queue_empty_lockless(&sk->sk_error_queue))
		mask |= EPOLLERR;
	return mask;
}

static int rds_set_tos(struct rds_sock *rs, u8 __user *arg)
{
	struct sock *sk = rds_rs_to_sk(rs);
	unsigned long flags;
	int ret = 0;
	u8 tos;

	if (get_user(tos, arg))
		return -EFAULT;
	lock_sock(sk);
	/* TCP carries every TOS on one connection: it has no TOS of its own. */
	if (rs->rs_transport && rs->rs_transport->t_type == RDS_TRANS_TCP)
		tos = 0;
	spin_lock_irqsave(&rs->rs_lock, flags);
	/* Messages already went out on the old TOS's connection. */
	if (rs->rs_tos || rs->rs_conn)
		ret = -EINVAL;
	else
		rs->rs_tos = tos;
	spin_unlock_irqrestore(&rs->rs_lock, flags);
	release_sock(sk);
	return ret;
}

static int rds_ioctl(struct socket *sock, unsigned int cmd, unsigned long arg)
{
	struct rds_sock *rs = rds_sk_to_rs(sock->sk);

	switch (cmd) {
	case SIOCRDSSETTOS:
		return rds_set_tos(rs, (u8 __user *)arg);
	case SIOCRDSGETTOS:
		return put_user(READ_ONCE(rs->rs_tos), (u8 __user *)arg);
	default:
		return -ENOIOCTLCMD;
	}
}

/* No .sendpage: 6.5 removed it, and on 6.1 a NULL one makes kernel_sendpage()
 * fall back to sock_no_sendpage(), what in-tree RDS names explicitly.
 */
static const struct proto_ops rds_proto_ops = {
	.family		= AF_RDS,
	.owner		= THIS_MODULE,
	.release	= rds_release,
	.bind		= rds_bind,
	.connect	= rds_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= sock_no_accept,
	.getname	= rds_getname,
	.poll		= rds_poll,
	.ioctl		= rds_ioctl,
	.listen		= sock_no_listen,
	.shutdown	= sock_no_shutdown,
	.setsockopt	= rds_setsockopt,
	.getsockopt	= rds_getsockopt,
	.sendmsg	= rds_sendmsg,
	.recvmsg	= rds_recvmsg,
	.mmap		= sock_no_mmap,
};

static struct proto rds_proto = {
	.name		= "RDS",
	.owner		= THIS_MODULE,
	.obj_size	= sizeof(struct rds_sock),
};

static void rds_sock_init(struct rds_sock *rs)
{
	spin_lock_init(&rs->rs_lock);
	INIT_LIST_HEAD(&rs->rs_send_queue);
	hash_init(rs->rs_dests);
	INIT_LIST_HEAD(&rs->rs_cong_item);
	INIT_LIST_HEAD(&rs->rs_cong_refused_item);
	spin_lock_init(&rs->rs_recv_lock);
	INIT_LIST_HEAD(&rs->rs_recv_queue);
	INIT_LIST_HEAD(&rs->rs_zcopy_queue);
	INIT_LIST_HEAD(&rs->rs_notify_queue);
	INIT_LIST_HEAD(&rs->rs_item);
	spin_lock_init(&rs->rs_mr_lock);
	rs->rs_mr_tree = RB_ROOT;
}

static int rds_create(struct net *net, struct socket *sock, int protocol,
		      int kern)
{
	struct rds_net *rn = rds_net(net);
	struct rds_sock *rs;
	struct sock *sk;

	/* In-tree's errno for a protocol too, not EPROTONOSUPPORT. */
	if (sock->type != SOCK_SEQPACKET || protocol)
		return -ESOCKTNOSUPPORT;

	sk = sk_alloc(net, AF_RDS, GFP_KERNEL, &rds_proto, kern);
	if (!sk)
		return -ENOMEM;
	sock_init_data(sock, sk);
	sock->ops = &rds_proto_ops;
	sk->sk_protocol = protocol;
	/* Receivers find us in the bind table under RCU only. */
	sock_set_flag(sk, SOCK_RCU_FREE);

	/* sk_alloc zeroed the rest of the rds_sock. */
	rs = rds_sk_to_rs(sk);
	rds_sock_init(rs);

	spin_lock_bh(&rn->sock_lock);
	list_add_tail(&rs->rs_item, &rn->sock_list);
	rn->sock_count++;
	spin_unlock_bh(&rn->sock_lock);
	return 0;
}

static const struct net_proto_family rds_family_ops = {
	.family	= AF_RDS,
	.create	= rds_create,
	.owner	= THIS_MODULE,
};

/* ---- RDS_INFO_SOCKETS and RDS6_INFO_SOCKETS ----------------------------- */

static void rds_sock_info_item(struct rds_info_iterator *iter,
			       struct rds_sock *rs, bool v6)
{
	struct sock *sk = rds_rs_to_sk(rs);

	if (v6) {
		struct rds6_info_socket s = {
			.sndbuf		= rds_sk_sndbuf(rs),
			.bound_addr	= rs->rs_bound.addr,
			.connected_addr	= rs->rs_conn_addr,
			.bound_port	= rs->rs_bound.port,
			.connected_port	= rs->rs_conn_port,
			.rcvbuf		= rds_sk_rcvbuf(rs),
			.inum		= sock_i_ino(sk),
		};

		rds_info_copy(iter, &s, sizeof(s));
	} else {
		struct rds_info_socket s = {
			.sndbuf		= rds_sk_sndbuf(rs),
			.bound_addr	= rs->rs_bound.addr.s6_addr32[3],
			.connected_addr	= rs->rs_conn_addr.s6_addr32[3],
			.bound_port	= rs->rs_bound.port,
			.connected_port	= rs->rs_conn_port,
			.rcvbuf		= rds_sk_rcvbuf(rs),
			.inum		= sock_i_ino(sk),
		};

		rds_info_copy(iter, &s, sizeof(s));
	}
}

/* The IPv4 table lists the sockets bound to an IPv4 address only. */
static void rds_sock_info(struct socket *sock, struct rds_info_iterator *iter,
			  struct rds_info_lengths *lens, bool v6)
{
	struct rds_net *rn = rds_net(sock_net(sock->sk));
	unsigned int nr = 0;
	struct rds_sock *rs;

	spin_lock_bh(&rn->sock_lock);
	list_for_each_entry(rs, &rn->sock_list, rs_item) {
		if (!v6 && !ipv6_addr_v4mapped(&rs->rs_bound.addr))
			continue;
		rds_sock_info_item(iter, rs, v6);
		nr++;
	}
	spin_unlock_bh(&rn->sock_lock);

	lens->nr = nr;
	lens->each = v6 ? sizeof(struct rds6_info_socket) :
			  sizeof(struct rds_info_socket);
}

static void rds_sock_info4(struct socket *sock, unsigned int len,
			   struct rds_info_iterator *iter,
			   struct rds_info_lengths *lens)
{
	rds_sock_info(sock, iter, lens, false);
}

static void rds_sock_info6(struct socket *sock, unsigned int len,
			   struct rds_info_iterator *iter,
			   struct rds_info_lengths *lens)
{
	rds_sock_info(sock, iter, lens, true);
}

/* ---- RDS_INFO_SOCKET_DROPS --------------------------------------------- */

static void rds_sock_drops_info(struct socket *sock, unsigned int len,
				struct rds_info_iterator *iter,
				struct rds_info_lengths *lens)
{
	struct rds_net *rn = rds_net(sock_net(sock->sk));
	unsigned int nr = 0;
	struct rds_sock *rs;

	spin_lock_bh(&rn->sock_lock);
	list_for_each_entry(rs, &rn->sock_list, rs_item) {
		struct rds_info_socket_drops d = {
			.bound_addr	= rs->rs_bound.addr,
			.bound_port	= rs->rs_bound.port,
			.inum		= sock_i_ino(rds_rs_to_sk(rs)),
			.recv_rcvbuf	= READ_ONCE(rs->rs_drops_rcvbuf),
			.send_reset	= READ_ONCE(rs->rs_drops_send_reset),
			.send_purged	= READ_ONCE(rs->rs_drops_send_purged),
			.send_canceled	= READ_ONCE(rs->rs_drops_send_canceled),
		};

		rds_info_copy(iter, &d, sizeof(d));
		nr++;
	}
	spin_unlock_bh(&rn->sock_lock);

	lens->nr = nr;
	lens->each = sizeof(struct rds_info_socket_drops);
}

/* ---- module init and exit ---------------------------------------------- */

static void rds_parts_exit(void)
{
	rds_carrier_exit();
	rds_info_deregister_func(RDS_INFO_SOCKET_DROPS, rds_sock_drops_info);
	rds_info_deregister_func(RDS6_INFO_SOCKETS, rds_sock_info6);
	rds_info_deregister_func(RDS_INFO_SOCKETS, rds_sock_info4);
	rds_recv_exit();
	rds_send_exit();
	rds_stats_exit();
	rds_sysctl_exit();
	rds_cong_exit();
	rds_netns_exit();
	rds_conn_exit();
}

static int __init rds_init(void)
{
	int ret;

	ret = rds_conn_init();
	if (ret)
		return ret;
	ret = rds_netns_init();
	if (ret)
		goto out_conn;
	ret = rds_cong_init();
	if (ret)
		goto out_netns;
	ret = rds_sysctl_init();
	if (ret)
		goto out_cong;
	ret = rds_stats_init();
	if (ret)
		goto out_sysctl;
	ret = rds_send_init();
	if (ret)
		goto out_stats;
	ret = rds_recv_init();
	if (ret)
		goto out_send;
	rds_info_register_func(RDS_INFO_SOCKETS, rds_sock_info4);
	rds_info_register_func(RDS6_INFO_SOCKETS, rds_sock_info6);
	rds_info_register_func(RDS_INFO_SOCKET_DROPS, rds_sock_drops_info);
	rds_carrier_init();

	ret = proto_register(&rds_proto, 1);
	if (ret)
		goto out_parts;
	/* Last: from here on user space can create sockets. */
	ret = sock_register(&rds_family_ops);
	if (ret)
		goto out_proto;
	return 0;

out_proto:
	proto_unregister(&rds_proto);
out_parts:
	rds_parts_exit();
	return ret;
out_send:
	rds_send_exit();
out_stats:
	rds_stats_exit();
out_sysctl:
	rds_sysctl_exit();
out_cong:
	rds_cong_exit();
out_netns:
	rds_netns_exit();
out_conn:
	rds_conn_exit();
	return ret;
}
module_init(rds_init);

static void __exit rds_exit(void)
{
	/* No socket exists: each holds a reference on this module. */
	sock_unregister(AF_RDS);
	proto_unregister(&rds_proto);
	rds_parts_exit();
	/* After the connections: their control messages are freed by now. */
	rds_message_exit();
}
module_exit(rds_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("RDS: Reliable Datagram Sockets (out-of-tree)");
MODULE_VERSION(RDS_VERSION);
MODULE_AUTHOR("RDS developers <rds@localhost>");
/* No MODULE_ALIAS_NETPROTO(PF_RDS): socket(AF_RDS) by any user would load
 * us, and RDS has been a frequent target of local exploits.  Debian's
 * in-tree rds.ko has no such alias either; README says how to add one.
 */
