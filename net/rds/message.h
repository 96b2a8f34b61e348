/* SPDX-License-Identifier: GPL-2.0 */
/* Building messages: payload pages, headers, extension headers. */
#ifndef _RDS_MESSAGE_H
#define _RDS_MESSAGE_H

#include <linux/skbuff.h>
#include <linux/uio.h>
#include <rds/transport.h>

/* A MSG_ZEROCOPY send's completion.  Lifetime: allocated with its message,
 * which owns it until the message is freed; then, if sendmsg() set z_sent
 * before it dropped its message reference, it is queued on z_rs's
 * rs_zcopy_queue (under rs_recv_lock) until recvmsg() reports z_cookie;
 * else, or when the socket is closing, it is freed at once.  z_rs holds a
 * sock reference from the send until it is queued or freed.
 */
struct rds_zcopy {
	struct list_head	z_item;		/* rs_zcopy_queue */
	struct rds_sock		*z_rs;
	struct mmpin		z_mmp;		/* pages against RLIMIT_MEMLOCK */
	u32			z_cookie;	/* RDS_CMSG_ZCOPY_COOKIE */
	bool			z_sent;		/* sendmsg succeeded: report it */
};

/* A message with room for @len payload bytes: pages of its own, or for a
 * small payload a piece of a page shared with others (message.c).
 */
struct rds_message *rds_message_alloc(unsigned int len, gfp_t gfp);
/* Module exit: lets go of the per-CPU pages small payloads come from. */
void rds_message_exit(void);

/* MSG_ZEROCOPY: a message whose payload is the sender's pages in @from,
 * pinned until it is freed, which queues @cookie's completion on @rs.
 */
struct rds_message *rds_message_zcopy_from_user(struct rds_sock *rs,
						struct iov_iter *from,
						u32 cookie);

/* Fill the payload pages of @rm from @from (rm->m_len bytes). */
int rds_message_copy_from_user(struct rds_message *rm, struct iov_iter *from);

/* Copy up to the iterator's size of the payload of @rm to @to. */
int rds_message_copy_to_user(struct rds_message *rm, struct iov_iter *to);

/* A message whose payload is a copy of @len bytes at @data. */
struct rds_message *rds_message_from_buffer(const void *data,
					    unsigned int len, gfp_t gfp);

void rds_message_populate_header(struct rds_header *hdr, __be16 sport,
				 __be16 dport, u64 seq);

#endif /* _RDS_MESSAGE_H */
