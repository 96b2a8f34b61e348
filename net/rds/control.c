// SPDX-License-Identifier: GPL-2.0
/* Control traffic: the pongs we owe to pings, and the multipath handshake
 * probe and its pong.  They are messages with sequence numbers on a path's
 * send queue like any other (in-tree peers expect them in sequence), but
 * nothing on our side waits for them, so nothing would ever stop a peer
 * from asking for more: a peer that pings us and never reads its socket
 * would have its pongs pile up on cp_send_queue.  So:
 *
 *  - each path holds at most RDS_CTL_MAX_QUEUED control messages, from the
 *    moment they are queued until the peer has them (cp_ctl_queued; the
 *    last RDS_CTL_HS_RESERVE slots are kept for the handshake, so pings
 *    cannot crowd it out);
 *  - pongs to pings are rate limited per connection (a token bucket of
 *    RDS_PONG_BURST, refilled at RDS_PONG_RATE a second).
 *
 * What goes over a bound is dropped and counted (send_pong_dropped,
 * recv_ping_ratelimited): a ping is a datagram, its sender retries.
 */
#include <linux/ktime.h>
#include <linux/minmax.h>

#include "connection.h"
#include "control.h"
#include "heartbeat.h"
#include "message.h"
#include "send.h"
#include "stats.h"

#define RDS_CTL_MAX_QUEUED	16
#define RDS_CTL_HS_RESERVE	2

#define RDS_PONG_RATE		100	/* a second, per connection */
#define RDS_PONG_BURST		32

/* A generic cell rate check: c_pong_next_ns is when the bucket would be
 * full again; a pong may go while that is less than a burst ahead of now.
 */
static bool rds_control_pong_allowed(struct rds_connection *conn)
{
	const u64 gap = NSEC_PER_SEC / RDS_PONG_RATE;
	u64 now = ktime_get_ns();
	s64 next = atomic64_read(&conn->c_pong_next_ns);

	do {
		if ((u64)next > now + (RDS_PONG_BURST - 1) * gap)
			return false;
	} while (!atomic64_try_cmpxchg(&conn->c_pong_next_ns, &next,
				       max_t(u64, next, now) + gap));
	return true;
}

/* Takes one of @cp's control slots; pings leave the last ones free. */
static bool rds_control_slot(struct rds_conn_path *cp, bool handshake)
{
	int limit = RDS_CTL_MAX_QUEUED;
	int old = atomic_read(&cp->cp_ctl_queued);

	if (!handshake)
		limit -= RDS_CTL_HS_RESERVE;
	do {
		if (old >= limit)
			return false;
	} while (!atomic_try_cmpxchg(&cp->cp_ctl_queued, &old, old + 1));
	return true;
}

void rds_control_done(struct rds_message *rm)
{
	atomic_dec(&rm->m_cp->cp_ctl_queued);
}

static void rds_control_add_hs_exthdrs(struct rds_connection *conn,
				       struct rds_header *hdr)
{
	__be16 npaths = cpu_to_be16(RDS_MPATH_WORKERS);
	__be32 gen = cpu_to_be32(conn->c_my_gen_num);

	rds_message_add_extension(hdr, RDS_EXTHDR_NPATHS, &npaths,
				  sizeof(npaths));
	rds_message_add_extension(hdr, RDS_EXTHDR_GEN_NUM, &gen, sizeof(gen));
}

/* Queues a control message from @sport to @dport in a slot of @cp; an
 * @answer goes out from the caller's context where it can (send.c).
 */
static int rds_control_queue(struct rds_conn_path *cp, bool handshake,
			     bool answer, __be16 sport, __be16 dport)
{
	struct rds_message *rm;
	int ret = -ENOBUFS;

	if (!rds_control_slot(cp, handshake))
		return -ENOBUFS;
	rm = rds_message_alloc(0, GFP_ATOMIC);
	if (!rm)
		goto put_slot;
	set_bit(RDS_MSG_CONTROL, &rm->m_flags);
	if (handshake)
		rds_control_add_hs_exthdrs(cp->cp_conn, &rm->m_inc.i_hdr);
	ret = rds_send_queue_control(cp, rm, sport, dport, answer);
	rds_message_put(rm);
	if (!ret)
		return 0;
put_slot:
	atomic_dec(&cp->cp_ctl_queued);
	return ret;
}

/* Called from receive paths, possibly in softirq: nothing here sleeps.
 * The answer to a probe tells the prober about us; it is not rate limited
 * (one per connect of the peer's path 0), only bounded.
 */
int rds_control_pong(struct rds_conn_path *cp, __be16 dport, bool probe)
{
	int ret;

	if (!probe && !rds_control_pong_allowed(cp->cp_conn)) {
		rds_stats_inc(RDS_STAT_RECV_PING_RATELIMITED);
		return -ENOBUFS;
	}
	ret = rds_control_queue(cp, probe, true, 0, dport);
	if (ret) {
		rds_stats_inc(RDS_STAT_SEND_PONG_DROPPED);
		return ret;
	}
	rds_stats_inc(RDS_STAT_SEND_PONG);
	return 0;
}

void rds_control_probe(struct rds_connection *conn)
{
	struct rds_conn_path *cp = &conn->c_path[0];
	unsigned long flags;
	bool triggered;

	spin_lock_irqsave(&cp->cp_lock, flags);
	triggered = conn->c_ping_triggered;
	conn->c_ping_triggered = true;
	spin_unlock_irqrestore(&cp->cp_lock, flags);
	if (triggered)
		return;
	if (rds_control_queue(cp, true, false,
			      cpu_to_be16(RDS_FLAG_PROBE_PORT), 0))
		WRITE_ONCE(conn->c_ping_triggered, false);
}

/* A heartbeat's ping (see heartbeat.c): a plain one, in a ping's slot.  A
 * path whose slots are all taken has not been heard from in a while, and
 * its timeout will say so.
 */
int rds_control_heartbeat(struct rds_conn_path *cp)
{
	return rds_control_queue(cp, false, false, htons(RDS_HB_PORT), 0);
}
