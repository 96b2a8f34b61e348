/* SPDX-License-Identifier: GPL-2.0 */
/* Socket addresses for the C selftests: one union for both families. */
#ifndef _RDS_SELFTEST_ADDR_H
#define _RDS_SELFTEST_ADDR_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "ktap.h"

union addr {
	struct sockaddr sa;
	struct sockaddr_in in;
	struct sockaddr_in6 in6;
	struct sockaddr_storage ss;
};

/* Fills @a from a numeric IPv4 or IPv6 address; returns its length. */
static inline socklen_t addr_make(union addr *a, const char *str, int port)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, str, &a->in.sin_addr) == 1) {
		a->in.sin_family = AF_INET;
		a->in.sin_port = htons(port);
		return sizeof(a->in);
	}
	if (inet_pton(AF_INET6, str, &a->in6.sin6_addr) != 1)
		ktap_bail("bad address %s", str);
	a->in6.sin6_family = AF_INET6;
	a->in6.sin6_port = htons(port);
	return sizeof(a->in6);
}

static inline int addr_port(const union addr *a)
{
	return ntohs(a->sa.sa_family == AF_INET ? a->in.sin_port : a->in6.sin6_port);
}

#endif /* _RDS_SELFTEST_ADDR_H */
