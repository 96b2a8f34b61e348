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

/* A pending RDS_CMSG_RDMA_STATUS of an operation.
 *
 * Lifetime: allocated with the operation when the sender asked for a
 * status (RDS_RDMA_NOTIFY_ME, or SO_RECVERR for errors); n_rs holds a sock
 * reference until the notifier is queued on n_rs's rs_notify_queue (under
 * rs_recv_lock, where recvmsg or the socket's release frees it) or freed
 * with its message.  Only the one who took it from op_notifier does either.
 */
struct rds_rdma_notifier {
	struct list_head	n_item;		/* rs_notify_queue */
	struct rds_sock		*n_rs;
	u64			n_user_token;
	int			n_status;
};

/* Under lock_sock(); errnos as in-tree.  *@cookie_ret, when given, gets
 * the cookie too (RDS_CMSG_RDMA_MAP).
 */
int rds_rdma_get_mr(struct rds_sock *rs, const struct rds_get_mr_args *args,
		    rds_rdma_cookie_t *cookie_ret);
int rds_rdma_free_mr(struct rds_sock *rs, const struct rds_free_mr_args *args);
/* The region of @cookie, made by RDS_CMSG_RDMA_MAP for a message that
 * failed, goes as if freed with RDS_RDMA_INVALIDATE (if still there).
 */
void rds_rdma_forget_mr(struct rds_sock *rs, rds_rdma_cookie_t cookie);
/* Socket release: every MR of @rs goes. */
void rds_rdma_drop_mrs(struct rds_sock *rs);

/* RDS_CMSG_RDMA_ARGS: the operation of @args, its local pages pinned.
 * Process context.
 */
struct rds_rdma_op *rds_rdma_op_build(struct rds_sock *rs,
				      const struct rds_rdma_args *args);
/* RDS_CMSG_*ATOMIC_* (@type): the operation of @args, its 8 local bytes
 * pinned.  Process context.
 */
struct rds_rdma_op *rds_rdma_atomic_build(struct rds_sock *rs, int type,
					  const struct rds_atomic_args *args);
/* With the message that owns it: unpins, in a work item from softirq. */
void rds_rdma_op_free(struct rds_rdma_op *op);
/* Reports @status to the sender, if nobody did yet and it wants it. */
void rds_rdma_notify(struct rds_rdma_op *op, int status);
/* Whether @rs has a region with the key of @cookie (RDS_CMSG_RDMA_DEST);
 * if so, synced for the device first.  Process context.
 */
bool rds_rdma_dest_mr(struct rds_sock *rs, rds_rdma_cookie_t cookie);
/* RDS_EXTHDR_RDMA arrived for @rs: the peer used @key; a use-once region
 * goes.  Any context.
 */
void rds_rdma_unuse(struct rds_sock *rs, u32 key);
/* Release: the statuses nobody read. */
void rds_rdma_clear_notify(struct rds_sock *rs);

#endif /* _RDS_RDMA_H */
