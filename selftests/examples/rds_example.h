/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the three examples share: one address union for both families,
 * the command line's numbers and addresses, and the wait before close()
 * that keeps the last messages from being dropped. A program defines
 * `prog`, its name for messages, before including this.
 */
#ifndef _RDS_EXAMPLE_H
#define _RDS_EXAMPLE_H

#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/rds.h>

/* How long to wait at the end for the last messages to be acknowledged. */
#define DRAIN_MS	5000

union rds_addr {
	struct sockaddr sa;
	struct sockaddr_in sin;
	struct sockaddr_in6 sin6;
};

__attribute__((format(printf, 1, 2), noreturn))
static inline void die(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err));
	exit(1);
}

static inline unsigned long parse_number(const char *s, unsigned long min,
					 unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "%s: %s: not a number from %lu to %lu\n", prog,
			s, min, max);
		exit(2);
	}
	return v;
}

/*
 * @text (IPv4, or IPv6 with an optional "%IFNAME" scope) and @port into @a.
 * Returns the length of the address, 0 if @text is none.
 */
static inline socklen_t parse_addr(const char *text, unsigned int port,
				   union rds_addr *a)
{
	char host[INET6_ADDRSTRLEN + IF_NAMESIZE + 1];
	char *scope;

	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, text, &a->sin.sin_addr) == 1) {
		a->sin.sin_family = AF_INET;
		a->sin.sin_port = htons(port);
		return sizeof(a->sin);
	}
	if (snprintf(host, sizeof(host), "%s", text) >= (int)sizeof(host))
		return 0;
	scope = strchr(host, '%');
	if (scope) {
		*scope++ = '\0';
		a->sin6.sin6_scope_id = if_nametoindex(scope);
		if (!a->sin6.sin6_scope_id)
			return 0;
	}
	if (inet_pton(AF_INET6, host, &a->sin6.sin6_addr) != 1)
		return 0;
	a->sin6.sin6_family = AF_INET6;
	a->sin6.sin6_port = htons(port);
	return sizeof(a->sin6);
}

/* "ADDR:PORT" or "[ADDR]:PORT", in a buffer the next call overwrites. */
static inline const char *addr_str(const union rds_addr *a)
{
	static char s[INET6_ADDRSTRLEN + 8];
	char host[INET6_ADDRSTRLEN] = "?";

	if (a->sa.sa_family == AF_INET) {
		inet_ntop(AF_INET, &a->sin.sin_addr, host, sizeof(host));
		snprintf(s, sizeof(s), "%s:%u", host, ntohs(a->sin.sin_port));
	} else {
		inet_ntop(AF_INET6, &a->sin6.sin6_addr, host, sizeof(host));
		snprintf(s, sizeof(s), "[%s]:%u", host,
			 ntohs(a->sin6.sin6_port));
	}
	return s;
}

/* Is this RDS_INFO_*_MESSAGES item a message sent from @self? */
static inline bool from_self(const void *item, int each, const union rds_addr *self)
{
	struct rds6_info_message m6;
	struct rds_info_message m4;

	/* The items are packed: copy them out before reading their fields. */
	if (self->sa.sa_family == AF_INET6) {
		if (each < (int)sizeof(m6))
			return false;
		memcpy(&m6, item, sizeof(m6));
		return m6.lport == self->sin6.sin6_port &&
		       !memcmp(&m6.laddr, &self->sin6.sin6_addr,
			       sizeof(m6.laddr));
	}
	if (each < (int)sizeof(m4))
		return false;
	memcpy(&m4, item, sizeof(m4));
	return m4.lport == self->sin.sin_port &&
	       m4.laddr == self->sin.sin_addr.s_addr;
}

/*
 * How many messages from @self the kernel still holds, not yet sent or
 * not yet acknowledged by the peer's kernel; -1 if the tables cannot be
 * read. The RDS_INFO tables list every connection of the network
 * namespace; a getsockopt() whose buffer is too short fails with ENOSPC
 * and says how long it must be, and the table may grow in between.
 */
static inline int still_queued(int fd, const union rds_addr *self)
{
	static const int v4[] = { RDS_INFO_SEND_MESSAGES,
				  RDS_INFO_RETRANS_MESSAGES };
	static const int v6[] = { RDS6_INFO_SEND_MESSAGES,
				  RDS6_INFO_RETRANS_MESSAGES };
	const int *tables = self->sa.sa_family == AF_INET6 ? v6 : v4;
	int t, n = 0;

	for (t = 0; t < 2; t++) {
		socklen_t len = 0, off;
		char *buf = NULL, *more;
		int each;

		for (;;) {
			each = getsockopt(fd, SOL_RDS, tables[t], buf, &len);
			if (each >= 0)
				break;
			if (errno != ENOSPC) {
				free(buf);
				return -1;
			}
			len += len / 4 + 1024;
			more = realloc(buf, len);
			if (!more) {
				free(buf);
				return -1;
			}
			buf = more;
		}
		for (off = 0; each > 0 && off + each <= len; off += each)
			n += from_self(buf + off, each, self);
		free(buf);
	}
	return n;
}

/*
 * close() drops the messages of the socket that the peer's kernel has not
 * acknowledged yet, and a successful sendmsg() only means that the message
 * was queued: on another CPU it may still be on its way out. So before
 * closing, wait (a while) until none of ours is left.
 */
static inline void drain(int fd)
{
	union rds_addr self;
	socklen_t len = sizeof(self);
	int waited, n = 0;

	if (getsockname(fd, &self.sa, &len))
		die("getsockname");
	for (waited = 0; waited < DRAIN_MS; waited += 10) {
		n = still_queued(fd, &self);
		if (n <= 0)
			break;
		poll(NULL, 0, 10);
	}
	if (n < 0)
		fprintf(stderr, "%s: RDS_INFO tables: %s; closing anyway\n",
			prog, strerror(errno));
	else if (n > 0)
		fprintf(stderr, "%s: %d messages unacknowledged; closing\n",
			prog, n);
}

#endif /* _RDS_EXAMPLE_H */
