// SPDX-License-Identifier: GPL-2.0
/* A socket's send buffer, counted per destination address.
 *
 * In-tree RDS counts one socket's queued bytes in one sum against
 * SO_SNDBUF.  Messages leave that sum only when the peer acknowledges them,
 * so a peer that dies or stops reading keeps its messages there until its
 * connection fails, minutes later over TCP; meanwhile every send of the
 * socket, to any other peer, is refused or blocks.  Here SO_SNDBUF bounds
 * what one destination may hold, and the socket as a whole may hold
 * net.rds.sndbuf_dests times that.  A socket that talks to one destination
 * is limited exactly as in-tree; with sndbuf_dests at 1 every socket is.
 *
 * poll() names no destination, yet POLLOUT must not spin a sender whose
 * one destination is full, nor hide a free destination from an event loop
 * that sends to each of its peers in turn and then polls, while one of
 * them is dead.  The rule: POLLOUT is on when the socket is below its
 * whole budget and the destination of its most recent send attempt
 * (rs_pollout_dest) is below its share, or has nothing queued.  An attempt
 * is a send that succeeds, a blocking send that is refused (its task then
 * waits for that destination), or a refusal of a non-blocking send for a
 * destination's full share that repeats that destination's previous
 * refusal with no send of the socket succeeding in between.  Any other
 * non-blocking refusal leaves POLLOUT where it was: the sender got its
 * EAGAIN and, having sent elsewhere since, is going round its peers; the
 * full one may not make it wait for nothing but that one's acks.  So:
 *  - a socket that talks to one destination sees in-tree's POLLOUT (room
 *    below its share, which is its whole buffer with sndbuf_dests=1);
 *  - a sender that sends to a dead peer X and a live one Y in turn, in
 *    either order, is told about Y's room (a send to X is refused at once,
 *    and X's room, if it comes, is seen by trying X);
 *  - a sender whose only destinations are full does not spin: its second
 *    refusal in a row, at the latest, takes POLLOUT to a full destination.
 * Blocking senders wait for their own destination; uncharging wakes them
 * when a destination that refused someone, or the socket's whole budget,
 * has room again.
 *
 * No poll() may sleep through the room it waits for.  A send that succeeds
 * may itself take the socket to its budget or its destination to its share
 * (the test is "below" before the message is added, as in-tree), so
 * "somebody was refused" does not cover every state in which POLLOUT is
 * off.  The rule: whoever changes the state under rs_lock (charge,
 * uncharge) and finds POLLOUT on where it was off before, or on while
 * rs_want_room says somebody saw it off, wakes the socket's queue, on
 * which poll(), epoll and select sleep with blocked senders.  rs_want_room
 * is set, under the same rs_lock, by every evaluation of POLLOUT that
 * finds it off for a poller that waits for POLLOUT, and by every refused
 * send: it carries the news across what the state alone cannot show, a
 * sysctl or SO_SNDBUF change between the poll and the ack.  The wakeup is
 * keyed POLLOUT: pollers that wait for POLLIN alone sleep on.  poll()
 * registers on the queue before it takes rs_lock (sock_poll_wait), and the
 * waker looks for sleepers after it released rs_lock (skwq_has_sleeper),
 * so of a poll() and an uncharge racing on two CPUs, either poll() sees
 * the room or the uncharge sees the flag and the sleeper (the same order
 * as sk_stream_wait_memory() with SOCK_NOSPACE and
 * sk_stream_write_space()).
 */
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/slab.h>
#include <net/ipv6.h>

#include <rds/transport.h>
#include "sndbuf.h"
#include "socket.h"

/* How many SO_SNDBUFs one socket may fill in all; see above. */
unsigned int rds_sysctl_sndbuf_dests = 4;

static u64 rds_sndbuf_budget(struct rds_sock *rs)
{
	return (u64)rds_sk_sndbuf(rs) * READ_ONCE(rds_sysctl_sndbuf_dests);
}

/* What a message costs the send buffer: its payload, and for one with
 * none or little (a ping, an RDMA or atomic operation's message) a
 * header's worth.  In-tree counts payload only, so that any number of
 * empty messages fits a full buffer, each still a struct rds_message held
 * until its peer acknowledges it: to a dead peer, without bound.  Larger
 * messages cost what they cost in-tree.
 */
static u32 rds_sndbuf_cost(const struct rds_message *rm)
{
	return max_t(u32, rm->m_len, sizeof(struct rds_header));
}

static struct rds_sndbuf_dest *rds_sndbuf_find(struct rds_sock *rs,
					       const struct in6_addr *addr)
{
	struct rds_sndbuf_dest *d;

	hash_for_each_possible(rs->rs_dests, d, d_node, ipv6_addr_hash(addr))
		if (ipv6_addr_equal(&d->d_addr, addr))
			return d;
	return NULL;
}

/* POLLOUT, see above.  rs_lock held. */
static bool rds_sndbuf_room(struct rds_sock *rs)
{
	struct rds_sndbuf_dest *d = rs->rs_pollout_dest;

	return rs->rs_snd_bytes < rds_sndbuf_budget(rs) &&
	       (!d || d->d_bytes < rds_sk_sndbuf(rs));
}

/* rs_lock held, the state just changed: whether pollers must be woken,
 * @had_room being POLLOUT before the change.  The wakeup rule above.
 */
static bool rds_sndbuf_wake_pollers(struct rds_sock *rs, bool had_room)
{
	if ((had_room && !rs->rs_want_room) || !rds_sndbuf_room(rs))
		return false;
	rs->rs_want_room = false;
	return true;
}

int rds_sndbuf_charge(struct rds_sock *rs, struct rds_message *rm,
		      bool nonblock, bool *wake)
{
	struct rds_sndbuf_dest *d = rds_sndbuf_find(rs, &rm->m_daddr);
	bool had_room = rds_sndbuf_room(rs);
	int ret;

	*wake = false;
	if (d && d->d_bytes >= rds_sk_sndbuf(rs)) {
		/* Going round its peers, or stuck on this one?  See above. */
		if (!nonblock || d->d_refused_gen == rs->rs_sent_gen)
			rs->rs_pollout_dest = d;
		d->d_refused = true;
		d->d_refused_gen = rs->rs_sent_gen;
		ret = -ENOBUFS;
		goto refused;
	}
	if (rs->rs_snd_bytes >= rds_sndbuf_budget(rs)) {
		rs->rs_budget_refused = true;
		rs->rs_pollout_dest = d;
		ret = -EAGAIN;
		goto refused;
	}
	if (!d) {
		/* rds_sndbuf_prealloc() makes this rare: another sender took
		 * the spare between its call and ours.
		 */
		d = rs->rs_dest_spare ?: kmalloc(sizeof(*d), GFP_ATOMIC | __GFP_NOWARN);
		if (!d)
			return -ENOMEM;
		if (d == rs->rs_dest_spare)
			rs->rs_dest_spare = NULL;
		d->d_addr = rm->m_daddr;
		d->d_bytes = 0;
		d->d_msgs = 0;
		d->d_refused = false;
		/* A first refusal repeats none: this send succeeds after it. */
		d->d_refused_gen = rs->rs_sent_gen;
		hash_add(rs->rs_dests, &d->d_node, ipv6_addr_hash(&d->d_addr));
	}
	d->d_bytes += rds_sndbuf_cost(rm);
	d->d_msgs++;
	rs->rs_snd_bytes += rds_sndbuf_cost(rm);
	rs->rs_sent_gen++;
	rm->m_sndbuf = d;
	rs->rs_pollout_dest = d;
	/* Moving POLLOUT to @d may turn it on for another poller. */
	*wake = rds_sndbuf_wake_pollers(rs, had_room);
	return 0;

refused:
	/* This sender's EAGAIN: a wakeup follows once POLLOUT is on, at once
	 * if it still is (an edge-triggered epoll waits for it).
	 */
	rs->rs_want_room = true;
	*wake = rds_sndbuf_wake_pollers(rs, had_room);
	return ret;
}

bool rds_sndbuf_uncharge(struct rds_sock *rs, struct rds_message *rm)
{
	struct rds_sndbuf_dest *d = rm->m_sndbuf;
	bool had_room = rds_sndbuf_room(rs);
	bool wake = false;

	rs->rs_snd_bytes -= rds_sndbuf_cost(rm);
	if (rs->rs_budget_refused && rs->rs_snd_bytes < rds_sndbuf_budget(rs)) {
		rs->rs_budget_refused = false;
		wake = true;
	}
	rm->m_sndbuf = NULL;
	if (WARN_ON_ONCE(!d))
		goto out;
	d->d_bytes -= rds_sndbuf_cost(rm);
	if (d->d_refused && d->d_bytes < rds_sk_sndbuf(rs)) {
		d->d_refused = false;
		wake = true;
	}
	if (--d->d_msgs)
		goto out;
	if (rs->rs_pollout_dest == d)
		rs->rs_pollout_dest = NULL;
	hash_del(&d->d_node);
	if (rs->rs_dest_spare)
		kfree(d);
	else
		rs->rs_dest_spare = d;
out:
	return rds_sndbuf_wake_pollers(rs, had_room) || wake;
}

bool rds_sndbuf_half_full(struct rds_sock *rs, struct rds_message *rm)
{
	struct rds_sndbuf_dest *d = rm->m_sndbuf;

	return d && d->d_bytes >= rds_sk_sndbuf(rs) / 2;
}

/* poll()'s POLLOUT (poll() takes rs_lock once for all it reads).  Only a
 * poller that waits for POLLOUT asks for the wakeup: one that waits for
 * POLLIN alone would be woken for nothing.
 */
bool rds_sndbuf_writable(struct rds_sock *rs, bool waits)
{
	lockdep_assert_held(&rs->rs_lock);
	if (rds_sndbuf_room(rs))
		return true;
	if (waits)
		rs->rs_want_room = true;
	return false;
}

void rds_sndbuf_prealloc(struct rds_sock *rs)
{
	struct rds_sndbuf_dest *d;
	unsigned long flags;

	if (READ_ONCE(rs->rs_dest_spare))
		return;
	d = kmalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return;
	spin_lock_irqsave(&rs->rs_lock, flags);
	if (!rs->rs_dest_spare) {
		rs->rs_dest_spare = d;
		d = NULL;
	}
	spin_unlock_irqrestore(&rs->rs_lock, flags);
	kfree(d);
}

void rds_sndbuf_destruct(struct rds_sock *rs)
{
	WARN_ON_ONCE(!hash_empty(rs->rs_dests));
	kfree(rs->rs_dest_spare);
	rs->rs_dest_spare = NULL;
}
