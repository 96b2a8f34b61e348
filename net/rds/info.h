/* SPDX-License-Identifier: GPL-2.0 */
/* RDS_INFO_* getsockopt: each table is a function registered for its
 * optname; it copies whole items into an iterator over a kernel buffer.
 */
#ifndef _RDS_INFO_H
#define _RDS_INFO_H

#include <rds/transport.h>

/* A kernel buffer of @len bytes being filled; @offset is how far. */
struct rds_info_iterator {
	char		*buf;
	unsigned long	len;
	unsigned long	offset;
};

/* Whether @optname is an RDS_INFO_* table's (ours included). */
bool rds_info_optname(int optname);
int rds_info_getsockopt(struct socket *sock, int optname, char __user *optval,
			int __user *optlen);

#endif /* _RDS_INFO_H */
