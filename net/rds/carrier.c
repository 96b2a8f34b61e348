// SPDX-License-Identifier: GPL-2.0
/* Carriers: what a path sends through (see struct rds_carrier).  Every
 * path has a home carrier, its connection's own transport; nothing moves a
 * path to another one yet, so this is where a carrier starts out.
 */
#include "carrier.h"

void rds_carrier_init_home(struct rds_conn_path *cp)
{
	struct rds_carrier *ca = &cp->cp_home;

	ca->ca_trans = cp->cp_conn->c_trans;
	ca->ca_cp = cp;
	ca->ca_data = NULL;	/* the transport's conn_alloc() sets it */
	cp->cp_carrier = ca;
}
