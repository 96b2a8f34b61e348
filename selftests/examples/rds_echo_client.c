// SPDX-License-Identifier: GPL-2.0
/*
 * rds_echo_client: sends requests to rds_echo_server, one after another,
 * checks that each comes back intact and times the round trips.
 *
 *   rds_echo_client [-n COUNT] [-s SIZE] [-t TIMEOUT_MS] [-p PORT]
 *                   [-N [-d DEPTH]] ADDR SERVER_ADDR SERVER_PORT
 *
 * The client binds to ADDR, an address of this host, and port PORT (default
 * 0: any free one), then sends COUNT requests (default 100) of SIZE bytes
 * (default 1024, at most 1 MiB) to SERVER_ADDR:SERVER_PORT. Each waits for
 * its answer for TIMEOUT_MS (default 30000; the first one also waits for
 * the connection to come up). It prints the round trips, minimum, average
 * and maximum in microseconds, and exits 0 only if every answer came back
 * with the bytes of its request.
 *
 * By default the socket blocks and each send waits for room in the send
 * buffer, at most TIMEOUT_MS (SO_SNDTIMEO). -N makes it non-blocking: a
 * refused send (EAGAIN: the send buffer is full; ENOBUFS: the server's
 * port is congested) waits in poll() while answers are still read, and
 * -d keeps up to DEPTH requests in flight. RDS delivers the messages of
 * one socket to one destination in order, and the server answers them in
 * order, so the answers come back in the order of the requests.
 *
 * Build: gcc -Wall -O2 -o rds_echo_client rds_echo_client.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
/* After <netinet/in.h>, which then keeps <linux/in6.h> from redefining. */
#include <linux/rds.h>

/* The largest message RDS carries. */
#define MAX_MSG		(1024 * 1024)
/* Wrong answers shown at most: one usually explains the rest. */
#define MAX_SHOWN	10
/* Requests in flight at most, with -N. */
#define MAX_DEPTH	1024
/*
 * After ENOBUFS, how long to wait for the congestion map that opens the
 * server's port before trying again: these modules wake poll() with
 * POLLWRBAND when a map changes after a refusal, the in-tree ones do not.
 */
#define CONG_RETRY_MS	100

static const char *prog = "rds_echo_client";

#include "rds_example.h"

struct client {
	int fd;
	union rds_addr server;
	socklen_t server_len;
	size_t size;			/* of a request */
	unsigned char *req, *ans, *want;
	uint64_t sent_ns[MAX_DEPTH];	/* when each request in flight went */
	unsigned long sent, answered, eagain, enobufs;
	unsigned long bad;		/* answers that differ, or to nothing */
	uint64_t min_ns, max_ns, sum_ns;
};

static void bad_usage(void)
{
	fprintf(stderr,
		"usage: %s [-n COUNT] [-s SIZE] [-t TIMEOUT_MS] [-p PORT]\n"
		"       [-N [-d DEPTH]] ADDR SERVER_ADDR SERVER_PORT\n", prog);
	exit(2);
}

static bool same_addr(const union rds_addr *a, const union rds_addr *b)
{
	if (a->sa.sa_family != b->sa.sa_family)
		return false;
	if (a->sa.sa_family == AF_INET)
		return a->sin.sin_port == b->sin.sin_port &&
		       a->sin.sin_addr.s_addr == b->sin.sin_addr.s_addr;
	return a->sin6.sin6_port == b->sin6.sin6_port &&
	       !memcmp(&a->sin6.sin6_addr, &b->sin6.sin6_addr,
		       sizeof(a->sin6.sin6_addr));
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * The bytes of request @seq: its number, then a pattern that changes from
 * one request to the next, so that a stale or misplaced answer shows.
 */
static void fill(unsigned char *p, size_t size, uint32_t seq)
{
	uint32_t be = htonl(seq);
	size_t i;

	for (i = 0; i < size; i++)
		p[i] = (unsigned char)(seq * 131 + i * 7 + (i >> 8));
	memcpy(p, &be, size < sizeof(be) ? size : sizeof(be));
}

/*
 * Send the next request. Returns 0 if it went, else the poll() event to
 * wait for before trying again: POLLOUT after EAGAIN, POLLWRBAND after
 * ENOBUFS (only a non-blocking socket sees either).
 */
static short send_request(struct client *c)
{
	ssize_t n;

	fill(c->req, c->size, c->sent);
	n = sendto(c->fd, c->req, c->size, 0, &c->server.sa, c->server_len);
	if (n >= 0) {
		c->sent_ns[c->sent % MAX_DEPTH] = now_ns();
		c->sent++;
		return 0;
	}
	switch (errno) {
	case EAGAIN:
		c->eagain++;
		return POLLOUT;
	case ENOBUFS:
		c->enobufs++;
		return POLLWRBAND;
	case EMSGSIZE:
		die("sendto %s, %zu bytes (more than SO_SNDBUF?)",
		    addr_str(&c->server), c->size);
	case ETIMEDOUT:
		die("sendto %s: no room for the request (SO_SNDTIMEO)",
		    addr_str(&c->server));
	}
	die("sendto %s", addr_str(&c->server));
}

/* Count a wrong answer, and show the first few. */
__attribute__((format(printf, 2, 3)))
static void wrong(struct client *c, const char *fmt, ...)
{
	va_list ap;

	if (c->bad++ >= MAX_SHOWN)
		return;
	fprintf(stderr, "%s: answer %lu: ", prog, c->answered);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/* Check an answer of @n bytes against request c->answered. */
static void check_answer(struct client *c, size_t n, int flags)
{
	uint64_t rtt = now_ns() - c->sent_ns[c->answered % MAX_DEPTH];
	size_t i;

	fill(c->want, c->size, c->answered);
	if ((flags & MSG_TRUNC) || n != c->size) {
		wrong(c, "%zu bytes%s, want %zu\n", n,
		      flags & MSG_TRUNC ? " or more" : "", c->size);
	} else if (memcmp(c->ans, c->want, n)) {
		i = 0;
		while (c->ans[i] == c->want[i])
			i++;
		wrong(c, "byte %zu is %#x, want %#x\n", i, c->ans[i],
		      c->want[i]);
	}
	if (!c->answered || rtt < c->min_ns)
		c->min_ns = rtt;
	if (rtt > c->max_ns)
		c->max_ns = rtt;
	c->sum_ns += rtt;
	c->answered++;
}

/* Read one answer, if there is one. */
static void receive_answer(struct client *c)
{
	struct iovec iov = { .iov_base = c->ans, .iov_len = c->size };
	union rds_addr from;
	struct msghdr msg = {
		.msg_name = &from,
		.msg_namelen = sizeof(from),
		.msg_iov = &iov,
		.msg_iovlen = 1,
	};
	ssize_t n;

	/*
	 * Never blocking: poll() also says POLLIN for news of the congestion
	 * maps, with no message to read.
	 */
	n = recvmsg(c->fd, &msg, MSG_DONTWAIT);
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return;
		die("recvmsg");
	}
	if (!same_addr(&from, &c->server)) {
		fprintf(stderr, "%s: ignoring a message from %s\n", prog,
			addr_str(&from));
		return;
	}
	if (c->answered == c->sent) {
		wrong(c, "to no request\n");
		return;
	}
	check_answer(c, n, msg.msg_flags);
}

static void setup(struct client *c, const char *addr, unsigned int port,
		  bool nonblock, unsigned long timeout_ms)
{
	union rds_addr self;
	socklen_t len;

	len = parse_addr(addr, port, &self);
	if (!len) {
		fprintf(stderr, "%s: %s: not an address\n", prog, addr);
		exit(2);
	}
	if (self.sa.sa_family != c->server.sa.sa_family) {
		/* An IPv4 socket cannot send to an IPv6 address, nor back. */
		fprintf(stderr, "%s: %s and %s: not of one family\n", prog,
			addr, addr_str(&c->server));
		exit(2);
	}
	c->fd = socket(AF_RDS, SOCK_SEQPACKET | SOCK_CLOEXEC |
		       (nonblock ? SOCK_NONBLOCK : 0), 0);
	if (c->fd < 0) {
		if (errno == EAFNOSUPPORT)
			die("socket(AF_RDS) (rds.ko not loaded?)");
		die("socket(AF_RDS)");
	}
	if (!nonblock) {
		struct timeval tv = {
			.tv_sec = timeout_ms / 1000,
			.tv_usec = timeout_ms % 1000 * 1000,
		};

		/*
		 * A blocking send waits while the send buffer is full; the
		 * in-tree modules also wait, however long, while the
		 * server's port is congested. Not for ever, here.
		 */
		if (setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv,
			       sizeof(tv)))
			die("setsockopt(SO_SNDTIMEO)");
	}
	if (bind(c->fd, &self.sa, len))
		die("bind %s", addr_str(&self));

	c->req = malloc(c->size);
	c->ans = malloc(c->size);
	c->want = malloc(c->size);
	if (!c->req || !c->ans || !c->want) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	unsigned long count = 100, depth = 1, timeout_ms = 30000;
	struct client c = { .fd = -1, .size = 1024 };
	unsigned int port = 0;
	bool nonblock = false;
	uint64_t last;
	short need = 0;		/* the event a refused send waits for */
	int opt;

	/* A line at a time, so that a log shows how far a killed run got. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "n:s:t:p:Nd:")) != -1) {
		switch (opt) {
		case 'n':
			count = parse_number(optarg, 1, ULONG_MAX);
			break;
		case 's':
			c.size = parse_number(optarg, 1, MAX_MSG);
			break;
		case 't':
			timeout_ms = parse_number(optarg, 1, INT_MAX);
			break;
		case 'p':
			port = parse_number(optarg, 0, 65535);
			break;
		case 'N':
			nonblock = true;
			break;
		case 'd':
			depth = parse_number(optarg, 1, MAX_DEPTH);
			break;
		default:
			bad_usage();
		}
	}
	/*
	 * A blocking send cannot read answers while it waits; with several
	 * requests in flight, client and server could each wait for the
	 * other to read.
	 */
	if (argc - optind != 3 || (depth > 1 && !nonblock))
		bad_usage();
	c.server_len = parse_addr(argv[optind + 1],
				  parse_number(argv[optind + 2], 1, 65535),
				  &c.server);
	if (!c.server_len) {
		fprintf(stderr, "%s: %s: not an address\n", prog,
			argv[optind + 1]);
		exit(2);
	}
	setup(&c, argv[optind], port, nonblock, timeout_ms);

	last = now_ns();
	while (c.answered < count) {
		struct pollfd p = { .fd = c.fd };
		uint64_t idle_ms;
		int timeout, n;

		while (!need && c.sent < count && c.sent - c.answered < depth) {
			need = send_request(&c);
			if (!need)
				last = now_ns();
		}

		idle_ms = (now_ns() - last) / 1000000;
		if (idle_ms >= timeout_ms) {
			fprintf(stderr, "%s: %s in %lu ms (%lu answers)\n",
				prog, need ? "no room to send" : "no answer",
				timeout_ms, c.answered);
			return 1;
		}
		timeout = timeout_ms - idle_ms;
		if (need == POLLWRBAND && timeout > CONG_RETRY_MS)
			timeout = CONG_RETRY_MS;
		p.events = POLLIN | need;
		n = poll(&p, 1, timeout);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("poll");
		}
		if (p.revents & POLLNVAL) {
			errno = EBADF;
			die("poll");
		}
		if (p.revents & POLLIN) {
			unsigned long before = c.answered;

			receive_answer(&c);
			if (c.answered != before)
				last = now_ns();
		}
		/* Room, a new map, or the retry timeout: try again. */
		if (need && ((p.revents & need) || need == POLLWRBAND))
			need = 0;
	}

	printf("%s: %lu requests of %zu bytes to %s: %lu answers, %lu wrong\n",
	       prog, count, c.size, addr_str(&c.server), c.answered, c.bad);
	printf("%s: round trip min/avg/max %.1f/%.1f/%.1f us\n", prog,
	       c.min_ns / 1e3, c.sum_ns / 1e3 / c.answered, c.max_ns / 1e3);
	printf("%s: waited for room %lu times on EAGAIN, %lu on ENOBUFS\n",
	       prog, c.eagain, c.enobufs);
	/* Every request was answered: close() has none left to drop. */
	close(c.fd);
	free(c.req);
	free(c.ans);
	free(c.want);
	return c.bad ? 1 : 0;
}
