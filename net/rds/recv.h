/* SPDX-License-Identifier: GPL-2.0 */
/* The receive side: delivery to sockets, recvmsg and its cmsgs. */
#ifndef _RDS_RECV_H
#define _RDS_RECV_H

#include <linux/list.h>
#include <linux/socket.h>

#include "stats.h"

struct rds_conn_path;
struct rds_incoming;
struct rds_sock;
struct rds_zcopy;

int rds_recvmsg(struct socket *sock, struct msghdr *msg, size_t size,
		int msg_flags);

/* Queues @item on @queue, one of @rs's event lists under rs_recv_lock
 * (zerocopy cookies, RDMA statuses), and wakes its readers.  False when
 * @rs is dead: release emptied those lists and nothing may join them, so
 * the caller frees @item.  Any context.
 */
bool rds_recv_queue_event(struct rds_sock *rs, struct list_head *item,
			  struct list_head *queue);

/* A zerocopy message was freed: queue its cookie for recvmsg() of its
 * sender and drop the sender reference.  Any context.
 */
void rds_recv_zcopy_done(struct rds_zcopy *z);

/* @cp's connection is gone, or a new one is up: whatever comes next may be
 * from a peer that numbers anew (rds_recv_seq_ok()).  Takes cp_lock.
 */
void rds_recv_path_new_conn(struct rds_conn_path *cp);

/* @inc is not delivered: counted by @why, and traced with its name. */
void rds_recv_dropped(struct rds_incoming *inc, enum rds_stat why);

/* Release: drop everything still queued for @rs. */
void rds_clear_recv_queue(struct rds_sock *rs);

int rds_recv_init(void);	/* info tables */
void rds_recv_exit(void);

#endif /* _RDS_RECV_H */
