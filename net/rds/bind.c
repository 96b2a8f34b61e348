// SPDX-License-Identifier: GPL-2.0
/* bind(2) and the per-netns bind table: (address, port, scope id) -> the
 * one socket bound there.  Receivers look sockets up from any context under
 * RCU, which is why the table is an rhashtable and sockets are RCU-freed.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/ipv6.h>
#include <linux/random.h>
#include <linux/rhashtable.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "socket.h"
#include "netns.h"
#include "transports.h"

static const struct rhashtable_params rds_bind_params = {
	.key_len		= RDS_BIND_KEY_LEN,
	.key_offset		= offsetof(struct rds_sock, rs_bound),
	.head_offset		= offsetof(struct rds_sock, rs_bound_node),
	.automatic_shrinking	= true,
};

static void rds_bind_key_set(struct rds_bind_key *key,
			     const struct in6_addr *addr, __be16 port,
			     u32 scope_id)
{
	memset(key, 0, sizeof(*key));
	key->addr = *addr;
	key->port = port;
	key->scope_id = scope_id;
}

struct rds_sock *rds_find_bound(struct net *net, const struct in6_addr *addr,
				__be16 port, u32 scope_id)
{
	struct rds_net *rn = rds_net(net);
	struct rds_bind_key key;
	struct rds_sock *rs;

	rds_bind_key_set(&key, addr, port, scope_id);
	rcu_read_lock();
	rs = rhashtable_lookup(&rn->bind_table, &key, rds_bind_params);
	/* A socket being released may still be in the table: skip it. */
	if (rs && (sock_flag(rds_rs_to_sk(rs), SOCK_DEAD) ||
		   !refcount_inc_not_zero(&rds_rs_to_sk(rs)->sk_refcnt)))
		rs = NULL;
	rcu_read_unlock();
	return rs;
}

static int rds_insert_bound(struct rds_net *rn, struct rds_sock *rs,
			    const struct in6_addr *addr, __be16 port,
			    u32 scope_id)
{
	int ret;

	/* The table reads the key from the socket, so it goes there first. */
	rds_bind_key_set(&rs->rs_bound, addr, port, scope_id);
	ret = rhashtable_lookup_insert_fast(&rn->bind_table, &rs->rs_bound_node,
					    rds_bind_params);
	if (ret)
		memset(&rs->rs_bound, 0, sizeof(rs->rs_bound));
	return ret;
}

/* Port 0 asks for any free port: try them all from a random start so that
 * concurrent binds spread out.  Port 0 is the ping port and port 1 the
 * handshake port; neither is ever handed out, and asking for port 1 is
 * refused as in-tree RDS does: a socket there could forge handshake
 * probes that change the path count of every socket's connection.
 */
static int rds_add_bound(struct rds_net *rn, struct rds_sock *rs,
			 const struct in6_addr *addr, __be16 port,
			 u32 scope_id)
{
	u32 start, i, p;
	int ret;

	if (port == htons(RDS_FLAG_PROBE_PORT))
		return -EINVAL;
	if (port) {
		ret = rds_insert_bound(rn, rs, addr, port, scope_id);
		return ret == -EEXIST ? -EADDRINUSE : ret;
	}

	start = get_random_u32_below(65535);
	for (i = 0; i < 65535; i++) {
		p = (start + i) % 65535 + 1;
		if (p == RDS_FLAG_PROBE_PORT)
			continue;
		ret = rds_insert_bound(rn, rs, addr, htons(p), scope_id);
		if (ret != -EEXIST)
			return ret;
	}
	return -EADDRINUSE;
}

static bool rds_ipv4_bindable(__be32 addr)
{
	return addr != htonl(INADDR_ANY) && addr != htonl(INADDR_BROADCAST) &&
	       !ipv4_is_multicast(addr);
}

/* The address to bind to, as IPv6 (IPv4 becomes v4-mapped), or -EINVAL. */
static int rds_bind_parse(const struct sockaddr *uaddr, int addr_len,
			  struct in6_addr *addr, __be16 *port, u32 *scope_id)
{
	const struct sockaddr_in6 *sin6;
	const struct sockaddr_in *sin;
	int type;

	if (addr_len < (int)sizeof(struct sockaddr_in))
		return -EINVAL;
	*scope_id = 0;

	switch (uaddr->sa_family) {
	case AF_INET:
		sin = (const struct sockaddr_in *)uaddr;
		if (!rds_ipv4_bindable(sin->sin_addr.s_addr))
			return -EINVAL;
		ipv6_addr_set_v4mapped(sin->sin_addr.s_addr, addr);
		*port = sin->sin_port;
		return 0;
	case AF_INET6:
		if (addr_len < (int)sizeof(struct sockaddr_in6))
			return -EINVAL;
		sin6 = (const struct sockaddr_in6 *)uaddr;
		type = ipv6_addr_type(&sin6->sin6_addr);
		if (!(type & IPV6_ADDR_UNICAST)) {
			if (!(type & IPV6_ADDR_MAPPED) ||
			    !rds_ipv4_bindable(sin6->sin6_addr.s6_addr32[3]))
				return -EINVAL;
		}
		/* A link-local address means nothing without its interface. */
		if (type & IPV6_ADDR_LINKLOCAL) {
			if (!sin6->sin6_scope_id)
				return -EINVAL;
			*scope_id = sin6->sin6_scope_id;
		}
		*addr = sin6->sin6_addr;
		*port = sin6->sin6_port;
		return 0;
	default:
		return -EINVAL;
	}
}

/* The transport a bind to @addr uses, with a module reference when it is
 * not the one SO_RDS_TRANSPORT already set (*@fresh then says so).
 */
static int rds_bind_transport(struct net *net, struct rds_sock *rs,
			      const struct in6_addr *addr, u32 scope_id,
			      struct rds_transport **trans, bool *fresh)
{
	*fresh = false;
	if (rs->rs_transport) {
		if (rs->rs_transport->laddr_check(net, addr, scope_id))
			return -ENOPROTOOPT;
		*trans = rs->rs_transport;
		return 0;
	}
	*trans = rds_trans_get_preferred(net, addr, scope_id);
	if (!*trans)
		return -EADDRNOTAVAIL;
	*fresh = true;
	return 0;
}

int rds_bind(struct socket *sock, struct sockaddr *uaddr, int addr_len)
{
	struct sock *sk = sock->sk;
	struct rds_sock *rs = rds_sk_to_rs(sk);
	struct net *net = sock_net(sk);
	struct rds_transport *trans;
	struct in6_addr addr;
	u32 scope_id;
	__be16 port;
	bool fresh;
	int ret;

	ret = rds_bind_parse(uaddr, addr_len, &addr, &port, &scope_id);
	if (ret)
		return ret;

	lock_sock(sk);
	if (rds_sock_bound(rs)) {
		ret = -EINVAL;
		goto out_unlock;
	}
	ret = rds_bind_transport(net, rs, &addr, scope_id, &trans, &fresh);
	if (ret)
		goto out_unlock;
	ret = rds_add_bound(rds_net(net), rs, &addr, port, scope_id);
	if (ret)
		goto out_put_trans;
	rs->rs_transport = trans;
	if (trans->sock_bound)
		trans->sock_bound(net);
	release_sock(sk);
	return 0;

out_put_trans:
	if (fresh)
		rds_trans_put(trans);
out_unlock:
	release_sock(sk);
	return ret;
}

/* Release: after this no receiver can find @rs. */
void rds_remove_bound(struct rds_sock *rs)
{
	struct rds_net *rn = rds_net(sock_net(rds_rs_to_sk(rs)));

	if (!rds_sock_bound(rs))
		return;
	rhashtable_remove_fast(&rn->bind_table, &rs->rs_bound_node,
			       rds_bind_params);
	/* rs_bound keeps its value: the socket is going away, and a sender
	 * or an info table still looking at it sees a consistent address.
	 */
}

int rds_bind_net_init(struct net *net)
{
	return rhashtable_init(&rds_net(net)->bind_table, &rds_bind_params);
}

void rds_bind_net_exit(struct net *net)
{
	/* Every socket left the table on release; sockets pin the netns. */
	rhashtable_destroy(&rds_net(net)->bind_table);
}
