// SPDX-License-Identifier: GPL-2.0
/*
 * The control connection of rds-stress: one TCP connection between the
 * two parent processes. The active side sends its options and RDS address,
 * the passive side answers with its RDS address, then single bytes mark
 * "tasks ready" ('R') and "done" ('D'). Nothing else travels on it, so a
 * read that returns 0 means the peer is gone.
 */
#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rdstool.h"
#include "rds-stress.h"

#define CTL_VERSION		2
#define CONNECT_TIMEOUT_MS	5000
#define HELLO_TIMEOUT_MS	10000

struct ctl_hello {
	uint32_t magic;
	uint32_t version;
	uint32_t opts[16];	/* struct stress_opts, field by field */
	uint8_t family;
	uint8_t pad[3];
	uint8_t addr[16];
};

/* Reads exactly len bytes; false on EOF, error or timeout. */
static bool read_full(int fd, void *buf, size_t len, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char *p = buf;
	ssize_t n;

	while (len) {
		if (poll(&pfd, 1, timeout_ms) <= 0)
			return false;
		n = read(fd, p, len);
		if (n <= 0)
			return false;
		p += n;
		len -= n;
	}
	return true;
}

static void write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("control connection: peer went away");
		p += n;
		len -= n;
	}
}

static_assert(sizeof(struct stress_opts) <= sizeof(((struct ctl_hello *)0)->opts),
	      "struct stress_opts outgrew the hello");

static void hello_pack(struct ctl_hello *h, const struct stress_opts *o,
		       const struct sockaddr_storage *addr)
{
	const uint32_t *src = (const uint32_t *)o;
	unsigned int i;

	memset(h, 0, sizeof(*h));
	h->magic = htonl(STRESS_MAGIC);
	h->version = htonl(CTL_VERSION);
	for (i = 0; i < sizeof(*o) / sizeof(uint32_t); i++)
		h->opts[i] = htonl(src[i]);
	h->family = addr->ss_family == AF_INET6 ? 6 : 4;
	if (addr->ss_family == AF_INET6)
		memcpy(h->addr, &((struct sockaddr_in6 *)addr)->sin6_addr, 16);
	else
		memcpy(h->addr, &((struct sockaddr_in *)addr)->sin_addr, 4);
}

static void hello_unpack(const struct ctl_hello *h, struct stress_opts *o,
			 struct sockaddr_storage *addr)
{
	uint32_t *dst = (uint32_t *)o;
	unsigned int i;

	if (ntohl(h->magic) != STRESS_MAGIC || ntohl(h->version) != CTL_VERSION)
		die("control connection: the peer is not a compatible rds-stress");
	for (i = 0; i < sizeof(*o) / sizeof(uint32_t); i++)
		dst[i] = ntohl(h->opts[i]);
	memset(addr, 0, sizeof(*addr));
	if (h->family == 6) {
		addr->ss_family = AF_INET6;
		memcpy(&((struct sockaddr_in6 *)addr)->sin6_addr, h->addr, 16);
	} else {
		addr->ss_family = AF_INET;
		memcpy(&((struct sockaddr_in *)addr)->sin_addr, h->addr, 4);
	}
}

/* A bounded connect(), so that an unreachable peer is an error, not a hang. */
static int ctl_connect(const struct sockaddr_storage *to)
{
	struct pollfd pfd = { .events = POLLOUT };
	socklen_t len = sizeof(int);
	int fd, err = 0;

	fd = socket(to->ss_family, SOCK_STREAM, 0);
	if (fd < 0)
		die_errno("socket");
	fcntl(fd, F_SETFL, O_NONBLOCK);
	if (connect(fd, (const struct sockaddr *)to, addr_len(to)) < 0) {
		if (errno != EINPROGRESS)
			die_errno("cannot connect to %s port %u", addr_str(to), addr_port(to));
		pfd.fd = fd;
		if (poll(&pfd, 1, CONNECT_TIMEOUT_MS) <= 0)
			die("cannot connect to %s port %u: timed out", addr_str(to),
			    addr_port(to));
		getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
		if (err) {
			errno = err;
			die_errno("cannot connect to %s port %u", addr_str(to), addr_port(to));
		}
	}
	fcntl(fd, F_SETFL, 0);
	return fd;
}

static int ctl_accept(const struct sockaddr_storage *on)
{
	int lfd, fd, one = 1;

	lfd = socket(on->ss_family, SOCK_STREAM, 0);
	if (lfd < 0)
		die_errno("socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (on->ss_family == AF_INET6) {
		one = 0;
		setsockopt(lfd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	}
	if (bind(lfd, (const struct sockaddr *)on, addr_len(on)) < 0)
		die_errno("cannot listen on %s port %u", addr_str(on), addr_port(on));
	if (listen(lfd, 1) < 0)
		die_errno("listen");
	do {
		fd = accept(lfd, NULL, NULL);
	} while (fd < 0 && errno == EINTR);
	if (fd < 0)
		die_errno("accept");
	close(lfd);
	return fd;
}

/* An IPv4 peer of a dual-stack listener shows up as ::ffff:a.b.c.d. */
static void unmap_v4(struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct in_addr a;

	if (ss->ss_family != AF_INET6 || !IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr))
		return;
	memcpy(&a, &sin6->sin6_addr.s6_addr[12], sizeof(a));
	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	sin->sin_addr = a;
}

/* Without -r, our RDS address is the one the control connection uses. */
static void local_from_ctl(struct stress_run *r)
{
	socklen_t len = sizeof(r->local);

	if (r->have_local)
		return;
	if (getsockname(r->ctl_fd, (struct sockaddr *)&r->local, &len) < 0)
		die_errno("getsockname");
	unmap_v4(&r->local);
}

void ctl_setup(struct stress_run *r)
{
	struct ctl_hello h;
	struct stress_opts theirs;

	if (r->active) {
		r->ctl_fd = ctl_connect(&r->ctl_addr);
		local_from_ctl(r);
		hello_pack(&h, &r->o, &r->local);
		write_full(r->ctl_fd, &h, sizeof(h));
		if (!read_full(r->ctl_fd, &h, sizeof(h), HELLO_TIMEOUT_MS))
			die("control connection: no answer from the passive side");
		hello_unpack(&h, &theirs, &r->peer);
	} else {
		r->ctl_fd = ctl_accept(&r->ctl_addr);
		local_from_ctl(r);
		if (!read_full(r->ctl_fd, &h, sizeof(h), HELLO_TIMEOUT_MS))
			die("control connection: no options from the active side");
		hello_unpack(&h, &r->o, &r->peer);
		if (!stress_opts_valid(&r->o))
			die("control connection: the active side's options are out of range");
		if (r->peer.ss_family != r->local.ss_family)
			die("the active side's address %s is not of our family",
			    addr_str(&r->peer));
		hello_pack(&h, &r->o, &r->local);
		write_full(r->ctl_fd, &h, sizeof(h));
	}
	addr_set_port(&r->local, 0);
}

/*
 * Tell the peer we reached a point and wait until it did too. A 'D' may
 * already have been consumed by ctl_peer_gone().
 */
void ctl_sync(struct stress_run *r, char what, int timeout_ms)
{
	char c;

	write_full(r->ctl_fd, &what, 1);
	if (what == 'D' && r->peer_done)
		return;
	if (!read_full(r->ctl_fd, &c, 1, timeout_ms))
		die("control connection: peer went away");
	if (c != what)
		die("control connection: unexpected '%c' from the peer", c);
}

/* Polled once a second: has the peer finished early or gone away? */
bool ctl_peer_gone(struct stress_run *r)
{
	struct pollfd pfd = { .fd = r->ctl_fd, .events = POLLIN };
	char c;

	if (poll(&pfd, 1, 0) <= 0)
		return false;
	if (read(r->ctl_fd, &c, 1) == 1 && c == 'D') {
		r->peer_done = true;
		return true;
	}
	die("control connection: peer went away");
}
