// SPDX-License-Identifier: GPL-2.0
/*
 * MSG_ZEROCOPY over RDS/TCP: the sender's pages go out without a copy and
 * every send's cookie comes back once, in an RDS_CMSG_ZCOPY_COMPLETION,
 * after the peer has the message.
 *
 *   rds_zcopy recv ADDR PORT COUNT
 *   rds_zcopy send LADDR DADDR PORT COUNT
 *
 * The receiver checks the length and bytes of COUNT messages; the sender
 * sends COUNT messages of assorted sizes and page offsets from one buffer it
 * never touches until all cookies are back, then checks that each cookie
 * came back exactly once.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/rds.h>

#include "../common/addr.h"

#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY	60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY	0x4000000
#endif

#define BUF_SIZE	(256 * 1024)
#define MAX_COUNT	1000

static unsigned char *buf;

/* Message @i: its offset into buf and its length. */
static size_t msg_off(int i)
{
	return (i * 1237) % 4096;
}

static size_t msg_len(int i)
{
	static const size_t lens[7] = { 1, 100, 4096, 5000, 65536, 200000, 0 };

	return lens[i % 7];
}

static void fill(void)
{
	size_t i;

	for (i = 0; i < BUF_SIZE; i++)
		buf[i] = (unsigned char)(i * 7 + (i >> 9));
}

static int do_recv(const char *addr, int port, int count)
{
	unsigned char *data = malloc(BUF_SIZE);
	union addr a;
	socklen_t len = addr_make(&a, addr, port);
	int fd = socket(AF_RDS, SOCK_SEQPACKET, 0), i;
	struct timeval tv = { .tv_sec = 30 };

	if (fd < 0 || bind(fd, &a.sa, len))
		ktap_bail("receiver socket/bind");
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	printf("bound\n");
	fflush(stdout);
	for (i = 0; i < count; i++) {
		ssize_t n = recv(fd, data, BUF_SIZE, 0);

		if (n < 0)
			ktap_bail("recv %d", i);
		if ((size_t)n != msg_len(i) || memcmp(data, buf + msg_off(i), n)) {
			printf("message %d: %zd bytes, expected %zu, or bad bytes\n",
			       i, n, msg_len(i));
			return 1;
		}
	}
	printf("received %d messages intact\n", count);
	return 0;
}

static int send_one(int fd, const union addr *dst, socklen_t dlen, int i)
{
	char ctl[CMSG_SPACE(sizeof(uint32_t))] __attribute__((aligned(8)));
	struct iovec iov = { .iov_base = buf + msg_off(i), .iov_len = msg_len(i) };
	struct msghdr msg = {
		.msg_name = (void *)dst, .msg_namelen = dlen,
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	uint32_t cookie = i + 1;

	c->cmsg_level = SOL_RDS;
	c->cmsg_type = RDS_CMSG_ZCOPY_COOKIE;
	c->cmsg_len = CMSG_LEN(sizeof(cookie));
	memcpy(CMSG_DATA(c), &cookie, sizeof(cookie));
	for (;;) {
		ssize_t n = sendmsg(fd, &msg, MSG_ZEROCOPY);

		if (n == (ssize_t)msg_len(i))
			return 0;
		if (n < 0 && (errno == ENOBUFS || errno == EAGAIN)) {
			usleep(10000);
			continue;
		}
		printf("send %d: %zd (%s)\n", i, n, strerror(errno));
		return 1;
	}
}

/* Collects completions into seen[]; returns how many cookies came back. */
static int reap(int fd, unsigned char *seen, int count)
{
	char ctl[CMSG_SPACE(sizeof(struct rds_zcopy_cookies))]
		__attribute__((aligned(8)));
	struct msghdr msg = { .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct rds_zcopy_cookies done;
	struct cmsghdr *c;
	int got = 0;
	uint32_t k;

	if (recvmsg(fd, &msg, MSG_DONTWAIT) < 0)
		return errno == EAGAIN ? 0 : -1;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_RDS || c->cmsg_type != RDS_CMSG_ZCOPY_COMPLETION)
			continue;
		memcpy(&done, CMSG_DATA(c), sizeof(done));
		if (done.num > RDS_MAX_ZCOOKIES) {
			printf("completion with %u cookies\n", done.num);
			return -1;
		}
		for (k = 0; k < done.num; k++) {
			if (done.cookies[k] < 1 || done.cookies[k] > (uint32_t)count ||
			    seen[done.cookies[k]]++) {
				printf("cookie %u unknown or repeated\n", done.cookies[k]);
				return -1;
			}
			got++;
		}
	}
	return got;
}

static int do_send(const char *laddr, const char *daddr, int port, int count)
{
	unsigned char seen[MAX_COUNT + 1] = { 0 };
	int fd = socket(AF_RDS, SOCK_SEQPACKET, 0), one = 1, tcp = RDS_TRANS_TCP;
	int i, got = 0, n, sndbuf = 4 << 20;
	union addr la, da;
	socklen_t llen = addr_make(&la, laddr, 0), dlen = addr_make(&da, daddr, port);
	time_t end;

	if (fd < 0 || setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &tcp, sizeof(tcp)) ||
	    bind(fd, &la.sa, llen))
		ktap_bail("sender socket/transport/bind");
	if (setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)))
		ktap_bail("SO_ZEROCOPY");
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	for (i = 0; i < count; i++) {
		if (send_one(fd, &da, dlen, i))
			return 1;
		n = reap(fd, seen, count);
		if (n < 0)
			return 1;
		got += n;
	}
	end = time(NULL) + 30;
	while (got < count && time(NULL) < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		poll(&p, 1, 1000);
		n = reap(fd, seen, count);
		if (n < 0)
			return 1;
		got += n;
	}
	if (got != count) {
		printf("%d of %d completions\n", got, count);
		return 1;
	}
	printf("%d sends, every cookie completed once\n", count);
	return 0;
}

int main(int argc, char **argv)
{
	buf = aligned_alloc(4096, BUF_SIZE);
	if (!buf)
		return 1;
	fill();
	if (argc == 5 && !strcmp(argv[1], "recv"))
		return do_recv(argv[2], atoi(argv[3]), atoi(argv[4]));
	if (argc == 6 && !strcmp(argv[1], "send") && atoi(argv[5]) <= MAX_COUNT)
		return do_send(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]));
	fprintf(stderr, "usage: %s recv ADDR PORT COUNT | send LADDR DADDR PORT COUNT\n",
		argv[0]);
	return 2;
}
