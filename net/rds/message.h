/* SPDX-License-Identifier: GPL-2.0 */
/* Building messages: payload pages, headers, extension headers. */
#ifndef _RDS_MESSAGE_H
#define _RDS_MESSAGE_H

#include <linux/uio.h>
#include <rds/transport.h>

/* A message with room for @len payload bytes in freshly allocated pages. */
struct rds_message *rds_message_alloc(unsigned int len, gfp_t gfp);

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
