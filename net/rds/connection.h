/* SPDX-License-Identifier: GPL-2.0 */
/* Connections and paths, the parts only the generic layer uses.  The rest
 * of the connection API is in <rds/transport.h>.
 */
#ifndef _RDS_CONNECTION_H
#define _RDS_CONNECTION_H

#include <rds/transport.h>

/* Lock ordering in the generic layer (outermost first):
 *
 *   cp_cm_lock (mutex) -> RDS_IN_XMIT (bit lock, see rds_path_lock_xmit)
 *   rds_cong_monitor_lock -> rs_lock
 *   m_rs_lock -> rs_lock -> cp_lock
 *   conn_lock, cong_lock: leaves (nothing is taken inside them)
 *
 * cp_lock, rs_lock and m_rs_lock are taken with interrupts off (or nested
 * in a lock that is) because acks and receives complete messages from
 * softirq context.  No spinlock is held across a call into the transport
 * or into the workqueue's sync cancels.  rds_wake_sk_sleep() takes only a
 * socket's wait queue lock, a leaf, and is called under
 * rds_cong_monitor_lock (rds_cong_map_updated()).
 */

struct rds_sock;

/* Find or create the connection a socket sends on.  Loopback (faddr local
 * to @net) picks the loopback transport when @trans prefers it.  The caller
 * gets a reference.
 */
struct rds_connection *rds_conn_create_outgoing(struct net *net,
						const struct in6_addr *laddr,
						const struct in6_addr *faddr,
						struct rds_transport *trans,
						u8 tos, gfp_t gfp, int dev_if);

/* The path a socket's messages use: mprds hash of its bound port. */
struct rds_conn_path *rds_conn_path_for_sock(struct rds_connection *conn,
					     struct rds_sock *rs,
					     bool nonblock);

/* Queue @cp's heartbeat work (net/rds/heartbeat.c) in @delay jiffies. */
void rds_path_queue_hb(struct rds_conn_path *cp, unsigned long delay);
/* Runs the heartbeat work now, even if it is waiting for a later time. */
void rds_path_rearm_hb(struct rds_conn_path *cp);

/* Queue the connect work for @cp unless it is already pending. */
void rds_queue_reconnect(struct rds_conn_path *cp);

/* Handshake exthdrs of a probe or its pong: set c_npaths, start paths.
 * False (and nothing changed) when @hdr carries no path count.
 */
bool rds_conn_handshake_recv(struct rds_conn_path *cp,
			     const struct rds_header *hdr);

/* Multipath: connect paths 1..c_npaths-1 once the handshake is done. */
void rds_start_mprds(struct rds_connection *conn);

const char *rds_path_state_name(int state);

/* Calls @fn for every connection of @net under rcu_read_lock(): @fn must
 * not sleep, and may see a connection that is being destroyed.
 */
void rds_conn_visit_rcu(struct net *net,
			void (*fn)(struct rds_connection *conn, void *arg),
			void *arg);

/* path.c, for connection.c: set up and tear down one path's work. */
void rds_conn_path_init_work(struct rds_conn_path *cp);
void rds_conn_path_destroy(struct rds_conn_path *cp);
/* Let go of RDS_IN_XMIT, waking whoever waits to take it. */
void rds_path_unlock_xmit(struct rds_conn_path *cp);

int rds_conn_init(void);	/* creates rds_wq, registers info tables */
void rds_conn_exit(void);
void rds_conn_net_exit(struct net *net);

#endif /* _RDS_CONNECTION_H */
