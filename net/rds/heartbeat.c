// SPDX-License-Identifier: GPL-2.0
/* Connection heartbeats.
 *
 * A peer that dies without closing its connection (host hung, link cut,
 * every packet dropped) leaves the path UP until the transport gives up:
 * over TCP, its retransmission timeout, many minutes with data in flight,
 * never for an idle connection.  Meanwhile messages for it wait, and an
 * application has no way to learn that the peer is gone.
 *
 * With net.rds.conn_heartbeat_interval_secs set, a path that heard nothing
 * from its peer (no message, no acknowledgment of ours) for that long sends
 * it an RDS ping; a peer that answers nothing, pong included, within
 * net.rds.conn_heartbeat_timeout_secs more is declared gone: the path is
 * reset (conn_heartbeat_timeout counts it, and the kernel log says which
 * path) and reconnects as after any error; its unacknowledged messages go
 * again once it is back.  A path busy with traffic sends no pings at all,
 * nor does an idle one other than path 0.
 *
 * The ping is a plain one, which in-tree peers already answer, from
 * RDS_HB_PORT; its pong (to that port, on the path the ping went out on,
 * in both stacks) is heard like anything else, and not counted as a drop
 * while a heartbeat is outstanding on the path.  The port is not reserved:
 * a socket bound to it gets the pongs, its own ones among them.  Not the
 * multipath handshake's probe: an in-tree IB peer warns about a probe,
 * and an in-tree TCP peer logs "ignoring unknown exthdr type 0x8" for
 * ours (it carries RDS_EXTHDR_SPORT_IDX), every interval.
 *
 * Off by default, as in-tree has none: a peer with net.rds.ping_enable at
 * 0 answers no ping, and would be declared gone whenever it is idle for
 * the interval; the whole cluster has to agree before it is turned on.
 *
 * cp_hb_heard and cp_hb_sent are jiffies; cp_hb_sent is 0 while no
 * heartbeat is outstanding.  Only cp_hb_w writes cp_hb_sent (the work is
 * never run twice at once); readers elsewhere use READ_ONCE().
 */
#include <linux/jiffies.h>
#include <linux/workqueue.h>

#include "connection.h"
#include "control.h"
#include "heartbeat.h"
#include "stats.h"
#include "trace.h"

unsigned int rds_sysctl_hb_interval;
unsigned int rds_sysctl_hb_timeout = 10;

/* The pong of the heartbeat outstanding on @cp: anything we hear after
 * the ping was sent says the same, so only the port matters.
 */
bool rds_hb_pong(struct rds_conn_path *cp, __be16 dport)
{
	return dport == htons(RDS_HB_PORT) && READ_ONCE(cp->cp_hb_sent);
}

static void rds_hb_schedule(struct rds_conn_path *cp, unsigned long delay)
{
	rds_path_queue_hb(cp, max(delay, 1UL));
}

void rds_hb_path_up(struct rds_conn_path *cp)
{
	unsigned int interval = READ_ONCE(rds_sysctl_hb_interval);

	WRITE_ONCE(cp->cp_hb_heard, jiffies);
	if (interval)
		rds_hb_schedule(cp, interval * HZ);
}

/* Nothing queued or in flight on @cp. */
static bool rds_hb_path_idle(struct rds_conn_path *cp)
{
	unsigned long flags;
	bool idle;

	spin_lock_irqsave(&cp->cp_lock, flags);
	idle = list_empty(&cp->cp_send_queue) && list_empty(&cp->cp_retrans);
	spin_unlock_irqrestore(&cp->cp_lock, flags);
	return idle;
}

static void rds_hb_expired(struct rds_conn_path *cp, unsigned int timeout)
{
	struct rds_connection *conn = cp->cp_conn;

	WRITE_ONCE(cp->cp_hb_sent, 0);
	rds_stats_inc(RDS_STAT_CONN_HEARTBEAT_TIMEOUT);
	trace_rds_heartbeat(cp, RDS_TRACE_HB_TIMEOUT);
	pr_info_ratelimited("rds: path %u of %pI6c->%pI6c: no answer to a heartbeat in %u s, reset\n",
			    cp->cp_index, &conn->c_laddr, &conn->c_faddr, timeout);
	rds_conn_path_error(cp, "heartbeat timeout");
}

void rds_hb_worker(struct work_struct *work)
{
	struct rds_conn_path *cp = container_of(to_delayed_work(work),
						struct rds_conn_path, cp_hb_w);
	unsigned long interval = READ_ONCE(rds_sysctl_hb_interval) * HZ;
	unsigned int timeout = READ_ONCE(rds_sysctl_hb_timeout);
	unsigned long heard = READ_ONCE(cp->cp_hb_heard);
	unsigned long sent = cp->cp_hb_sent;
	unsigned long now = jiffies;

	if (!interval || rds_conn_path_state(cp) != RDS_CONN_UP) {
		WRITE_ONCE(cp->cp_hb_sent, 0);
		return;		/* rds_hb_path_up() starts it again */
	}
	if (sent && time_after_eq(heard, sent)) {
		WRITE_ONCE(cp->cp_hb_sent, 0);
		sent = 0;
		trace_rds_heartbeat(cp, RDS_TRACE_HB_ANSWERED);
	}
	if (sent) {
		if (time_after_eq(now, sent + timeout * HZ)) {
			rds_hb_expired(cp, timeout);
			return;
		}
		rds_hb_schedule(cp, sent + timeout * HZ - now);
		return;
	}
	if (time_before(now, heard + interval)) {
		rds_hb_schedule(cp, heard + interval - now);
		return;
	}
	/* An idle path other than 0 does not ask: path 0 asks for the
	 * connection, and this path's own loss shows once it has something
	 * in flight again.  A peer of 1,000 connections is asked 1,000 times
	 * an interval, not 8,000 (TCP opens eight paths to each).
	 */
	if (cp->cp_index && rds_hb_path_idle(cp)) {
		rds_hb_schedule(cp, interval);
		return;
	}
	/* 0 is "none outstanding": a ping sent at jiffy 0 counts as 1. */
	WRITE_ONCE(cp->cp_hb_sent, now ?: 1);
	rds_control_heartbeat(cp);
	rds_stats_inc(RDS_STAT_CONN_HEARTBEAT_SENT);
	trace_rds_heartbeat(cp, RDS_TRACE_HB_SENT);
	rds_hb_schedule(cp, timeout * HZ);
}

/* The work runs at once and works out its next time from the new values
 * (a pending one would keep the old interval's timer: a day's, say).
 * What it heard is kept: an idle path with a shorter interval asks now.
 */
static void rds_hb_kick(struct rds_connection *conn, void *arg)
{
	int i;

	for (i = 0; i < conn->c_path_count; i++)
		if (rds_conn_path_state(&conn->c_path[i]) == RDS_CONN_UP)
			rds_path_rearm_hb(&conn->c_path[i]);
}

void rds_hb_sysctl_changed(void)
{
	rds_conn_for_each(NULL, NULL, rds_hb_kick, NULL);
}
