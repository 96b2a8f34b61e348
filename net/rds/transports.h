/* SPDX-License-Identifier: GPL-2.0 */
/* The registry of transports, as the rest of the generic layer sees it. */
#ifndef _RDS_TRANSPORTS_H
#define _RDS_TRANSPORTS_H

#include <rds/transport.h>

/* The transport a socket bound to @addr uses: loopback for 127/8 and ::1,
 * else the first registered transport whose laddr_check() accepts @addr.
 * Returns it with a reference on its module, or NULL.
 */
struct rds_transport *rds_trans_get_preferred(struct net *net,
					      const struct in6_addr *addr,
					      u32 scope_id);
/* SO_RDS_TRANSPORT: the transport of @t_type, module referenced, or NULL.
 * Loads its module when it is not registered yet: may sleep.
 */
struct rds_transport *rds_trans_get(int t_type);
void rds_trans_put(struct rds_transport *trans);

/* RDS_INFO_COUNTERS: append every transport's counters, as long as
 * @avail (counters that still fit) allows.  Returns how many counters all
 * transports have, copied or not.
 */
unsigned int rds_trans_stats_info_copy(struct rds_info_iterator *iter,
				       unsigned int avail);

#endif /* _RDS_TRANSPORTS_H */
