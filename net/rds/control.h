/* SPDX-License-Identifier: GPL-2.0 */
/* Control traffic: pongs and the multipath handshake probe, each bounded
 * per path so that no peer can make us queue without limit.  Congestion map
 * updates are bounded by construction: one pending per connection (bit 0
 * of c_map_queued), built only when path 0 sends it (see send.c).
 */
#ifndef _RDS_CONTROL_H
#define _RDS_CONTROL_H

#include <rds/transport.h>

/* Answer a ping from port @dport; @probe: it was a handshake probe.  Any
 * context.  Returns 0, or -ENOBUFS when the pong was dropped by a bound.
 */
int rds_control_pong(struct rds_conn_path *cp, __be16 dport, bool probe);

/* Send the handshake probe on path 0, once per connection of path 0. */
void rds_control_probe(struct rds_connection *conn);
/* The ping of a heartbeat, see heartbeat.c. */
int rds_control_heartbeat(struct rds_conn_path *cp);

/* @rm, a control message, left its path (acknowledged or purged). */
void rds_control_done(struct rds_message *rm);

#endif /* _RDS_CONTROL_H */
