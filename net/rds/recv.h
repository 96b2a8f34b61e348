/* SPDX-License-Identifier: GPL-2.0 */
/* The receive side: delivery to sockets, recvmsg and its cmsgs. */
#ifndef _RDS_RECV_H
#define _RDS_RECV_H

#include <linux/socket.h>

struct rds_sock;
struct rds_zcopy;

int rds_recvmsg(struct socket *sock, struct msghdr *msg, size_t size,
		int msg_flags);

/* A zerocopy message was freed: queue its cookie for recvmsg() of its
 * sender and drop the sender reference.  Any context.
 */
void rds_recv_zcopy_done(struct rds_zcopy *z);

/* Release: drop everything still queued for @rs. */
void rds_clear_recv_queue(struct rds_sock *rs);

int rds_recv_init(void);	/* info tables */
void rds_recv_exit(void);

#endif /* _RDS_RECV_H */
