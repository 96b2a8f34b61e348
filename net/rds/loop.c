// SPDX-License-Identifier: GPL-2.0
/* The loopback transport.  A message to an address of our own netns is
 * delivered by handing its embedded struct rds_incoming, which shares the
 * message's pages, to the receive side; nothing is copied until recvmsg.
 * Delivery makes it acknowledged at once.
 */
#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <net/route.h>

#include "connection.h"
#include "loop.h"
#include "message.h"
#include "send.h"

bool rds_addr_is_local(struct net *net, const struct in6_addr *addr,
		       u32 scope_id)
{
	struct net_device *dev = NULL;
	bool local;

	if (ipv6_addr_v4mapped(addr)) {
		__be32 a = addr->s6_addr32[3];

		return ipv4_is_loopback(a) ||
		       inet_addr_type(net, a) == RTN_LOCAL;
	}
	if (ipv6_addr_loopback(addr))
		return true;
	if (!IS_ENABLED(CONFIG_IPV6))
		return false;
	rcu_read_lock();
	if (scope_id)
		dev = dev_get_by_index_rcu(net, scope_id);
	local = ipv6_chk_addr(net, addr, dev, 0);
	rcu_read_unlock();
	return local;
}

/* The receiver's side of a connection is the one from its address back to
 * ours: delivering on it makes the receiver's answers (pongs) go out on a
 * connection whose faddr is the sender.
 */
static struct rds_connection *rds_loop_peer(struct rds_connection *conn)
{
	return rds_conn_create(rds_conn_net(conn), &conn->c_faddr,
			       &conn->c_laddr, &rds_loop_transport,
			       conn->c_tos, GFP_KERNEL, conn->c_dev_if);
}

static int rds_loop_xmit(struct rds_conn_path *cp, struct rds_message *rm,
			 unsigned int *pos)
{
	struct rds_connection *conn = cp->cp_conn;
	u64 seq = be64_to_cpu(rm->m_inc.i_hdr.h_sequence);
	struct rds_connection *peer;

	*pos = rds_message_wire_len(rm);
	/* Both ends share the congestion maps: no update to deliver. */
	if (rm->m_inc.i_hdr.h_flags & RDS_FLAG_CONG_BITMAP)
		return 0;

	/* Without the peer (its netns is dying) the message is lost anyway. */
	peer = rds_loop_peer(conn);
	if (!IS_ERR(peer)) {
		rds_inc_init(&rm->m_inc, &peer->c_path[0], &conn->c_laddr);
		rds_message_addref(rm);		/* the incoming's, see inc_free */
		rds_recv_incoming(&peer->c_path[0], &conn->c_laddr,
				  &conn->c_faddr, &rm->m_inc, GFP_KERNEL, NULL);
		rds_inc_put(&rm->m_inc);
		rds_conn_put(peer);
	}
	rds_send_path_drop_acked(cp, seq, NULL);
	return 0;
}

static int rds_loop_inc_copy_to_user(struct rds_incoming *inc,
				     struct iov_iter *to)
{
	return rds_message_copy_to_user(container_of(inc, struct rds_message,
						     m_inc), to);
}

static void rds_loop_inc_free(struct rds_incoming *inc)
{
	rds_message_put(container_of(inc, struct rds_message, m_inc));
}

/* Nothing to set up: a loopback path is up as soon as it is asked to be. */
static int rds_loop_conn_path_connect(struct rds_carrier *ca)
{
	rds_connect_path_complete(ca->ca_cp, RDS_CONN_CONNECTING);
	return 0;
}

static void rds_loop_conn_path_shutdown(struct rds_carrier *ca)
{
}

static int rds_loop_laddr_check(struct net *net, const struct in6_addr *addr,
				u32 scope_id)
{
	return rds_addr_is_local(net, addr, scope_id) ? 0 : -EADDRNOTAVAIL;
}

/* Not registered: rds_trans_get_preferred() picks it for loopback
 * addresses, and rds_conn_create_outgoing() for local peers of transports
 * that prefer it.  It is part of rds.ko, so it pins no module.  No
 * carrier_alloc: a path homed elsewhere has a peer that is not in this
 * netns, so loopback can never carry it.
 */
struct rds_transport rds_loop_transport = {
	.t_name			= "loopback",
	.t_type			= RDS_TRANS_LOOP,
	.laddr_check		= rds_loop_laddr_check,
	.conn_path_connect	= rds_loop_conn_path_connect,
	.conn_path_shutdown	= rds_loop_conn_path_shutdown,
	.xmit			= rds_loop_xmit,
	.inc_copy_to_user	= rds_loop_inc_copy_to_user,
	.inc_free		= rds_loop_inc_free,
};
