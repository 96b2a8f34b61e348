/* SPDX-License-Identifier: GPL-2.0 */
/* Connection heartbeats: a path that hears nothing from its peer for a
 * while asks with a ping, and one whose ping goes unanswered is reset
 * (see heartbeat.c).
 */
#ifndef _RDS_HEARTBEAT_H
#define _RDS_HEARTBEAT_H

#include <linux/jiffies.h>
#include <rds/transport.h>

/* A heartbeat is a ping from this port, its pong comes to it from port 0;
 * see heartbeat.c.
 */
#define RDS_HB_PORT	2

extern unsigned int rds_sysctl_hb_interval;	/* seconds, 0: off */
extern unsigned int rds_sysctl_hb_timeout;	/* seconds */

/* Anything from the peer on @cp: a message, or an acknowledgment of ours. */
static inline void rds_hb_heard(struct rds_conn_path *cp)
{
	unsigned long now = jiffies;

	if (READ_ONCE(cp->cp_hb_heard) != now)
		WRITE_ONCE(cp->cp_hb_heard, now);
}

/* @cp is UP: starts its heartbeat when they are on. */
void rds_hb_path_up(struct rds_conn_path *cp);
/* Whether a pong (from port 0 to @dport) answers @cp's heartbeat; then it
 * is consumed.  Any context.
 */
bool rds_hb_pong(struct rds_conn_path *cp, __be16 dport);
/* The sysctls changed: every path that is UP starts or stops. */
void rds_hb_sysctl_changed(void);
void rds_hb_worker(struct work_struct *work);

#endif /* _RDS_HEARTBEAT_H */
