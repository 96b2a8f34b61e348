/* SPDX-License-Identifier: GPL-2.0 */
/* Memory regions (RDS_GET_MR, RDS_GET_MR_FOR_DEST, RDS_FREE_MR), as the
 * rest of the generic layer sees them.
 */
#ifndef _RDS_RDMA_H
#define _RDS_RDMA_H

#include <linux/rds.h>

#include "socket.h"

/* A cookie is <offset into the first page : 32, key : 32>, as in-tree:
 * the user may register from any byte, the device maps whole pages.
 */
static inline rds_rdma_cookie_t rds_rdma_make_cookie(u32 key, u32 offset)
{
	return key | (u64)offset << 32;
}

static inline u32 rds_rdma_cookie_key(rds_rdma_cookie_t cookie)
{
	return cookie;
}

static inline u32 rds_rdma_cookie_offset(rds_rdma_cookie_t cookie)
{
	return cookie >> 32;
}

/* Under lock_sock(); errnos as in-tree. */
int rds_rdma_get_mr(struct rds_sock *rs, const struct rds_get_mr_args *args);
int rds_rdma_free_mr(struct rds_sock *rs, const struct rds_free_mr_args *args);
/* Socket release: every MR of @rs goes. */
void rds_rdma_drop_mrs(struct rds_sock *rs);

#endif /* _RDS_RDMA_H */
