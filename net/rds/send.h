/* SPDX-License-Identifier: GPL-2.0 */
/* The send side: sendmsg, the per-path transmit loop, acks, cancel. */
#ifndef _RDS_SEND_H
#define _RDS_SEND_H

#include <linux/socket.h>
#include <rds/transport.h>

struct rds_sock;

int rds_sendmsg(struct socket *sock, struct msghdr *msg, size_t payload_len);

/* Hand queued messages to the transport until the queue is empty, the
 * transport is full or the path is not UP.  Returns 0, or -EAGAIN when the
 * caller should try again later (the send work requeues itself).
 */
int rds_send_xmit(struct rds_conn_path *cp);

/* The path went down: move cp_retrans back in front of cp_send_queue. */
void rds_send_path_reset(struct rds_conn_path *cp);

/* The path dies with its connection: complete everything queued on it. */
void rds_send_path_purge(struct rds_conn_path *cp);

/* RDS_CANCEL_SENT_TO (@dest set) and release (@dest NULL). */
void rds_send_drop_to(struct rds_sock *rs, const struct in6_addr *daddr,
		      __be16 dport);

/* Queue @rm, which has no socket, on @cp from @sport to @dport (control.c
 * bounds how many).  Takes its own reference; -ENETUNREACH when @cp is
 * being destroyed.  An @answer (a pong) is sent at once where the
 * transport can send from the receive path that calls this.
 */
int rds_send_queue_control(struct rds_conn_path *cp, struct rds_message *rm,
			   __be16 sport, __be16 dport, bool answer);

int rds_send_init(void);	/* info tables */
void rds_send_exit(void);

#endif /* _RDS_SEND_H */
