/* SPDX-License-Identifier: GPL-2.0 */
/* The RDS socket: what one AF_RDS socket owns, and the bind table that maps
 * (address, port, scope) to it.
 */
#ifndef _RDS_SOCKET_H
#define _RDS_SOCKET_H

#include <linux/hashtable.h>
#include <linux/rhashtable-types.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <rds/transport.h>

struct rds_cong_map;

/* The bind table key: one socket per (address, port, scope id).  The table
 * hashes and compares the first RDS_BIND_KEY_LEN bytes, so the fields are
 * ordered to leave no padding inside them.
 */
struct rds_bind_key {
	struct in6_addr	addr;
	u32		scope_id;	/* IPv6 link-local only, else 0 */
	__be16		port;
};

#define RDS_BIND_KEY_LEN	offsetofend(struct rds_bind_key, port)

/* Lifetime: the struct sock refcount.  The bind table and the per-netns
 * socket list hold no reference: a socket leaves both in rds_release()
 * before its last reference can go, and lookups in the bind table run under
 * RCU and take one with refcount_inc_not_zero() (sock is SOCK_RCU_FREE).
 *
 * Locks:
 *  - lock_sock() serializes bind, connect, setsockopt and SO_RDS_TRANSPORT.
 *  - rs_lock (spinlock, taken with IRQs off: acks complete messages from
 *    any context) protects rs_send_queue, rs_snd_bytes, the per-destination
 *    accounting (rs_dests, rs_dest_spare, rs_pollout_dest, rs_sent_gen,
 *    rs_budget_refused, rs_want_room: see net/rds/sndbuf.c), rs_conn,
 *    rs_tos, rs_cong_mask, rs_cong_notify and the send side's drop
 *    counters (rs_drops_send_*).  Ordering:
 *    cp_lock may be taken inside rs_lock, never the other way around.
 *  - rs_recv_lock (spinlock, taken with IRQs off since transports may
 *    deliver from any context) protects rs_recv_queue, rs_rcv_bytes,
 *    rs_rcv_mem, rs_congested, rs_cong_map, rs_drops_rcvbuf,
 *    rs_zcopy_queue (the completions of MSG_ZEROCOPY sends, reported by
 *    recvmsg) and rs_notify_queue (the statuses of RDMA operations, struct
 *    rds_rdma_notifier, reported by recvmsg as RDS_CMSG_RDMA_STATUS).  The
 *    bind table lookup that precedes queueing runs under RCU; SOCK_DEAD, set
 *    by release before it empties the queues, is tested under
 *    rs_recv_lock so nothing is queued after that.
 *  - rs_bound is written under lock_sock() before the socket enters the
 *    bind table and cleared after it left.
 *  - rs_transport holds a reference on t_owner, taken at bind or
 *    SO_RDS_TRANSPORT and dropped at release.
 *  - rs_conn holds a c_ref reference (a cache of the last destination).
 *  - rs_cong_map holds an m_ref reference on the map in which our port is
 *    marked congested, from marking until the bit is cleared.
 *  - rs_mr_lock (spinlock, a leaf, taken with IRQs off: a peer's
 *    RDS_EXTHDR_RDMA releases use-once regions from softirq) protects
 *    rs_mr_tree, the socket's memory regions by key, each holding a
 *    reference on its struct rds_mr (see net/rds/rdma.c), and
 *    rs_mr_count, the regions in the tree and those being registered,
 *    held under net.rds.max_mrs_per_socket.  Registering and freeing
 *    also hold lock_sock(); release empties the tree.
 */
struct rds_sock {
	struct sock		rs_sk;		/* must be first */

	struct rhash_head	rs_bound_node;
	struct rds_bind_key	rs_bound;	/* addr any: not bound */
	struct in6_addr		rs_conn_addr;	/* connect() destination */
	__be16			rs_conn_port;
	u32			rs_conn_scope_id; /* link-local rs_conn_addr */
	struct rds_transport	*rs_transport;
	struct rds_connection	*rs_conn;

	spinlock_t		rs_lock;	/* send side, see above */
	struct list_head	rs_send_queue;
	u64			rs_snd_bytes;	/* queued, all destinations */
	DECLARE_HASHTABLE(rs_dests, 4);	/* struct rds_sndbuf_dest */
	struct rds_sndbuf_dest	*rs_dest_spare;	/* unhashed, for the next */
	struct rds_sndbuf_dest	*rs_pollout_dest; /* POLLOUT follows it */
	u32			rs_sent_gen;	/* sends that succeeded */
	bool			rs_budget_refused; /* at the whole budget */
	bool			rs_want_room;	/* POLLOUT seen off: wake */
	bool			rs_seen_congestion; /* refused: ENOBUFS */

	/* Messages of ours not delivered, by reason (RDS_INFO_SOCKET_DROPS):
	 * an RDMA operation gone out before a reset, queued when the
	 * connection was destroyed, taken back by RDS_CANCEL_SENT_TO.
	 * Written under rs_lock, read without it.
	 */
	u64			rs_drops_send_reset;
	u64			rs_drops_send_purged;
	u64			rs_drops_send_canceled;

	bool			rs_cong_monitor;
	u64			rs_cong_mask;	/* ports we were refused on */
	u64			rs_cong_notify;	/* of those, now uncongested */
	struct list_head	rs_cong_item;	/* rds_cong monitor list */
	struct list_head	rs_cong_refused_item; /* rds_cong refused list */
	unsigned long		rs_cong_track;	/* rds_cong_generation seen */

	spinlock_t		rs_recv_lock;	/* receive side, see above */
	struct list_head	rs_recv_queue;
	u64			rs_rcv_bytes;	/* queued payload */
	u64			rs_rcv_mem;	/* queued memory, see recv.c */
	bool			rs_congested;	/* our port marked in the map */
	struct rds_cong_map	*rs_cong_map;	/* ...this one, while marked */
	struct list_head	rs_zcopy_queue;	/* struct rds_zcopy, sent */
	struct list_head	rs_notify_queue; /* struct rds_rdma_notifier */
	u64			rs_drops_rcvbuf; /* received, no room: dropped */

	bool			rs_recverr;
	u8			rs_tos;
	u8			rs_rx_traces;
	u8			rs_rx_trace[RDS_MSG_RX_DGRAM_TRACE_MAX];

	spinlock_t		rs_mr_lock;	/* rs_mr_tree, see above */
	struct rb_root		rs_mr_tree;	/* struct rds_mr by r_key */
	unsigned int		rs_mr_count;	/* rs_mr_tree and on the way */

	struct list_head	rs_item;	/* rds_net sock_list */
};

static inline struct rds_sock *rds_sk_to_rs(const struct sock *sk)
{
	return container_of(sk, struct rds_sock, rs_sk);
}

static inline struct sock *rds_rs_to_sk(struct rds_sock *rs)
{
	return &rs->rs_sk;
}

/* SO_SNDBUF and SO_RCVBUF count queued payload bytes; the core doubles them. */
static inline u32 rds_sk_sndbuf(struct rds_sock *rs)
{
	return rds_rs_to_sk(rs)->sk_sndbuf / 2;
}

static inline u32 rds_sk_rcvbuf(struct rds_sock *rs)
{
	return rds_rs_to_sk(rs)->sk_rcvbuf / 2;
}

static inline bool rds_sock_bound(const struct rds_sock *rs)
{
	return !ipv6_addr_any(&rs->rs_bound.addr);
}

/* bind.c */
int rds_bind(struct socket *sock, struct sockaddr *uaddr, int addr_len);
void rds_remove_bound(struct rds_sock *rs);
/* Returns the socket bound there with a reference held, or NULL. */
struct rds_sock *rds_find_bound(struct net *net, const struct in6_addr *addr,
				__be16 port, u32 scope_id);
int rds_bind_net_init(struct net *net);
void rds_bind_net_exit(struct net *net);

/* af_rds.c: wake writers, readers and the pollers of @rs that wait for one
 * of @events (0: every poller).
 */
void rds_wake_sk_sleep(struct rds_sock *rs, __poll_t events);
/* The events of a wakeup for send room (POLLOUT, see sndbuf.c). */
#define RDS_POLL_ROOM	(EPOLLOUT | EPOLLWRNORM)

/* sockopt.c */
int rds_setsockopt(struct socket *sock, int level, int optname,
		   sockptr_t optval, unsigned int optlen);
int rds_getsockopt(struct socket *sock, int level, int optname,
		   char __user *optval, int __user *optlen);

#endif /* _RDS_SOCKET_H */
