// SPDX-License-Identifier: GPL-2.0
/* The receive side: incoming messages from transports are checked (sequence,
 * pings, congestion maps) and queued on the socket bound to their
 * destination; recvmsg() hands them to user space with their cmsgs.
 *
 * A socket holding more than its rcvbuf marks its port congested in our
 * congestion map, which tells every peer to stop sending to it; the mark
 * goes when recvmsg() brings it back to rcvbuf or below.  "Holding" counts
 * twice: the payload queued against rcvbuf (SO_RCVBUF's meaning), and the
 * memory queued (what the messages pin, i_truesize) against the socket's
 * memory budget, so that many small messages congest as well as few big
 * ones.  The budget is sk_rcvbuf (twice SO_RCVBUF), but never less than
 * RDS_RECV_MEM_MIN: applications size SO_RCVBUF to the payload they keep
 * in flight, as in-tree counts nothing else (the classic rds-stress sets
 * tasks x depth x message sizes x 2), and a 64-byte message costs about
 * twenty times its payload in bookkeeping, so a budget made of that
 * SO_RCVBUF alone congested the port after a few messages and stalled
 * every sender on congestion map round trips.
 *
 * Congestion is advisory: what peers sent before they saw the mark still
 * comes, and is queued.  A peer that ignores the mark does not stop, and
 * the memory it makes us hold has to end somewhere: a message that would
 * take the socket past RDS_RECV_MEM_HARD times its budget is dropped and
 * counted (recv_drop_rcvbuf).  The transport has acknowledged it, so it is
 * lost; only a misbehaving peer, or far more senders in flight at once than
 * the factor allows for, gets there.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/sched/clock.h>
#include <linux/sched/stat.h>
#include <linux/sizes.h>
#include <linux/time32.h>
#include <net/busy_poll.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include <rds/transport.h>
#include "socket.h"
#include "recv.h"
#include "info.h"
#include "netns.h"
#include "stats.h"
#include "trace.h"
#include "sysctl.h"
#include "cong.h"
#include "connection.h"
#include "heartbeat.h"
#include "control.h"
#include "send.h"
#include "message.h"
#include "rdma.h"

/* Receive path trace points (SO_RDS_MSG_RXPATH_LATENCY), in local_clock()
 * ns: i_rx_lat_trace[HDR_TO_DGRAM_START] when the transport started the
 * message (rds_inc_init), [DGRAM_REASSEMBLE] when it handed it over whole,
 * [DGRAM_DELIVERED] when it was queued on the socket.  Trace point j reports
 * the time from j to the next point, the last one up to recvmsg().
 */

void rds_inc_init(struct rds_incoming *inc, struct rds_conn_path *cp,
		  const struct in6_addr *saddr)
{
	refcount_set(&inc->i_refcount, 1);
	INIT_LIST_HEAD(&inc->i_item);
	inc->i_cp = cp;
	inc->i_trans = cp ? cp->cp_carrier->ca_trans : NULL;
	inc->i_tos = cp ? cp->cp_conn->c_tos : 0;
	if (saddr)
		inc->i_saddr = *saddr;
	inc->i_rx_jiffies = jiffies;
	inc->i_rx_tstamp = 0;
	inc->i_rdma_cookie = 0;
	inc->i_truesize = 0;
	memset(inc->i_rx_lat_trace, 0, sizeof(inc->i_rx_lat_trace));
	inc->i_rx_lat_trace[RDS_MSG_RX_HDR_TO_DGRAM_START] = local_clock();
	/* Whoever frees the message must stay loaded until it has. */
	if (inc->i_trans)
		__module_get(inc->i_trans->t_owner);
}
EXPORT_SYMBOL_GPL(rds_inc_init);

void rds_inc_addref(struct rds_incoming *inc)
{
	refcount_inc(&inc->i_refcount);
}
EXPORT_SYMBOL_GPL(rds_inc_addref);

void rds_inc_put(struct rds_incoming *inc)
{
	const struct rds_transport *trans = inc->i_trans;

	if (!refcount_dec_and_test(&inc->i_refcount))
		return;
	WARN_ON_ONCE(!list_empty(&inc->i_item));
	if (WARN_ON_ONCE(!trans))
		return;
	/* inc_free may free @inc: only @trans is used after it. */
	trans->inc_free(inc);
	module_put(trans->t_owner);
}
EXPORT_SYMBOL_GPL(rds_inc_put);

#define RDS_RECV_MEM_HARD	16
/* What a default socket may hold (rmem_default is 208 KiB), rounded up. */
#define RDS_RECV_MEM_MIN	SZ_256K

/* What a queued message costs its socket; stable while it is queued. */
static u64 rds_recv_charge(const struct rds_incoming *inc)
{
	return inc->i_truesize ?:
	       sizeof(*inc) + be32_to_cpu(inc->i_hdr.h_len);
}

/* The memory the socket's queue may hold before its port congests. */
static u64 rds_recv_mem_budget(struct rds_sock *rs)
{
	return max_t(u64, READ_ONCE(rds_rs_to_sk(rs)->sk_rcvbuf),
		     RDS_RECV_MEM_MIN);
}

static bool rds_recv_over_rcvbuf(struct rds_sock *rs)
{
	return rs->rs_rcv_bytes > rds_sk_rcvbuf(rs) ||
	       rs->rs_rcv_mem > rds_recv_mem_budget(rs);
}

/* Mark (@mark) or clear our port in the congestion map, with rs_recv_lock
 * held so that marks and clears of one socket never reorder.  Returns the
 * map whose change must be announced once the lock is dropped.
 */
static struct rds_cong_map *rds_recv_cong_update(struct rds_sock *rs,
						 struct rds_cong_map *mark)
{
	struct rds_cong_map *map;

	lockdep_assert_held(&rs->rs_recv_lock);
	if (mark) {
		if (rs->rs_congested || !rds_recv_over_rcvbuf(rs))
			return NULL;
		/* The connection holds a reference, so the map is alive. */
		refcount_inc(&mark->m_ref);
		rs->rs_cong_map = mark;
		rs->rs_congested = true;
		rds_cong_set_bit(mark, rs->rs_bound.port);
		return mark;
	}
	if (!rs->rs_congested || rds_recv_over_rcvbuf(rs))
		return NULL;
	map = rs->rs_cong_map;
	rs->rs_cong_map = NULL;
	rs->rs_congested = false;
	rds_cong_clear_bit(map, rs->rs_bound.port);
	return map;
}

/* Tell peers about a changed map; @put drops the socket's reference. */
static void rds_recv_cong_announce(struct rds_cong_map *map, bool put)
{
	if (!map)
		return;
	rds_cong_queue_updates(map);
	if (put)
		rds_cong_map_put(map);
}

/* The socket busy-polls (rds_recv_busy_poll()) where its last message came
 * in: an RDS socket has no device of its own, and a socket that hears
 * from one peer at a time, as request/response traffic does, finds its
 * next one there too.
 */
static void rds_recv_mark_napi(struct rds_sock *rs, struct rds_incoming *inc)
{
#ifdef CONFIG_NET_RX_BUSY_POLL
	struct sock *sk = rds_rs_to_sk(rs);
	unsigned int id = READ_ONCE(inc->i_cp->cp_napi_id);

	if (READ_ONCE(sk->sk_napi_id) != id)
		WRITE_ONCE(sk->sk_napi_id, id);
#endif
}

void rds_recv_dropped(struct rds_incoming *inc, enum rds_stat why)
{
	rds_stats_inc(why);
	trace_rds_recv_drop(inc->i_cp, &inc->i_hdr, rds_stat_name(why));
}

/* Returns whether @inc was queued, and so whether the reader is to be woken. */
static bool rds_recv_queue(struct rds_sock *rs, struct rds_connection *conn,
			   struct rds_incoming *inc)
{
	struct sock *sk = rds_rs_to_sk(rs);
	u32 len = be32_to_cpu(inc->i_hdr.h_len);
	u64 charge = rds_recv_charge(inc);
	struct rds_cong_map *marked = NULL;
	unsigned long flags;
	u64 hard;

	hard = rds_recv_mem_budget(rs) * RDS_RECV_MEM_HARD;
	spin_lock_irqsave(&rs->rs_recv_lock, flags);
	/* Release sets SOCK_DEAD before it empties the queue for good. */
	if (sock_flag(sk, SOCK_DEAD)) {
		spin_unlock_irqrestore(&rs->rs_recv_lock, flags);
		rds_recv_dropped(inc, RDS_STAT_RECV_DROP_DEAD_SOCK);
		return false;
	}
	if (rs->rs_rcv_mem + charge > hard) {
		WRITE_ONCE(rs->rs_drops_rcvbuf, rs->rs_drops_rcvbuf + 1);
		spin_unlock_irqrestore(&rs->rs_recv_lock, flags);
		rds_recv_dropped(inc, RDS_STAT_RECV_DROP_RCVBUF);
		return false;
	}
	inc->i_rx_lat_trace[RDS_MSG_RX_DGRAM_DELIVERED] = local_clock();
	rds_inc_addref(inc);
	list_add_tail(&inc->i_item, &rs->rs_recv_queue);
	rs->rs_rcv_bytes += len;
	rs->rs_rcv_mem += charge;
	rds_recv_mark_napi(rs, inc);
	if (conn->c_lcong)
		marked = rds_recv_cong_update(rs, conn->c_lcong);
	spin_unlock_irqrestore(&rs->rs_recv_lock, flags);

	rds_recv_cong_announce(marked, false);
	rds_stats_inc(RDS_STAT_RECV_QUEUED);
	rds_stats_add(RDS_STAT_RECV_BYTES_ADDED_TO_SOCK, len);
	return true;
}

static void rds_recv_wake(struct rds_sock *rs)
{
	struct sock *sk = rds_rs_to_sk(rs);

	rds_stats_inc(RDS_STAT_RECV_WAKEUPS);
	sk->sk_data_ready(sk);
}

/* Wakes the batch's socket, if any, and lets go of it. */
void rds_recv_batch_end(struct rds_recv_batch *batch)
{
	struct rds_sock *rs = batch->rb_rs;

	if (!rs)
		return;
	batch->rb_rs = NULL;
	rds_recv_wake(rs);
	sock_put(rds_rs_to_sk(rs));
}
EXPORT_SYMBOL_GPL(rds_recv_batch_end);

/* A message was queued on @rs: wake its reader now, or at the end of the
 * batch, the socket's reference (from rds_find_bound()) going with it.
 * Only messages in a row share a wakeup: one for another socket wakes the
 * last one's reader first, so no reader waits for more than the read.
 */
static void rds_recv_wake_later(struct rds_sock *rs,
				struct rds_recv_batch *batch)
{
	if (!batch) {
		rds_recv_wake(rs);
		sock_put(rds_rs_to_sk(rs));
		return;
	}
	if (batch->rb_rs == rs) {
		sock_put(rds_rs_to_sk(rs));
		return;
	}
	rds_recv_batch_end(batch);
	batch->rb_rs = rs;
}

/* A retransmitted message below the next expected sequence number is one we
 * already have (recv_drop_old_seq).  A fresh one below it means the peer
 * restarted its numbering, as in-tree takes it: take it and follow the new
 * numbers.  But a peer restarts only on a new connection (its connection
 * state is new), and on one connection, TCP's stream or IB's reliable QP,
 * messages come once and in order: below the number, on the connection
 * that brought that number, is the same message again, whatever its flags
 * say (recv_drop_dup_seq).  Taking it would hand the reader a duplicate;
 * it takes a broken transport or peer, but RDS promises exactly once.
 */
static bool rds_recv_seq_ok(struct rds_conn_path *cp, struct rds_incoming *inc)
{
	u64 seq = be64_to_cpu(inc->i_hdr.h_sequence);
	enum rds_stat drop = RDS_STAT_NR;
	unsigned long flags;

	spin_lock_irqsave(&cp->cp_lock, flags);
	if (seq < cp->cp_next_rx_seq) {
		if (inc->i_hdr.h_flags & RDS_FLAG_RETRANSMITTED)
			drop = RDS_STAT_RECV_DROP_OLD_SEQ;
		else if (cp->cp_rx_seq_live)
			drop = RDS_STAT_RECV_DROP_DUP_SEQ;
	}
	if (drop == RDS_STAT_NR) {
		cp->cp_next_rx_seq = seq + 1;
		cp->cp_rx_seq_live = true;
	}
	spin_unlock_irqrestore(&cp->cp_lock, flags);
	if (drop == RDS_STAT_NR)
		return true;
	rds_recv_dropped(inc, drop);
	return false;
}

void rds_recv_path_new_conn(struct rds_conn_path *cp)
{
	unsigned long flags;

	spin_lock_irqsave(&cp->cp_lock, flags);
	cp->cp_rx_seq_live = false;
	spin_unlock_irqrestore(&cp->cp_lock, flags);
}

/* A message to port 0 is a ping.  The multipath handshake probe is a ping
 * too, and is answered even with ping_enable off: the peer's path count
 * depends on the answer.  A 1 -> 0 message without the probe's extension
 * headers is only a ping.
 */
static void rds_recv_ping(struct rds_conn_path *cp, struct rds_incoming *inc)
{
	__be16 sport = inc->i_hdr.h_sport;
	bool probe = false;

	if (!sport)
		return;
	rds_stats_inc(RDS_STAT_RECV_PING);
	if (sport == htons(RDS_FLAG_PROBE_PORT))
		probe = rds_conn_handshake_recv(cp, &inc->i_hdr);
	if (probe || READ_ONCE(rds_sysctl_ping_enable))
		rds_control_pong(cp, sport, probe);
}

/* The RDMA extension headers, as in-tree: RDS_EXTHDR_RDMA says the
 * sender's RDMA operation on one of our regions is done (a use-once
 * region goes), RDS_EXTHDR_RDMA_DEST names a region of the sender's for
 * us to use (the reader gets it as RDS_CMSG_RDMA_DEST).
 */
static void rds_recv_exthdrs(struct rds_sock *rs, struct rds_incoming *inc)
{
	unsigned int pos = 0, len;
	__be32 buf[2];
	int type;

	for (;;) {
		len = sizeof(buf);
		type = rds_message_next_extension(&inc->i_hdr, &pos, buf, &len);
		switch (type) {
		case RDS_EXTHDR_NONE:
			return;
		case RDS_EXTHDR_RDMA:
			rds_rdma_unuse(rs, be32_to_cpu(buf[0]));
			break;
		case RDS_EXTHDR_RDMA_DEST:
			inc->i_rdma_cookie =
				rds_rdma_make_cookie(be32_to_cpu(buf[0]),
						     be32_to_cpu(buf[1]));
			break;
		}
	}
}

void rds_recv_incoming(struct rds_conn_path *cp, const struct in6_addr *saddr,
		       const struct in6_addr *daddr, struct rds_incoming *inc,
		       gfp_t gfp, struct rds_recv_batch *batch)
{
	struct rds_connection *conn = cp->cp_conn;
	const struct rds_header *hdr = &inc->i_hdr;
	struct rds_sock *rs;
	u32 scope_id = 0;

	inc->i_cp = cp;
	inc->i_saddr = *saddr;
	inc->i_daddr = *daddr;
	inc->i_tos = conn->c_tos;
	inc->i_rx_jiffies = jiffies;
	inc->i_rx_tstamp = ktime_get_real_ns();
	inc->i_rx_lat_trace[RDS_MSG_RX_DGRAM_REASSEMBLE] = local_clock();

	/* In-tree RDS/TCP sends no checksum (0), as in-tree receivers
	 * allow; any other must match.  A header that does not may have
	 * the wrong length too, so what follows it on the path cannot be
	 * trusted either: drop it and start the path over, as in-tree
	 * RDS/IB does.
	 */
	if (hdr->h_csum && !rds_header_csum_ok(hdr)) {
		rds_recv_dropped(inc, RDS_STAT_RECV_DROP_BAD_CHECKSUM);
		rds_conn_path_error(cp, "bad header checksum");
		return;
	}
	rds_hb_heard(cp);
	/* Map updates carry no sequence number worth checking. */
	if (hdr->h_flags == RDS_FLAG_CONG_BITMAP) {
		rds_cong_recv(conn, inc);
		return;
	}
	if (!rds_recv_seq_ok(cp, inc))
		return;
	if (hdr->h_flags & RDS_FLAG_ACK_REQUIRED)
		rds_stats_inc(RDS_STAT_RECV_ACK_REQUIRED);

	if (!hdr->h_dport) {
		rds_recv_ping(cp, inc);
		return;
	}
	if (hdr->h_dport == htons(RDS_FLAG_PROBE_PORT) && !hdr->h_sport) {
		rds_conn_handshake_recv(cp, &inc->i_hdr);
		return;
	}
	if (ipv6_addr_type(daddr) & IPV6_ADDR_LINKLOCAL)
		scope_id = conn->c_dev_if;
	rs = rds_find_bound(rds_conn_net(conn), daddr, hdr->h_dport, scope_id);
	if (!rs) {
		/* A heartbeat's pong was heard above, which is all it is
		 * for: not a drop.  Looked for only here, so that a socket
		 * bound to the heartbeat's port still gets its own pongs
		 * (and, as a pong names no ping, the heartbeat's too).
		 */
		if (!hdr->h_sport && rds_hb_pong(cp, hdr->h_dport))
			return;
		rds_recv_dropped(inc, RDS_STAT_RECV_DROP_NO_SOCK);
		return;
	}
	rds_recv_exthdrs(rs, inc);
	if (rds_recv_queue(rs, conn, inc))
		rds_recv_wake_later(rs, batch);
	else
		sock_put(rds_rs_to_sk(rs));
}
EXPORT_SYMBOL_GPL(rds_recv_incoming);

/* The head of the receive queue, with a reference, or NULL. */
static struct rds_incoming *rds_recv_peek(struct rds_sock *rs)
{
	struct rds_incoming *inc;
	unsigned long flags;

	spin_lock_irqsave(&rs->rs_recv_lock, flags);
	inc = list_first_entry_or_null(&rs->rs_recv_queue,
				       struct rds_incoming, i_item);
	if (inc)
		rds_inc_addref(inc);
	spin_unlock_irqrestore(&rs->rs_recv_lock, flags);
	return inc;
}

/* Takes @inc off the queue; false if another reader got it first. */
static bool rds_recv_dequeue(struct rds_sock *rs, struct rds_incoming *inc)
{
	u32 len = be32_to_cpu(inc->i_hdr.h_len);
	struct rds_cong_map *cleared;
	unsigned long flags;

	spin_lock_irqsave(&rs->rs_recv_lock, flags);
	if (list_empty(&inc->i_item)) {
		spin_unlock_irqrestore(&rs->rs_recv_lock, flags);
		return false;
	}
	list_del_init(&inc->i_item);
	rs->rs_rcv_bytes -= len;
	rs->rs_rcv_mem -= rds_recv_charge(inc);
	cleared = rds_recv_cong_update(rs, NULL);
	spin_unlock_irqrestore(&rs->rs_recv_lock, flags);

	rds_recv_cong_announce(cleared, true);
	rds_stats_add(RDS_STAT_RECV_BYTES_FREED_FROM_SOCK, len);
	rds_inc_put(inc);	/* the queue's reference */
	return true;
}

void rds_clear_recv_queue(struct rds_sock *rs)
{
	struct rds_incoming *inc, *tmp;
	struct rds_zcopy *z, *ztmp;
	struct rds_cong_map *cleared;
	unsigned long flags;
	LIST_HEAD(zlist);
	LIST_HEAD(list);

	spin_lock_irqsave(&rs->rs_recv_lock, flags);
	list_splice_init(&rs->rs_recv_queue, &list);
	list_splice_init(&rs->rs_zcopy_queue, &zlist);
	/* Freed from the socket unread: in-tree counts these bytes too. */
	rds_stats_add(RDS_STAT_RECV_BYTES_FREED_FROM_SOCK, rs->rs_rcv_bytes);
	rs->rs_rcv_bytes = 0;
	rs->rs_rcv_mem = 0;
	cleared = rds_recv_cong_update(rs, NULL);
	spin_unlock_irqrestore(&rs->rs_recv_lock, flags);

	rds_recv_cong_announce(cleared, true);
	list_for_each_entry_safe(inc, tmp, &list, i_item) {
		list_del_init(&inc->i_item);
		rds_inc_put(inc);
	}
	list_for_each_entry_safe(z, ztmp, &zlist, z_item)
		kfree(z);
	rds_rdma_clear_notify(rs);
}

/* ---- MSG_ZEROCOPY completions ----------------------------------------- */

bool rds_recv_queue_event(struct rds_sock *rs, struct list_head *item,
			  struct list_head *queue)
{
	unsigned long flags;
	bool queued = false;

	spin_lock_irqsave(&rs->rs_recv_lock, flags);
	if (!sock_flag(rds_rs_to_sk(rs), SOCK_DEAD)) {
		list_add_tail(item, queue);
		queued = true;
	}
	spin_unlock_irqrestore(&rs->rs_recv_lock, flags);
	if (queued)
		rds_wake_sk_sleep(rs, EPOLLIN | EPOLLRDNORM);
	return queued;
}

void rds_recv_zcopy_done(struct rds_zcopy *z)
{
	struct rds_sock *rs = z->z_rs;

	if (!rds_recv_queue_event(rs, &z->z_item, &rs->rs_zcopy_queue))
		kfree(z);
	sock_put(rds_rs_to_sk(rs));
}

/* As in-tree: with SO_ZEROCOPY set and room in the control buffer, up to
 * RDS_MAX_ZCOOKIES completed cookies ride along as one
 * RDS_CMSG_ZCOPY_COMPLETION.  Returns true when it reported some.
 */
static bool rds_recv_zcopy_cookies(struct rds_sock *rs, struct msghdr *msg)
{
	struct rds_zcopy_cookies done = { };
	struct rds_zcopy *z, *tmp;
	unsigned long flags;
	LIST_HEAD(list);

	if (!msg->msg_control || !sock_flag(rds_rs_to_sk(rs), SOCK_ZEROCOPY) ||
	    msg->msg_controllen < CMSG_SPACE(sizeof(done)) ||
	    list_empty_careful(&rs->rs_zcopy_queue))
		return false;

	spin_lock_irqsave(&rs->rs_recv_lock, flags);
	list_for_each_entry_safe(z, tmp, &rs->rs_zcopy_queue, z_item) {
		if (done.num == RDS_MAX_ZCOOKIES)
			break;
		done.cookies[done.num++] = z->z_cookie;
		list_move_tail(&z->z_item, &list);
	}
	spin_unlock_irqrestore(&rs->rs_recv_lock, flags);
	if (!done.num)
		return false;

	if (put_cmsg(msg, SOL_RDS, RDS_CMSG_ZCOPY_COMPLETION, sizeof(done),
		     &done)) {
		/* Not reported: they stay first in line. */
		spin_lock_irqsave(&rs->rs_recv_lock, flags);
		list_splice(&list, &rs->rs_zcopy_queue);
		spin_unlock_irqrestore(&rs->rs_recv_lock, flags);
		return false;
	}
	list_for_each_entry_safe(z, tmp, &list, z_item)
		kfree(z);
	return true;
}

static bool rds_recv_ready(struct rds_sock *rs)
{
	return !list_empty(&rs->rs_recv_queue) ||
	       !list_empty_careful(&rs->rs_notify_queue) ||
	       READ_ONCE(rs->rs_cong_notify);
}

#ifdef CONFIG_NET_RX_BUSY_POLL
/* Ends the spin when there is something to read, when the time is up, and
 * as soon as another task could run on this CPU: when the peer shares it
 * (as in a guest's netns pair), the answer is that task's to give, and
 * spinning would only keep it waiting for the next tick.
 */
static bool rds_recv_busy_loop_end(void *arg, unsigned long start)
{
	struct rds_sock *rs = arg;

	return rds_recv_ready(rs) || !single_task_running() ||
	       sk_busy_loop_timeout(rds_rs_to_sk(rs), start);
}

/* Busy polling (SO_BUSY_POLL, net.core.busy_read): before recvmsg sleeps
 * it spins for up to the socket's time, which saves the sleep and the
 * wakeup of a round trip.  It polls the NAPI context its last message
 * came in through, as a TCP socket polls its own, so that on one CPU the
 * packet is taken in by the task that waits for it.  Without one (RDS/IB,
 * whose completions run in softirq, and loopback) it spins on its queue.
 * Returns whether something is ready.
 */
static bool rds_recv_busy_poll(struct rds_sock *rs)
{
	struct sock *sk = rds_rs_to_sk(rs);
	unsigned int napi_id = READ_ONCE(sk->sk_napi_id);
	unsigned long start;

	if (!sk_can_busy_loop(sk))
		return false;
	if (napi_id >= MIN_NAPI_ID) {
		napi_busy_loop(napi_id, rds_recv_busy_loop_end, rs,
			       READ_ONCE(sk->sk_prefer_busy_poll),
			       READ_ONCE(sk->sk_busy_poll_budget) ?:
			       BUSY_POLL_BUDGET);
	} else {
		start = busy_loop_current_time();
		while (!rds_recv_busy_loop_end(rs, start) &&
		       !signal_pending(current) && !need_resched())
			cpu_relax();
	}
	if (!rds_recv_ready(rs))
		return false;
	rds_stats_inc(RDS_STAT_RECV_BUSY_POLLED);
	return true;
}
#else
static bool rds_recv_busy_poll(struct rds_sock *rs)
{
	return false;
}
#endif

/* As in-tree: queued RDMA statuses come before any data, as many
 * RDS_CMSG_RDMA_STATUS as the control buffer has room for and at least
 * one (truncated, MSG_CTRUNC, when there is no room at all).  Returns 1
 * when there was none.
 */
static int rds_recv_notify(struct rds_sock *rs, struct msghdr *msg)
{
	struct rds_rdma_notifier *n;
	struct rds_rdma_notify cm;
	unsigned long flags;
	size_t max = 1;
	int ret = 1;

	if (list_empty_careful(&rs->rs_notify_queue))
		return 1;
	if (msg->msg_control && msg->msg_controllen > CMSG_SPACE(sizeof(cm)))
		max = msg->msg_controllen / CMSG_SPACE(sizeof(cm));
	while (max--) {
		spin_lock_irqsave(&rs->rs_recv_lock, flags);
		n = list_first_entry_or_null(&rs->rs_notify_queue,
					     struct rds_rdma_notifier, n_item);
		if (n)
			list_del_init(&n->n_item);
		spin_unlock_irqrestore(&rs->rs_recv_lock, flags);
		if (!n)
			break;
		memset(&cm, 0, sizeof(cm));
		cm.user_token = n->n_user_token;
		cm.status = n->n_status;
		ret = put_cmsg(msg, SOL_RDS, RDS_CMSG_RDMA_STATUS, sizeof(cm),
			       &cm);
		if (ret) {
			spin_lock_irqsave(&rs->rs_recv_lock, flags);
			list_add(&n->n_item, &rs->rs_notify_queue);
			spin_unlock_irqrestore(&rs->rs_recv_lock, flags);
			return ret;
		}
		kfree(n);
	}
	return ret;
}

/* RDS_CONG_MONITOR: report the ports that opened up since the last call.
 * Returns 1 when there was nothing to report.
 */
static int rds_recv_cong_notify(struct rds_sock *rs, struct msghdr *msg)
{
	unsigned long flags;
	u64 notify;
	int ret;

	spin_lock_irqsave(&rs->rs_lock, flags);
	notify = rs->rs_cong_notify;
	rs->rs_cong_notify = 0;
	spin_unlock_irqrestore(&rs->rs_lock, flags);
	if (!notify)
		return 1;

	ret = put_cmsg(msg, SOL_RDS, RDS_CMSG_CONG_UPDATE, sizeof(notify),
		       &notify);
	if (ret) {
		/* Not delivered: keep it for the next call. */
		spin_lock_irqsave(&rs->rs_lock, flags);
		rs->rs_cong_notify |= notify;
		spin_unlock_irqrestore(&rs->rs_lock, flags);
	}
	return ret;
}

static int rds_recv_cmsg_tstamp(struct sock *sk, struct rds_incoming *inc,
				struct msghdr *msg)
{
	u64 ns = inc->i_rx_tstamp;
	u32 rem;

	if (sock_flag(sk, SOCK_TSTAMP_NEW)) {
		struct __kernel_sock_timeval tv;

		tv.tv_sec = div_u64_rem(ns, NSEC_PER_SEC, &rem);
		tv.tv_usec = rem / NSEC_PER_USEC;
		return put_cmsg(msg, SOL_SOCKET, SO_TIMESTAMP_NEW, sizeof(tv),
				&tv);
	} else {
		/* put_cmsg() converts this one for compat tasks. */
		struct __kernel_old_timeval tv = ns_to_kernel_old_timeval(ns);

		return put_cmsg(msg, SOL_SOCKET, SO_TIMESTAMP_OLD, sizeof(tv),
				&tv);
	}
}

static int rds_recv_cmsg_trace(struct rds_sock *rs, struct rds_incoming *inc,
			       struct msghdr *msg)
{
	struct rds_cmsg_rx_trace t;
	u64 now = local_clock();
	unsigned int i, pos;
	u64 next;

	memset(&t, 0, sizeof(t));
	t.rx_traces = rs->rs_rx_traces;
	for (i = 0; i < rs->rs_rx_traces; i++) {
		pos = rs->rs_rx_trace[i];
		next = pos + 1 < RDS_MSG_RX_DGRAM_TRACE_MAX ?
		       inc->i_rx_lat_trace[pos + 1] : now;
		t.rx_trace_pos[i] = pos;
		t.rx_trace[i] = next - inc->i_rx_lat_trace[pos];
	}
	return put_cmsg(msg, SOL_RDS, RDS_CMSG_RXPATH_LATENCY, sizeof(t), &t);
}

static int rds_recv_cmsgs(struct rds_sock *rs, struct rds_incoming *inc,
			  struct msghdr *msg)
{
	struct sock *sk = rds_rs_to_sk(rs);
	int ret;

	if (inc->i_rdma_cookie) {
		/* From the stack: a transport's incoming slab has no usercopy
		 * region, and hardened usercopy BUG()s on a copy from it.
		 */
		rds_rdma_cookie_t cookie = inc->i_rdma_cookie;

		ret = put_cmsg(msg, SOL_RDS, RDS_CMSG_RDMA_DEST, sizeof(cookie),
			       &cookie);
		if (ret)
			return ret;
	}
	if (inc->i_rx_tstamp && sock_flag(sk, SOCK_RCVTSTAMP)) {
		ret = rds_recv_cmsg_tstamp(sk, inc, msg);
		if (ret)
			return ret;
	}
	if (rs->rs_rx_traces)
		return rds_recv_cmsg_trace(rs, inc, msg);
	return 0;
}

/* The sender, as the family the user bound with would spell it. */
static void rds_recv_fill_name(struct rds_sock *rs, struct rds_incoming *inc,
			       struct msghdr *msg)
{
	if (!msg->msg_name)
		return;
	if (ipv6_addr_v4mapped(&inc->i_saddr)) {
		DECLARE_SOCKADDR(struct sockaddr_in *, sin, msg->msg_name);

		memset(sin, 0, sizeof(*sin));
		sin->sin_family = AF_INET;
		sin->sin_port = inc->i_hdr.h_sport;
		sin->sin_addr.s_addr = inc->i_saddr.s6_addr32[3];
		msg->msg_namelen = sizeof(*sin);
	} else {
		DECLARE_SOCKADDR(struct sockaddr_in6 *, sin6, msg->msg_name);

		memset(sin6, 0, sizeof(*sin6));
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = inc->i_hdr.h_sport;
		sin6->sin6_addr = inc->i_saddr;
		if (ipv6_addr_type(&inc->i_saddr) & IPV6_ADDR_LINKLOCAL)
			sin6->sin6_scope_id = rs->rs_bound.scope_id;
		msg->msg_namelen = sizeof(*sin6);
	}
}

/* Copies @inc (a reference the caller gives us) to user space and, unless
 * peeking, takes it off the queue.  Returns the length to report, or
 * -EAGAIN when another reader took it first (nothing was consumed).
 */
static int rds_recv_one(struct rds_sock *rs, struct rds_incoming *inc,
			struct msghdr *msg, int flags)
{
	int len = be32_to_cpu(inc->i_hdr.h_len);
	int copied, ret;

	copied = inc->i_trans->inc_copy_to_user(inc, &msg->msg_iter);
	if (copied < 0) {
		ret = copied;
		goto out_put;
	}
	if (!(flags & MSG_PEEK) && !rds_recv_dequeue(rs, inc)) {
		iov_iter_revert(&msg->msg_iter, copied);
		rds_stats_inc(RDS_STAT_RECV_DELIVER_RACED);
		ret = -EAGAIN;
		goto out_put;
	}
	/* Bytes, as in-tree counts them, peeks included. */
	rds_stats_add(RDS_STAT_COPY_TO_USER, copied);
	if (!(flags & MSG_PEEK))
		rds_stats_inc(RDS_STAT_RECV_DELIVERED);

	ret = copied;
	if (copied < len) {
		msg->msg_flags |= MSG_TRUNC;
		if (flags & MSG_TRUNC)
			ret = len;
	}
	rds_recv_fill_name(rs, inc, msg);
	copied = rds_recv_cmsgs(rs, inc, msg);
	if (copied)
		ret = copied;
	else
		rds_recv_zcopy_cookies(rs, msg);
out_put:
	rds_inc_put(inc);
	return ret;
}

int rds_recvmsg(struct socket *sock, struct msghdr *msg, size_t size,
		int flags)
{
	struct sock *sk = sock->sk;
	struct rds_sock *rs = rds_sk_to_rs(sk);
	bool busy_polled = false;
	long timeo, left;
	struct rds_incoming *inc;
	int ret;

	if (flags & MSG_OOB)
		return 0;	/* in-tree: nothing, and no error */
	if (flags & MSG_ERRQUEUE)
		return sock_recv_errqueue(sk, msg, size, SOL_IP, IP_RECVERR);

	msg->msg_namelen = 0;
	timeo = sock_rcvtimeo(sk, flags & MSG_DONTWAIT);
	left = timeo;
	for (;;) {
		ret = rds_recv_notify(rs, msg);
		if (ret <= 0)
			return ret;
		ret = rds_recv_cong_notify(rs, msg);
		if (ret <= 0)
			return ret;

		inc = rds_recv_peek(rs);
		if (inc) {
			ret = rds_recv_one(rs, inc, msg, flags);
			if (ret != -EAGAIN)
				return ret;
			continue;
		}
		if (!left)
			/* In-tree reports completions when there is no data
			 * and the caller would not wait, never as a wake-up.
			 */
			return rds_recv_zcopy_cookies(rs, msg) ? 0 : -EAGAIN;
		/* Once a call, as TCP does: a spin that found nothing is
		 * followed by a sleep.
		 */
		if (!busy_polled) {
			busy_polled = true;
			if (rds_recv_busy_poll(rs))
				continue;
		}
		left = wait_event_interruptible_timeout(*sk_sleep(sk),
							rds_recv_ready(rs), left);
		if (left < 0)
			return sock_intr_errno(timeo);
		/* In-tree's errno when SO_RCVTIMEO runs out. */
		if (!left && !rds_recv_ready(rs))
			return -ETIMEDOUT;
	}
}

/* ---- RDS_INFO_RECV_MESSAGES and RDS6_INFO_RECV_MESSAGES ---------------- */

static void rds_recv_info_item(struct rds_info_iterator *iter,
			       const struct rds_incoming *inc, bool v6)
{
	const struct rds_header *hdr = &inc->i_hdr;

	if (v6) {
		struct rds6_info_message m = {
			.seq	= be64_to_cpu(hdr->h_sequence),
			.len	= be32_to_cpu(hdr->h_len),
			.laddr	= inc->i_daddr,
			.faddr	= inc->i_saddr,
			.lport	= hdr->h_dport,
			.fport	= hdr->h_sport,
			.tos	= inc->i_tos,
		};

		rds_info_copy(iter, &m, sizeof(m));
	} else {
		struct rds_info_message m = {
			.seq	= be64_to_cpu(hdr->h_sequence),
			.len	= be32_to_cpu(hdr->h_len),
			.laddr	= inc->i_daddr.s6_addr32[3],
			.faddr	= inc->i_saddr.s6_addr32[3],
			.lport	= hdr->h_dport,
			.fport	= hdr->h_sport,
			.tos	= inc->i_tos,
		};

		rds_info_copy(iter, &m, sizeof(m));
	}
}

/* One pass under the locks: what is counted is what is copied. */
static void rds_recv_info(struct socket *sock, struct rds_info_iterator *iter,
			  struct rds_info_lengths *lens, bool v6)
{
	struct rds_net *rn = rds_net(sock_net(sock->sk));
	struct rds_incoming *inc;
	struct rds_sock *rs;
	unsigned long flags;
	unsigned int nr = 0;

	spin_lock_bh(&rn->sock_lock);
	list_for_each_entry(rs, &rn->sock_list, rs_item) {
		spin_lock_irqsave(&rs->rs_recv_lock, flags);
		list_for_each_entry(inc, &rs->rs_recv_queue, i_item) {
			if (!v6 && !ipv6_addr_v4mapped(&inc->i_saddr))
				continue;
			rds_recv_info_item(iter, inc, v6);
			nr++;
		}
		spin_unlock_irqrestore(&rs->rs_recv_lock, flags);
	}
	spin_unlock_bh(&rn->sock_lock);

	lens->nr = nr;
	lens->each = v6 ? sizeof(struct rds6_info_message) :
			  sizeof(struct rds_info_message);
}

static void rds_recv_info4(struct socket *sock, unsigned int len,
			   struct rds_info_iterator *iter,
			   struct rds_info_lengths *lens)
{
	rds_recv_info(sock, iter, lens, false);
}

static void rds_recv_info6(struct socket *sock, unsigned int len,
			   struct rds_info_iterator *iter,
			   struct rds_info_lengths *lens)
{
	rds_recv_info(sock, iter, lens, true);
}

int rds_recv_init(void)
{
	rds_info_register_func(RDS_INFO_RECV_MESSAGES, rds_recv_info4);
	rds_info_register_func(RDS6_INFO_RECV_MESSAGES, rds_recv_info6);
	return 0;
}

void rds_recv_exit(void)
{
	rds_info_deregister_func(RDS6_INFO_RECV_MESSAGES, rds_recv_info6);
	rds_info_deregister_func(RDS_INFO_RECV_MESSAGES, rds_recv_info4);
}
