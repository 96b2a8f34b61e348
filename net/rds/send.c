// SPDX-License-Identifier: GPL-2.0
/* The send side.  sendmsg builds a message and queues it twice: on the
 * socket (rs_send_queue, where it counts against sndbuf) and on a path
 * (cp_send_queue, in sequence order).  The transmit loop hands it to the
 * transport and moves it to cp_retrans, where it stays until the peer
 * acknowledges it; then it leaves both queues and the sender gets its
 * buffer space back.
 *
 * A message is on each list with its own reference, marked by
 * RDS_MSG_ON_SOCK and RDS_MSG_ON_CONN: whoever clears a bit (under the
 * lock of that list) unlinks it and drops that reference.
 */
#include <linux/in.h>
#include <linux/sched/signal.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "cong.h"
#include "connection.h"
#include "control.h"
#include "heartbeat.h"
#include "info.h"
#include "message.h"
#include "rdma.h"
#include "send.h"
#include "sndbuf.h"
#include "socket.h"
#include "stats.h"
#include "trace.h"
#include "sysctl.h"

/* Messages one call of rds_send_xmit() sends before it yields to the work. */
#define RDS_SEND_BATCH		64

/* In-tree's set: anything else, MSG_NOSIGNAL included, is EOPNOTSUPP. */
#define RDS_SEND_FLAGS	(MSG_DONTWAIT | MSG_CMSG_COMPAT | MSG_ZEROCOPY)

/* rds_send_xmit_one(): the path has nothing more to send. */
#define RDS_XMIT_EMPTY		1

struct rds_send_dest {
	struct in6_addr	addr;
	__be16		port;
	int		scope_id;
};

/* ---- Completion ------------------------------------------------------- */

/* The message is done with (@status: acknowledged, or why not).  As
 * in-tree, an operation the transport took and was asked to notify of
 * gets the status of its local completion, which comes on its own; any
 * other gets @status now, and so does one whose message was dropped or
 * cancelled before that completion said anything (the notifier goes to
 * whoever takes it first).
 */
static void rds_send_rdma_status(struct rds_message *rm, int status)
{
	struct rds_rdma_op *op = rm->m_rdma;

	if (op && (!READ_ONCE(op->op_posted) || !op->op_notify ||
		   status != RDS_RDMA_SUCCESS))
		rds_rdma_notify(op, status);
}

/* A message of @rs leaves it undelivered: counted by why.  rs_lock held. */
static void rds_send_count_drop(struct rds_sock *rs, int status)
{
	u64 *count;

	switch (status) {
	case RDS_RDMA_DROPPED:
		count = &rs->rs_drops_send_reset;
		break;
	case RDS_RDMA_CANCELED:
		count = &rs->rs_drops_send_purged;
		break;
	default:
		return;
	}
	WRITE_ONCE(*count, *count + 1);
}

/* Gives the socket its buffer space back and lets go of it.  m_rs_lock
 * makes the ack path and rds_send_drop_to() agree on who drops the sock
 * reference m_rs holds.
 *
 * The socket's sleepers are woken when rds_sndbuf_uncharge() says the
 * room they wait for came back (the wakeup rule in sndbuf.c: a blocked
 * sendmsg()'s destination or budget, or POLLOUT off before): they wait
 * for nothing else (statuses and zerocopy completions wake them on their
 * own), and a wake-up for every acknowledged message made a task asleep
 * in poll() for POLLIN run once per ack for nothing.
 */
static void rds_send_remove_from_sock(struct rds_message *rm, int status)
{
	struct rds_sock *rs;
	bool on_sock = false, wake = false;
	unsigned long flags;

	spin_lock_irqsave(&rm->m_rs_lock, flags);
	rs = rm->m_rs;
	if (rs) {
		spin_lock(&rs->rs_lock);
		if (test_and_clear_bit(RDS_MSG_ON_SOCK, &rm->m_flags)) {
			list_del_init(&rm->m_sock_item);
			wake = rds_sndbuf_uncharge(rs, rm);
			on_sock = true;
			rds_send_count_drop(rs, status);
		}
		spin_unlock(&rs->rs_lock);
		rm->m_rs = NULL;
	}
	spin_unlock_irqrestore(&rm->m_rs_lock, flags);
	if (!rs)
		return;
	rds_send_rdma_status(rm, status);
	if (on_sock)
		rds_message_put(rm);
	if (wake)
		rds_wake_sk_sleep(rs, RDS_POLL_ROOM);
	sock_put(rds_rs_to_sk(rs));
}

/* @list holds messages taken off a path, RDS_MSG_ON_CONN already clear. */
static void rds_send_complete(struct list_head *list, int status)
{
	struct rds_message *rm, *tmp;

	list_for_each_entry_safe(rm, tmp, list, m_conn_item) {
		list_del_init(&rm->m_conn_item);
		if (test_bit(RDS_MSG_CONTROL, &rm->m_flags))
			rds_control_done(rm);
		else
			rds_send_remove_from_sock(rm, status);
		rds_message_put(rm);
	}
}

/* Moves the acknowledged head of @q to @acked; false once it found a
 * message that is not.  cp_lock held.
 */
static bool rds_send_take_acked(struct list_head *q, struct list_head *acked,
				u64 ack, unsigned int *nr,
				bool (*is_acked)(struct rds_message *rm, u64 ack))
{
	struct rds_message *rm, *tmp;

	list_for_each_entry_safe(rm, tmp, q, m_conn_item) {
		if (is_acked ? !is_acked(rm, ack) :
		    be64_to_cpu(rm->m_inc.i_hdr.h_sequence) > ack)
			return false;
		clear_bit(RDS_MSG_ON_CONN, &rm->m_flags);
		list_move_tail(&rm->m_conn_item, acked);
		(*nr)++;
	}
	return true;
}

/* cp_retrans is in sequence order, and so is what transports acknowledge:
 * the first message not acked ends the walk.
 *
 * A sequence number acknowledges the send queue's head too: after a reset
 * it holds what was sent on the old connection (rds_send_path_reset()),
 * and the peer's first word on the new one (IB's private data, an ack on
 * its first message) may say that it has all of it.  Taken from the
 * retransmit queue only, that ack was lost: the messages went again, the
 * peer dropped them as old and, having them already, had no new number
 * to acknowledge, so they stayed queued for as long as nothing newer was
 * sent.  The send queue follows cp_retrans in sequence order (the
 * sender moves its head there), so the walk goes on into it.  Not for a
 * transport's own acks (@is_acked): TCP's stream positions of the old
 * connection mean nothing on the new one.
 */
void rds_send_path_drop_acked(struct rds_conn_path *cp, u64 ack,
			      bool (*is_acked)(struct rds_message *rm, u64 ack))
{
	unsigned long flags;
	unsigned int nr = 0;
	LIST_HEAD(acked);

	spin_lock_irqsave(&cp->cp_lock, flags);
	if (rds_send_take_acked(&cp->cp_retrans, &acked, ack, &nr, is_acked) &&
	    !is_acked)
		rds_send_take_acked(&cp->cp_send_queue, &acked, ack, &nr, NULL);
	spin_unlock_irqrestore(&cp->cp_lock, flags);
	if (!nr)
		return;
	rds_hb_heard(cp);
	rds_stats_add(RDS_STAT_SEND_DROP_ACKED, nr);
	rds_send_complete(&acked, RDS_RDMA_SUCCESS);
}
EXPORT_SYMBOL_GPL(rds_send_path_drop_acked);

/* Called with RDS_IN_XMIT held and the transport shut down: what was sent
 * and not acknowledged goes out again first, in its old order.  As
 * in-tree, a message whose RDMA operation went out never does: the
 * operation is not repeated (a READ or WRITE may have happened, a
 * use-once region of the peer's may be gone), and its header alone
 * would announce something that did not happen on this connection.  It
 * is dropped, and its sender told RDS_RDMA_DROPPED if nobody told it
 * anything yet: with RDS_RDMA_NOTIFY_ME, or with SO_RECVERR alone, as
 * in-tree.  Unlike in-tree, an atomic that went out is not repeated
 * either (in-tree sends it again, and it acts twice); and an operation
 * the transport says was not carried out at all (op_unsent: its
 * connection failed on another socket's operation first) goes again
 * with its message, where in-tree drops it.
 */
void rds_send_path_reset(struct rds_conn_path *cp)
{
	struct rds_message *rm, *tmp;
	unsigned int again = 0;
	unsigned long flags;
	LIST_HEAD(dropped);

	if (cp->cp_xmit_rm) {
		rds_message_put(cp->cp_xmit_rm);
		cp->cp_xmit_rm = NULL;
	}
	cp->cp_xmit_pos = 0;

	spin_lock_irqsave(&cp->cp_lock, flags);
	list_for_each_entry_safe(rm, tmp, &cp->cp_retrans, m_conn_item) {
		struct rds_rdma_op *op = rm->m_rdma;

		if (op && op->op_posted && READ_ONCE(op->op_unsent)) {
			op->op_posted = false;
			op->op_unsent = false;
		} else if (op && op->op_posted) {
			clear_bit(RDS_MSG_ON_CONN, &rm->m_flags);
			list_move_tail(&rm->m_conn_item, &dropped);
			continue;
		}
		set_bit(RDS_MSG_RETRANSMITTED, &rm->m_flags);
		again++;
	}
	list_splice_init(&cp->cp_retrans, &cp->cp_send_queue);
	spin_unlock_irqrestore(&cp->cp_lock, flags);
	if (again)
		trace_rds_retransmit(cp, again);
	rds_send_complete(&dropped, RDS_RDMA_DROPPED);
}

/* The connection is going away: its messages will never be delivered. */
void rds_send_path_purge(struct rds_conn_path *cp)
{
	struct rds_message *rm;
	unsigned long flags;
	LIST_HEAD(list);

	spin_lock_irqsave(&cp->cp_lock, flags);
	list_splice_init(&cp->cp_retrans, &list);
	list_splice_tail_init(&cp->cp_send_queue, &list);
	list_for_each_entry(rm, &list, m_conn_item)
		clear_bit(RDS_MSG_ON_CONN, &rm->m_flags);
	spin_unlock_irqrestore(&cp->cp_lock, flags);
	rds_send_complete(&list, RDS_RDMA_CANCELED);
}

/* RDS_CANCEL_SENT_TO and release.  The messages leave the socket first,
 * under rs_lock; RCU is entered before that lock is dropped so that their
 * paths, which a concurrent connection destroy may be freeing, stay
 * readable while they are taken off them.
 */
void rds_send_drop_to(struct rds_sock *rs, const struct in6_addr *daddr,
		      __be16 dport)
{
	struct rds_message *rm, *tmp;
	unsigned int socks = 0;
	unsigned long flags;
	LIST_HEAD(list);

	spin_lock_irqsave(&rs->rs_lock, flags);
	list_for_each_entry_safe(rm, tmp, &rs->rs_send_queue, m_sock_item) {
		if (daddr && (!ipv6_addr_equal(&rm->m_daddr, daddr) ||
			      rm->m_inc.i_hdr.h_dport != dport))
			continue;
		clear_bit(RDS_MSG_ON_SOCK, &rm->m_flags);
		list_move_tail(&rm->m_sock_item, &list);
		rds_sndbuf_uncharge(rs, rm);
		/* Release's count too: harmless, nobody reads it after. */
		WRITE_ONCE(rs->rs_drops_send_canceled,
			   rs->rs_drops_send_canceled + 1);
	}
	rcu_read_lock();
	spin_unlock_irqrestore(&rs->rs_lock, flags);

	list_for_each_entry(rm, &list, m_sock_item) {
		struct rds_conn_path *cp = rm->m_cp;
		bool on_conn;

		spin_lock_irqsave(&cp->cp_lock, flags);
		on_conn = test_and_clear_bit(RDS_MSG_ON_CONN, &rm->m_flags);
		if (on_conn)
			list_del_init(&rm->m_conn_item);
		spin_unlock_irqrestore(&cp->cp_lock, flags);
		if (on_conn)
			rds_message_put(rm);	/* never the last: @list has one */

		spin_lock_irqsave(&rm->m_rs_lock, flags);
		if (rm->m_rs == rs) {
			rm->m_rs = NULL;
			socks++;
		}
		spin_unlock_irqrestore(&rm->m_rs_lock, flags);
		rds_send_rdma_status(rm, RDS_RDMA_CANCELED);
	}
	rcu_read_unlock();

	if (list_empty(&list))
		return;
	list_for_each_entry_safe(rm, tmp, &list, m_sock_item) {
		list_del_init(&rm->m_sock_item);
		rds_message_put(rm);
	}
	rds_wake_sk_sleep(rs, RDS_POLL_ROOM);
	while (socks--)
		sock_put(rds_rs_to_sk(rs));
}

/* ---- Transmit --------------------------------------------------------- */

/* The header bits only known when the message goes out.  cp_lock held. */
static void rds_send_prepare_header(struct rds_conn_path *cp,
				    struct rds_message *rm)
{
	struct rds_header *hdr = &rm->m_inc.i_hdr;

	if (test_bit(RDS_MSG_RETRANSMITTED, &rm->m_flags)) {
		hdr->h_flags |= RDS_FLAG_RETRANSMITTED;
		rds_stats_inc(RDS_STAT_SEND_RETRANSMITTED);
	}
	/* As in-tree: max_unacked_packets messages go without asking, the
	 * next one asks (one in nine by default).  Asking one in eight cost
	 * RDS/IB an eighth more ack fragments than in-tree for nothing.
	 */
	cp->cp_unacked_packets++;
	cp->cp_unacked_bytes += rm->m_len;
	if (test_bit(RDS_MSG_ACK_REQUIRED, &rm->m_flags) ||
	    cp->cp_unacked_packets > READ_ONCE(rds_sysctl_max_unacked_packets) ||
	    cp->cp_unacked_bytes >= READ_ONCE(rds_sysctl_max_unacked_bytes)) {
		hdr->h_flags |= RDS_FLAG_ACK_REQUIRED;
		cp->cp_unacked_packets = 0;
		cp->cp_unacked_bytes = 0;
		rds_stats_inc(RDS_STAT_SEND_ACK_REQUIRED);
	}
	hdr->h_csum = rds_header_csum(hdr);
}

/* The next message to hand to the transport, with a reference for
 * cp_xmit_rm: a pending congestion map update first (it has no sequence
 * number and is not retransmitted: a newer map replaces it), else the head
 * of the send queue, which moves to cp_retrans now so that an ack racing
 * with the transmit finds it.
 */
static struct rds_message *rds_send_next(struct rds_conn_path *cp)
{
	struct rds_connection *conn = cp->cp_conn;
	struct rds_message *rm;
	unsigned long flags;

	if (cp->cp_index == 0 && test_and_clear_bit(0, &conn->c_map_queued)) {
		rm = rds_cong_update_alloc(conn);
		if (rm)
			return rm;
		set_bit(0, &conn->c_map_queued);
		return ERR_PTR(-ENOMEM);
	}

	spin_lock_irqsave(&cp->cp_lock, flags);
	rm = list_first_entry_or_null(&cp->cp_send_queue, struct rds_message,
				      m_conn_item);
	if (rm) {
		list_move_tail(&rm->m_conn_item, &cp->cp_retrans);
		rds_message_addref(rm);
		rds_send_prepare_header(cp, rm);
	}
	spin_unlock_irqrestore(&cp->cp_lock, flags);
	return rm;
}

/* Posts @rm's operation ahead of its header (see xmit_rdma).  sendmsg
 * found the operation in the connection's transport; the carrier is that
 * transport's own (cp_home) as long as nothing moves a path.
 */
static int rds_send_xmit_op(struct rds_conn_path *cp, struct rds_message *rm)
{
	struct rds_transport *t = cp->cp_carrier->ca_trans;

	if (rm->m_rdma->op_atomic)
		return t->xmit_atomic(cp, rm);
	return t->xmit_rdma(cp, rm);
}

/* As in-tree, RDS_RDMA_SILENT: a message that is nothing but a silent
 * operation never reaches the peer's socket; its header is not sent at
 * all.  A payload or a region for the peer still needs one.
 */
static bool rds_send_silent(const struct rds_message *rm)
{
	return rm->m_rdma && rm->m_rdma->op_silent && !rm->m_len &&
	       !rm->m_rdma_cookie;
}

/* The silent message's operation is posted and no acknowledgment will
 * ever come for it: it is done with now, as if acknowledged (its status
 * comes from the transport's completion; its pages stay pinned while the
 * work requests hold it).  Its sequence number is skipped on the wire,
 * which receivers take as they take a dropped retransmission.
 */
static void rds_send_path_drop_silent(struct rds_conn_path *cp,
				      struct rds_message *rm)
{
	unsigned long flags;
	LIST_HEAD(done);

	spin_lock_irqsave(&cp->cp_lock, flags);
	if (test_and_clear_bit(RDS_MSG_ON_CONN, &rm->m_flags))
		list_move_tail(&rm->m_conn_item, &done);
	spin_unlock_irqrestore(&cp->cp_lock, flags);
	rds_send_complete(&done, RDS_RDMA_SUCCESS);
}

/* Returns 0 when one message went out, RDS_XMIT_EMPTY, or an error. */
static int rds_send_xmit_one(struct rds_conn_path *cp)
{
	struct rds_message *rm = cp->cp_xmit_rm;
	int ret;

	if (!rm) {
		rm = rds_send_next(cp);
		if (IS_ERR(rm))
			return PTR_ERR(rm);
		if (!rm)
			return RDS_XMIT_EMPTY;
		cp->cp_xmit_rm = rm;
		cp->cp_xmit_pos = 0;
	}
	/* The data moves before the header that announces it. */
	if (rm->m_rdma && !rm->m_rdma->op_posted) {
		ret = rds_send_xmit_op(cp, rm);
		if (ret)
			return ret;
		WRITE_ONCE(rm->m_rdma->op_posted, true);
	}
	if (rds_send_silent(rm)) {
		rds_send_path_drop_silent(cp, rm);
	} else {
		ret = cp->cp_carrier->ca_trans->xmit(cp, rm, &cp->cp_xmit_pos);
		if (ret)
			return ret;
	}
	cp->cp_xmit_rm = NULL;
	rds_message_put(rm);
	return 0;
}

static bool rds_send_pending(struct rds_conn_path *cp)
{
	return !list_empty_careful(&cp->cp_send_queue) ||
	       (cp->cp_index == 0 && test_bit(0, &cp->cp_conn->c_map_queued));
}

/* A caller that finds RDS_IN_XMIT taken leaves its message to the holder,
 * so the holder looks at the queue again after letting go of the bit (the
 * barrier in rds_path_unlock_xmit() pairs with the one in the other
 * caller's test_and_set_bit_lock()).
 */
static int __rds_send_xmit(struct rds_conn_path *cp, bool answer)
{
	struct rds_transport *t = cp->cp_carrier->ca_trans;
	unsigned int batch = answer ? 1 : RDS_SEND_BATCH;
	unsigned int sent = 0;
	int ret;

restart:
	if (!rds_conn_path_up(cp))
		return 0;
	/* A kick (the transport's "room again", a new message) that finds
	 * another sender in charge leaves RDS_XMIT_AGAIN behind, and that
	 * sender looks at it after letting go: otherwise a kick arriving just
	 * as the transport said "full" would be lost and the path would stall.
	 */
	set_bit(RDS_XMIT_AGAIN, &cp->cp_flags);
	/* Pairs with rds_path_unlock_xmit(): the holder sees the flag. */
	smp_mb__after_atomic();
	if (test_and_set_bit_lock(RDS_IN_XMIT, &cp->cp_flags)) {
		rds_stats_inc(RDS_STAT_SEND_LOCK_CONTENTION);
		return -EAGAIN;
	}
	clear_bit(RDS_XMIT_AGAIN, &cp->cp_flags);
	/* Shutdown takes the bit too: recheck now that we own it. */
	if (!rds_conn_path_up(cp)) {
		rds_path_unlock_xmit(cp);
		return 0;
	}
	/* An answer, sent from a receive path, sends one whole message and
	 * nothing of another's: the rest of a message the ring cut short
	 * may be large, and the work sends it.
	 */
	if (answer && cp->cp_xmit_rm) {
		rds_path_unlock_xmit(cp);
		rds_path_queue_send(cp, 0);
		return -EAGAIN;
	}
	if (t->xmit_path_prepare)
		t->xmit_path_prepare(cp);
	do {
		ret = rds_send_xmit_one(cp);
	} while (!ret && ++sent < batch);
	if (t->xmit_path_complete)
		t->xmit_path_complete(cp);
	rds_path_unlock_xmit(cp);

	switch (ret) {
	case RDS_XMIT_EMPTY:
		rds_stats_inc(RDS_STAT_SEND_QUEUE_EMPTY);
		if (!rds_send_pending(cp))
			return 0;
		/* Queued while we sent: its sender left it to us. */
		rds_stats_inc(RDS_STAT_SEND_LOCK_QUEUE_RACED);
		if (sent < batch)
			goto restart;
		return 0;
	case 0:		/* a full batch: let others run */
		/* As for RDS_XMIT_EMPTY: a sender that came meanwhile left
		 * its message to us.
		 */
		if (answer && !rds_send_pending(cp))
			return 0;
		rds_stats_inc(RDS_STAT_SEND_IMMEDIATE_RETRY);
		rds_path_queue_send(cp, 0);
		return -EAGAIN;
	case -EAGAIN:	/* the transport queues us when it has room */
		rds_stats_inc(RDS_STAT_SEND_QUEUE_FULL);
		if (test_bit(RDS_XMIT_AGAIN, &cp->cp_flags))
			rds_path_queue_send(cp, 0);
		return -EAGAIN;
	case -ENOMEM:
		rds_stats_inc(RDS_STAT_SEND_DELAYED_RETRY);
		rds_path_queue_send(cp, 2);
		return -EAGAIN;
	default:
		rds_conn_path_error(cp, "xmit failed");
		return ret;
	}
}

int rds_send_xmit(struct rds_conn_path *cp)
{
	return __rds_send_xmit(cp, false);
}

/* Lets the path send what was queued, connecting it first if need be. */
static void rds_send_kick(struct rds_conn_path *cp, bool now)
{
	if (!rds_conn_path_up(cp))
		rds_conn_path_connect_if_down(cp);
	else if (now)
		rds_send_xmit(cp);
	else
		rds_path_queue_send(cp, 0);
}

/* ---- Control messages (built and bounded in control.c) ---------------- */

/* An answer to the peer (a pong) that is alone on its path goes out from
 * the receive path that asked for it, when the transport can send from
 * there (t_xmit_in_softirq): the send work would add a wakeup and a trip
 * through the scheduler to every round trip.  Behind other messages, or
 * with a sender already in charge (it sees RDS_XMIT_AGAIN), it waits its
 * turn as any other message.
 */
static void rds_send_answer(struct rds_conn_path *cp, bool alone)
{
	if (alone && cp->cp_carrier->ca_trans->t_xmit_in_softirq &&
	    rds_conn_path_up(cp)) {
		if (!__rds_send_xmit(cp, true))
			rds_stats_inc(RDS_STAT_SEND_PONG_DIRECT);
	} else {
		rds_send_kick(cp, false);
	}
}

/* Queues a message that has no socket (its seq comes from the path). */
int rds_send_queue_control(struct rds_conn_path *cp, struct rds_message *rm,
			   __be16 sport, __be16 dport, bool answer)
{
	unsigned long flags;
	bool alone = false;
	int ret = 0;

	spin_lock_irqsave(&cp->cp_lock, flags);
	if (test_bit(RDS_DESTROY_PENDING, &cp->cp_flags)) {
		ret = -ENETUNREACH;
	} else {
		rds_message_populate_header(&rm->m_inc.i_hdr, sport, dport,
					    cp->cp_next_tx_seq++);
		rm->m_cp = cp;
		rds_message_addref(rm);
		set_bit(RDS_MSG_ON_CONN, &rm->m_flags);
		list_add_tail(&rm->m_conn_item, &cp->cp_send_queue);
		alone = list_is_singular(&cp->cp_send_queue);
	}
	spin_unlock_irqrestore(&cp->cp_lock, flags);
	if (!ret) {
		rds_stats_inc(RDS_STAT_SEND_QUEUED);
		/* We may be inside this very path's transmit loop: the
		 * answer's send finds RDS_IN_XMIT taken and leaves it there.
		 */
		if (answer)
			rds_send_answer(cp, alone);
		else
			rds_send_kick(cp, false);
	}
	return ret;
}

/* ---- sendmsg ---------------------------------------------------------- */

static bool rds_v4_addr_bad(__be32 addr)
{
	return addr == htonl(INADDR_ANY) || addr == htonl(INADDR_BROADCAST) ||
	       ipv4_is_multicast(addr);
}

static int rds_send_parse_name(struct msghdr *msg, struct rds_send_dest *dst)
{
	DECLARE_SOCKADDR(struct sockaddr_in6 *, sin6, msg->msg_name);
	DECLARE_SOCKADDR(struct sockaddr_in *, sin, msg->msg_name);
	int type;

	if (msg->msg_namelen < sizeof(*sin))
		return -EINVAL;
	switch (sin->sin_family) {
	case AF_INET:
		if (rds_v4_addr_bad(sin->sin_addr.s_addr))
			return -EINVAL;
		ipv6_addr_set_v4mapped(sin->sin_addr.s_addr, &dst->addr);
		dst->port = sin->sin_port;
		return 0;
	case AF_INET6:
		if (msg->msg_namelen < sizeof(*sin6))
			return -EINVAL;
		type = ipv6_addr_type(&sin6->sin6_addr);
		if (!(type & IPV6_ADDR_UNICAST) &&
		    (!(type & IPV6_ADDR_MAPPED) ||
		     rds_v4_addr_bad(sin6->sin6_addr.s6_addr32[3])))
			return -EINVAL;
		if (type & IPV6_ADDR_LINKLOCAL) {
			if (!sin6->sin6_scope_id)
				return -EINVAL;
			dst->scope_id = sin6->sin6_scope_id;
		}
		dst->addr = sin6->sin6_addr;
		dst->port = sin6->sin6_port;
		return 0;
	}
	return -EINVAL;
}

/* What the SOL_RDS cmsgs of a sendmsg ask for. */
struct rds_send_cmsgs {
	const struct rds_rdma_args	*rdma;		/* RDS_CMSG_RDMA_ARGS */
	const struct rds_get_mr_args	*map;		/* RDS_CMSG_RDMA_MAP */
	bool				have_dest;	/* RDS_CMSG_RDMA_DEST */
	rds_rdma_cookie_t		dest;
	const struct rds_atomic_args	*atomic;	/* RDS_CMSG_*ATOMIC_* */
	int				atomic_type;
	bool				have_cookie;	/* RDS_CMSG_ZCOPY_COOKIE */
	u32				cookie;
	rds_rdma_cookie_t		mapped;		/* RDMA_MAP registered */
};

/* In-tree's first word on RDMA, before any other cmsg is looked at: a
 * malformed cmsg, or an RDMA_ARGS too short, is EINVAL; remote ranges
 * of more than a message's worth in all are EMSGSIZE, however few local
 * bytes go with them.
 */
static int rds_send_rdma_bytes(struct msghdr *msg)
{
	const struct rds_rdma_args *args;
	struct cmsghdr *cmsg;
	u64 bytes = 0;

	for_each_cmsghdr(cmsg, msg) {
		if (!CMSG_OK(msg, cmsg))
			return -EINVAL;
		if (cmsg->cmsg_level != SOL_RDS ||
		    cmsg->cmsg_type != RDS_CMSG_RDMA_ARGS)
			continue;
		if (cmsg->cmsg_len < CMSG_LEN(sizeof(*args)))
			return -EINVAL;
		args = CMSG_DATA(cmsg);
		if (args->remote_vec.bytes > RDS_MAX_MSG_SIZE ||
		    bytes + args->remote_vec.bytes > RDS_MAX_MSG_SIZE)
			return -EMSGSIZE;
		bytes += args->remote_vec.bytes;
	}
	return 0;
}

/* As in-tree: a malformed request is invalid whatever the transport; a
 * well-formed RDMA or atomic one on a transport without them (TCP,
 * loopback) is not supported.  One of each RDMA cmsg at most, and, as
 * in-tree, an operation (RDMA_ARGS, an atomic) never goes with a region
 * for the peer (RDMA_DEST, RDMA_MAP).  Unlike in-tree, an RDMA operation
 * and an atomic one are not both in one message (EINVAL): the completion
 * of a message's one operation is what reports it.  As in-tree,
 * MSG_ZEROCOPY needs a cookie, and a cookie needs a zerocopy send
 * (@zcopy: MSG_ZEROCOPY with SO_ZEROCOPY).
 */
static int rds_send_parse_cmsgs(struct msghdr *msg, bool zcopy,
				const struct rds_transport *trans,
				struct rds_send_cmsgs *c)
{
	bool unsupported = false;
	struct cmsghdr *cmsg;

	memset(c, 0, sizeof(*c));
	for_each_cmsghdr(cmsg, msg) {
		if (!CMSG_OK(msg, cmsg))
			return -EINVAL;
		if (cmsg->cmsg_level != SOL_RDS)
			continue;
		switch (cmsg->cmsg_type) {
		case RDS_CMSG_RDMA_ARGS:
			if (cmsg->cmsg_len < CMSG_LEN(sizeof(*c->rdma)) ||
			    c->rdma)
				return -EINVAL;
			c->rdma = CMSG_DATA(cmsg);
			if (!c->rdma->nr_local)
				return -EINVAL;
			if (!trans->xmit_rdma)
				unsupported = true;
			continue;
		case RDS_CMSG_ATOMIC_FADD:
		case RDS_CMSG_ATOMIC_CSWP:
		case RDS_CMSG_MASKED_ATOMIC_FADD:
		case RDS_CMSG_MASKED_ATOMIC_CSWP:
			if (cmsg->cmsg_len < CMSG_LEN(sizeof(*c->atomic)) ||
			    c->atomic)
				return -EINVAL;
			c->atomic = CMSG_DATA(cmsg);
			c->atomic_type = cmsg->cmsg_type;
			if (!trans->xmit_atomic)
				unsupported = true;
			continue;
		case RDS_CMSG_RDMA_MAP:
			if (cmsg->cmsg_len < CMSG_LEN(sizeof(*c->map)) ||
			    c->map || c->have_dest)
				return -EINVAL;
			c->map = CMSG_DATA(cmsg);
			if (!trans->mr_register)
				unsupported = true;
			continue;
		case RDS_CMSG_RDMA_DEST:
			if (cmsg->cmsg_len < CMSG_LEN(sizeof(c->dest)) ||
			    c->map || c->have_dest)
				return -EINVAL;
			memcpy(&c->dest, CMSG_DATA(cmsg), sizeof(c->dest));
			c->have_dest = true;
			continue;
		case RDS_CMSG_ZCOPY_COOKIE:
			break;
		default:
			return -EINVAL;
		}
		if (cmsg->cmsg_len < CMSG_LEN(sizeof(c->cookie)) || !zcopy)
			return -EINVAL;
		memcpy(&c->cookie, CMSG_DATA(cmsg), sizeof(c->cookie));
		c->have_cookie = true;
	}
	if ((msg->msg_flags & MSG_ZEROCOPY) && !c->have_cookie)
		return -EINVAL;
	if ((c->rdma && c->atomic) ||
	    ((c->rdma || c->atomic) && (c->map || c->have_dest)))
		return -EINVAL;
	return unsupported ? -EOPNOTSUPP : 0;
}

static int rds_send_add_ext(struct rds_message *rm, unsigned int type,
			    const void *data, unsigned int len)
{
	int ret = rds_message_add_extension(&rm->m_inc.i_hdr, type, data, len);

	return ret == -ENOSPC ? -EMSGSIZE : ret;
}

/* The RDMA side of a message: its operation, pinned, announced by
 * RDS_EXTHDR_RDMA; the region for the peer (RDMA_DEST, or RDMA_MAP
 * registering it first) in RDS_EXTHDR_RDMA_DEST.  In-tree's errnos: a
 * region this socket does not have is EINVAL.
 */
static int rds_send_rdma(struct rds_sock *rs, struct rds_message *rm,
			 struct rds_send_cmsgs *c)
{
	rds_rdma_cookie_t cookie = c->dest;
	__be32 ext[2];
	int ret;

	if (c->map) {
		struct sock *sk = rds_rs_to_sk(rs);

		lock_sock(sk);
		ret = rds_rdma_get_mr(rs, c->map, &cookie);
		release_sock(sk);
		if (ret)
			return ret;
		c->mapped = cookie;
	} else if (c->have_dest && !rds_rdma_dest_mr(rs, cookie)) {
		return -EINVAL;
	}
	if (c->map || c->have_dest) {
		ext[0] = cpu_to_be32(rds_rdma_cookie_key(cookie));
		ext[1] = cpu_to_be32(rds_rdma_cookie_offset(cookie));
		ret = rds_send_add_ext(rm, RDS_EXTHDR_RDMA_DEST, ext,
				       sizeof(ext));
		if (ret)
			return ret;
		rm->m_rdma_cookie = cookie;
	}
	if (c->rdma) {
		struct rds_rdma_op *op = rds_rdma_op_build(rs, c->rdma);

		if (IS_ERR(op))
			return PTR_ERR(op);
		rm->m_rdma = op;
		/* Its pages stay pinned until the peer acknowledges it. */
		set_bit(RDS_MSG_ACK_REQUIRED, &rm->m_flags);
		ext[0] = cpu_to_be32(op->op_rkey);
		ret = rds_send_add_ext(rm, RDS_EXTHDR_RDMA, ext,
				       sizeof(ext[0]));
		if (ret)
			return ret;
	}
	if (c->atomic) {
		struct rds_rdma_op *op;

		op = rds_rdma_atomic_build(rs, c->atomic_type, c->atomic);
		if (IS_ERR(op))
			return PTR_ERR(op);
		rm->m_rdma = op;
		set_bit(RDS_MSG_ACK_REQUIRED, &rm->m_flags);
	}
	return 0;
}

/* The message to send, its payload copied or (zerocopy) pinned. */
static struct rds_message *rds_send_build(struct rds_sock *rs,
					  struct msghdr *msg, size_t len,
					  bool zcopy, u32 cookie)
{
	struct rds_message *rm;
	int ret;

	if (zcopy)
		return rds_message_zcopy_from_user(rs, &msg->msg_iter, cookie);
	rm = rds_message_alloc(len, GFP_KERNEL);
	if (!rm)
		return ERR_PTR(-ENOMEM);
	ret = rds_message_copy_from_user(rm, &msg->msg_iter);
	if (ret) {
		rds_message_put(rm);
		return ERR_PTR(ret);
	}
	rds_stats_add(RDS_STAT_COPY_FROM_USER, len);
	return rm;
}

/* The interface a connection to @dst is tied to: connections to a
 * link-local address are per link, others are not.
 */
static int rds_send_dev_if(const struct rds_send_dest *dst)
{
	return ipv6_addr_type(&dst->addr) & IPV6_ADDR_LINKLOCAL ?
	       dst->scope_id : 0;
}

/* The connection to @dst, from the socket's cache or a new one. */
static struct rds_connection *rds_send_get_conn(struct rds_sock *rs,
						const struct rds_bind_key *bound,
						const struct rds_send_dest *dst,
						struct rds_transport *trans,
						u8 tos)
{
	struct rds_connection *conn, *old;
	unsigned long flags;

	spin_lock_irqsave(&rs->rs_lock, flags);
	conn = rs->rs_conn;
	if (conn && ipv6_addr_equal(&conn->c_faddr, &dst->addr) &&
	    ipv6_addr_equal(&conn->c_laddr, &bound->addr) &&
	    conn->c_dev_if == rds_send_dev_if(dst) &&
	    (conn->c_tos == tos || conn->c_trans->t_tos_blind) &&
	    !READ_ONCE(conn->c_destroying))
		rds_conn_get(conn);
	else
		conn = NULL;
	spin_unlock_irqrestore(&rs->rs_lock, flags);
	if (conn)
		return conn;

	conn = rds_conn_create_outgoing(sock_net(rds_rs_to_sk(rs)),
					&bound->addr, &dst->addr, trans, tos,
					GFP_KERNEL, dst->scope_id);
	if (IS_ERR(conn))
		return conn;
	rds_conn_get(conn);		/* for rs_conn */
	spin_lock_irqsave(&rs->rs_lock, flags);
	old = rs->rs_conn;
	rs->rs_conn = conn;
	spin_unlock_irqrestore(&rs->rs_lock, flags);
	if (old)
		rds_conn_put(old);
	return conn;
}

/* rs_lock held: the path of the socket's newest message queued on @conn. */
static struct rds_conn_path *rds_send_sock_path(struct rds_sock *rs,
						struct rds_connection *conn)
{
	struct rds_message *rm;

	list_for_each_entry_reverse(rm, &rs->rs_send_queue, m_sock_item)
		if (rm->m_cp->cp_conn == conn)
			return rm->m_cp;
	return NULL;
}

/* Puts @rm on the socket and the path in one step under rs_lock (cp_lock
 * nested), so that rds_send_drop_to() never sees it on one only.  Returns
 * 1 when queued, 0 when the socket has no room for it (its destination's
 * share or the socket's whole budget, see sndbuf.c), or an error.
 * @nonblock: the caller returns EAGAIN rather than wait when refused.
 *
 * A socket's messages stay on the path its unacknowledged ones are on,
 * whatever path *@cpp suggests (the multipath handshake may have finished
 * since): a message on another path could overtake them.  *@cpp is set to
 * the path used.
 */
static int rds_send_queue_rm(struct rds_sock *rs, struct rds_conn_path **cpp,
			     struct rds_message *rm, __be16 sport, __be16 dport,
			     bool nonblock)
{
	struct rds_conn_path *cp;
	bool wake = false;
	unsigned long flags;
	int ret = 1;

	spin_lock_irqsave(&rs->rs_lock, flags);
	cp = rds_send_sock_path(rs, (*cpp)->cp_conn) ?: *cpp;
	*cpp = cp;
	spin_lock(&cp->cp_lock);
	if (test_bit(RDS_DESTROY_PENDING, &cp->cp_flags)) {
		ret = -ENETUNREACH;
		goto unlock_cp;
	}
	ret = rds_sndbuf_charge(rs, rm, nonblock, &wake);
	if (ret) {
		ret = ret == -ENOMEM ? ret : 0;
		goto unlock_cp;
	}
	ret = 1;
	if (rds_sndbuf_half_full(rs, rm))
		set_bit(RDS_MSG_ACK_REQUIRED, &rm->m_flags);
	rds_message_addref(rm);
	set_bit(RDS_MSG_ON_SOCK, &rm->m_flags);
	list_add_tail(&rm->m_sock_item, &rs->rs_send_queue);
	sock_hold(rds_rs_to_sk(rs));
	rm->m_rs = rs;

	rds_message_populate_header(&rm->m_inc.i_hdr, sport, dport,
				    cp->cp_next_tx_seq++);
	rm->m_cp = cp;
	rds_message_addref(rm);
	set_bit(RDS_MSG_ON_CONN, &rm->m_flags);
	list_add_tail(&rm->m_conn_item, &cp->cp_send_queue);
unlock_cp:
	spin_unlock(&cp->cp_lock);
	spin_unlock_irqrestore(&rs->rs_lock, flags);
	if (wake)
		rds_wake_sk_sleep(rs, RDS_POLL_ROOM);
	return ret;
}

/* Admission against sndbuf: the queue drains as the peer acknowledges. */
static int rds_send_queue_wait(struct rds_sock *rs, struct rds_conn_path **cpp,
			       struct rds_message *rm, __be16 sport,
			       __be16 dport, bool nonblock)
{
	struct sock *sk = rds_rs_to_sk(rs);
	long timeo = sock_sndtimeo(sk, nonblock);
	long left;
	int ret;

	rds_sndbuf_prealloc(rs);
	ret = rds_send_queue_rm(rs, cpp, rm, sport, dport, nonblock);
	if (ret)
		return ret < 0 ? ret : 0;
	rds_stats_inc(RDS_STAT_SEND_QUEUE_FULL);
	if (nonblock)
		return -EAGAIN;

	left = wait_event_interruptible_timeout(*sk_sleep(sk),
						(ret = rds_send_queue_rm(rs, cpp, rm,
									 sport, dport,
									 false)) != 0,
						timeo);
	if (ret)
		return ret < 0 ? ret : 0;
	/* SO_SNDTIMEO ran out: ETIMEDOUT, as in-tree says. */
	return left ? sock_intr_errno(timeo) : -ETIMEDOUT;
}

/* Where to, from where, and on what: the socket state sendmsg needs. */
static int rds_send_snapshot(struct rds_sock *rs, struct msghdr *msg,
			     struct rds_bind_key *bound,
			     struct rds_send_dest *dst,
			     struct rds_transport **trans, u8 *tos)
{
	struct sock *sk = rds_rs_to_sk(rs);
	int ret;

	memset(dst, 0, sizeof(*dst));
	if (msg->msg_namelen) {
		ret = rds_send_parse_name(msg, dst);
		if (ret)
			return ret;
	}
	lock_sock(sk);
	*bound = rs->rs_bound;
	if (!msg->msg_namelen) {
		dst->addr = rs->rs_conn_addr;
		dst->port = rs->rs_conn_port;
		dst->scope_id = rs->rs_conn_scope_id ?: rs->rs_bound.scope_id;
	}
	*trans = rs->rs_transport;
	*tos = rs->rs_tos;
	release_sock(sk);

	if (ipv6_addr_any(&bound->addr) || ipv6_addr_any(&dst->addr) || !*trans)
		return -ENOTCONN;
	if (ipv6_addr_v4mapped(&bound->addr) != ipv6_addr_v4mapped(&dst->addr))
		return -EOPNOTSUPP;	/* in-tree's errno */
	/* As in-tree: a socket bound on one link sends to no other link. */
	if (bound->scope_id && rds_send_dev_if(dst) &&
	    dst->scope_id != bound->scope_id)
		return -EINVAL;
	return 0;
}

int rds_sendmsg(struct socket *sock, struct msghdr *msg, size_t payload_len)
{
	struct rds_sock *rs = rds_sk_to_rs(sock->sk);
	bool nonblock = msg->msg_flags & MSG_DONTWAIT;
	bool zcopy = (msg->msg_flags & MSG_ZEROCOPY) &&
		     sock_flag(sock->sk, SOCK_ZEROCOPY);
	struct rds_connection *conn;
	struct rds_transport *trans;
	struct rds_bind_key bound;
	struct rds_send_dest dst;
	struct rds_conn_path *cp;
	struct rds_message *rm;
	struct rds_send_cmsgs c;
	u8 tos;
	int ret;

	if (msg->msg_flags & ~RDS_SEND_FLAGS)
		return -EOPNOTSUPP;
	ret = rds_send_snapshot(rs, msg, &bound, &dst, &trans, &tos);
	if (ret)
		return ret;
	if (msg->msg_controllen) {
		ret = rds_send_rdma_bytes(msg);
		if (ret)
			return ret;
	}
	if (payload_len > RDS_MAX_MSG_SIZE || payload_len > rds_sk_sndbuf(rs))
		return -EMSGSIZE;
	/* As in-tree: loopback copies anyway, so it refuses to pretend. */
	if (zcopy && trans->t_type != RDS_TRANS_TCP)
		return -EOPNOTSUPP;
	ret = rds_send_parse_cmsgs(msg, zcopy, trans, &c);
	if (ret)
		return ret;

	rm = rds_send_build(rs, msg, payload_len, zcopy, c.cookie);
	if (IS_ERR(rm))
		return PTR_ERR(rm);
	rm->m_daddr = dst.addr;
	ret = rds_send_rdma(rs, rm, &c);
	if (ret)
		goto put_rm;

	conn = rds_send_get_conn(rs, &bound, &dst, trans, tos);
	if (IS_ERR(conn)) {
		ret = PTR_ERR(conn);
		goto put_rm;
	}
	/* As in-tree: the connection's transport may be loopback's. */
	if (rm->m_rdma && !(rm->m_rdma->op_atomic ? conn->c_trans->xmit_atomic :
					    conn->c_trans->xmit_rdma)) {
		ret = -EOPNOTSUPP;
		goto put_conn;
	}
	ret = rds_cong_wait(conn, dst.port, nonblock, rs);
	if (ret)
		goto put_conn;

	cp = rds_conn_path_for_sock(conn, rs, nonblock);
	ret = rds_send_queue_wait(rs, &cp, rm, bound.port, dst.port, nonblock);
	if (ret)
		goto put_conn;
	rds_stats_inc(RDS_STAT_SEND_QUEUED);
	/* Before our put below: the message cannot be freed earlier. */
	if (rm->m_zcopy)
		rm->m_zcopy->z_sent = true;
	rds_send_kick(cp, true);
	ret = payload_len;
put_conn:
	rds_conn_put(conn);
put_rm:
	/* As in-tree: the region RDMA_MAP made for a message that does not
	 * go is taken back, nobody having heard of it.
	 */
	if (ret < 0 && c.mapped)
		rds_rdma_forget_mr(rs, c.mapped);
	rds_message_put(rm);
	return ret;
}

/* ---- RDS_INFO tables -------------------------------------------------- */

struct rds_send_info_walk {
	struct rds_info_iterator	*iter;
	unsigned int			avail;
	unsigned int			nr;
	bool				v6;
	bool				retrans;
};

static void rds_send_info_msg(struct rds_send_info_walk *w,
			      struct rds_connection *conn,
			      struct rds_message *rm)
{
	const struct rds_header *hdr = &rm->m_inc.i_hdr;
	struct rds6_info_message m6;
	struct rds_info_message m4;
	unsigned int each = w->v6 ? sizeof(m6) : sizeof(m4);

	w->nr++;
	if (w->avail < each)
		return;
	w->avail -= each;
	if (w->v6) {
		memset(&m6, 0, sizeof(m6));
		m6.seq = be64_to_cpu(hdr->h_sequence);
		m6.len = rm->m_len;
		m6.laddr = conn->c_laddr;
		m6.faddr = conn->c_faddr;
		m6.lport = hdr->h_sport;
		m6.fport = hdr->h_dport;
		m6.tos = conn->c_tos;
		rds_info_copy(w->iter, &m6, sizeof(m6));
		return;
	}
	memset(&m4, 0, sizeof(m4));
	m4.seq = be64_to_cpu(hdr->h_sequence);
	m4.len = rm->m_len;
	m4.laddr = conn->c_laddr.s6_addr32[3];
	m4.faddr = conn->c_faddr.s6_addr32[3];
	m4.lport = hdr->h_sport;
	m4.fport = hdr->h_dport;
	m4.tos = conn->c_tos;
	rds_info_copy(w->iter, &m4, sizeof(m4));
}

static void rds_send_info_conn(struct rds_connection *conn, void *arg)
{
	struct rds_send_info_walk *w = arg;
	struct rds_message *rm;
	unsigned long flags;
	unsigned int i;

	if (!w->v6 && conn->c_isv6)
		return;
	for (i = 0; i < conn->c_path_count; i++) {
		struct rds_conn_path *cp = &conn->c_path[i];
		struct list_head *q = w->retrans ? &cp->cp_retrans :
						   &cp->cp_send_queue;

		spin_lock_irqsave(&cp->cp_lock, flags);
		list_for_each_entry(rm, q, m_conn_item)
			rds_send_info_msg(w, conn, rm);
		spin_unlock_irqrestore(&cp->cp_lock, flags);
	}
}

static void rds_send_info_walk(struct socket *sock, unsigned int len,
			       struct rds_info_iterator *iter,
			       struct rds_info_lengths *lens, bool v6,
			       bool retrans)
{
	struct rds_send_info_walk w = {
		.iter = iter, .avail = len, .v6 = v6, .retrans = retrans,
	};

	rds_conn_visit_rcu(sock_net(sock->sk), rds_send_info_conn, &w);
	lens->nr = w.nr;
	lens->each = v6 ? sizeof(struct rds6_info_message) :
			  sizeof(struct rds_info_message);
}

static void rds_send_info(struct socket *sock, unsigned int len,
			  struct rds_info_iterator *iter,
			  struct rds_info_lengths *lens)
{
	rds_send_info_walk(sock, len, iter, lens, false, false);
}

static void rds_retrans_info(struct socket *sock, unsigned int len,
			     struct rds_info_iterator *iter,
			     struct rds_info_lengths *lens)
{
	rds_send_info_walk(sock, len, iter, lens, false, true);
}

static void rds6_send_info(struct socket *sock, unsigned int len,
			   struct rds_info_iterator *iter,
			   struct rds_info_lengths *lens)
{
	rds_send_info_walk(sock, len, iter, lens, true, false);
}

static void rds6_retrans_info(struct socket *sock, unsigned int len,
			      struct rds_info_iterator *iter,
			      struct rds_info_lengths *lens)
{
	rds_send_info_walk(sock, len, iter, lens, true, true);
}

int rds_send_init(void)
{
	rds_info_register_func(RDS_INFO_SEND_MESSAGES, rds_send_info);
	rds_info_register_func(RDS_INFO_RETRANS_MESSAGES, rds_retrans_info);
	rds_info_register_func(RDS6_INFO_SEND_MESSAGES, rds6_send_info);
	rds_info_register_func(RDS6_INFO_RETRANS_MESSAGES, rds6_retrans_info);
	return 0;
}

void rds_send_exit(void)
{
	rds_info_deregister_func(RDS_INFO_SEND_MESSAGES, rds_send_info);
	rds_info_deregister_func(RDS_INFO_RETRANS_MESSAGES, rds_retrans_info);
	rds_info_deregister_func(RDS6_INFO_SEND_MESSAGES, rds6_send_info);
	rds_info_deregister_func(RDS6_INFO_RETRANS_MESSAGES, rds6_retrans_info);
}
