/* SPDX-License-Identifier: GPL-2.0 */
/* The receive side: delivery to sockets, recvmsg and its cmsgs. */
#ifndef _RDS_RECV_H
#define _RDS_RECV_H

#include <linux/socket.h>

struct rds_sock;

int rds_recvmsg(struct socket *sock, struct msghdr *msg, size_t size,
		int msg_flags);

/* Release: drop everything still queued for @rs. */
void rds_clear_recv_queue(struct rds_sock *rs);

int rds_recv_init(void);	/* info tables */
void rds_recv_exit(void);

#endif /* _RDS_RECV_H */
