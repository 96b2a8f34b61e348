/* SPDX-License-Identifier: GPL-2.0 */
/* RDS over InfiniBand and RoCE: one reliable connected queue pair per RDS
 * connection, set up through the RDMA connection manager.
 *
 * Every message goes out as one or more fragments of at most RDS_FRAG_SIZE
 * payload bytes, each a SEND carrying a copy of the 48-byte RDS header
 * followed by its part of the payload.  The receiver posts two scatter
 * entries per receive (header, then a page for the data) and reassembles by
 * h_len.  Acknowledgments ride in h_ack of whatever we send; a header-only
 * "ack" fragment (ports 0, no data) goes out alone when the peer asked for
 * one (RDS_FLAG_ACK_REQUIRED).
 *
 * Lock order (outermost first):
 *   rin_lock (a netns's first bind and last release)
 *   cp_cm_lock (rds.ko, around connect and shutdown)
 *     -> the rdma_cm handler mutex of an id (held in our event handler,
 *        taken by rdma_destroy_id())
 *       -> rds_ib_req_sem (read: a connect request being handled)
 *         -> i_mutex (a path's attachment to an id, see rds_ib_connection)
 *           -> rds_ib_devices_mutex -> rds_ib_domains_mutex -> dom_mutex
 *             -> rd_lock -> dom_lock (see struct rds_ib_domain)
 *           -> dom_mutex -> s_mutex (an SRQ's, see struct rds_ib_srq;
 *              also under i_mutex alone)
 *   rin_accept_lock (the accept counts) is a leaf, taken anywhere;
 *   rds_ib_mem_mutex (ring admissions, mem.c) a leaf under i_mutex.
 *   A receive budget (struct rds_ib_recv_budget) has no lock: atomics.
 * Our event handler never takes cp_cm_lock, so shutdown may destroy an id
 * while holding it (in-tree 6.1 takes its connection mutex in the handler
 * and lockdep reports the cycle).
 */
#ifndef _RDS_IB_H
#define _RDS_IB_H

#include <linux/atomic.h>
#include <linux/hashtable.h>
#include <linux/irq_poll.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>
#include <rds/transport.h>

/* Wire constants shared with in-tree RDS/IB. */
#define RDS_IB_PORT		18634	/* rdma_cm port, IPv4 */
#define RDS_IB_PORT6		16385	/* rdma_cm port, IPv6 */
#define RDS_FRAG_SIZE		4096U
#define RDS_IB_RECV_SGE		2
#define RDS_IB_SUPPORTED_PROTOCOLS	0x0003	/* minor versions, as a mask */
/* Consumer reject data (a host-order int): "incompatible", or a race. */
#define RDS_RDMA_REJ_INCOMPAT	1
/* Ours: a request we refuse for what it claims or for a limit.  Above
 * RDS_RDMA_REJ_INCOMPAT, so that neither an in-tree peer nor ours takes it
 * for a version problem and falls back to 3.1: it just retries later.
 */
#define RDS_IB_REJ_REFUSED	2
#define RDS_IB_RESOLVE_MS	5000
/* How long a connect or accept may take before it is dropped: cm.c. */
#define RDS_IB_CONNECT_MS	15000
/* How long a message that asked for no ack may wait for one: recv.c. */
#define RDS_IB_QUIET_ACK_MS	100
/* Memory region sizes with a pool of MRs of their own (mr.c). */
#define RDS_IB_MR_CLASSES	2
/* Scatter entries per RDMA READ or WRITE work request, at most. */
#define RDS_IB_MAX_SGE		32

/* Defaults of the sysctls, as in-tree. */
#define RDS_IB_DEFAULT_SEND_WR		256
#define RDS_IB_DEFAULT_RECV_WR		1024
#define RDS_IB_DEFAULT_UNSIG_WR		16
#define RDS_IB_DEFAULT_RETRY_COUNT	1
/* In-tree's two pools of a device together: 4096 MRs of 1 MiB and 85
 * times as many of 8 KiB.
 */
#define RDS_IB_DEFAULT_MAX_MRS		(4096 + 85 * 4096)
/* Ours: one namespace's share of a device's regions (mr.c), half of them,
 * so that one container cannot take them all from the others.
 */
#define RDS_IB_DEFAULT_MAX_MRS_NETNS	(RDS_IB_DEFAULT_MAX_MRS / 2)
/* Ours (in-tree has no limit): accepted connections per peer address, and
 * at most in a netns (scaled down with memory at load, see sysctl.c).
 * A peer has one connection per local address and TOS it uses, so 1024 is
 * four addresses of ours with every TOS.
 */
#define RDS_IB_DEFAULT_ACCEPT_PER_PEER	1024
#define RDS_IB_DEFAULT_ACCEPT_MAX	16384
/* Ours: the smallest rings a connection is admitted with when memory is
 * short (mem.c); the sysctls may ask for smaller ones still.
 */
#define RDS_IB_MIN_SEND_WR		16
#define RDS_IB_MIN_RECV_WR		64
/* Ours: the receives of a domain's shared receive queue (srq.c), twice a
 * ring's, for all the domain's connections together.
 */
#define RDS_IB_DEFAULT_SRQ_WR		2048

/* The receive pollers (recv.c, srq.c): completions a run takes at most,
 * how many one ib_poll_cq() takes, and the re-arm that reports what came
 * while the CQ was unarmed.
 */
#define RDS_IB_RECV_BUDGET	64
#define RDS_IB_RECV_BATCH	16
#define RDS_IB_RECV_ARM		(IB_CQ_NEXT_COMP | IB_CQ_REPORT_MISSED_EVENTS)

/* Flow control: h_credit is a u8, so an update gives at most this many. */
#define RDS_IB_MAX_ADV_CREDIT		255
/* Receives posted since the last update that make one worth sending. */
#define RDS_IB_CREDIT_UPDATE		16

/* The connection private data, natural alignment: 32 bytes for IPv4, 56
 * for IPv6 (checked at build time).  Fields are only ever added at the end.
 */
struct rds_ib_conn_priv_cmn {
	u8	ricpc_protocol_major;
	u8	ricpc_protocol_minor;
	__be16	ricpc_protocol_minor_mask;
	u8	ricpc_dp_toss;
	u8	ripc_reserved1;
	__be16	ripc_reserved2;
	__be64	ricpc_ack_seq;
	__be32	ricpc_credit;		/* non-zero: the sender wants flow control */
};

struct rds_ib_connect_private {
	__be32				dp_saddr;
	__be32				dp_daddr;
	struct rds_ib_conn_priv_cmn	dp_cmn;
};

struct rds6_ib_connect_private {
	struct in6_addr			dp_saddr;
	struct in6_addr			dp_daddr;
	struct rds_ib_conn_priv_cmn	dp_cmn;
};

union rds_ib_conn_priv {
	struct rds_ib_connect_private	ricp_v4;
	struct rds6_ib_connect_private	ricp_v6;
};

struct rds_ib_mr;

/* An RDMA device we may use, one per ib_device (the ib_client's data).
 *
 * Lifetime: rd_ref.  The device list holds one from add until remove;
 * every path with a queue pair on the device holds one, and so does
 * rds_ib_domain_get() while it makes a domain.  Remove takes the device
 * off the list, makes every path on it fail, waits in rd_released for
 * the last reference (then no path has a queue pair here), then takes
 * every domain of the device down (rds_ib_domain_remove(): regions
 * unmapped, MRs deregistered, its own queue pair and PD destroyed):
 * a device leaves only when nothing of ours uses it, and never waits
 * for a user to free a region.
 * rd_lock (spinlock, irqs off) protects rd_conns (paths with a QP here)
 * and rd_dying (remove has begun: no path may join rd_conns, and no
 * domain rd_domains).  rd_domains and rd_domains_leaving (domains taken
 * off rd_domains by their last put, still giving back what they have on
 * the device: removal waits for them) are under rds_ib_domains_mutex
 * (domain.c).  rd_mr_used counts the regions mapped on the device in all
 * its domains (the device's region cap, mr.c).
 */
struct rds_ib_device {
	struct list_head	rd_item;		/* rds_ib_devices */
	struct ib_device	*rd_dev;
	refcount_t		rd_ref;
	struct completion	rd_released;
	spinlock_t		rd_lock;	/* rd_conns, rd_dying */
	struct list_head	rd_conns;
	bool			rd_dying;
	struct list_head	rd_domains;	/* rds_ib_domains_mutex */
	unsigned int		rd_domains_leaving; /* rds_ib_domains_mutex */
	atomic_t		rd_mr_used;	/* regions mapped, all domains */
	u32			rd_max_sge;
	u32			rd_max_sge_rd;	/* per RDMA READ */
	u32			rd_max_wr;
	u32			rd_max_srq_wr;	/* 0: no SRQ */
};

/* Work requests the queue pair of a domain may have in flight: the
 * registrations and invalidations of its regions, waited for one by one
 * except when a socket closes with many (mr.c).
 */
#define RDS_IB_DOMAIN_WRS	128
/* The bound on every wait for one of them (a registration, an
 * invalidation, room to post): then the queue pair is fenced, and a
 * release always returns with the key dead.
 */
#define RDS_IB_MR_WAIT		(5 * HZ)

/* A device as one network namespace sees it (struct rds_device of the
 * transport API): the protection domain of every queue pair and memory
 * region of that namespace on that device, so that a peer connected to
 * one namespace reaches no region of another; the regions mapped in it,
 * a pool of idle MRs per size, and a queue pair of its own, connected to
 * itself and never carrying a packet, on which the IB_WR_REG_MR and
 * IB_WR_LOCAL_INV of the regions are posted: no peer can stall them.
 *
 * Lifetime: dom_ref.  rds_ib_domain_get() finds the domain of (device,
 * netns) on rd_domains or makes it, under rds_ib_domains_mutex; every
 * path with a queue pair in it and every region registered in it hold a
 * reference.  The last put takes it off rd_domains (under that mutex),
 * then frees it with all it has (under dom_mutex only).  Device removal
 * takes the device's share first (rds_ib_domain_remove(), after every
 * path is gone): regions unmapped and MRs deregistered, queue pair, CQ
 * and PD destroyed, dom_rdev cleared: what is left is this struct, for
 * the regions that still point at it.
 *
 * Locks: rds_ib_domains_mutex (domain.c) -> dom_mutex -> dom_lock.
 * dom_mutex (sleeps) protects dom_rdev and dom_pd (while the domain is
 * on rd_domains, changed under rds_ib_domains_mutex too), dom_mrs, each
 * region's mapping and the queue
 * pair's life (dom_qp, dom_cq, dom_qp_broken); dom_lock (spinlock, irqs
 * off) the pools, the count of free send slots (dom_sq_free) and each
 * region's ibmr_state.  The driver's ib_dereg_mr() is called under
 * dom_mutex, never under a lock other namespaces share.
 */
struct rds_ib_domain {
	struct rds_device	dom_dev;
	struct list_head	dom_item;	/* rd_domains, rds_ib_domains_mutex */
	refcount_t		dom_ref;
	struct rds_ib_device	*dom_rdev;	/* NULL once removed */
	struct ib_pd		*dom_pd;
	struct mutex		dom_mutex;	/* see above */
	spinlock_t		dom_lock;	/* see above */
	struct list_head	dom_mrs;	/* regions mapped here */
	unsigned int		dom_mr_used;	/* on dom_mrs, dom_mutex */
	struct list_head	dom_mr_pool[RDS_IB_MR_CLASSES];
	unsigned int		dom_mr_pooled[RDS_IB_MR_CLASSES];
	/* Its own queue pair, made at the first registration. */
	struct ib_cq		*dom_cq;
	struct ib_qp		*dom_qp;
	int			dom_sq_free;	/* dom_lock */
	bool			dom_qp_broken;	/* fenced: remade when idle */
	wait_queue_head_t	dom_wq;		/* room, completions */
	/* The shared receive queue of its connections, while any has a
	 * queue pair on it (srq.c); dom_mutex.
	 */
	struct rds_ib_srq	*dom_srq;
};

static inline struct rds_ib_domain *rds_ib_dom(struct rds_device *dev)
{
	return container_of(dev, struct rds_ib_domain, dom_dev);
}

/* A send slot: one fragment in flight, from post to its (or a later)
 * signaled completion.  The header and data buffers are the slot's own,
 * mapped for the device while the queue pair lives (the data buffer from
 * the slot's first fragment with data on): we copy the fragment in, so no
 * message is referenced by a fragment.  With zero-copy sends
 * (net.rds.ib.send_zerocopy) the fragments point into the message's own
 * pages instead, and the slot of a message's last fragment holds the
 * message and its mapping (s_zc_rm) until its completion, always
 * signaled (send.c, "Zero-copy send").
 *
 * A slot may carry another work request instead, always signaled, whose
 * completion lets go of what it holds before the slot is free again: an
 * RDMA READ or WRITE of a message's operation (s_rm, a message reference).
 * Memory regions are registered on their domain's own queue pair, never
 * on a connection's.
 */
struct rds_ib_send_slot {
	struct ib_cqe		s_cqe;
	union {
		struct ib_send_wr	s_wr;
		struct ib_rdma_wr	s_rdma_wr;
		struct ib_atomic_wr	s_atomic_wr;
	};
	struct rds_message	*s_rm;
	struct rds_message	*s_zc_rm;	/* mapped, a reference */
	struct ib_sge		s_sge[2];
	struct rds_header	*s_hdr;
	u64			s_hdr_dma;
	void			*s_data;
	u64			s_data_dma;
	u32			s_index;
};

/* The receive pages of one ring (one queue pair of a path): those in its
 * slots and those its messages took, until each message is freed, which
 * may be long after the ring and its connection are gone (an unread
 * message on a socket).  rb_held counts them up to rb_reserve, the
 * ring's size, rb_extra those beyond; all count in the global total too
 * (max_recv_allocation, recv.c).  Up to rb_reserve a ring may always hold
 * pages, whatever the others hold: its admission counted them against
 * max_ring_memory (mem.c), so it can keep its receives posted while it
 * delivers, and a socket that never reads stops only its own connection
 * once its ring is used up.  Beyond its ring it takes pages only while
 * both totals are under their caps; those go back first.
 *
 * Lifetime: rb_ref.  Every slot of the ring holds one from the ring's
 * first refill until rds_ib_recv_slot_release() (the ring's free, in
 * shutdown or a failed setup), and every message with pages from it
 * (ii_budget) holds one until rds_ib_inc_free(); the last gives the
 * ring's admitted receive pages back to the bound.  No lock: pages are only
 * charged by the ring's refill, which runs under i_mutex (or before the
 * ring is published), and uncharged anywhere, atomically.
 */
struct rds_ib_recv_budget {
	refcount_t		rb_ref;
	atomic_t		rb_held;	/* within rb_reserve */
	atomic_t		rb_extra;	/* beyond it */
	u32			rb_reserve;
	u32			rb_mem;		/* pages admitted, mem.c */
};

/* A receive slot.  r_page and r_ibinc are what the next fragment lands in;
 * the completion takes them when a message needs them and the receive
 * work (process context) puts new ones in before posting the slot again.
 * r_budget is its ring's, what r_page is charged to (all slots of a ring
 * have the same one, set at the ring's first refill).
 */
struct rds_ib_recv_slot {
	struct ib_cqe		r_cqe;
	struct ib_recv_wr	r_wr;
	struct ib_sge		r_sge[RDS_IB_RECV_SGE];
	struct rds_header	*r_hdr;
	u64			r_hdr_dma;
	struct page		*r_page;
	u64			r_page_dma;
	struct rds_ib_incoming	*r_ibinc;
	struct llist_node	r_free;		/* i_recv_free */
	struct rds_ib_recv_budget	*r_budget;
};

/* A received message: its header, then its data pages (page->lru),
 * charged to ii_budget (a reference) until the message is freed.
 */
struct rds_ib_incoming {
	struct list_head	ii_pages;
	struct rds_incoming	ii_inc;
	struct rds_ib_recv_budget	*ii_budget;
};

#define RDS_IB_SRQ_HASH_BITS	6

/* A shared receive queue: one pool of receive slots for every connection
 * of a domain (device, netns), in place of a ring each, and one receive
 * CQ for them all, polled by s_iop.  A completion names its queue pair
 * (wc->qp), which s_qps maps to the connection whose reassembly it
 * continues; the pointer is only compared, never followed, as the QP may
 * be gone when a completion of it is polled.
 *
 * Lifetime: made by the first connection of the domain to set up a queue
 * pair (rds_ib_srq_get(), under dom_mutex: dom_srq), destroyed when the
 * last such queue pair is (s_users, dom_mutex): every QP is gone then,
 * and so is every completion, and the slots, posted or not, are freed.
 * A slot the device took and never completed (rxe in 6.1 loses the one a
 * QP was filling when it is destroyed before it is flushed) is lost to
 * the pool until then.  Its pages are charged to s_budget, which, like a
 * ring's, lives until the last message with one of them is freed.
 *
 * s_mutex serializes the queue pairs' joining and leaving (a QP made and
 * entered in s_qps; a QP destroyed, the CQ polled dry and the entry
 * removed: a new QP at a freed one's address cannot take its stale
 * completions) and the refill (s_dead: no post after destroy begins).
 * s_qps is read by the poller under RCU.  s_free and s_unposted are what
 * the poller and the refill share, lock free, as a ring's.
 */
struct rds_ib_srq {
	struct rds_ib_domain	*s_dom;
	struct ib_device	*s_dev;
	struct ib_srq		*s_srq;
	struct ib_cq		*s_cq;
	struct irq_poll		s_iop;
	struct rds_recv_batch	s_batch;	/* the poller's run */
	struct ib_wc		s_wc[RDS_IB_RECV_BATCH];
	struct mutex		s_mutex;	/* see above */
	bool			s_dead;
	unsigned int		s_users;	/* dom_mutex */
	DECLARE_HASHTABLE(s_qps, RDS_IB_SRQ_HASH_BITS);

	struct rds_ib_recv_slot	*s_slots;
	u32			s_nr;
	u32			s_refill_batch;
	struct llist_head	s_free;		/* slots to post again */
	atomic_t		s_unposted;
	struct delayed_work	s_refill_w;
	struct rds_ib_recv_budget	*s_budget;
	struct rds_ib_net	*s_rin;		/* its netns's share */
	u32			s_mem;		/* pages admitted, mem.c */
};

/* Waits out a CQ's poller before the CQ goes.  irq_poll_disable() waits
 * for a poller that is scheduled, but a poller (ib_cq's, for
 * IB_POLL_SOFTIRQ, and ours) clears that bit in irq_poll_complete() and
 * then re-arms the CQ: on another CPU it may still be about to touch the
 * CQ when irq_poll_disable() returns, and ib_free_cq()'s own wait is the
 * same (seen on two CPUs: ib_poll_handler() oopsed on a freed send CQ
 * while connections came and went by the thousand).  Pollers run in
 * softirq, bottom halves off, which a grace period waits out.  Call it
 * once nothing can schedule the poller again: its QP gone, or the poller
 * disabled.
 */
static inline void rds_ib_cq_quiesce(void)
{
	synchronize_rcu();
}

/* Maps @buf for the device: 0, or -ENOMEM when the mapping failed. */
static inline int rds_ib_map(struct ib_device *dev, void *buf, size_t len,
			     enum dma_data_direction dir, u64 *dma)
{
	*dma = ib_dma_map_single(dev, buf, len, dir);
	return ib_dma_mapping_error(dev, *dma) ? -ENOMEM : 0;
}

/* Counters in RDS_INFO_COUNTERS, by in-tree's names. */
enum rds_ib_stat {
	RDS_IB_STAT_TX_RING_FULL,
	RDS_IB_STAT_TX_THROTTLE,
	RDS_IB_STAT_TX_CREDIT_UPDATES,
	RDS_IB_STAT_RX_ALLOC_LIMIT,
	RDS_IB_STAT_RX_TOTAL_FRAGS,
	RDS_IB_STAT_RX_TOTAL_INCS,
	RDS_IB_STAT_RX_CREDIT_UPDATES,
	RDS_IB_STAT_ACK_SENT,
	RDS_IB_STAT_ACK_SEND_FAILURE,
	RDS_IB_STAT_ACK_SEND_PIGGYBACKED,
	RDS_IB_STAT_ACK_RECEIVED,
	RDS_IB_STAT_RDMA_MR_8K_ALLOC,
	RDS_IB_STAT_RDMA_MR_8K_FREE,
	RDS_IB_STAT_RDMA_MR_8K_REUSED,
	RDS_IB_STAT_RDMA_MR_1M_ALLOC,
	RDS_IB_STAT_RDMA_MR_1M_FREE,
	RDS_IB_STAT_RDMA_MR_1M_REUSED,
	RDS_IB_STAT_RDMA_MR_INVALIDATE,
	RDS_IB_STAT_ACCEPT_ADDR_MISMATCH,
	RDS_IB_STAT_ACCEPT_OVER_LIMIT,
	RDS_IB_STAT_RX_ALLOC_RESERVE,
	RDS_IB_STAT_CONNECT_TIMEOUT,
	RDS_IB_STAT_ACK_QUIET,
	RDS_IB_STAT_RING_SHRUNK,
	RDS_IB_STAT_RING_REFUSED,
	RDS_IB_STAT_RX_BAD_FRAG_LEN,
	RDS_IB_STAT_SRQ_CREATED,
	RDS_IB_STAT_SRQ_QP,
	RDS_IB_STAT_SRQ_REFILL_SHORT,
	RDS_IB_STAT_TX_ZEROCOPY,
	RDS_IB_STAT_TX_ZEROCOPY_COPIED,
	RDS_IB_STAT_RX_PAGE_RECYCLED,
	RDS_IB_STAT_NR
};

struct rds_ib_statistics {
	u64	s[RDS_IB_STAT_NR];
};

DECLARE_PER_CPU(struct rds_ib_statistics, rds_ib_stats);

static inline void rds_ib_stats_inc(enum rds_ib_stat which)
{
	this_cpu_inc(rds_ib_stats.s[which]);
}

/* i_ack_flags bits */
enum {
	RDS_IB_ACK_REQUESTED,	/* the peer asked; send an ack soon */
	RDS_IB_ACK_IN_FLIGHT,	/* i_ack_hdr is posted */
	RDS_IB_PEER_LOW,	/* the peer's data ran its credits low */
};

/* Where a zero-copy message's next fragment starts in its scatterlist,
 * as mapped for the device: mapping may merge entries, so the walk is
 * bounded by the entries the mapping returned, not by the list's end.
 */
struct rds_ib_zc_cursor {
	struct scatterlist	*sg;
	unsigned int		left;	/* mapped entries from sg on */
	unsigned int		sg_off;	/* bytes of sg already sent */
	unsigned int		pos;	/* the payload offset */
};

/* Per path state: the ca_data of a path's home carrier (cp_home); IB has
 * one path per connection.
 *
 * Lifetime: allocated and freed with the connection.  A path is attached
 * to at most one rdma_cm id at a time: the connect work creates it (active
 * side) or the listener's request handler adopts it (passive side), and
 * t->conn_path_shutdown() detaches and destroys it.  Everything hanging off
 * the id (QP, CQs, rings, device reference) comes and goes with it.
 *
 * i_mutex protects the attachment: i_cm_id, i_dev, i_dom, i_qp, i_send_cq,
 * i_recv_cq (and its poller) and the rings' memory.  Event handlers check
 * under it that the event's id is still i_cm_id before acting; shutdown
 * clears i_cm_id under it and only then disconnects, drains and destroys,
 * unlocked.
 *
 * The send ring belongs to the sender (RDS_IN_XMIT) at i_send_head and to
 * the send completion at i_send_tail; i_send_free, an atomic, is what they
 * share.  The receive reassembly state (i_ibinc, i_recv_rem) belongs to the
 * receive completion.  Completions stop when shutdown has drained the QP.
 */
struct rds_ib_connection {
	struct rds_conn_path	*i_cp;
	struct list_head	i_dev_item;	/* rd_conns, rd_lock */

	struct mutex		i_mutex;	/* see above */
	struct rdma_cm_id	*i_cm_id;
	struct rds_ib_device	*i_dev;
	struct rds_ib_domain	*i_dom;		/* i_qp's PD */
	struct ib_qp		*i_qp;
	struct ib_cq		*i_send_cq;
	struct ib_cq		*i_recv_cq;
	bool			i_isv6;
	bool			i_peer_local;	/* faddr is ours too (tests) */
	u16			i_proposed_version;	/* next connect's offer */
	/* While attached to an id we accepted: what it counts against. */
	struct rds_ib_peer	*i_accept_peer;
	/* The attempt's deadline (cm.c, "Connect deadline"): when the id
	 * was attached, under i_mutex, and the work that checks it.
	 */
	unsigned long		i_connect_start;
	struct delayed_work	i_connect_w;

	/* send ring */
	struct rds_ib_send_slot	*i_sends;
	u32			i_send_nr;
	u32			i_send_head;
	u32			i_send_tail;
	atomic_t		i_send_free;
	u32			i_unsignaled;
	u32			i_max_unsignaled;
	u32			i_max_send_sge;	/* per RDMA work request */
	u32			i_max_read_sge;	/* per RDMA READ */
	bool			i_send_full;	/* a sender waits for room */
	/* Zero-copy sends (send.c): on for this queue pair; the message
	 * being sent, mapped for the device, a reference, until its last
	 * fragment's slot takes it (or shutdown, after the drain); and
	 * where its next fragment starts in the mapped scatterlist.  The
	 * sender's (RDS_IN_XMIT), like i_send_head.
	 */
	bool			i_send_zc;
	struct rds_message	*i_zc_rm;
	struct rds_ib_zc_cursor	i_zc;
	/* The first failed send completion of this QP, as 1 + its status (0:
	 * none yet); what the flushed work requests behind it were spared.
	 */
	int			i_send_error;

	/* Flow control (see send.c), on when both sides asked for it.
	 * i_credits: the peer's receives we may still fill (low 16 bits),
	 * and our receives posted since we last told the peer (high 16).
	 * i_peer_credits: what the peer may still send us, as we see it.
	 */
	bool			i_flowctl;
	atomic_t		i_credits;
	atomic_t		i_peer_credits;
	u32			i_credit_batch;	/* receives worth an update */

	/* the ack-only fragment */
	struct ib_cqe		i_ack_cqe;
	struct ib_send_wr	i_ack_wr;
	struct ib_sge		i_ack_sge;
	struct rds_header	*i_ack_hdr;
	u64			i_ack_hdr_dma;
	unsigned long		i_ack_flags;
	atomic64_t		i_ack_next;	/* highest seq we have */
	atomic64_t		i_ack_told;	/* highest h_ack we posted */
	u64			i_ack_recv;	/* highest ack the peer sent */
	unsigned long		i_ack_told_at;	/* jiffies of i_ack_told */
	/* The quiet path's ack (recv.c): armed by a receive that asked for
	 * none, run on rds_wq, re-arming itself while acks still go out;
	 * cancelled by shutdown once the QP is drained, as nothing arms it
	 * after that (cancel_delayed_work_sync() stops the re-arming too).
	 */
	struct delayed_work	i_ack_quiet_w;

	/* The receive CQ's poller (recv.c): scheduled by its completion
	 * event, one run at a time; the batch is the run's, and empty
	 * between runs (each run ends it).
	 */
	struct irq_poll		i_recv_iop;
	struct ib_wc		*i_recv_wc;	/* what one ib_poll_cq() takes */
	struct rds_recv_batch	i_recv_batch;

	/* receive ring */
	struct rds_ib_recv_slot	*i_recvs;
	u32			i_recv_nr;
	struct llist_head	i_recv_free;	/* slots waiting for a refill */
	atomic_t		i_recv_unposted; /* how many: see recv.c */
	struct rds_ib_incoming	*i_ibinc;	/* being reassembled */
	u32			i_recv_rem;	/* its payload bytes still due */
	/* Or, with no ring (i_recv_nr 0), the domain's SRQ, and our entry
	 * in its table of queue pairs (s_qps), under i_mutex with i_qp.
	 */
	struct rds_ib_srq	*i_srq;
	struct hlist_node	i_srq_node;

	/* What the rings were admitted with (mem.c), in pages, under
	 * i_mutex with the rings: the netns charged, the send part, the
	 * receive part until the ring's budget takes it, and after.
	 */
	struct rds_ib_net	*i_mem_rin;
	u32			i_mem_send;
	u32			i_mem_recv;
	u32			i_mem_recv_given;
};

static inline struct rds_connection *rds_ib_conn(struct rds_ib_connection *ic)
{
	return ic->i_cp->cp_conn;
}

/* The connections a netns accepted from one peer address (rin_peers),
 * while any are attached.
 */
struct rds_ib_peer {
	struct hlist_node	rp_node;
	struct in6_addr		rp_addr;
	unsigned int		rp_accepted;
};

#define RDS_IB_PEER_HASH_BITS	8

/* Per network namespace: the two listeners, and what was accepted.
 *
 * Every rdma_cm id holds a reference on its netns, so what we keep for a
 * netns keeps it alive.  init_net never goes: it listens from module load
 * to unload, as in-tree.  Any other netns has listeners and connections
 * only while sockets there are bound through us (rin_socks): the first
 * bind starts the listeners, the last release stops them and destroys the
 * netns's connections, and then nothing of ours holds the netns.
 * rin_lock protects rin_socks and the listener pointers.
 *
 * A peer's requests make us build a queue pair with its rings (about 1 MiB
 * of send buffers and up to max_recv_wr receive pages) for each
 * connection accepted, so the paths attached to an accepted id are
 * counted, per peer address and in all, against two sysctls
 * (max_accepted_per_peer, max_accepted).  rin_accept_lock (a leaf)
 * protects the counts and rin_peers.
 */
struct rds_ib_net {
	struct net		*rin_net;
	struct mutex		rin_lock;	/* rin_socks, listeners */
	unsigned int		rin_socks;
	struct rdma_cm_id	*rin_listen;
	struct rdma_cm_id	*rin_listen6;

	atomic_long_t		rin_ring_pages;	/* its rings' share, mem.c */
	spinlock_t		rin_accept_lock;	/* counts, rin_peers */
	unsigned int		rin_accepted;
	u32			rin_peer_seed;
	DECLARE_HASHTABLE(rin_peers, RDS_IB_PEER_HASH_BITS);
};

extern struct rds_transport rds_ib_transport;
struct rds_ib_net *rds_ib_net(struct net *net);
extern struct ib_client rds_ib_client;
extern struct kmem_cache *rds_ib_incoming_slab;

/* Sysctls (sysctl.c), read when a queue pair is set up; the accept
 * limits at each connect request.
 */
extern unsigned long rds_ib_sysctl_max_send_wr;
extern unsigned long rds_ib_sysctl_max_recv_wr;
extern unsigned long rds_ib_sysctl_max_unsig_wrs;
extern unsigned int rds_ib_sysctl_retry_count;
extern unsigned int rds_ib_sysctl_ack_timeout;
extern unsigned int rds_ib_sysctl_flow_control;
extern unsigned long rds_ib_sysctl_max_recv_allocation;
extern unsigned long rds_ib_sysctl_max_ring_memory;
extern unsigned long rds_ib_sysctl_max_ring_memory_netns;
extern struct workqueue_struct *rds_ib_refill_wq;	/* ib.c */
extern unsigned int rds_ib_sysctl_srq;
extern unsigned int rds_ib_sysctl_send_zerocopy;
extern unsigned int rds_ib_sysctl_recv_page_cache;
extern unsigned long rds_ib_sysctl_srq_max_wr;
extern unsigned int rds_ib_sysctl_max_mrs_per_device;
extern unsigned int rds_ib_sysctl_max_mrs_per_netns;
extern unsigned int rds_ib_sysctl_max_accepted_per_peer;
extern unsigned int rds_ib_sysctl_max_accepted;
int rds_ib_sysctl_init(void);
void rds_ib_sysctl_exit(void);

/* device.c */
int rds_ib_device_init(void);
void rds_ib_device_exit(void);
struct rds_ib_device *rds_ib_device_get(struct ib_device *dev);
void rds_ib_device_put(struct rds_ib_device *rdev);
bool rds_ib_device_add_conn(struct rds_ib_device *rdev,
			    struct rds_ib_connection *ic);
void rds_ib_device_del_conn(struct rds_ib_device *rdev,
			    struct rds_ib_connection *ic);

/* domain.c */
struct rds_ib_domain *rds_ib_domain_get(struct rds_ib_device *rdev,
					struct net *net);
void rds_ib_domain_put(struct rds_ib_domain *dom);
void rds_ib_domain_remove(struct rds_ib_device *rdev);
int rds_ib_domain_post(struct rds_ib_domain *dom, struct ib_send_wr *wr);
void rds_ib_domain_done(struct rds_ib_domain *dom);
void rds_ib_domain_fence(struct rds_ib_domain *dom);
bool rds_ib_domain_kill_qp(struct rds_ib_domain *dom);
struct rds_device *rds_ib_device_get_api(struct net *net,
					 const struct in6_addr *laddr,
					 u32 scope_id);
void rds_ib_device_put_api(struct rds_device *dev);

/* ib.c */
struct rds_ib_device *rds_ib_addr_device(struct net *net,
					 const struct in6_addr *addr,
					 u32 scope_id);

/* mr.c */
int rds_ib_mr_register(struct rds_device *dev, struct rds_mr *mr);
void rds_ib_mr_invalidate(struct rds_mr *mr);
void rds_ib_mr_release(struct rds_mr *mr, bool invalidate);
void rds_ib_mr_sync(struct rds_mr *mr, enum dma_data_direction dir);
void rds_ib_mr_domain_remove(struct rds_ib_domain *dom);

/* mem.c */
int rds_ib_mem_admit(struct rds_ib_connection *ic, struct rds_ib_net *rin,
		     u32 *send_nr, u32 *recv_nr);
int rds_ib_mem_admit_srq(struct rds_ib_net *rin, u32 *nr);
void rds_ib_mem_release_srq(struct rds_ib_net *rin, u32 pages);
void rds_ib_mem_release(struct rds_ib_connection *ic);
u32 rds_ib_mem_recv_take(struct rds_ib_connection *ic);
void rds_ib_mem_put(unsigned long pages);
bool rds_ib_mem_get_extra(void);
unsigned long rds_ib_mem_pages(void);

/* cm.c */
int rds_ib_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev);
void rds_ib_sockaddr(struct sockaddr_storage *ss, const struct in6_addr *addr,
		     u16 port, int dev_if);
int rds_ib_listen_init(struct rds_ib_net *rin);
void rds_ib_listen_stop(struct rds_ib_net *rin);
int rds_ib_conn_path_connect(struct rds_carrier *ca);
void rds_ib_connect_expired(struct work_struct *work);
void rds_ib_conn_path_shutdown(struct rds_carrier *ca);
void rds_ib_req_barrier(void);

/* qp.c */
int rds_ib_qp_setup(struct rds_ib_connection *ic, struct rdma_cm_id *cm_id);
void rds_ib_qp_teardown(struct rds_ib_connection *ic, struct rdma_cm_id *cm_id);

/* send.c */
int rds_ib_xmit(struct rds_conn_path *cp, struct rds_message *rm,
		unsigned int *pos);
void rds_ib_xmit_path_complete(struct rds_conn_path *cp);
int rds_ib_xmit_rdma(struct rds_conn_path *cp, struct rds_message *rm);
bool rds_ib_send_room(struct rds_ib_connection *ic, u32 nr);
void rds_ib_send_ring_init(struct rds_ib_connection *ic);
void rds_ib_attempt_ack(struct rds_ib_connection *ic);
void rds_ib_ack_quiet(struct work_struct *work);
void rds_ib_send_done(struct ib_cq *cq, struct ib_wc *wc);
/* Zero-copy sends: lets go of a message's mapping and reference (*@rm,
 * then NULL); of the one being sent, once the queue pair is drained.
 */
void rds_ib_zc_unmap(struct ib_device *dev, struct rds_message **rm);
void rds_ib_zc_release(struct rds_ib_connection *ic, struct ib_device *dev);
void rds_ib_ack_done(struct ib_cq *cq, struct ib_wc *wc);

/* send.c: flow control */
void rds_ib_credits_init(struct rds_ib_connection *ic, bool flowctl);
void rds_ib_credits_add(struct rds_ib_connection *ic, unsigned int credits);
void rds_ib_credits_posted(struct rds_ib_connection *ic, unsigned int posted);
u32 rds_ib_credits_advertise_all(struct rds_ib_connection *ic);

/* info.c */
void rds_ib_info_init(void);
void rds_ib_info_exit(void);
unsigned int rds_ib_stats_info_copy(struct rds_info_iterator *iter,
				    unsigned int avail);

/* srq.c */
struct rds_ib_srq *rds_ib_srq_get(struct rds_ib_domain *dom,
				  struct rds_ib_device *rdev);
void rds_ib_srq_put(struct rds_ib_srq *srq);
int rds_ib_srq_create_qp(struct rds_ib_srq *srq, struct rds_ib_connection *ic,
			 struct rdma_cm_id *cm_id,
			 struct ib_qp_init_attr *attr);
void rds_ib_srq_destroy_qp(struct rds_ib_srq *srq,
			   struct rds_ib_connection *ic,
			   struct rdma_cm_id *cm_id);

/* recv.c */
int rds_ib_recv_path(struct rds_conn_path *cp);
struct rds_ib_recv_budget *rds_ib_recv_budget_new(u32 nr, u32 mem, gfp_t gfp);
struct rds_ib_recv_slot *rds_ib_recv_slots_alloc(struct ib_device *dev,
						 u32 nr,
						 struct llist_head *free);
void rds_ib_recv_slots_free(struct ib_device *dev,
			    struct rds_ib_recv_slot *slots, u32 nr);
int rds_ib_recv_cache_init(void);
void rds_ib_recv_cache_exit(void);
int rds_ib_recv_slot_fill(struct ib_device *dev, struct rds_ib_recv_slot *slot,
			  gfp_t gfp);
void rds_ib_recv_wr_prep(struct ib_device *dev, u32 lkey,
			 struct rds_ib_recv_slot *slot);
const char *rds_ib_recv_frag(struct rds_ib_connection *ic,
			     struct rds_ib_recv_slot *slot, u32 len,
			     struct rds_recv_batch *batch);
int rds_ib_recv_refill(struct rds_ib_connection *ic, gfp_t gfp,
		       unsigned int max);
int rds_ib_recv_cq_create(struct rds_ib_connection *ic, struct ib_device *dev,
			  u32 vector);
void rds_ib_recv_cq_destroy(struct rds_ib_connection *ic);
void rds_ib_recv_reset(struct rds_ib_connection *ic);
void rds_ib_recv_slot_release(struct ib_device *dev,
			      struct rds_ib_recv_slot *slot);
int rds_ib_inc_copy_to_user(struct rds_incoming *inc, struct iov_iter *to);
void rds_ib_inc_free(struct rds_incoming *inc);

#endif /* _RDS_IB_H */
