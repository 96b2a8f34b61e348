// SPDX-License-Identifier: GPL-2.0
/* Paths: the state machine of one ordered lane of a connection, the work
 * items that drive the transport, reconnect backoff and the multipath
 * handshake.  See <rds/transport.h> for the states.
 */
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/timekeeping.h>

#include "connection.h"
#include "control.h"
#include "heartbeat.h"
#include "recv.h"
#include "send.h"
#include "socket.h"
#include "stats.h"
#include "trace.h"

struct workqueue_struct *rds_wq;
EXPORT_SYMBOL_GPL(rds_wq);

static const char * const rds_path_state_names[] = {
	[RDS_CONN_DOWN]			= "down",
	[RDS_CONN_CONNECTING]		= "connecting",
	[RDS_CONN_DISCONNECTING]	= "disconnecting",
	[RDS_CONN_UP]			= "up",
	[RDS_CONN_ERROR]		= "error",
};

const char *rds_path_state_name(int state)
{
	if (state < 0 || state >= ARRAY_SIZE(rds_path_state_names))
		return "unknown";
	return rds_path_state_names[state];
}

bool rds_conn_path_transition(struct rds_conn_path *cp, int old, int new)
{
	if (atomic_cmpxchg(&cp->cp_state, old, new) != old)
		return false;
	trace_rds_path_state(cp, old, new);
	return true;
}

/* For the moves that need no compare: the path's cp_cm_lock is held and
 * nothing else moves it out of the state it is in.
 */
static void rds_path_set_state(struct rds_conn_path *cp, int new)
{
	int old = atomic_xchg(&cp->cp_state, new);

	if (old != new)
		trace_rds_path_state(cp, old, new);
}
EXPORT_SYMBOL_GPL(rds_conn_path_transition);

/* Every work item of a path is queued through here.
 * rds_conn_destroy_net() sets RDS_DESTROY_PENDING and then waits an RCU grace period, so after
 * that nothing can queue and cancelling once is enough.  @rearm moves a
 * pending timer to @delay; else a pending item keeps its own.
 */
static bool __rds_path_queue(struct rds_conn_path *cp, struct delayed_work *dw,
			     unsigned long delay, bool rearm)
{
	bool queued = false;

	rcu_read_lock();
	if (!test_bit(RDS_DESTROY_PENDING, &cp->cp_flags))
		queued = rearm ? mod_delayed_work(rds_wq, dw, delay) :
				 queue_delayed_work(rds_wq, dw, delay);
	rcu_read_unlock();
	return queued;
}

static bool rds_path_queue(struct rds_conn_path *cp, struct delayed_work *dw,
			   unsigned long delay)
{
	return __rds_path_queue(cp, dw, delay, false);
}

void rds_path_queue_send(struct rds_conn_path *cp, unsigned long delay)
{
	rds_path_queue(cp, &cp->cp_send_w, delay);
}
EXPORT_SYMBOL_GPL(rds_path_queue_send);

void rds_path_queue_recv(struct rds_conn_path *cp, unsigned long delay)
{
	rds_path_queue(cp, &cp->cp_recv_w, delay);
}
EXPORT_SYMBOL_GPL(rds_path_queue_recv);

void rds_path_queue_hb(struct rds_conn_path *cp, unsigned long delay)
{
	rds_path_queue(cp, &cp->cp_hb_w, delay);
}

void rds_path_rearm_hb(struct rds_conn_path *cp)
{
	__rds_path_queue(cp, &cp->cp_hb_w, 0, true);
}

static void rds_path_queue_down(struct rds_conn_path *cp)
{
	rcu_read_lock();
	if (!test_bit(RDS_DESTROY_PENDING, &cp->cp_flags))
		queue_work(rds_wq, &cp->cp_down_w);
	rcu_read_unlock();
}

/* A passive twin (see rds_conn_create()) is connected by its twin's
 * connects alone: one of its own would come back to it as a request.
 * What it has queued meanwhile waits for that.
 */
static void rds_path_queue_connect(struct rds_conn_path *cp,
				   unsigned long delay)
{
	if (cp->cp_conn->c_passive)
		return;
	if (test_and_set_bit(RDS_RECONNECT_PENDING, &cp->cp_flags))
		return;
	if (!rds_path_queue(cp, &cp->cp_conn_w, delay))
		clear_bit(RDS_RECONNECT_PENDING, &cp->cp_flags);
}

/* Our address against the peer's, as memcmp() orders them. */
static int rds_conn_addr_cmp(struct rds_connection *conn)
{
	return memcmp(&conn->c_laddr, &conn->c_faddr, sizeof(conn->c_laddr));
}

/* Paths other than 0 are connected by the side with the smaller address. */
static bool rds_conn_is_initiator(struct rds_connection *conn)
{
	return rds_conn_addr_cmp(conn) < 0;
}

/* The first attempt goes at once; each failure doubles the wait, between
 * the sysctl bounds.  A successful connect resets it.
 */
void rds_queue_reconnect(struct rds_conn_path *cp)
{
	unsigned long delay = cp->cp_reconnect_jiffies;
	unsigned long min_j = READ_ONCE(rds_sysctl_reconnect_min_jiffies);
	unsigned long max_j = READ_ONCE(rds_sysctl_reconnect_max_jiffies);

	if (test_bit(RDS_RECONNECT_PENDING, &cp->cp_flags))
		return;
	cp->cp_reconnect_jiffies = delay ? min(delay * 2, max_j) : min_j;
	/* Both ends of an IB connection connect, and refuse each other's
	 * attempt while their own is under way: a random half of the wait
	 * lets one of them win, as in-tree.  Where connecting takes longer
	 * than the waits (hundreds of connections setting up at once, under
	 * TCG), nothing keeps the two ends from meeting again and again; so
	 * the end that yielded (rds_conn_path_yield()) waits past the
	 * other's longest backoff, and the other's next attempt finds it
	 * DOWN.
	 */
	if (test_and_clear_bit(RDS_RECONNECT_YIELD, &cp->cp_flags)) {
		delay = 2 * max_t(unsigned long, max_j, HZ);
	} else if (delay) {
		delay = clamp(delay, min_j, max_j);
		delay -= get_random_u32_below(delay / 2 + 1);
	}
	rds_path_queue_connect(cp, delay);
}

void rds_conn_path_yield(struct rds_conn_path *cp)
{
	if (rds_conn_addr_cmp(cp->cp_conn) > 0)
		set_bit(RDS_RECONNECT_YIELD, &cp->cp_flags);
}
EXPORT_SYMBOL_GPL(rds_conn_path_yield);

/* Paths other than 0 are only ever connected from the initiator's side. */
void rds_conn_path_connect_if_down(struct rds_conn_path *cp)
{
	if (cp->cp_index > 0 && !rds_conn_is_initiator(cp->cp_conn))
		return;
	if (rds_conn_path_state(cp) == RDS_CONN_DOWN)
		rds_path_queue_connect(cp, 0);
}
EXPORT_SYMBOL_GPL(rds_conn_path_connect_if_down);

void rds_connect_path_complete(struct rds_conn_path *cp, int curr)
{
	struct rds_connection *conn = cp->cp_conn;

	if (!rds_conn_path_transition(cp, curr, RDS_CONN_UP)) {
		pr_warn_ratelimited("rds: path %u of %pI6c->%pI6c completed in state %s\n",
				    cp->cp_index, &conn->c_laddr, &conn->c_faddr,
				    rds_path_state_name(rds_conn_path_state(cp)));
		rds_conn_path_error(cp, "connect completed in a bad state");
		return;
	}
	rds_stats_inc(RDS_STAT_CONN_UP);
	/* A transport may put a new connection on the path without a
	 * shutdown (TCP's accepted socket replacing our own connect).
	 */
	rds_recv_path_new_conn(cp);
	cp->cp_reconnect_jiffies = 0;
	clear_bit(RDS_RECONNECT_YIELD, &cp->cp_flags);
	rds_hb_path_up(cp);
	if (cp->cp_index == 0) {
		/* A new peer connection knows nothing of our map. */
		if (!conn->c_loopback)
			set_bit(0, &conn->c_map_queued);
		if (conn->c_trans->t_mp_capable) {
			WRITE_ONCE(conn->c_ping_triggered, false);
			rds_control_probe(conn);
		}
	}
	rds_path_queue_send(cp, 0);
	rds_path_queue_recv(cp, 0);
	wake_up_all(&cp->cp_waitq);
}
EXPORT_SYMBOL_GPL(rds_connect_path_complete);

void rds_conn_path_error(struct rds_conn_path *cp, const char *why)
{
	struct rds_connection *conn = cp->cp_conn;
	unsigned long flags;
	int state;

	do {
		state = rds_conn_path_state(cp);
		if (state != RDS_CONN_UP && state != RDS_CONN_CONNECTING)
			return;
	} while (!rds_conn_path_transition(cp, state, RDS_CONN_ERROR));

	spin_lock_irqsave(&cp->cp_reset_lock, flags);
	if (state == RDS_CONN_UP) {
		cp->cp_resets++;
		cp->cp_reset_time = ktime_get_real_seconds();
		strscpy_pad(cp->cp_reset_why, why, sizeof(cp->cp_reset_why));
	} else {
		cp->cp_connect_failures++;
		strscpy_pad(cp->cp_connect_why, why, sizeof(cp->cp_connect_why));
	}
	spin_unlock_irqrestore(&cp->cp_reset_lock, flags);
	rds_stats_inc(RDS_STAT_CONN_RESET);
	trace_rds_path_drop(cp, why);
	pr_debug("rds: path %u of %pI6c->%pI6c dropped: %s\n", cp->cp_index,
		 &conn->c_laddr, &conn->c_faddr, why);
	rds_path_queue_down(cp);
}
EXPORT_SYMBOL_GPL(rds_conn_path_error);

static void rds_connect_worker(struct work_struct *work)
{
	struct rds_conn_path *cp = container_of(to_delayed_work(work),
						struct rds_conn_path, cp_conn_w);
	struct rds_carrier *ca;
	int ret;

	clear_bit(RDS_RECONNECT_PENDING, &cp->cp_flags);
	mutex_lock(&cp->cp_cm_lock);
	if (!rds_conn_path_transition(cp, RDS_CONN_DOWN, RDS_CONN_CONNECTING)) {
		mutex_unlock(&cp->cp_cm_lock);
		return;
	}
	cp->cp_conn_attempts++;
	rds_stats_inc(RDS_STAT_CONN_CONNECT_ATTEMPTS);
	/* Under cp_cm_lock, which a move of the carrier will hold too. */
	ca = cp->cp_carrier;
	ret = ca->ca_trans->conn_path_connect(ca);
	mutex_unlock(&cp->cp_cm_lock);
	if (!ret)
		return;
	/* The transport holds nothing on failure: try again later. */
	if (rds_conn_path_transition(cp, RDS_CONN_CONNECTING, RDS_CONN_DOWN))
		rds_queue_reconnect(cp);
	else
		rds_conn_path_error(cp, "connect failed");
}

static void rds_send_worker(struct work_struct *work)
{
	struct rds_conn_path *cp = container_of(to_delayed_work(work),
						struct rds_conn_path, cp_send_w);

	rds_send_xmit(cp);
}

static void rds_recv_worker(struct work_struct *work)
{
	struct rds_conn_path *cp = container_of(to_delayed_work(work),
						struct rds_conn_path, cp_recv_w);
	struct rds_transport *t = cp->cp_carrier->ca_trans;
	int ret;

	if (!rds_conn_path_up(cp) || !t->recv_path)
		return;
	ret = t->recv_path(cp);
	if (ret == -EAGAIN) {
		rds_stats_inc(RDS_STAT_RECV_IMMEDIATE_RETRY);
		rds_path_queue_recv(cp, 0);
	} else if (ret == -ENOMEM) {
		rds_stats_inc(RDS_STAT_RECV_DELAYED_RETRY);
		rds_path_queue_recv(cp, 2);
	}
}

/* RDS_IN_XMIT is held like a lock while the transport shuts down and the
 * retransmit queue moves back, so no sender runs the transport meanwhile.
 */
static void rds_path_lock_xmit(struct rds_conn_path *cp)
{
	wait_on_bit_lock(&cp->cp_flags, RDS_IN_XMIT, TASK_UNINTERRUPTIBLE);
}

void rds_path_unlock_xmit(struct rds_conn_path *cp)
{
	clear_bit_unlock(RDS_IN_XMIT, &cp->cp_flags);
	/* Orders the clear before our caller's look at the send queue, and
	 * before wake_up_bit()'s look for waiters: see rds_send_xmit().
	 */
	smp_mb__after_atomic();
	wake_up_bit(&cp->cp_flags, RDS_IN_XMIT);
}

/* The transport is quiet afterwards; unacked messages wait to be resent. */
static void rds_path_shutdown_transport(struct rds_conn_path *cp)
{
	rds_path_lock_xmit(cp);
	cp->cp_carrier->ca_trans->conn_path_shutdown(cp->cp_carrier);
	rds_send_path_reset(cp);
	cp->cp_unacked_packets = 0;
	cp->cp_unacked_bytes = 0;
	/* Nothing more comes on the connection that is gone. */
	rds_recv_path_new_conn(cp);
	rds_path_unlock_xmit(cp);
}

static bool rds_path_wants_reconnect(struct rds_conn_path *cp)
{
	unsigned long flags;
	bool queued;

	if (cp->cp_conn->c_passive)
		return false;
	if (!cp->cp_conn->c_trans->t_mp_capable)
		return true;
	if (rds_conn_is_initiator(cp->cp_conn))
		return true;
	if (cp->cp_index > 0)
		return false;
	spin_lock_irqsave(&cp->cp_lock, flags);
	queued = !list_empty(&cp->cp_send_queue);
	spin_unlock_irqrestore(&cp->cp_lock, flags);
	return queued;
}

static void rds_shutdown_worker(struct work_struct *work)
{
	struct rds_conn_path *cp = container_of(work, struct rds_conn_path,
						cp_down_w);

	mutex_lock(&cp->cp_cm_lock);
	if (!rds_conn_path_transition(cp, RDS_CONN_ERROR,
				      RDS_CONN_DISCONNECTING)) {
		mutex_unlock(&cp->cp_cm_lock);
		return;
	}
	rds_path_shutdown_transport(cp);
	if (cp->cp_index == 0)
		WRITE_ONCE(cp->cp_conn->c_ping_triggered, false);
	rds_path_set_state(cp, RDS_CONN_DOWN);
	mutex_unlock(&cp->cp_cm_lock);
	wake_up_all(&cp->cp_waitq);

	if (rds_path_wants_reconnect(cp))
		rds_queue_reconnect(cp);
}

void rds_conn_path_init_work(struct rds_conn_path *cp)
{
	INIT_DELAYED_WORK(&cp->cp_conn_w, rds_connect_worker);
	INIT_DELAYED_WORK(&cp->cp_send_w, rds_send_worker);
	INIT_DELAYED_WORK(&cp->cp_recv_w, rds_recv_worker);
	INIT_WORK(&cp->cp_down_w, rds_shutdown_worker);
	INIT_DELAYED_WORK(&cp->cp_hb_w, rds_hb_worker);
}

/* RDS_DESTROY_PENDING is set and nothing can queue work any more: cancel
 * what is queued, wait for what runs, then stop the transport whatever the
 * state was and complete every message still queued.
 */
void rds_conn_path_destroy(struct rds_conn_path *cp)
{
	cancel_delayed_work_sync(&cp->cp_conn_w);
	cancel_work_sync(&cp->cp_down_w);
	cancel_delayed_work_sync(&cp->cp_send_w);
	cancel_delayed_work_sync(&cp->cp_recv_w);
	cancel_delayed_work_sync(&cp->cp_hb_w);

	mutex_lock(&cp->cp_cm_lock);
	rds_path_set_state(cp, RDS_CONN_DISCONNECTING);
	rds_path_shutdown_transport(cp);
	rds_path_set_state(cp, RDS_CONN_DOWN);
	mutex_unlock(&cp->cp_cm_lock);

	rds_send_path_purge(cp);
	wake_up_all(&cp->cp_waitq);
}

/* ---- Multipath ------------------------------------------------------- */

void rds_start_mprds(struct rds_connection *conn)
{
	int npaths = READ_ONCE(conn->c_npaths);
	int i;

	if (npaths <= 1 || !rds_conn_is_initiator(conn))
		return;
	for (i = 1; i < npaths && i < conn->c_path_count; i++)
		rds_conn_path_connect_if_down(&conn->c_path[i]);
}

bool rds_handshake_parse(const struct rds_header *hdr, struct rds_handshake *hs)
{
	unsigned int pos = 0, len;
	bool found = false;
	__be16 npaths_be;
	__be32 gen_be;
	u8 buf[8];
	int type;

	memset(hs, 0, sizeof(*hs));
	hs->npaths = 1;
	for (;;) {
		len = sizeof(buf);
		type = rds_message_next_extension(hdr, &pos, buf, &len);
		if (type == RDS_EXTHDR_NONE)
			break;
		switch (type) {
		case RDS_EXTHDR_NPATHS:
			memcpy(&npaths_be, buf, sizeof(npaths_be));
			hs->npaths = clamp_t(int, be16_to_cpu(npaths_be), 1,
					     RDS_MPATH_WORKERS);
			found = true;
			break;
		case RDS_EXTHDR_GEN_NUM:
			memcpy(&gen_be, buf, sizeof(gen_be));
			hs->gen = be32_to_cpu(gen_be);
			break;
		case RDS_EXTHDR_SPORT_IDX:
			hs->sport_idx = true;
			break;
		}
	}
	return found;
}
EXPORT_SYMBOL_GPL(rds_handshake_parse);

/* A probe or its pong carries the peer's path count and generation.  A
 * new generation means the peer restarted and lost the state of our paths
 * other than the one this arrived on: start those over.  Without a path
 * count the message is not taken as a handshake and changes nothing.
 */
bool rds_conn_handshake_recv(struct rds_conn_path *cp,
			     const struct rds_header *hdr)
{
	struct rds_connection *conn = cp->cp_conn;
	struct rds_handshake hs;
	int i;

	if (!conn->c_trans->t_mp_capable || !rds_handshake_parse(hdr, &hs))
		return false;

	if (hs.gen && conn->c_peer_gen_num && hs.gen != conn->c_peer_gen_num) {
		for (i = 1; i < conn->c_path_count; i++)
			rds_conn_path_error(&conn->c_path[i], "peer restarted");
	}
	if (hs.gen)
		conn->c_peer_gen_num = hs.gen;
	WRITE_ONCE(conn->c_npaths, hs.npaths);
	wake_up_all(&conn->c_hs_waitq);
	rds_start_mprds(conn);
	return true;
}

/* A peer that does not answer the probe in this time is not waited for. */
#define RDS_HS_WAIT_JIFFIES	(5 * HZ)

/* A socket's messages all take one path, chosen by its bound port, so they
 * stay in order.  Until the handshake tells how many paths the peer has,
 * a blocking sender waits for it (at most its sndtimeo, and at most
 * RDS_HS_WAIT_JIFFIES); a nonblocking one, or one whose wait ends without
 * an answer, uses path 0.  rds_sendmsg() keeps such a socket on path 0
 * until its messages there are acknowledged, so that none is overtaken.
 */
struct rds_conn_path *rds_conn_path_for_sock(struct rds_connection *conn,
					     struct rds_sock *rs,
					     bool nonblock)
{
	unsigned int hash = be16_to_cpu(rs->rs_bound.port) % RDS_MPATH_WORKERS;
	int npaths;

	if (conn->c_path_count == 1 || !hash)
		return &conn->c_path[0];
	npaths = READ_ONCE(conn->c_npaths);
	if (!npaths) {
		rds_control_probe(conn);
		if (nonblock)
			return &conn->c_path[0];
		wait_event_interruptible_timeout(conn->c_hs_waitq,
						 READ_ONCE(conn->c_npaths) ||
						 READ_ONCE(conn->c_destroying),
						 min(rds_rs_to_sk(rs)->sk_sndtimeo,
						     RDS_HS_WAIT_JIFFIES));
		npaths = READ_ONCE(conn->c_npaths);
	}
	if (npaths <= 1)
		return &conn->c_path[0];
	return &conn->c_path[hash % min_t(unsigned int, npaths,
					  conn->c_path_count)];
}
