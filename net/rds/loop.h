/* SPDX-License-Identifier: GPL-2.0 */
/* The loopback transport: messages to an address of our own netns never
 * leave the host; xmit hands the message itself to rds_recv_incoming() on
 * the reverse connection.
 */
#ifndef _RDS_LOOP_H
#define _RDS_LOOP_H

#include <rds/transport.h>

/* The loopback transport's t_type, as SO_RDS_TRANSPORT reports it (the
 * same value as in-tree); it cannot be chosen with SO_RDS_TRANSPORT.
 */
#define RDS_TRANS_LOOP	RDS_TRANS_COUNT

extern struct rds_transport rds_loop_transport;

/* Is @addr one of the netns' own (loopback net or a local address)? */
bool rds_addr_is_local(struct net *net, const struct in6_addr *addr,
		       u32 scope_id);

#endif /* _RDS_LOOP_H */
