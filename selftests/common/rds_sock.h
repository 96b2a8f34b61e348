/* SPDX-License-Identifier: GPL-2.0 */
/* RDS sockets for the C selftests: bound ones, sends to "ADDR", PORT, cmsgs. */
#ifndef _RDS_SELFTEST_RDS_SOCK_H
#define _RDS_SELFTEST_RDS_SOCK_H

#include <sys/socket.h>

#include "addr.h"
#include "ktap.h"

#ifndef AF_RDS
#define AF_RDS 21
#endif

/* A new RDS socket bound to @str:@port; bails out of the test otherwise. */
static inline int rds_bound(const char *str, int port)
{
	int fd = socket(AF_RDS, SOCK_SEQPACKET, 0);
	union addr a;
	socklen_t len = addr_make(&a, str, port);

	if (fd < 0)
		ktap_bail("socket(AF_RDS)");
	if (bind(fd, &a.sa, len))
		ktap_bail("bind %s:%d", str, port);
	return fd;
}

static inline ssize_t send_to(int fd, const char *str, int port, const void *buf,
			      size_t n, int flags)
{
	union addr a;
	socklen_t len = addr_make(&a, str, port);

	return sendto(fd, buf, n, flags, &a.sa, len);
}

/* The first cmsg of @level and @type that recvmsg() gave, or NULL. */
static inline struct cmsghdr *find_cmsg(struct msghdr *msg, int level, int type)
{
	struct cmsghdr *c;

	for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c))
		if (c->cmsg_level == level && c->cmsg_type == type)
			return c;
	return NULL;
}

#endif /* _RDS_SELFTEST_RDS_SOCK_H */
