/* SPDX-License-Identifier: GPL-2.0 */
/* A socket's send buffer, counted per destination, so that one peer that
 * stops acknowledging holds only its own share of it (see sndbuf.c).
 */
#ifndef _RDS_SNDBUF_H
#define _RDS_SNDBUF_H

#include <linux/types.h>

struct rds_message;
struct rds_sock;

/* The messages and bytes a socket has queued for one destination address,
 * whether a send there was refused since it last had room, and the
 * socket's count of successful sends at the last refusal (POLLOUT's rule,
 * see sndbuf.c).
 *
 * Lifetime: created by the first message queued for its address, freed
 * (or kept as the socket's one spare) when the last one leaves: counted in
 * messages, not bytes, as a message may have none (RDMA only, a ping).  A
 * queued message points at its entry (m_sndbuf), which therefore outlives
 * it.  Everything here is under the socket's rs_lock.
 */
struct rds_sndbuf_dest {
	struct hlist_node	d_node;		/* rs_dests */
	struct in6_addr		d_addr;
	u32			d_bytes;	/* what they cost, see sndbuf.c */
	u32			d_msgs;
	u32			d_refused_gen;	/* rs_sent_gen then */
	bool			d_refused;
};

extern unsigned int rds_sysctl_sndbuf_dests;

/* rs_lock held.  0 when @rm may be queued (it then counts), or why not:
 * -ENOBUFS when its destination holds its share, -EAGAIN when the socket
 * holds its whole budget, -ENOMEM when no entry could be had for a new
 * destination (call rds_sndbuf_prealloc() without the lock first).
 * @nonblock: a refusal is the caller's EAGAIN, not a wait (POLLOUT's rule
 * in sndbuf.c tells the two apart).  *@wake: the socket's queue must be
 * woken once rs_lock is dropped (the wakeup rule in sndbuf.c: a send may
 * give POLLOUT back to a poller).
 */
int rds_sndbuf_charge(struct rds_sock *rs, struct rds_message *rm,
		      bool nonblock, bool *wake);
/* rs_lock held: @rm leaves the socket.  True when a sender waiting for
 * room (sendmsg or poll) may now have it: the socket's queue must then be
 * woken once rs_lock is dropped, or a poller may sleep through its room.
 */
bool rds_sndbuf_uncharge(struct rds_sock *rs, struct rds_message *rm);
/* Whether the socket's next message to @rm's destination wants an ack
 * soon: that destination holds half its share or more.  rs_lock held.
 */
bool rds_sndbuf_half_full(struct rds_sock *rs, struct rds_message *rm);
/* POLLOUT, see sndbuf.c.  rs_lock held; call it after registering on the
 * socket's queue, as a "no" to a poller that @waits for POLLOUT is
 * answered by a wakeup there later.
 */
bool rds_sndbuf_writable(struct rds_sock *rs, bool waits);
/* Without rs_lock, may sleep: makes sure a new destination finds an entry. */
void rds_sndbuf_prealloc(struct rds_sock *rs);
/* At the socket's destruction: nothing is queued any more. */
void rds_sndbuf_destruct(struct rds_sock *rs);

#endif /* _RDS_SNDBUF_H */
