// SPDX-License-Identifier: GPL-2.0
/*
 * rds_echo_server: a request/response server on one RDS socket, driven by
 * poll(2). Every message received is sent back, byte for byte, to the
 * address and port it came from.
 *
 *   rds_echo_server [-n COUNT] [-b SNDBUF] ADDR PORT
 *
 * ADDR is an address of this host (IPv4, or IPv6 with "%IFNAME" after a
 * link-local one) and PORT the port the clients send to. The server stops
 * after COUNT requests (default 0: never) or on SIGTERM or SIGINT; it
 * exits 0 when every request it took was answered. -b sets SO_SNDBUF,
 * which bounds both what the socket may have queued for one destination
 * and the size of one message.
 *
 * Build it with the headers of an RDS kernel (or this tree's uapi/):
 *
 *   gcc -Wall -O2 -o rds_echo_server rds_echo_server.c
 *
 * RDS has no listen() or accept(): one bound socket receives from every
 * client, and each recvmsg() says who sent that message. The socket is
 * non-blocking and the server waits only in poll(), so that SIGTERM (read
 * from a signalfd in the same poll) ends it whatever it waits for.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
/* After <netinet/in.h>, which then keeps <linux/in6.h> from redefining. */
#include <linux/rds.h>

/* The largest message RDS carries. */
#define MAX_MSG		(1024 * 1024)
/*
 * After ENOBUFS, how long to wait for the congestion map that opens the
 * port before trying again. These modules wake poll() with POLLWRBAND
 * when a map changes after a refusal; the in-tree modules do not, and
 * there the timeout is what tries again.
 */
#define CONG_RETRY_MS	100

static const char *prog = "rds_echo_server";

#include "rds_example.h"

struct server {
	int fd;			/* the RDS socket, non-blocking */
	int sigfd;		/* SIGTERM and SIGINT, to poll */
	unsigned char *buf;	/* the request, then its answer */
	size_t len;		/* its length */
	union rds_addr peer;	/* who sent it */
	socklen_t peer_len;
	bool pending;		/* the answer waits for room */
	short wait_for;		/* for which: POLLOUT or POLLWRBAND */
	unsigned long requests, answered, failed, eagain, enobufs;
};

static void bad_usage(void)
{
	fprintf(stderr, "usage: %s [-n COUNT] [-b SNDBUF] ADDR PORT\n", prog);
	exit(2);
}

/*
 * Try to send the pending answer. EAGAIN: the socket's send buffer for
 * that destination is full, poll() says POLLOUT when acknowledgements have
 * made room. ENOBUFS: the client's port is congested (its socket has more
 * queued than its SO_RCVBUF): wait for the map that opens it. While the
 * answer waits the server reads no more requests, so its own port fills
 * up in turn and the clients are slowed down: back-pressure, end to end.
 */
static void try_answer(struct server *s)
{
	ssize_t n;

	n = sendto(s->fd, s->buf, s->len, 0, &s->peer.sa, s->peer_len);
	if (n >= 0) {
		s->pending = false;
		s->answered++;
		return;
	}
	switch (errno) {
	case EAGAIN:
		s->wait_for = POLLOUT;
		s->eagain++;
		return;
	case ENOBUFS:
		s->wait_for = POLLWRBAND;
		s->enobufs++;
		return;
	case EINTR:
		return;
	}
	/* EMSGSIZE (more than SO_SNDBUF), ENOMEM...: this answer is lost. */
	fprintf(stderr, "%s: sendto %s, %zu bytes: %s\n", prog,
		addr_str(&s->peer), s->len, strerror(errno));
	s->pending = false;
	s->failed++;
}

/* Take one request, if there is one, and answer it. */
static void take_request(struct server *s)
{
	struct iovec iov = { .iov_base = s->buf, .iov_len = MAX_MSG };
	struct msghdr msg = {
		.msg_name = &s->peer,
		.msg_namelen = sizeof(s->peer),
		.msg_iov = &iov,
		.msg_iovlen = 1,
	};
	ssize_t n;

	n = recvmsg(s->fd, &msg, 0);
	if (n < 0) {
		/*
		 * poll() also says POLLIN for news of the congestion
		 * maps, with no message to read.
		 */
		if (errno == EAGAIN || errno == EINTR)
			return;
		die("recvmsg");
	}
	s->requests++;
	if (msg.msg_flags & MSG_TRUNC) {
		fprintf(stderr, "%s: a request from %s was truncated\n", prog,
			addr_str(&s->peer));
		s->failed++;
		return;
	}
	s->len = n;
	s->peer_len = msg.msg_namelen;
	s->pending = true;
	try_answer(s);
}

/* The socket, bound to @addr, and the signalfd. */
static void setup(struct server *s, const char *addr, unsigned int port,
		  int sndbuf)
{
	union rds_addr a;
	socklen_t len;
	sigset_t sigs;

	len = parse_addr(addr, port, &a);
	if (!len) {
		fprintf(stderr, "%s: %s: not an IPv4 or IPv6 address\n", prog,
			addr);
		exit(2);
	}
	s->fd = socket(AF_RDS, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC,
		       0);
	if (s->fd < 0) {
		if (errno == EAFNOSUPPORT)
			die("socket(AF_RDS) (rds.ko not loaded?)");
		die("socket(AF_RDS)");
	}
	if (sndbuf && setsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf,
				 sizeof(sndbuf)))
		die("setsockopt(SO_SNDBUF, %d)", sndbuf);
	/* Binding chooses the transport: IB for an RDMA device's address. */
	if (bind(s->fd, &a.sa, len))
		die("bind %s", addr_str(&a));

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	if (sigprocmask(SIG_BLOCK, &sigs, NULL))
		die("sigprocmask");
	s->sigfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	if (s->sigfd < 0)
		die("signalfd");

	s->buf = malloc(MAX_MSG);
	if (!s->buf) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(1);
	}
	printf("%s: serving on %s\n", prog, addr_str(&a));
}

int main(int argc, char **argv)
{
	struct server s = { .fd = -1 };
	unsigned long count = 0;
	const char *stopped = NULL;
	int sndbuf = 0, opt;

	/* A line at a time, so that a log shows how far a killed run got. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "n:b:")) != -1) {
		switch (opt) {
		case 'n':
			count = parse_number(optarg, 0, ULONG_MAX);
			break;
		case 'b':
			sndbuf = parse_number(optarg, 0, INT_MAX);
			break;
		default:
			bad_usage();
		}
	}
	if (argc - optind != 2)
		bad_usage();
	setup(&s, argv[optind], parse_number(argv[optind + 1], 0, 65535), sndbuf);

	while (!count || s.requests < count || s.pending) {
		short events = s.pending ? s.wait_for : POLLIN;
		struct pollfd p[2] = {
			{ .fd = s.sigfd, .events = POLLIN },
			{ .fd = s.fd, .events = events },
		};
		int timeout = -1;
		int n;

		if (s.pending && s.wait_for == POLLWRBAND)
			timeout = CONG_RETRY_MS;
		n = poll(p, 2, timeout);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("poll");
		}
		if (p[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(s.sigfd, &si, sizeof(si)) != sizeof(si))
				die("read(signalfd)");
			stopped = si.ssi_signo == SIGINT ? "SIGINT" : "SIGTERM";
			break;
		}
		if (p[1].revents & POLLNVAL) {
			errno = EBADF;
			die("poll");
		}
		if (s.pending)
			try_answer(&s);	/* room, a new map, or the timeout */
		else if (p[1].revents)
			take_request(&s);
	}
	if (s.pending) {
		fprintf(stderr, "%s: stopped with an answer to %s unsent\n",
			prog, addr_str(&s.peer));
		s.failed++;
	}

	drain(s.fd);
	close(s.fd);
	printf("%s: %s after %lu requests: %lu answered, %lu failed\n",
	       prog, stopped ? stopped : "done", s.requests, s.answered,
	       s.failed);
	printf("%s: waited for room %lu times on EAGAIN, %lu on ENOBUFS\n",
	       prog, s.eagain, s.enobufs);
	free(s.buf);
	return s.failed ? 1 : 0;
}
