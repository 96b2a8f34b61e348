/* SPDX-License-Identifier: GPL-2.0 */
/* Carriers, the generic layer's side: a path's home carrier and the
 * RDS_INFO_CARRIERS table.  struct rds_carrier and the transport calls
 * that make one are in <rds/transport.h>.
 */
#ifndef _RDS_CARRIER_H
#define _RDS_CARRIER_H

#include <rds/transport.h>

/* Makes cp_home the carrier of @cp, a path whose cp_conn and c_trans are
 * set; the transport's conn_alloc() fills in its ca_data afterwards.
 */
void rds_carrier_init_home(struct rds_conn_path *cp);

void rds_carrier_init(void);	/* registers RDS_INFO_CARRIERS */
void rds_carrier_exit(void);

#endif /* _RDS_CARRIER_H */
