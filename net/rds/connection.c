// SPDX-License-Identifier: GPL-2.0
/* Connections: the per-netns table of (laddr, faddr, tos, transport)
 * tuples, their lifetime, and the RDS_INFO tables that list them.
 */
#include <linux/jhash.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <net/ipv6.h>

#include "carrier.h"
#include "cong.h"
#include "connection.h"
#include "info.h"
#include "loop.h"
#include "netns.h"
#include "send.h"

static u32 rds_conn_hash_seed __read_mostly;

static struct hlist_head *rds_conn_bucket(struct rds_net *rn,
					  const struct in6_addr *laddr,
					  const struct in6_addr *faddr)
{
	u32 h = jhash2((const u32 *)laddr, 4, rds_conn_hash_seed);

	h = jhash2((const u32 *)faddr, 4, h);
	return &rn->conn_hash[hash_32(h, RDS_CONN_HASH_BITS)];
}

static bool rds_conn_match(const struct rds_connection *conn,
			   const struct in6_addr *laddr,
			   const struct in6_addr *faddr,
			   const struct rds_transport *trans, u8 tos, int dev_if,
			   bool passive)
{
	return ipv6_addr_equal(&conn->c_laddr, laddr) &&
	       ipv6_addr_equal(&conn->c_faddr, faddr) &&
	       conn->c_trans == trans && conn->c_tos == tos &&
	       conn->c_dev_if == dev_if && conn->c_passive == passive;
}

/* Under RCU or conn_lock; the result has no reference taken. */
static struct rds_connection *rds_conn_lookup(struct hlist_head *head,
					      const struct in6_addr *laddr,
					      const struct in6_addr *faddr,
					      const struct rds_transport *trans,
					      u8 tos, int dev_if, bool passive)
{
	struct rds_connection *conn;

	hlist_for_each_entry_rcu(conn, head, c_hash_node)
		if (rds_conn_match(conn, laddr, faddr, trans, tos, dev_if,
				   passive))
			return conn;
	return NULL;
}

/* A transport that does not hand local peers to the loopback transport
 * (IB) really connects a connection from an address to itself: its
 * connect comes back to its own listener as a request, and the accepted
 * end needs a path of its own, since the connecting path is busy being
 * the other end.  That accepted end is the connection's passive twin, a
 * second connection with the same tuple and c_passive set, which only
 * ever takes its twin's connects and never connects itself.
 */
static bool rds_conn_wants_twin(const struct in6_addr *laddr,
				const struct in6_addr *faddr,
				const struct rds_transport *trans)
{
	return trans != &rds_loop_transport && !trans->t_prefer_loopback &&
	       ipv6_addr_equal(laddr, faddr);
}

/* Link-local peers are told apart by interface; others have scope 0. */
static int rds_conn_dev_if(const struct in6_addr *faddr, int dev_if)
{
	return ipv6_addr_type(faddr) & IPV6_ADDR_LINKLOCAL ? dev_if : 0;
}

static struct rds_connection *__rds_conn_find(struct net *net,
					      const struct in6_addr *laddr,
					      const struct in6_addr *faddr,
					      struct rds_transport *trans,
					      u8 tos, int dev_if, bool passive)
{
	struct rds_net *rn = rds_net(net);
	struct rds_connection *conn;

	dev_if = rds_conn_dev_if(faddr, dev_if);
	rcu_read_lock();
	conn = rds_conn_lookup(rds_conn_bucket(rn, laddr, faddr), laddr, faddr,
			       trans, tos, dev_if, passive);
	if (conn && !kref_get_unless_zero(&conn->c_ref))
		conn = NULL;
	rcu_read_unlock();
	return conn;
}

/* The connection our sockets send on: never a passive twin. */
struct rds_connection *rds_conn_find(struct net *net,
				     const struct in6_addr *laddr,
				     const struct in6_addr *faddr,
				     struct rds_transport *trans, u8 tos,
				     int dev_if)
{
	return __rds_conn_find(net, laddr, faddr, trans, tos, dev_if, false);
}
EXPORT_SYMBOL_GPL(rds_conn_find);

static void rds_conn_path_init(struct rds_connection *conn,
			       struct rds_conn_path *cp, unsigned int index)
{
	cp->cp_conn = conn;
	cp->cp_index = index;
	atomic_set(&cp->cp_state, RDS_CONN_DOWN);
	spin_lock_init(&cp->cp_lock);
	spin_lock_init(&cp->cp_reset_lock);
	cp->cp_next_tx_seq = 1;
	INIT_LIST_HEAD(&cp->cp_send_queue);
	INIT_LIST_HEAD(&cp->cp_retrans);
	mutex_init(&cp->cp_cm_lock);
	init_waitqueue_head(&cp->cp_waitq);
	rds_carrier_init_home(cp);
	rds_conn_path_init_work(cp);
}

/* The memory goes after a grace period: lookups run under RCU only. */
static void rds_conn_free_rcu(struct rcu_head *head)
{
	struct rds_connection *conn = container_of(head, struct rds_connection,
						   c_rcu);

	rds_cong_map_put(conn->c_lcong);
	rds_cong_map_put(conn->c_fcong);
	kfree(conn->c_path);
	kfree(conn);
}

static void rds_conn_release(struct kref *kref)
{
	struct rds_connection *conn = container_of(kref, struct rds_connection,
						   c_ref);

	call_rcu(&conn->c_rcu, rds_conn_free_rcu);
}

void rds_conn_get(struct rds_connection *conn)
{
	kref_get(&conn->c_ref);
}
EXPORT_SYMBOL_GPL(rds_conn_get);

void rds_conn_put(struct rds_connection *conn)
{
	kref_put(&conn->c_ref, rds_conn_release);
}
EXPORT_SYMBOL_GPL(rds_conn_put);

static struct rds_connection *rds_conn_alloc(struct net *net,
					     const struct in6_addr *laddr,
					     const struct in6_addr *faddr,
					     struct rds_transport *trans,
					     u8 tos, gfp_t gfp, int dev_if)
{
	unsigned int npaths = trans->t_mp_capable ? RDS_MPATH_WORKERS : 1;
	struct rds_connection *conn;
	unsigned int i;

	conn = kzalloc(sizeof(*conn), gfp);
	if (!conn)
		return NULL;
	conn->c_path = kcalloc(npaths, sizeof(*conn->c_path), gfp);
	if (!conn->c_path)
		goto free_conn;
	kref_init(&conn->c_ref);
	write_pnet(&conn->c_net, net);
	conn->c_laddr = *laddr;
	conn->c_faddr = *faddr;
	conn->c_dev_if = dev_if;
	conn->c_tos = tos;
	conn->c_isv6 = !ipv6_addr_v4mapped(laddr);
	conn->c_loopback = trans == &rds_loop_transport;
	conn->c_version = RDS_PROTOCOL_VERSION;
	conn->c_trans = trans;
	/* Until the handshake says otherwise, a multipath peer has 0. */
	conn->c_npaths = trans->t_mp_capable ? 0 : 1;
	conn->c_my_gen_num = get_random_u32() | 1;
	init_waitqueue_head(&conn->c_hs_waitq);
	conn->c_path_count = npaths;
	for (i = 0; i < npaths; i++)
		rds_conn_path_init(conn, &conn->c_path[i], i);

	conn->c_lcong = rds_cong_map_get(net, laddr, gfp);
	if (!conn->c_lcong)
		goto free_paths;
	conn->c_fcong = rds_cong_map_get(net, faddr, gfp);
	if (!conn->c_fcong)
		goto put_lcong;
	if (trans->conn_alloc && trans->conn_alloc(conn, gfp))
		goto put_fcong;
	return conn;

put_fcong:
	rds_cong_map_put(conn->c_fcong);
put_lcong:
	rds_cong_map_put(conn->c_lcong);
free_paths:
	kfree(conn->c_path);
free_conn:
	kfree(conn);
	return NULL;
}

/* For a connection that never was in the table. */
static void rds_conn_free_unhashed(struct rds_connection *conn)
{
	if (conn->c_trans->conn_free)
		conn->c_trans->conn_free(conn);
	rds_cong_map_put(conn->c_fcong);
	rds_cong_map_put(conn->c_lcong);
	kfree(conn->c_path);
	kfree(conn);
}

static struct rds_connection *__rds_conn_create(struct net *net,
						const struct in6_addr *laddr,
						const struct in6_addr *faddr,
						struct rds_transport *trans,
						u8 tos, gfp_t gfp, int dev_if,
						bool passive)
{
	struct rds_net *rn = rds_net(net);
	struct rds_connection *conn, *found;
	struct hlist_head *head;
	unsigned long flags;

	dev_if = rds_conn_dev_if(faddr, dev_if);
	conn = __rds_conn_find(net, laddr, faddr, trans, tos, dev_if, passive);
	if (conn)
		return conn;

	conn = rds_conn_alloc(net, laddr, faddr, trans, tos, gfp, dev_if);
	if (!conn)
		return ERR_PTR(-ENOMEM);
	conn->c_passive = passive;

	/* Someone may have added the same tuple while we allocated. */
	head = rds_conn_bucket(rn, laddr, faddr);
	spin_lock_irqsave(&rn->conn_lock, flags);
	if (rn->exiting) {
		found = ERR_PTR(-ENETDOWN);
	} else {
		found = rds_conn_lookup(head, laddr, faddr, trans, tos, dev_if,
					passive);
		if (found)
			kref_get(&found->c_ref);
	}
	if (!found) {
		hlist_add_head_rcu(&conn->c_hash_node, head);
		rn->conn_count++;
		kref_get(&conn->c_ref);		/* the table's */
	}
	spin_unlock_irqrestore(&rn->conn_lock, flags);

	if (found) {
		rds_conn_free_unhashed(conn);
		return found;
	}
	return conn;
}

struct rds_connection *rds_conn_create(struct net *net,
				       const struct in6_addr *laddr,
				       const struct in6_addr *faddr,
				       struct rds_transport *trans, u8 tos,
				       gfp_t gfp, int dev_if)
{
	return __rds_conn_create(net, laddr, faddr, trans, tos, gfp, dev_if,
				 rds_conn_wants_twin(laddr, faddr, trans));
}
EXPORT_SYMBOL_GPL(rds_conn_create);

struct rds_connection *rds_conn_create_outgoing(struct net *net,
						const struct in6_addr *laddr,
						const struct in6_addr *faddr,
						struct rds_transport *trans,
						u8 tos, gfp_t gfp, int dev_if)
{
	if (trans != &rds_loop_transport && trans->t_prefer_loopback &&
	    rds_addr_is_local(net, faddr, dev_if))
		trans = &rds_loop_transport;
	if (trans->t_tos_blind)
		tos = 0;
	return __rds_conn_create(net, laddr, faddr, trans, tos, gfp, dev_if,
				 false);
}

/* Destroys run here, each connection's in a work item of its own. */
static struct workqueue_struct *rds_destroy_wq;

/* Shuts every path of a connection taken out of the table down and purges
 * its queues: afterwards no work of it runs, the transport has let go, and
 * every queued message has been completed to its socket.
 */
static void rds_conn_destroy_work(struct work_struct *work)
{
	struct rds_connection *conn = container_of(work, struct rds_connection,
						   c_destroy_w);
	unsigned int i;

	wake_up_all(&conn->c_hs_waitq);
	for (i = 0; i < conn->c_path_count; i++)
		rds_conn_path_destroy(&conn->c_path[i]);
	if (conn->c_trans->conn_free)
		conn->c_trans->conn_free(conn);
}

/* Destroys the connections of @net matching @trans (NULL: all), and drops
 * the table's references; the memory lives on until the last reference
 * (sockets cache one) is put.  Sleeps.  A destroy waits for a grace period
 * and for its paths' shutdown, which over IB is a disconnect and a drain:
 * one after the other, a netns of 200 RDS/IB connections took 14 s to
 * unload on the stock kernel and five minutes on the debug one.  So all of
 * them leave the table first, one grace period covers them all, and their
 * shutdowns run side by side, each in a work item of its own.  Returns
 * whether the pass found any.
 */
static bool rds_conn_destroy_pass(struct net *net, struct rds_transport *trans)
{
	struct rds_net *rn = rds_net(net);
	struct rds_connection *conn, *tmp;
	struct hlist_node *next;
	unsigned long flags;
	LIST_HEAD(dying);
	unsigned int i;

	/* The table's reference moves to @dying. */
	spin_lock_irqsave(&rn->conn_lock, flags);
	for (i = 0; i < ARRAY_SIZE(rn->conn_hash); i++) {
		hlist_for_each_entry_safe(conn, next, &rn->conn_hash[i],
					  c_hash_node) {
			if (trans && conn->c_trans != trans)
				continue;
			WRITE_ONCE(conn->c_destroying, true);
			hlist_del_init_rcu(&conn->c_hash_node);
			rn->conn_count--;
			list_add_tail(&conn->c_dying_item, &dying);
		}
	}
	spin_unlock_irqrestore(&rn->conn_lock, flags);
	if (list_empty(&dying))
		return false;

	list_for_each_entry(conn, &dying, c_dying_item)
		for (i = 0; i < conn->c_path_count; i++)
			set_bit(RDS_DESTROY_PENDING,
				&conn->c_path[i].cp_flags);
	/* Whoever queues work tests the flag under RCU: wait them out. */
	synchronize_rcu();

	list_for_each_entry(conn, &dying, c_dying_item) {
		INIT_WORK(&conn->c_destroy_w, rds_conn_destroy_work);
		queue_work(rds_destroy_wq, &conn->c_destroy_w);
	}
	list_for_each_entry_safe(conn, tmp, &dying, c_dying_item) {
		flush_work(&conn->c_destroy_w);
		list_del(&conn->c_dying_item);
		rds_conn_put(conn);
	}
	return true;
}

/* A connection can be made while a pass runs (a peer's request accepted
 * during a transport's unload): pass again until one finds nothing.
 */
static void rds_conn_destroy_net(struct net *net, struct rds_transport *trans)
{
	while (rds_conn_destroy_pass(net, trans))
		cond_resched();
}

void rds_conn_destroy_all(struct net *net, struct rds_transport *trans)
{
	if (net) {
		rds_conn_destroy_net(net, trans);
		return;
	}
	down_read(&net_rwsem);
	for_each_net(net)
		rds_conn_destroy_net(net, trans);
	up_read(&net_rwsem);
}
EXPORT_SYMBOL_GPL(rds_conn_destroy_all);

/* Takes a reference on every connection of @net (matching @trans) so that
 * @fn may sleep.  The array is sized from conn_count, rechecked under the
 * lock.
 */
typedef void (*rds_conn_fn)(struct rds_connection *conn, void *arg);

static void rds_conn_visit_net(struct net *net, struct rds_transport *trans,
			       rds_conn_fn fn, void *arg)
{
	struct rds_net *rn = rds_net(net);
	struct rds_connection **conns, *conn;
	unsigned int n, nr = 0, i;
	unsigned long flags;

again:
	n = READ_ONCE(rn->conn_count) + 8;
	conns = kvmalloc_array(n, sizeof(*conns), GFP_KERNEL);
	if (!conns)
		return;
	spin_lock_irqsave(&rn->conn_lock, flags);
	if (rn->conn_count > n) {
		spin_unlock_irqrestore(&rn->conn_lock, flags);
		kvfree(conns);
		goto again;
	}
	for (i = 0; i < ARRAY_SIZE(rn->conn_hash); i++)
		hlist_for_each_entry(conn, &rn->conn_hash[i], c_hash_node)
			if (!trans || conn->c_trans == trans) {
				kref_get(&conn->c_ref);
				conns[nr++] = conn;
			}
	spin_unlock_irqrestore(&rn->conn_lock, flags);

	/* Our reference keeps the connection, not what its destroy frees
	 * (paths' and transport data): skip one whose destroy has begun.  A
	 * destroy that begins during @fn is the transport's to exclude.
	 */
	for (i = 0; i < nr; i++) {
		if (!READ_ONCE(conns[i]->c_destroying))
			fn(conns[i], arg);
		rds_conn_put(conns[i]);
	}
	kvfree(conns);
}

void rds_conn_for_each(struct net *net, struct rds_transport *trans,
		       void (*fn)(struct rds_connection *conn, void *arg),
		       void *arg)
{
	if (net) {
		rds_conn_visit_net(net, trans, fn, arg);
		return;
	}
	down_read(&net_rwsem);
	for_each_net(net)
		rds_conn_visit_net(net, trans, fn, arg);
	up_read(&net_rwsem);
}
EXPORT_SYMBOL_GPL(rds_conn_for_each);

void rds_conn_visit_rcu(struct net *net, rds_conn_fn fn, void *arg)
{
	struct rds_net *rn = rds_net(net);
	struct rds_connection *conn;
	unsigned int i;

	rcu_read_lock();
	for (i = 0; i < ARRAY_SIZE(rn->conn_hash); i++)
		hlist_for_each_entry_rcu(conn, &rn->conn_hash[i], c_hash_node)
			fn(conn, arg);
	rcu_read_unlock();
}

void rds_conn_reset(struct rds_connection *conn)
{
	unsigned int i;

	for (i = 0; i < conn->c_path_count; i++)
		rds_conn_path_error(&conn->c_path[i], "connection reset");
}
EXPORT_SYMBOL_GPL(rds_conn_reset);

/* No new connection may appear in a dying netns (rds_conn_create checks
 * exiting under conn_lock), then all are destroyed.  The final puts free
 * the memory and the congestion maps from RCU callbacks, which use this
 * netns' rds_net: they must have run before it is freed.
 */
void rds_conn_net_exit(struct net *net)
{
	struct rds_net *rn = rds_net(net);
	unsigned long flags;

	spin_lock_irqsave(&rn->conn_lock, flags);
	rn->exiting = true;
	spin_unlock_irqrestore(&rn->conn_lock, flags);
	rds_conn_destroy_net(net, NULL);
	rcu_barrier();
	WARN_ON(rn->conn_count);
}

/* ---- RDS_INFO tables -------------------------------------------------- */

static u8 rds_conn_info_flags(struct rds_connection *conn)
{
	struct rds_conn_path *cp0 = &conn->c_path[0];
	unsigned int i;
	u8 flags = 0;

	if (test_bit(RDS_IN_XMIT, &cp0->cp_flags))
		flags |= RDS_INFO_CONNECTION_FLAG_SENDING;
	if (rds_conn_path_state(cp0) == RDS_CONN_CONNECTING)
		flags |= RDS_INFO_CONNECTION_FLAG_CONNECTING;
	for (i = 0; i < conn->c_path_count; i++)
		if (rds_conn_path_up(&conn->c_path[i]))
			flags |= RDS_INFO_CONNECTION_FLAG_CONNECTED;
	return flags;
}

static void rds_conn_info_fill(struct rds_info_connection *ic,
			       struct rds_connection *conn,
			       struct rds_conn_path *cp, u8 flags)
{
	memset(ic, 0, sizeof(*ic));
	ic->next_tx_seq = cp->cp_next_tx_seq;
	ic->next_rx_seq = cp->cp_next_rx_seq;
	ic->laddr = conn->c_laddr.s6_addr32[3];
	ic->faddr = conn->c_faddr.s6_addr32[3];
	strscpy(ic->transport, conn->c_trans->t_name, sizeof(ic->transport));
	ic->flags = flags;
	ic->tos = conn->c_tos;
}

struct rds_conn_info_walk {
	struct rds_info_iterator	*iter;
	unsigned int			avail;	/* bytes left in the buffer */
	unsigned int			nr;	/* items seen, copied or not */
	unsigned int			each;
	bool				v6;	/* every conn, else v4 only */
	bool				per_path;
};

static void rds_conn_info_put(struct rds_conn_info_walk *w, const void *item)
{
	if (w->avail >= w->each) {
		rds_info_copy(w->iter, item, w->each);
		w->avail -= w->each;
	}
	w->nr++;
}

static void rds_conn_info_one(struct rds_connection *conn, void *arg)
{
	struct rds_conn_info_walk *w = arg;
	struct rds_conn_path *cp0 = &conn->c_path[0];
	u8 flags = rds_conn_info_flags(conn);
	struct rds6_info_connection ic6;
	struct rds_info_connection ic;
	unsigned int i;

	if (!w->v6 && conn->c_isv6)
		return;
	/* In-tree lists a connection to our own address once. */
	if (conn->c_passive)
		return;
	if (w->per_path) {
		for (i = 0; i < conn->c_path_count; i++) {
			struct rds_conn_path *cp = &conn->c_path[i];

			rds_conn_info_fill(&ic, conn, cp,
					   rds_conn_path_up(cp) ?
					   RDS_INFO_CONNECTION_FLAG_CONNECTED : 0);
			rds_conn_info_put(w, &ic);
		}
	} else if (!w->v6) {
		rds_conn_info_fill(&ic, conn, cp0, flags);
		rds_conn_info_put(w, &ic);
	} else {
		memset(&ic6, 0, sizeof(ic6));
		ic6.next_tx_seq = cp0->cp_next_tx_seq;
		ic6.next_rx_seq = cp0->cp_next_rx_seq;
		ic6.laddr = conn->c_laddr;
		ic6.faddr = conn->c_faddr;
		strscpy(ic6.transport, conn->c_trans->t_name,
			sizeof(ic6.transport));
		ic6.flags = flags;
		rds_conn_info_put(w, &ic6);
	}
}

static void rds_conn_info_walk(struct socket *sock, unsigned int len,
			       struct rds_info_iterator *iter,
			       struct rds_info_lengths *lens,
			       struct rds_conn_info_walk *w)
{
	w->iter = iter;
	w->avail = len;
	w->nr = 0;
	rds_conn_visit_rcu(sock_net(sock->sk), rds_conn_info_one, w);
	lens->nr = w->nr;
	lens->each = w->each;
}

static void rds_conn_info(struct socket *sock, unsigned int len,
			  struct rds_info_iterator *iter,
			  struct rds_info_lengths *lens)
{
	struct rds_conn_info_walk w = {
		.each = sizeof(struct rds_info_connection),
	};

	rds_conn_info_walk(sock, len, iter, lens, &w);
}

static void rds6_conn_info(struct socket *sock, unsigned int len,
			   struct rds_info_iterator *iter,
			   struct rds_info_lengths *lens)
{
	struct rds_conn_info_walk w = {
		.each = sizeof(struct rds6_info_connection),
		.v6 = true,
	};

	rds_conn_info_walk(sock, len, iter, lens, &w);
}

/* One struct rds_info_connection per path of each IPv4 connection. */
static void rds_conn_stats_info(struct socket *sock, unsigned int len,
				struct rds_info_iterator *iter,
				struct rds_info_lengths *lens)
{
	struct rds_conn_info_walk w = {
		.each = sizeof(struct rds_info_connection),
		.per_path = true,
	};

	rds_conn_info_walk(sock, len, iter, lens, &w);
}

/* The user ABI's numbers for the states, which ours need not keep. */
static const u8 rds_info_path_states[] = {
	[RDS_CONN_DOWN]			= RDS_INFO_PATH_DOWN,
	[RDS_CONN_CONNECTING]		= RDS_INFO_PATH_CONNECTING,
	[RDS_CONN_DISCONNECTING]	= RDS_INFO_PATH_DISCONNECTING,
	[RDS_CONN_UP]			= RDS_INFO_PATH_UP,
	[RDS_CONN_ERROR]		= RDS_INFO_PATH_ERROR,
};

/* RDS_INFO_PATHS: every path of every connection, both address families,
 * with its record of resets.
 */
static void rds_path_info_one(struct rds_connection *conn, void *arg)
{
	struct rds_conn_info_walk *w = arg;
	struct rds_info_path ip;
	unsigned long flags;
	unsigned int i;

	if (conn->c_passive)
		return;
	for (i = 0; i < conn->c_path_count; i++) {
		struct rds_conn_path *cp = &conn->c_path[i];

		memset(&ip, 0, sizeof(ip));
		ip.laddr = conn->c_laddr;
		ip.faddr = conn->c_faddr;
		strscpy(ip.transport, conn->c_trans->t_name,
			sizeof(ip.transport));
		ip.tos = conn->c_tos;
		ip.index = cp->cp_index;
		ip.state = rds_info_path_states[rds_conn_path_state(cp)];
		ip.next_tx_seq = READ_ONCE(cp->cp_next_tx_seq);
		ip.next_rx_seq = READ_ONCE(cp->cp_next_rx_seq);
		ip.connect_attempts = READ_ONCE(cp->cp_conn_attempts);
		spin_lock_irqsave(&cp->cp_reset_lock, flags);
		ip.resets = cp->cp_resets;
		ip.last_reset_time = cp->cp_reset_time;
		memcpy(ip.last_reset_reason, cp->cp_reset_why,
		       sizeof(ip.last_reset_reason));
		ip.connect_failures = cp->cp_connect_failures;
		memcpy(ip.last_connect_error, cp->cp_connect_why,
		       sizeof(ip.last_connect_error));
		spin_unlock_irqrestore(&cp->cp_reset_lock, flags);
		rds_conn_info_put(w, &ip);
	}
}

static void rds_path_info(struct socket *sock, unsigned int len,
			  struct rds_info_iterator *iter,
			  struct rds_info_lengths *lens)
{
	struct rds_conn_info_walk w = {
		.iter = iter,
		.avail = len,
		.each = sizeof(struct rds_info_path),
	};

	rds_conn_visit_rcu(sock_net(sock->sk), rds_path_info_one, &w);
	lens->nr = w.nr;
	lens->each = w.each;
}

int rds_conn_init(void)
{
	rds_conn_hash_seed = get_random_u32();
	rds_wq = alloc_workqueue("krdsd", WQ_MEM_RECLAIM, 0);
	if (!rds_wq)
		return -ENOMEM;
	rds_destroy_wq = alloc_workqueue("krds_destroy", WQ_UNBOUND, 0);
	if (!rds_destroy_wq) {
		destroy_workqueue(rds_wq);
		rds_wq = NULL;
		return -ENOMEM;
	}
	rds_info_register_func(RDS_INFO_CONNECTIONS, rds_conn_info);
	rds_info_register_func(RDS6_INFO_CONNECTIONS, rds6_conn_info);
	rds_info_register_func(RDS_INFO_CONNECTION_STATS, rds_conn_stats_info);
	rds_info_register_func(RDS_INFO_PATHS, rds_path_info);
	return 0;
}

/* Every netns is gone (the pernet ops are unregistered) and so is every connection. */
void rds_conn_exit(void)
{
	rds_info_deregister_func(RDS_INFO_CONNECTIONS, rds_conn_info);
	rds_info_deregister_func(RDS6_INFO_CONNECTIONS, rds6_conn_info);
	rds_info_deregister_func(RDS_INFO_CONNECTION_STATS, rds_conn_stats_info);
	rds_info_deregister_func(RDS_INFO_PATHS, rds_path_info);
	rcu_barrier();
	destroy_workqueue(rds_destroy_wq);
	rds_destroy_wq = NULL;
	destroy_workqueue(rds_wq);
	rds_wq = NULL;
}
