/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RDS transport interface: everything rds_tcp.ko and rds_rdma.ko may use
 * from rds.ko, and everything rds.ko expects of them.
 *
 * The generic layer owns sockets, connections, paths, sequence numbers,
 * retransmission and congestion.  A transport owns one thing: moving the wire
 * image of a message (struct rds_header + payload) over one path to the peer,
 * and handing complete incoming messages back.  It is driven from the path's
 * work items on rds_wq, through the transport of the path's carrier
 * (t = cp->cp_carrier->ca_trans, see struct rds_carrier):
 *
 *   cp_conn_w  -> t->conn_path_connect()    path is CONNECTING
 *   cp_send_w  -> t->xmit()                 path is UP
 *   cp_recv_w  -> t->recv_path()            path is UP
 *   cp_down_w  -> t->conn_path_shutdown()   path is DISCONNECTING
 *
 * and reports back with rds_connect_path_complete(), rds_conn_path_error(),
 * rds_send_path_drop_acked() and rds_recv_incoming().
 *
 * Path state machine (cp_state, changed only with rds_conn_path_transition()):
 *
 *   DOWN --connect work--> CONNECTING --rds_connect_path_complete()--> UP
 *   CONNECTING/UP --rds_conn_path_error()--> ERROR --down work--> DISCONNECTING
 *   DISCONNECTING --t->conn_path_shutdown() returned--> DOWN
 *   DOWN --(backoff delay, if anything is queued or we are the initiator)--> CONNECTING
 *   (never for a passive twin, see rds_conn_create(): its twin connects it)
 *
 * Unacknowledged messages survive every trip through that loop: on the way
 * back UP they are sent again, flagged RDS_FLAG_RETRANSMITTED, and the
 * receiver drops the ones it already has by sequence number.
 */
#ifndef _RDS_TRANSPORT_H
#define _RDS_TRANSPORT_H

#include <linux/types.h>
#include <linux/dma-direction.h>
#include <linux/in6.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/refcount.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/uio.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/rds.h>
#include <net/net_namespace.h>

/* ---- Wire format (identical to in-tree RDS) ---------------------------- */

#define RDS_PROTOCOL_3_0	0x0300
#define RDS_PROTOCOL_3_1	0x0301
#define RDS_PROTOCOL_4_0	0x0400
#define RDS_PROTOCOL_4_1	0x0401
#define RDS_PROTOCOL_VERSION	RDS_PROTOCOL_3_1
#define RDS_PROTOCOL_MAJOR(v)	((v) >> 8)
#define RDS_PROTOCOL_MINOR(v)	((v) & 255)
#define RDS_PROTOCOL(maj, min)	(((maj) << 8) | (min))

#define RDS_HEADER_EXT_SPACE	16

/* Every message on the wire starts with these 48 bytes, all big endian. */
struct rds_header {
	__be64	h_sequence;
	__be64	h_ack;
	__be32	h_len;		/* payload bytes that follow the header */
	__be16	h_sport;
	__be16	h_dport;
	u8	h_flags;
	u8	h_credit;
	u8	h_padding[4];
	__sum16	h_csum;		/* ip_fast_csum() of the header, h_csum = 0 */
	u8	h_exthdr[RDS_HEADER_EXT_SPACE];
};

#define RDS_FLAG_CONG_BITMAP	0x01
#define RDS_FLAG_ACK_REQUIRED	0x02
#define RDS_FLAG_RETRANSMITTED	0x04
/* Upstream 2026 sets it on a message whose header holds more than one
 * extension; the walk finds them either way, so it is only ever ignored.
 */
#define RDS_FLAG_EXTHDR_EXTENSION 0x20
#define RDS_MAX_ADV_CREDIT	255

/*
 * Port 1 is reserved as the source of the multipath handshake ping: a message
 * 1 -> 0 is a probe, the pong 0 -> 1 answers it.  Both carry the sender's
 * path count and generation number as extension headers, and only with
 * them are they handshake messages: no socket may bind port 1, but the
 * port numbers alone are whatever the peer put on the wire.
 * Ports in host order.
 */
#define RDS_FLAG_PROBE_PORT	1
static inline bool rds_hs_probe(u16 sport, u16 dport)
{
	return (sport == RDS_FLAG_PROBE_PORT && dport == 0) ||
	       (sport == 0 && dport == RDS_FLAG_PROBE_PORT);
}

/* Extension headers: a type byte, then a payload whose size the type
 * fixes, one after another in h_exthdr until RDS_EXTHDR_NONE or its end.
 * 1-3, 5 and 6 are in-tree 6.1's; 4 and 8 came with upstream's 2026 series
 * (net-next, February 2026); 7 and 9 are UEK's own, known here only by
 * their sizes, so that a walk can step over them to what follows.
 */
#define RDS_EXTHDR_NONE		0
#define RDS_EXTHDR_VERSION	1	/* __be32 protocol version */
#define RDS_EXTHDR_RDMA		2	/* __be32 rkey */
#define RDS_EXTHDR_RDMA_DEST	3	/* __be32 rkey, __be32 offset */
#define RDS_EXTHDR_RDMA_BYTES	4	/* __be32 bytes, u8 direction, 3 pad */
#define RDS_EXTHDR_NPATHS	5	/* __be16 paths the sender supports */
#define RDS_EXTHDR_GEN_NUM	6	/* __be32 sender's generation number */
#define RDS_EXTHDR_UEK_CAP	7	/* __be32 UEK capability bits */
#define RDS_EXTHDR_SPORT_IDX	8	/* u8 source ports carry the path index */
#define RDS_EXTHDR_UEK_CSUM	9	/* 8 bytes of UEK's payload checksum */
#define __RDS_EXTHDR_MAX	16

#define RDS_MPATH_WORKERS	8	/* most paths a connection may have */

#define RDS_CONG_MAP_BYTES	(65536 / 8)	/* one bit per port */
#define RDS_MAX_MSG_SIZE	SZ_1M

/* ---- Messages ---------------------------------------------------------- */

struct rds_conn_path;
struct rds_connection;
struct rds_transport;
struct rds_sock;
struct rds_zcopy;
struct rds_rdma_notifier;

/*
 * Pages pinned for as long as a memory region or an RDMA operation lives,
 * charged to RLIMIT_MEMLOCK (rdma.c): pc_pages are counted in pc_user's
 * locked_vm and pc_mm's pinned_vm, both held by reference so that the
 * last unpin, maybe in a work item after the task exited, gives them back.
 * pc_user is NULL when nothing is charged (CAP_IPC_LOCK).
 */
struct rds_pin_charge {
	struct user_struct	*pc_user;
	struct mm_struct	*pc_mm;
	unsigned long		pc_pages;
};

/*
 * The RDMA operation a message carries (RDS_CMSG_RDMA_ARGS): op_bytes
 * between the local pages in op_sg and the peer's region op_rkey, from
 * byte op_remote_addr of it.  op_write: to the peer (RDMA WRITE), else
 * from it (RDMA READ, the local pages are written).
 *
 * Or an atomic operation (RDS_CMSG_*ATOMIC_*, op_atomic its cmsg type,
 * else 0): 8 bytes at op_remote_addr of the peer's region, compared and
 * swapped or added to with the operands of struct rds_atomic_args; the
 * old value lands in the one local piece, which the device writes as in
 * a READ (!op_write).  A message carries one operation at most.
 *
 * Lifetime: that of its message, which owns it.  sendmsg pins the local
 * pages (op_pages) and the message's free unpins them, exactly once,
 * dirtied when a READ may have written them; a transport keeps a message
 * reference for every work request of the operation in flight, so the
 * pages are never unpinned under the device.  op_posted is set by the
 * sender (RDS_IN_XMIT) once xmit_rdma() took the operation: a message
 * whose operation went out is not sent again (see rds_send_path_reset()),
 * unless the transport set op_unsent, which says that none of it was done
 * (its connection failed on another operation, at the peer, before this
 * one's turn came): then the reset clears both, and it goes again on the
 * next connection.  op_notifier is taken exactly once, with
 * xchg(), by whoever reports the operation's status (rdma.c).
 * op_trans_private is the transport's while the operation is posted.
 * op_charge holds the pinned pages against RLIMIT_MEMLOCK until they are
 * unpinned.
 */
struct rds_rdma_op {
	u32			op_rkey;
	u64			op_remote_addr;
	u32			op_bytes;
	bool			op_write;
	bool			op_fence;	/* RDS_RDMA_FENCE */
	bool			op_notify;	/* RDS_RDMA_NOTIFY_ME */
	bool			op_silent;	/* RDS_RDMA_SILENT */
	bool			op_posted;
	bool			op_unsent;	/* posted, none of it done */
	int			op_atomic;	/* RDS_CMSG_*ATOMIC_*, or 0 */
	u64			op_compare_add;	/* compare, or add */
	u64			op_swap;
	u64			op_compare_add_mask; /* or nocarry_mask */
	u64			op_swap_mask;
	struct page		**op_pages;
	unsigned int		op_npages;
	struct scatterlist	*op_sg;		/* one entry per page piece */
	unsigned int		op_nents;
	struct rds_rdma_notifier *op_notifier;
	struct rds_pin_charge	op_charge;
	void			*op_trans_private;
	struct work_struct	op_free_work;	/* unpinning from softirq */
};

/*
 * A received message, from the moment a transport has its whole header until
 * the last reader drops it.
 *
 * Lifetime: i_refcount.  The transport holds one while it reassembles,
 * rds_recv_incoming() takes one for the receive queue it puts it on, and
 * recvmsg() drops that one when it dequeues.  i_trans pins the transport
 * module (a module reference taken in rds_inc_init(), dropped after
 * i_trans->inc_free()), so an unread message never outlives the code that
 * frees it.  i_cp is only valid inside rds_recv_incoming(): once queued on
 * a socket an incoming message refers to no connection.
 */
struct rds_incoming {
	refcount_t		i_refcount;
	struct list_head	i_item;		/* rs_recv_queue, rs_recv_lock */
	const struct rds_transport *i_trans;
	struct rds_conn_path	*i_cp;
	struct rds_header	i_hdr;
	struct in6_addr		i_saddr;	/* the sender */
	struct in6_addr		i_daddr;	/* us */
	u8			i_tos;
	unsigned long		i_rx_jiffies;
	u64			i_rx_tstamp;	/* ns, 0 when not wanted */
	u64			i_rx_lat_trace[RDS_MSG_RX_DGRAM_TRACE_MAX];
	rds_rdma_cookie_t	i_rdma_cookie;
	/* Memory the message holds (truesize of what it pins), set by the
	 * transport before rds_recv_incoming() and charged to the socket
	 * that queues it.  0: the transport holds no more than the payload.
	 */
	unsigned int		i_truesize;
};

void rds_inc_init(struct rds_incoming *inc, struct rds_conn_path *cp,
		  const struct in6_addr *saddr);
void rds_inc_addref(struct rds_incoming *inc);
void rds_inc_put(struct rds_incoming *inc);

/* m_flags bits */
enum {
	RDS_MSG_ON_SOCK,	/* on m_rs->rs_send_queue */
	RDS_MSG_ON_CONN,	/* on cp_send_queue or cp_retrans */
	RDS_MSG_RETRANSMITTED,	/* sent at least once on this path */
	RDS_MSG_ACK_REQUIRED,
	RDS_MSG_CONTROL,	/* a pong or probe, no socket: cp_ctl_queued */
};

/*
 * An outgoing message.  Its wire image is m_inc.i_hdr followed by m_len
 * payload bytes in m_sg[0..m_nents).
 *
 * Lifetime: m_refcount.  One reference for each list it is on (socket send
 * queue, path queue), one for the path's cp_xmit_rm while a transport is
 * sending it, and one for the sender while it builds it.  The bits
 * RDS_MSG_ON_SOCK / RDS_MSG_ON_CONN say which list references exist; they
 * are cleared under rs_lock / cp_lock by whoever unlinks the message.
 * m_rs_lock protects m_rs, which holds a sock reference while set.
 * Lock order: m_rs_lock -> rs_lock -> cp_lock.
 * A transport may read the header and payload of the message it is given
 * in t->xmit() and may set m_ack_seq; everything else is the generic
 * layer's.
 */
struct rds_sndbuf_dest;

struct rds_message {
	refcount_t		m_refcount;
	struct list_head	m_sock_item;	/* rs_send_queue, rs_lock */
	struct list_head	m_conn_item;	/* cp_send_queue/cp_retrans, cp_lock */
	struct rds_incoming	m_inc;		/* header; loopback delivers it */
	unsigned long		m_flags;
	u64			m_ack_seq;	/* transport private (TCP: stream seq) */
	struct in6_addr		m_daddr;
	spinlock_t		m_rs_lock;	/* m_rs; outside rs_lock */
	struct rds_sock		*m_rs;
	/* What it is counted against on m_rs while RDS_MSG_ON_SOCK (rs_lock) */
	struct rds_sndbuf_dest	*m_sndbuf;
	struct rds_conn_path	*m_cp;		/* path it was queued on */
	unsigned int		m_len;		/* payload bytes */
	unsigned int		m_nents;
	struct scatterlist	*m_sg;		/* &m_sg_one, or kcalloc()ed */
	struct scatterlist	m_sg_one;	/* a payload of one piece */
	rds_rdma_cookie_t	m_rdma_cookie;
	struct rds_zcopy	*m_zcopy;	/* MSG_ZEROCOPY: m_sg pins user pages */
	struct rds_rdma_op	*m_rdma;	/* RDMA or atomic, or NULL */
};

void rds_message_addref(struct rds_message *rm);
void rds_message_put(struct rds_message *rm);
/* Total bytes of the wire image: header and payload. */
static inline unsigned int rds_message_wire_len(const struct rds_message *rm)
{
	return sizeof(struct rds_header) + rm->m_len;
}

int rds_message_add_extension(struct rds_header *hdr, unsigned int type,
			      const void *data, unsigned int len);
/* Takes every extension of @type out of @hdr: an RDMA operation that did
 * not happen (nothing or part of it posted) must not be announced to the
 * peer by RDS_EXTHDR_RDMA, which releases a use-once region.  The sender
 * only (RDS_IN_XMIT), before the header goes out.
 */
void rds_message_del_extension(struct rds_header *hdr, unsigned int type);
/* Walks the extension headers: *pos starts at 0; returns the type or NONE. */
int rds_message_next_extension(const struct rds_header *hdr, unsigned int *pos,
			       void *buf, unsigned int *buflen);

/* What the extension headers of a probe or its pong announce.  Only a
 * header with a path count is a handshake at all: the ports alone (1 -> 0,
 * 0 -> 1) are no proof of one, any local user of a peer can send them.
 */
struct rds_handshake {
	int	npaths;		/* RDS_EXTHDR_NPATHS, clamped to 1..workers */
	u32	gen;		/* RDS_EXTHDR_GEN_NUM, 0 when absent */
	bool	sport_idx;	/* RDS_EXTHDR_SPORT_IDX present */
};

/* False when @hdr carries no path count; @hs is filled either way. */
bool rds_handshake_parse(const struct rds_header *hdr, struct rds_handshake *hs);

__sum16 rds_header_csum(const struct rds_header *hdr);
bool rds_header_csum_ok(const struct rds_header *hdr);

/* ---- Connections and paths --------------------------------------------- */

enum rds_path_state {
	RDS_CONN_DOWN = 0,
	RDS_CONN_CONNECTING,
	RDS_CONN_DISCONNECTING,
	RDS_CONN_UP,
	RDS_CONN_ERROR,
};

/* cp_flags bits */
enum {
	RDS_IN_XMIT,		/* one sender at a time per path */
	RDS_RECONNECT_PENDING,	/* cp_conn_w is queued */
	RDS_DESTROY_PENDING,	/* no new work may be queued */
	RDS_XMIT_AGAIN,		/* another pass wanted once RDS_IN_XMIT is free */
	RDS_RECONNECT_YIELD,	/* the next reconnect leaves the peer room */
};

/*
 * What a path sends through: one transport connection (a TCP socket, an RC
 * queue pair) with the transport that drives it.  The path keeps what must
 * outlive any one transport connection (sequence numbers, queues, the
 * record of resets); the carrier is the part a failover would replace
 * (Documentation/rds.rst, "Failover across devices and transports").
 *
 * Every path has a home carrier, cp_home, driven by its connection's own
 * transport (c_trans): that transport's conn_alloc() sets its ca_data and
 * conn_free() clears it, and the carrier lives and dies with its path.  Any
 * other carrier (on another device, or of another transport for a path
 * homed elsewhere) would come from its transport's carrier_alloc() and go
 * with its carrier_free().
 *
 * cp_carrier is the one the path uses.  Nothing moves a path yet: it is
 * &cp_home from allocation until the path is freed, so it is read without
 * a lock.  A move will have to exclude every reader: the connect and
 * shutdown (cp_cm_lock), the sender (RDS_IN_XMIT), the receive work and
 * the transport's own callbacks.
 *
 * A carrier has no lock of its own: ca_data follows its transport's rules,
 * whose locks nest inside cp_cm_lock (see struct rds_conn_path).
 */
struct rds_carrier {
	struct rds_transport	*ca_trans;
	struct rds_conn_path	*ca_cp;		/* the path it carries */
	void			*ca_data;	/* ca_trans's per-path state */
};

/*
 * One ordered lane of a connection, sent through one carrier at a time:
 * one TCP socket, or one IB queue pair.
 *
 * Locks: cp_lock (spinlock, taken with interrupts off) protects
 * cp_send_queue, cp_retrans, cp_next_tx_seq, cp_next_rx_seq, cp_rx_seq_live
 * and the cp_unacked_* counters.  cp_reset_lock (spinlock, IRQs off, a leaf:
 * rds_conn_path_error() runs in any context, under any lock) protects the
 * record of drops, cp_resets, cp_reset_time, cp_reset_why,
 * cp_connect_failures and cp_connect_why.  cp_cm_lock (mutex) serializes the transport's
 * connect against its shutdown: the generic layer holds it around
 * t->conn_path_connect() and t->conn_path_shutdown(), so those must not
 * take it; a transport may take it in its own contexts (e.g. accept) to
 * exclude them.  RDS_IN_XMIT makes the caller of t->xmit() exclusive and
 * guards cp_xmit_rm / cp_xmit_pos; shutdown holds it too, so t->xmit() and
 * t->conn_path_shutdown() never run at the same time.
 * Work items are only queued through rds_path_queue_send/recv() and the
 * other helpers here, which refuse once RDS_DESTROY_PENDING is set.
 * The path lives and dies with its connection.
 */
struct rds_conn_path {
	struct rds_connection	*cp_conn;
	unsigned int		cp_index;
	atomic_t		cp_state;
	unsigned long		cp_flags;

	spinlock_t		cp_lock;	/* the queues and seqs, see above */
	u64			cp_next_tx_seq;
	u64			cp_next_rx_seq;
	/* A message came on the transport's current connection: numbers on
	 * it only go up (net/rds/recv.c, rds_recv_seq_ok()).
	 */
	bool			cp_rx_seq_live;
	struct list_head	cp_send_queue;	/* not yet handed to t->xmit() */
	struct list_head	cp_retrans;	/* sent, not yet acknowledged */

	struct rds_message	*cp_xmit_rm;	/* partly sent, RDS_IN_XMIT */
	unsigned int		cp_xmit_pos;	/* bytes of its wire image sent */

	struct mutex		cp_cm_lock;	/* connect vs shutdown, see above */
	struct delayed_work	cp_conn_w;
	struct delayed_work	cp_send_w;
	struct delayed_work	cp_recv_w;
	struct work_struct	cp_down_w;
	struct delayed_work	cp_hb_w;	/* net/rds/heartbeat.c */
	unsigned long		cp_hb_heard;	/* jiffies: peer last heard */
	unsigned long		cp_hb_sent;	/* jiffies: ping unanswered */
	unsigned long		cp_reconnect_jiffies;	/* current backoff */
	wait_queue_head_t	cp_waitq;
	unsigned int		cp_unacked_packets;
	unsigned int		cp_unacked_bytes;
	u64			cp_conn_attempts;
	/* Drops while up (the last one's wall-clock time and reason) and
	 * while connecting (the last one's reason), from
	 * rds_conn_path_error(), for RDS_INFO_PATHS.  The reasons are
	 * copies: a string may live in a module that goes before the path.
	 */
	spinlock_t		cp_reset_lock;
	u64			cp_resets;
	time64_t		cp_reset_time;
	char			cp_reset_why[RDS_INFO_REASON_LEN];
	u64			cp_connect_failures;
	char			cp_connect_why[RDS_INFO_REASON_LEN];
	/* RDS_MSG_CONTROL messages on the queues, see net/rds/control.c */
	atomic_t		cp_ctl_queued;
	/* The NAPI context the path's packets come in through, 0 for none:
	 * written by the transport's receive, read by the sockets it
	 * delivers to, which busy-poll it (net/rds/recv.c).
	 */
	unsigned int		cp_napi_id;

	struct rds_carrier	*cp_carrier;	/* see struct rds_carrier */
	struct rds_carrier	cp_home;
};

/*
 * A (netns, laddr, faddr, tos, transport) tuple and its 1..N paths.
 *
 * Lifetime: c_ref.  The per-netns connection table holds one reference
 * until rds_conn_destroy_net() takes the connection out (onto its list of
 * dying ones, c_dying_item) and destroys it (c_destroy_w, on a workqueue
 * of its own, so that many shut down side by side); a socket caches one
 * in rs_conn; callers of
 * rds_conn_create*() get one.  The memory is RCU-freed so table lookups
 * need no reference until they take one with kref_get_unless_zero().
 * c_npaths is 0 until the handshake says how many paths the peer has.
 */
struct rds_connection {
	struct hlist_node	c_hash_node;	/* rds_net conn table, RCU */
	struct list_head	c_dying_item;	/* rds_conn_destroy_net() */
	struct work_struct	c_destroy_w;
	struct kref		c_ref;
	possible_net_t		c_net;
	struct in6_addr		c_laddr;
	struct in6_addr		c_faddr;
	int			c_dev_if;	/* IPv6 link-local scope */
	u8			c_tos;
	bool			c_isv6;
	bool			c_loopback;	/* faddr is local to c_net */
	/* The passive twin of a connection from an address to itself on a
	 * transport that really connects it (IB): same tuple, never
	 * connects, takes the accepted end of its twin's connects.  Sockets
	 * send on the twin without c_passive; the info tables skip this one.
	 */
	bool			c_passive;
	bool			c_destroying;
	/* RDS_PROTOCOL_VERSION unless the transport negotiates another with
	 * the peer (IB: 4.1 or 3.1), which it sets before it completes the
	 * connect with rds_connect_path_complete().
	 */
	u16			c_version;
	struct rds_transport	*c_trans;
	void			*c_transport_data;	/* whole-connection data */

	struct rds_cong_map	*c_lcong;	/* our map for laddr */
	struct rds_cong_map	*c_fcong;	/* the peer's map for faddr */
	unsigned long		c_map_queued;	/* bit 0: send c_lcong */
	/* When c_fcong last arrived or was asked for again; whether the peer
	 * ever sent it on a path other than 0 (then any of its maps may have
	 * been overtaken by a newer one); and how long a congested port must
	 * now go without news before we ask again, 0 for the first time
	 * (see rds_cong_resync()).
	 */
	unsigned long		c_fcong_jiffies;
	bool			c_fcong_any_path;
	unsigned long		c_fcong_backoff;

	int			c_npaths;
	u32			c_my_gen_num;
	u32			c_peer_gen_num;
	bool			c_ping_triggered;
	wait_queue_head_t	c_hs_waitq;	/* waits for c_npaths */
	atomic64_t		c_pong_next_ns;	/* pong rate limit, control.c */

	unsigned int		c_path_count;	/* paths allocated in c_path */
	struct rds_conn_path	*c_path;
	struct rcu_head		c_rcu;
};

static inline struct net *rds_conn_net(const struct rds_connection *conn)
{
	return read_pnet(&conn->c_net);
}

static inline int rds_conn_path_state(struct rds_conn_path *cp)
{
	return atomic_read(&cp->cp_state);
}

static inline bool rds_conn_path_up(struct rds_conn_path *cp)
{
	return rds_conn_path_state(cp) == RDS_CONN_UP;
}

bool rds_conn_path_transition(struct rds_conn_path *cp, int old, int new);

/*
 * Find or create the connection for an accepted transport connection.  The
 * caller gets a reference.  Returns ERR_PTR on failure.
 *
 * A transport whose peer connects by request (IB: an rdma_cm connect
 * request) claims the path for the request itself, from its own context:
 * rds_conn_path_transition(cp, RDS_CONN_DOWN, RDS_CONN_CONNECTING), the
 * same step the connect work takes, so that one of the two wins.  It then
 * completes with rds_connect_path_complete() or fails with
 * rds_conn_path_error() like an outgoing connect.  Losing the transition
 * means the path is connecting already or up: the request is refused.
 *
 * A request from an address to itself (laddr == faddr) on a transport
 * that does not prefer loopback is its own connect coming back: it gets
 * the connection's passive twin (c_passive), whose path the generic layer
 * never connects.  The twin receives what the connecting side sends and
 * sends what it answers (acks, pongs) back over the accepted end.
 */
struct rds_connection *rds_conn_create(struct net *net,
				       const struct in6_addr *laddr,
				       const struct in6_addr *faddr,
				       struct rds_transport *trans, u8 tos,
				       gfp_t gfp, int dev_if);
struct rds_connection *rds_conn_find(struct net *net,
				     const struct in6_addr *laddr,
				     const struct in6_addr *faddr,
				     struct rds_transport *trans, u8 tos,
				     int dev_if);
void rds_conn_get(struct rds_connection *conn);
void rds_conn_put(struct rds_connection *conn);

/*
 * The transport connected the path: UP, then send what waits (and, on path
 * 0 of a multipath transport, the handshake probe).  Any context.
 */
void rds_connect_path_complete(struct rds_conn_path *cp, int curr);
/*
 * Something broke: tear the path down and reconnect with backoff.  Any
 * context; does nothing unless the path is CONNECTING or UP.
 */
void rds_conn_path_error(struct rds_conn_path *cp, const char *why);
/*
 * Both ends connected at once and each refused the other's attempt: the
 * end with the greater address yields, its next reconnect waiting long
 * enough (twice the longest backoff) for the peer's next attempt to come
 * and be accepted.  Any context.
 */
void rds_conn_path_yield(struct rds_conn_path *cp);
/*
 * Start connecting if DOWN (e.g. an incoming connect for another path).
 * Paths other than 0 are only connected by the side with the smaller
 * address (memcmp of c_laddr and c_faddr); on the other side this does
 * nothing for them.
 */
void rds_conn_path_connect_if_down(struct rds_conn_path *cp);
/* Tear down and reconnect every path of @conn (e.g. a sysctl changed). */
void rds_conn_reset(struct rds_connection *conn);
/*
 * Destroy every connection of @trans in @net (NULL: every netns).  Sleeps:
 * for each path, work is cancelled, t->conn_path_shutdown() and then
 * t->conn_free() run, and queued messages are completed.
 */
void rds_conn_destroy_all(struct net *net, struct rds_transport *trans);
/*
 * Apply fn to every connection of @trans (any netns when @net is NULL).
 * fn runs in process context with a reference held and may sleep.  The
 * reference keeps the connection's memory, not its transport data: fn is
 * not called once the connection's destroy has begun, and a transport
 * whose fn reads transport data must exclude a destroy beginning during
 * the walk (rds_rdma holds the lock its destroys run under; rds_tcp's fn
 * only resets paths, which a destroy makes a no-op).
 */
void rds_conn_for_each(struct net *net, struct rds_transport *trans,
		       void (*fn)(struct rds_connection *conn, void *arg),
		       void *arg);

/* ---- Send and receive hooks -------------------------------------------- */

/*
 * Queue the path's send / receive work unless the connection is being
 * destroyed.  A transport that queues path work itself must, like these,
 * test RDS_DESTROY_PENDING and queue inside one rcu_read_lock() section:
 * rds_conn_destroy_net() sets the flag, waits a grace period, then cancels.
 */
void rds_path_queue_send(struct rds_conn_path *cp, unsigned long delay);
void rds_path_queue_recv(struct rds_conn_path *cp, unsigned long delay);

/*
 * Drop from cp_retrans every message the peer has: those for which
 * is_acked(rm, ack) is true, or with is_acked NULL those whose sequence
 * number is <= ack.  Completes them to their sockets.
 */
void rds_send_path_drop_acked(struct rds_conn_path *cp, u64 ack,
			      bool (*is_acked)(struct rds_message *rm, u64 ack));

/*
 * One wakeup for the messages of one read.  A transport that delivers
 * several messages in one go (a read of a byte stream) puts a batch on its
 * stack, zeroed, passes it to rds_recv_incoming() for each and calls
 * rds_recv_batch_end() before it returns.  A message is on its socket's
 * queue once delivered: only the wakeup of the socket's reader waits, for
 * the rest of that read at most.  Messages in a row for one socket then
 * wake it once rather than once each, which on a second CPU would make the
 * reader run, take one, sleep and be woken again for the next.
 * Lifetime: rb_rs holds a sock reference until it is woken.  The batch is
 * its transport's read's alone: no lock.
 */
struct rds_recv_batch {
	struct rds_sock	*rb_rs;
};

/*
 * Deliver a complete message that arrived on @cp from @saddr to @daddr.
 * Drops duplicates, answers pings, applies congestion map updates, queues
 * the rest on the bound socket.  Takes its own reference on @inc.
 * Callable from softirq (gfp GFP_ATOMIC) or process context.  @batch NULL
 * wakes the reader at once.
 */
void rds_recv_incoming(struct rds_conn_path *cp, const struct in6_addr *saddr,
		       const struct in6_addr *daddr, struct rds_incoming *inc,
		       gfp_t gfp, struct rds_recv_batch *batch);
void rds_recv_batch_end(struct rds_recv_batch *batch);

/* ---- Info tables (RDS_INFO_* getsockopt) -------------------------------- */

struct rds_info_iterator;
/*
 * Fills up to @avail bytes with whole items through rds_info_copy() and
 * returns the number of items it has in all and their size in @lens.
 */
struct rds_info_lengths {
	unsigned int	nr;
	unsigned int	each;
};

typedef void (*rds_info_func)(struct socket *sock, unsigned int len,
			      struct rds_info_iterator *iter,
			      struct rds_info_lengths *lens);
void rds_info_register_func(int optname, rds_info_func func);
void rds_info_deregister_func(int optname, rds_info_func func);
void rds_info_copy(struct rds_info_iterator *iter, const void *data,
		   unsigned long bytes);

/* ---- Statistics -------------------------------------------------------- */

/* A transport's counters, appended to RDS_INFO_COUNTERS. */
unsigned int rds_stats_info_copy(struct rds_info_iterator *iter,
				 const u64 *values, const char *const *names,
				 size_t nr);

/* ---- The transport itself ---------------------------------------------- */

/*
 * A device as one network namespace sees it: what a transport with RDMA
 * operations keeps per (device, netns), so that nothing registered in one
 * namespace is reachable from another.  For RDS/IB that is a protection
 * domain with its memory regions, their idle MRs and a queue pair of its
 * own on which their registrations and invalidations are posted (see
 * net/rds/ib/ib.h, struct rds_ib_domain, which embeds this).  A memory
 * region belongs to the object it was registered on and to its socket;
 * an RDMA operation finds its object through the connection it goes out
 * on, whose queue pair is in that object's protection domain: a peer
 * reaches the regions of the namespace it is connected to, no others.
 *
 * Lifetime: a reference count of the transport's.  t->device_get() finds
 * or makes the one serving an address of a netns and returns it with a
 * reference, t->device_put() drops that; a memory region holds one from
 * registration until after its release, and the transport's connections
 * hold one each while they have a queue pair on it.  The RDMA device
 * itself may go first (rdma link del): the transport then takes back
 * everything the object had on it, and what is left is bookkeeping that
 * goes with the last reference.  d_net is counted: the object keeps its
 * netns, and every reference to the object is dropped when the sockets
 * and connections of that netns go.
 */
struct rds_device {
	struct rds_transport	*d_trans;
	struct net		*d_net;
};

/*
 * A memory region of RDS_GET_MR or RDS_GET_MR_FOR_DEST: user pages that a
 * peer may read or write through the key in the region's cookie.
 *
 * Lifetime: r_kref.  Its socket's MR tree (rs_mr_tree) holds one
 * reference from registration until RDS_FREE_MR or the socket's release
 * takes it out; whoever finds it in the tree under rs_mr_lock and keeps it
 * takes one of their own.  The last put has r_trans->mr_release() drop the
 * transport's mapping, in process context (a put in softirq defers it to
 * rds_wq), and then unpins the pages: they stay pinned for as long as the
 * MR exists, whatever became of the device or the connections meanwhile.
 * r_trans, set once mr_register has succeeded, pins its transport's
 * module; r_dev (a reference) is the device object it was registered on.
 * The transport reads r_pages, r_npages, r_offset and r_bytes, and sets
 * r_key and r_trans_private in mr_register; the rest is the generic
 * layer's.
 */
struct rds_mr {
	struct kref		r_kref;
	struct work_struct	r_free_work;	/* the last put in softirq */
	struct rb_node		r_node;		/* rs_mr_tree, rs_mr_lock */
	struct list_head	r_drop;		/* rds_rdma_drop_mrs() */
	u32			r_key;		/* the rkey: the cookie's low half */
	bool			r_use_once;	/* RDS_RDMA_USE_ONCE */
	bool			r_invalidate;	/* RDS_RDMA_INVALIDATE */
	struct page		**r_pages;	/* pinned, FOLL_LONGTERM */
	unsigned int		r_npages;
	/* The bytes the user named: from r_offset in the first page on. */
	unsigned int		r_offset;
	u32			r_bytes;
	struct rds_pin_charge	r_charge;	/* r_pages, RLIMIT_MEMLOCK */
	struct rds_transport	*r_trans;
	struct rds_device	*r_dev;
	void			*r_trans_private;
};

/*
 * Lifetime: registered from module init, unregistered from module exit
 * after the transport has destroyed its connections.  A socket bound through
 * a transport pins t_owner, as does every incoming message (see above).
 */
struct rds_transport {
	char			t_name[TRANSNAMSIZ];
	struct list_head	t_item;
	struct module		*t_owner;
	unsigned int		t_type;		/* RDS_TRANS_* */
	bool			t_mp_capable;	/* may use RDS_MPATH_WORKERS paths */
	bool			t_prefer_loopback; /* local faddr: use loopback */
	/*
	 * The peer cannot learn a connection's TOS: it accepts every one
	 * into its TOS 0 connection, so we must send every TOS there too.
	 * Connections per TOS would each take the peer's paths from the
	 * others, resetting each other for as long as any has messages.
	 */
	bool			t_tos_blind;
	/*
	 * xmit(), xmit_path_prepare/complete() and the RDMA xmits never
	 * sleep, so the generic layer may call them from softirq: the
	 * receive path answers a ping at once (send.c).
	 */
	bool			t_xmit_in_softirq;

	/* 0 if this transport can send from @addr in @net, else -EADDRNOTAVAIL. */
	int (*laddr_check)(struct net *net, const struct in6_addr *addr,
			   u32 scope_id);
	/*
	 * Optional, may sleep, in pairs per netns: a socket of @net was
	 * bound through this transport (sock_bound), and that socket is
	 * being released (sock_unbound, after its messages left its
	 * connections).  Lets a transport keep per-netns objects that pin
	 * the netns only while sockets there use it: rdma_cm ids hold a
	 * reference on theirs, so listeners and connections kept for a
	 * netns nobody uses any more would keep it alive for ever.
	 */
	void (*sock_bound)(struct net *net);
	void (*sock_unbound)(struct net *net);
	/*
	 * Per-path state into the ca_data of each path's home carrier
	 * (cp_home), for each path of conn; conn_free() takes it back.
	 */
	int (*conn_alloc)(struct rds_connection *conn, gfp_t gfp);
	void (*conn_free)(struct rds_connection *conn);
	/*
	 * A carrier of this transport for @cp besides its home one (for a
	 * path homed on another transport, or on another device of this
	 * one): its ca_data set up, not connected, or an ERR_PTR.
	 * carrier_free() frees it after conn_path_shutdown() has run on it.
	 * Both or neither: NULL for a transport that cannot carry another's
	 * path (loopback: it has no peer to carry it to).  Nothing moves a
	 * path yet, so no transport has them so far.
	 */
	struct rds_carrier *(*carrier_alloc)(struct rds_conn_path *cp,
					     gfp_t gfp);
	void (*carrier_free)(struct rds_carrier *ca);
	/*
	 * Start connecting @ca, a carrier of this transport, for its path
	 * ca->ca_cp; complete later with rds_connect_path_complete().
	 */
	int (*conn_path_connect)(struct rds_carrier *ca);
	/*
	 * Tear @ca down; when it returns nothing of the transport runs for
	 * it (no callbacks, no queued work of its own).  May sleep.  Also
	 * called when a connection is destroyed, in whatever state the path
	 * is, including DOWN with nothing to tear down.
	 */
	void (*conn_path_shutdown)(struct rds_carrier *ca);
	/*
	 * xmit(), xmit_path_prepare/complete(), recv_path() and the RDMA
	 * xmits below take the path: its cp_carrier is this transport's
	 * while they run (see struct rds_carrier).
	 *
	 * Send the wire image of @rm from byte *pos on, advancing *pos.
	 * Returns 0 when all of it is accepted, -EAGAIN when the path is
	 * full (the transport queues send work when it has room again), or
	 * another error, which brings the path down.
	 */
	int (*xmit)(struct rds_conn_path *cp, struct rds_message *rm,
		    unsigned int *pos);
	void (*xmit_path_prepare)(struct rds_conn_path *cp);
	void (*xmit_path_complete)(struct rds_conn_path *cp);
	int (*recv_path)(struct rds_conn_path *cp);
	int (*inc_copy_to_user)(struct rds_incoming *inc, struct iov_iter *to);
	void (*inc_free)(struct rds_incoming *inc);
	/*
	 * RDS_INFO_COUNTERS tail: copies all its counters (rds_info_copy()
	 * drops what the user's buffer has no room for; @avail says how many
	 * still fit) and returns how many it has, so that the caller can
	 * report the size the whole table needs.
	 */
	unsigned int (*stats_info_copy)(struct rds_info_iterator *iter,
					unsigned int avail);

	/*
	 * RDMA operations: all optional.  A transport without them (TCP,
	 * loopback) leaves them NULL, and RDS_GET_MR, RDS_GET_MR_FOR_DEST
	 * and the RDMA and atomic cmsgs then fail with EOPNOTSUPP, as
	 * in-tree.  The generic layer owns struct rds_mr (keyed by its key
	 * in its socket, its user pages pinned and released by the generic
	 * layer) and the operation a message carries; the transport maps
	 * and posts.
	 *
	 * device_get: the device object (see struct rds_device) serving
	 * @laddr in @net, with a reference; ERR_PTR(-ENODEV) when no device
	 * serves it.  May sleep.  device_put drops the reference; may sleep.
	 * mr_register: map the bytes @mr names (r_offset, r_bytes of its
	 * pinned pages) for remote access through @dev, and no more than the
	 * pages they lie in, and set r_key, unique on the underlying device
	 * and not to be guessed from the key that MR had before; the cookie's
	 * offset is r_offset.  May sleep, for a bounded time.
	 * mr_release: called exactly once for each successful mr_register,
	 * in process context, when the MR goes (RDS_FREE_MR, socket
	 * release, and later a use-once completion); the remote key is dead
	 * when it returns, whatever a peer does, and it returns in bounded
	 * time.  A device may go before its MRs do (rdma link del): the
	 * transport then drops their mappings itself, in its device removal,
	 * and mr_release has nothing left to undo on the device.
	 * mr_sync: optional, any context with IRQs on, never under a
	 * spinlock of ours (with a bounce buffer it copies the region):
	 * DMA_FROM_DEVICE when a peer announced that its RDMA into @mr is
	 * done (RDS_EXTHDR_RDMA): make what it wrote visible to the CPU;
	 * DMA_TO_DEVICE when @mr goes to a peer (RDS_CMSG_RDMA_DEST): make
	 * what the CPU wrote visible to the device, for the peer's READ.
	 * mr_invalidate: optional, in process context, before mr_release
	 * when many MRs go at once: start killing the remote key without
	 * waiting, so that mr_release waits for all of them together.
	 *
	 * xmit_rdma, xmit_atomic: post the RDMA or atomic operation of @rm,
	 * ahead of its RDS header (as in-tree: the data moves first, the
	 * message that announces it follows on the same path).  Like xmit:
	 * 0 when the transport took the operation (posted it, or reported
	 * it failed), -EAGAIN when the send ring or the credits are full
	 * (the transport queues send work once there is room: never spin),
	 * another error, with nothing posted, brings the path down and the
	 * operation is tried again on the next connection.  The transport
	 * holds a message reference for each work request in flight and
	 * reports the operation's local completion, an RDS_RDMA_* status of
	 * the uapi, with rds_rdma_op_done(), at most once, from any
	 * context.  As in-tree, an operation its connection flushed is not
	 * reported: the message is dropped at the reconnect, which tells the
	 * sender RDS_RDMA_DROPPED.
	 */
	struct rds_device *(*device_get)(struct net *net,
					 const struct in6_addr *laddr,
					 u32 scope_id);
	void (*device_put)(struct rds_device *dev);
	int (*mr_register)(struct rds_device *dev, struct rds_mr *mr);
	void (*mr_invalidate)(struct rds_mr *mr);
	void (*mr_release)(struct rds_mr *mr, bool invalidate);
	void (*mr_sync)(struct rds_mr *mr, enum dma_data_direction dir);
	int (*xmit_rdma)(struct rds_conn_path *cp, struct rds_message *rm);
	int (*xmit_atomic)(struct rds_conn_path *cp, struct rds_message *rm);
};

/* The local completion of @rm's RDMA or atomic operation (see above). */
void rds_rdma_op_done(struct rds_message *rm, int status);

int rds_trans_register(struct rds_transport *trans);
void rds_trans_unregister(struct rds_transport *trans);

/* The workqueue every path's work runs on. */
extern struct workqueue_struct *rds_wq;

/* A tunable shared with the transports: reconnect backoff bounds etc. */
extern unsigned long rds_sysctl_reconnect_min_jiffies;
extern unsigned long rds_sysctl_reconnect_max_jiffies;

#endif /* _RDS_TRANSPORT_H */
