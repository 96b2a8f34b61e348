// SPDX-License-Identifier: GPL-2.0
/*
 * Traffic over the RDS loopback transport: what the connection and send
 * side must get right whatever the transport.
 *
 *   rds_loop sizes [ADDR]   0 B .. 1 MiB messages arrive whole and intact
 *   rds_loop order [ADDR]   several senders, each one's messages in order
 *   rds_loop many  [ADDR]   many sockets in a ring, one message each
 *   rds_loop ping  [ADDR]   rds ping: port 0 answers with an empty pong
 *   rds_loop cancel         RDS_CANCEL_SENT_TO drops only what it names
 *   rds_loop cong  [ADDR]   congestion: ENOBUFS, monitor cmsg, blocking wait
 *   rds_loop info           RDS_INFO connection and send tables
 *
 * ADDR is 127.0.0.1 (default) or ::1.  RDS_PROFILE=short uses fewer
 * messages (slow debug kernels).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/rds.h>

#include "../common/ktap.h"
#include "../common/addr.h"
#include "../common/rds_sock.h"

#ifndef AF_RDS
#define AF_RDS 21
#endif

#define MiB		(1024 * 1024)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define TIMEOUT_MS	10000

static bool short_profile;

/* SO_*BUFFORCE: RDS uses half of sk_{snd,rcv}buf, which is twice @bytes. */
static void set_bufs(int fd, int snd, int rcv)
{
	if (snd && setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &snd, sizeof(snd)))
		ktap_bail("SO_SNDBUFFORCE");
	if (rcv && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcv, sizeof(rcv)))
		ktap_bail("SO_RCVBUFFORCE");
}

/* recvfrom with a timeout; -1 and ETIMEDOUT when nothing came. */
static ssize_t recv_wait(int fd, void *buf, size_t n, union addr *from,
			 int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	socklen_t alen = sizeof(*from);
	int r = poll(&p, 1, timeout_ms);

	if (r == 0) {
		errno = ETIMEDOUT;
		return -1;
	}
	if (r < 0)
		return -1;
	return recvfrom(fd, buf, n, MSG_DONTWAIT, &from->sa, &alen);
}

static void fill(unsigned char *buf, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = (unsigned char)(seed + i * 31 + (i >> 8));
}

static bool check(const unsigned char *buf, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (buf[i] != (unsigned char)(seed + i * 31 + (i >> 8)))
			return false;
	return true;
}

/* ---- sizes ------------------------------------------------------------ */

static int test_sizes(const char *addr)
{
	static const unsigned int sizes[] = {
		0, 1, 47, 48, 1000, 4095, 4096, 4097, 8192, 65535, 65536,
		100000, 262144, 524289, MiB - 1, MiB,
	};
	unsigned int nsizes = ARRAY_SIZE(sizes);
	unsigned char *tx = malloc(MiB), *rx = malloc(MiB + 1);
	int rxfd = rds_bound(addr, 5001), txfd = rds_bound(addr, 5002);
	unsigned int i;

	ktap_plan(2 * nsizes + 2);
	set_bufs(txfd, 4 * MiB, 0);
	set_bufs(rxfd, 0, 4 * MiB);
	for (i = 0; i < nsizes; i++) {
		unsigned int n = sizes[i];
		union addr from;
		ssize_t r;

		fill(tx, n, n);
		r = send_to(txfd, addr, 5001, tx, n, i % 2 ? MSG_DONTWAIT : 0);
		ktap_result(r == (ssize_t)n, "send %u bytes (got %zd, %s)", n, r,
			    r < 0 ? strerror(errno) : "ok");
		memset(rx, 0xaa, n + 1);
		r = recv_wait(rxfd, rx, MiB + 1, &from, TIMEOUT_MS);
		ktap_result(r == (ssize_t)n && check(rx, n, n) &&
			    addr_port(&from) == 5002,
			    "receive %u bytes intact from port 5002 (got %zd)", n, r);
	}

	/* Over 1 MiB is refused however large sndbuf is. */
	memset(tx, 0, MiB);
	ktap_expect_errno(send_to(txfd, addr, 5001, tx, MiB + 1, 0), EMSGSIZE,
			  "send 1 MiB + 1");
	/* Half of a 64 KiB sk_sndbuf is all a socket may queue at once. */
	set_bufs(txfd, 32768, 0);
	ktap_expect_errno(send_to(txfd, addr, 5001, tx, 32769, 0), EMSGSIZE,
			  "send more than sndbuf");
	close(txfd);
	close(rxfd);
	free(tx);
	free(rx);
	return ktap_finish();
}

/* ---- order ------------------------------------------------------------ */

struct order_msg {
	uint32_t sender;
	uint32_t seq;
};

/* Senders bind to different loopback addresses, so each has its own conn. */
static const char *sender_addr(const char *addr, int i, char *buf, size_t n)
{
	if (strchr(addr, ':'))
		return addr;
	snprintf(buf, n, "127.0.0.%d", 1 + i % 3);
	return buf;
}

static void order_sender(const char *addr, int i, int msgs)
{
	unsigned char buf[2048];
	struct order_msg *m = (struct order_msg *)buf;
	union addr from;
	char a[64];
	int fd = rds_bound(sender_addr(addr, i, a, sizeof(a)), 6101 + i);
	int seq;

	for (seq = 0; seq < msgs; seq++) {
		size_t len = sizeof(*m) + (seq % 7) * 250;

		m->sender = i;
		m->seq = seq;
		if (send_to(fd, addr, 6100, buf, len, 0) != (ssize_t)len) {
			printf("# sender %d: send %d: %s\n", i, seq, strerror(errno));
			exit(1);
		}
	}
	/* A close drops what has not gone out yet, as in-tree's does, and
	 * with two CPUs a send may return while another sender's CPU still
	 * transmits it: stay until the receiver says it has everything.
	 */
	recv_wait(fd, buf, sizeof(buf), &from, 6 * TIMEOUT_MS);
	close(fd);
	exit(0);
}

static int test_order(const char *addr)
{
	int nsenders = short_profile ? 3 : 5;
	int msgs = short_profile ? 300 : 3000;
	int next[8] = { 0 }, bad = 0, got = 0, i, status, failed = 0;
	unsigned char buf[4096];
	int rxfd = rds_bound(addr, 6100);
	pid_t pids[8];

	ktap_plan(3);
	/* A small rcvbuf: senders hit congestion and must wait, not fail. */
	set_bufs(rxfd, 0, 16384);
	for (i = 0; i < nsenders; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			order_sender(addr, i, msgs);
	}
	while (got < nsenders * msgs) {
		struct order_msg *m = (struct order_msg *)buf;
		union addr from;
		ssize_t r = recv_wait(rxfd, buf, sizeof(buf), &from, TIMEOUT_MS);

		if (r < 0) {
			ktap_diag("receive after %d messages: %s", got, strerror(errno));
			break;
		}
		got++;
		if (r < (ssize_t)sizeof(*m) || m->sender >= (uint32_t)nsenders ||
		    addr_port(&from) != 6101 + (int)m->sender ||
		    r != (ssize_t)(sizeof(*m) + (m->seq % 7) * 250)) {
			bad++;
			continue;
		}
		if ((int)m->seq != next[m->sender]) {
			if (bad++ < 5)
				ktap_diag("sender %u: seq %u, expected %d", m->sender,
					  m->seq, next[m->sender]);
		}
		next[m->sender] = m->seq + 1;
	}
	for (i = 0; i < nsenders; i++) {
		char a[64];

		send_to(rxfd, sender_addr(addr, i, a, sizeof(a)), 6101 + i, buf, 1, 0);
	}
	for (i = 0; i < nsenders; i++)
		if (waitpid(pids[i], &status, 0) != pids[i] || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			failed++;
	ktap_result(failed == 0, "%d senders finished their %d sends", nsenders, msgs);
	ktap_result(got == nsenders * msgs, "received %d of %d messages", got,
		    nsenders * msgs);
	ktap_result(bad == 0, "every sender's messages in order, intact (%d bad)", bad);
	close(rxfd);
	return ktap_finish();
}

/* ---- many sockets ----------------------------------------------------- */

static int test_many(const char *addr)
{
	int n = short_profile ? 64 : 200;
	int *fds = calloc(n, sizeof(*fds));
	int i, sent = 0, ok = 0;

	ktap_plan(2);
	for (i = 0; i < n; i++)
		fds[i] = rds_bound(addr, 7000 + i);
	for (i = 0; i < n; i++) {
		uint32_t v = i;

		if (send_to(fds[i], addr, 7000 + (i + 1) % n, &v, sizeof(v), 0) ==
		    sizeof(v))
			sent++;
	}
	ktap_result(sent == n, "%d sockets each sent one message (%d ok)", n, sent);
	for (i = 0; i < n; i++) {
		int from_i = (i + n - 1) % n;
		union addr from;
		uint32_t v = ~0u;

		if (recv_wait(fds[i], &v, sizeof(v), &from, TIMEOUT_MS) == sizeof(v) &&
		    v == (uint32_t)from_i && addr_port(&from) == 7000 + from_i)
			ok++;
	}
	ktap_result(ok == n, "each received its neighbour's message (%d ok)", ok);
	for (i = 0; i < n; i++)
		close(fds[i]);
	free(fds);
	return ktap_finish();
}

/* ---- ping ------------------------------------------------------------- */

static bool ping_once(int fd, const char *dst)
{
	union addr from, want;
	char buf[16];
	ssize_t r;

	if (send_to(fd, dst, 0, NULL, 0, 0) != 0)
		return false;
	r = recv_wait(fd, buf, sizeof(buf), &from, TIMEOUT_MS);
	addr_make(&want, dst, 0);
	if (r != 0 || from.sa.sa_family != want.sa.sa_family)
		return false;
	if (want.sa.sa_family == AF_INET)
		return from.in.sin_addr.s_addr == want.in.sin_addr.s_addr &&
		       from.in.sin_port == 0;
	return !memcmp(&from.in6.sin6_addr, &want.in6.sin6_addr, 16) &&
	       from.in6.sin6_port == 0;
}

static int test_ping(const char *addr)
{
	bool v4 = !strchr(addr, ':');
	int fd = rds_bound(addr, 0), i, ok = 0;

	ktap_plan(v4 ? 3 : 2);
	for (i = 0; i < 10; i++)
		ok += ping_once(fd, addr);
	ktap_result(ok == 10, "10 pings to %s answered from port 0 (%d)", addr, ok);
	/* The pong comes back on the reverse connection 127.0.0.4 -> us. */
	if (v4) {
		for (ok = 0, i = 0; i < 5; i++)
			ok += ping_once(fd, "127.0.0.4");
		ktap_result(ok == 5, "5 pings to 127.0.0.4 answered by it (%d)", ok);
	}
	{
		char buf[8];
		union addr from;

		ktap_result(recv_wait(fd, buf, sizeof(buf), &from, 200) < 0 &&
			    errno == ETIMEDOUT, "no stray pong left");
	}
	close(fd);
	return ktap_finish();
}

/* ---- cancel ----------------------------------------------------------- */

/* Items of an RDS_INFO message table whose local port is @port. */
static int info_msgs_from(int fd, int opt, int port)
{
	static char buf[256 * 1024];
	socklen_t len = sizeof(buf);
	int each, n = 0, i;

	each = getsockopt(fd, SOL_RDS, opt, buf, &len);
	if (each <= 0)
		return each < 0 ? -1 : 0;
	for (i = 0; i < (int)(len / each); i++) {
		struct rds_info_message *m = (void *)(buf + i * each);

		n += ntohs(m->lport) == port;
	}
	return n;
}

/*
 * On loopback a message is delivered as soon as its path is up, so only
 * messages to a new connection (its path comes up from a work item) can
 * be canceled; how many is up to timing.  What must hold either way: the
 * other destination gets everything, each canceled one an in-order prefix,
 * nothing of ours stays queued, and the send buffer is whole again.
 */
static int test_cancel(void)
{
	int ndst = short_profile ? 8 : 30, per = 3;
	int tx = rds_bound("127.0.0.1", 8101), keep = rds_bound("127.0.0.7", 8102);
	int *rx = calloc(ndst, sizeof(*rx));
	int d, i, sent = 0, sent_keep = 0, got, delivered = 0, prefix_ok = 1;
	struct pollfd p = { .fd = tx, .events = POLLOUT };
	union addr from;
	char dst[32];
	uint32_t v;

	ktap_plan(6);
	set_bufs(tx, MiB, 0);
	for (d = 0; d < ndst; d++) {
		struct sockaddr_in cancel = { .sin_family = AF_INET,
					      .sin_port = htons(8103) };

		snprintf(dst, sizeof(dst), "127.0.0.%d", 10 + d);
		rx[d] = rds_bound(dst, 8103);
		for (i = 0; i < per; i++) {
			v = i;
			sent += send_to(tx, dst, 8103, &v, sizeof(v), MSG_DONTWAIT) == 4;
			v = d * per + i;
			sent_keep += send_to(tx, "127.0.0.7", 8102, &v, sizeof(v),
					     MSG_DONTWAIT) == 4;
		}
		inet_pton(AF_INET, dst, &cancel.sin_addr);
		if (setsockopt(tx, SOL_RDS, RDS_CANCEL_SENT_TO, &cancel, sizeof(cancel)))
			ktap_bail("RDS_CANCEL_SENT_TO %s", dst);
	}
	ktap_result(sent == ndst * per && sent_keep == ndst * per,
		    "sent %d + %d messages, canceling each new destination", sent,
		    sent_keep);

	for (got = 0; got < ndst * per; got++)
		if (recv_wait(keep, &v, sizeof(v), &from, TIMEOUT_MS) != 4 ||
		    v != (uint32_t)got)
			break;
	ktap_result(got == ndst * per, "the destination never canceled got all %d, in order",
		    got);

	for (d = 0; d < ndst; d++) {
		for (got = 0; recv_wait(rx[d], &v, sizeof(v), &from, 100) == 4; got++)
			if (v != (uint32_t)got)
				prefix_ok = 0;
		delivered += got;
		close(rx[d]);
	}
	ktap_diag("%d of %d messages were canceled", sent - delivered, sent);
	ktap_result(prefix_ok, "the canceled destinations got in-order prefixes");
	ktap_result(info_msgs_from(tx, RDS_INFO_SEND_MESSAGES, 8101) == 0 &&
		    info_msgs_from(tx, RDS_INFO_RETRANS_MESSAGES, 8101) == 0,
		    "nothing of ours left on the send and retransmit queues");
	ktap_result(poll(&p, 1, 1000) == 1 && (p.revents & POLLOUT),
		    "the send buffer is free again (POLLOUT)");
	/* A whole sndbuf's worth is accepted: the accounting went back to 0. */
	{
		char *big = calloc(1, MiB);

		ktap_result(send_to(tx, "127.0.0.7", 8102, big, MiB, MSG_DONTWAIT) == MiB,
			    "a message as large as sndbuf is accepted");
		free(big);
	}
	close(tx);
	close(keep);
	free(rx);
	return ktap_finish();
}

/* ---- congestion ------------------------------------------------------- */

/* recvmsg on @fd must return 0 with a RDS_CMSG_CONG_UPDATE cmsg. */
static bool cong_notified(int fd, uint64_t want)
{
	char cbuf[CMSG_SPACE(sizeof(uint64_t))], data[16];
	struct iovec iov = { .iov_base = data, .iov_len = sizeof(data) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct cmsghdr *c;
	uint64_t mask;

	if (poll(&p, 1, TIMEOUT_MS) != 1 || recvmsg(fd, &msg, MSG_DONTWAIT) != 0)
		return false;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_RDS || c->cmsg_type != RDS_CMSG_CONG_UPDATE)
			continue;
		memcpy(&mask, CMSG_DATA(c), sizeof(mask));
		ktap_diag("congestion update mask %#llx", (unsigned long long)mask);
		return (mask & want) == want;
	}
	return false;
}

static int drain(int fd, int timeout_ms)
{
	static char buf[8192];
	union addr from;
	int n = 0;

	while (recv_wait(fd, buf, sizeof(buf), &from, timeout_ms) >= 0)
		n++;
	return n;
}

static int test_cong(const char *addr)
{
	int rx = rds_bound(addr, 9000), tx = rds_bound(addr, 9001);
	int one = 1, sent = 0, i, got, status, err;
	struct timeval tv = { .tv_usec = 200000 };
	static char buf[4096];
	ssize_t r = 0;
	pid_t pid;

	ktap_plan(10);
	set_bufs(rx, 0, 8192);		/* rcvbuf 8 KiB: 3 messages congest */
	ktap_expect_ok(setsockopt(tx, SOL_RDS, RDS_CONG_MONITOR, &one, sizeof(one)),
		       "RDS_CONG_MONITOR on");
	for (i = 0; i < 100; i++) {
		r = send_to(tx, addr, 9000, buf, sizeof(buf), MSG_DONTWAIT);
		if (r < 0)
			break;
		sent++;
	}
	ktap_result(r < 0 && errno == ENOBUFS && sent >= 2 && sent < 100,
		    "nonblocking sends end in ENOBUFS after %d (%s)", sent,
		    r < 0 ? strerror(errno) : "no error");

	/* Blocking, with a send timeout: waits, then gives up with ETIMEDOUT
	 * (in-tree would wait for the port however long it takes).
	 */
	setsockopt(tx, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	ktap_expect_errno(send_to(tx, addr, 9000, buf, 100, 0), ETIMEDOUT,
			  "blocking send to a congested port times out");

	got = drain(rx, 300);
	ktap_result(got == sent, "receiver drained %d of %d", got, sent);
	ktap_result(cong_notified(tx, RDS_CONG_MONITOR_MASK(9000)),
		    "RDS_CMSG_CONG_UPDATE names port 9000 once it opens");
	ktap_result(send_to(tx, addr, 9000, buf, 100, MSG_DONTWAIT) == 100,
		    "sending works again");
	got = drain(rx, 300);

	/* A blocked sender wakes when the receiver drains. */
	tv.tv_sec = 20;
	tv.tv_usec = 0;
	setsockopt(tx, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	for (sent = 0; send_to(tx, addr, 9000, buf, sizeof(buf), MSG_DONTWAIT) > 0;)
		sent++;
	pid = fork();
	if (pid == 0)
		exit(send_to(tx, addr, 9000, buf, 10, 0) == 10 ? 0 : 1);
	usleep(300000);
	got = drain(rx, 500);
	ktap_result(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		    WEXITSTATUS(status) == 0, "a blocked sender wakes up and sends");
	ktap_result(got == sent + 1, "the receiver got the %d queued and the waiter's (%d)",
		    sent, got);
	close(tx);

	/* Without the monitor, poll() wakes on any map change once refused. */
	tx = rds_bound(addr, 9002);
	for (sent = 0; (r = send_to(tx, addr, 9000, buf, sizeof(buf), MSG_DONTWAIT)) > 0;)
		sent++;
	err = errno;
	pid = fork();
	if (pid == 0) {
		usleep(300000);
		exit(drain(rx, 300) == sent ? 0 : 1);
	}
	{
		struct pollfd p = { .fd = tx, .events = POLLIN | POLLWRBAND };
		int n = poll(&p, 1, TIMEOUT_MS);

		ktap_result(r < 0 && err == ENOBUFS && n == 1 && (p.revents & POLLIN) &&
			    (p.revents & POLLWRBAND),
			    "after %d sends ENOBUFS (%s), poll() wakes with POLLIN|POLLWRBAND (%d, %#x)",
			    sent, strerror(err), n, p.revents);
	}
	waitpid(pid, &status, 0);
	close(tx);
	close(rx);
	ktap_result(1, "sockets closed");
	return ktap_finish();
}

/* ---- info ------------------------------------------------------------- */

/* Reads an info table into a fresh buffer; returns item count or -1. */
static int info_get(int fd, int opt, void **bufp, int *each)
{
	socklen_t len = 0;
	void *buf;
	int r;

	r = getsockopt(fd, SOL_RDS, opt, NULL, &len);
	if (r >= 0) {			/* empty table */
		*bufp = NULL;
		*each = r;
		return 0;
	}
	if (errno != ENOSPC)
		return -1;
	buf = malloc(len + 4096);
	len += 4096;
	r = getsockopt(fd, SOL_RDS, opt, buf, &len);
	if (r <= 0 || len % r) {
		free(buf);
		return -1;
	}
	*bufp = buf;
	*each = r;
	return len / r;
}

static int test_info(void)
{
	int a = rds_bound("127.0.0.1", 9101), b = rds_bound("::1", 9102);
	struct rds_info_connection *c4;
	struct rds6_info_connection *c6;
	int n, each, i, found;
	void *buf;

	ktap_plan(8);
	for (i = 0; i < 5; i++) {
		send_to(a, "127.0.0.1", 9101, "x", 1, 0);
		send_to(b, "::1", 9102, "y", 1, 0);
	}
	drain(a, 300);
	drain(b, 300);

	n = info_get(a, RDS_INFO_CONNECTIONS, &buf, &each);
	found = 0;
	for (i = 0; i < n; i++) {
		c4 = (struct rds_info_connection *)((char *)buf + i * each);
		if (c4->laddr == htonl(INADDR_LOOPBACK) && c4->faddr == htonl(INADDR_LOOPBACK) &&
		    !strcmp((char *)c4->transport, "loopback") &&
		    (c4->flags & RDS_INFO_CONNECTION_FLAG_CONNECTED) &&
		    c4->next_tx_seq >= 6 && c4->next_rx_seq >= 6)
			found++;
	}
	ktap_result(each == sizeof(*c4) && found == 1,
		    "RDS_INFO_CONNECTIONS: 127.0.0.1 loopback, connected, seqs >= 6 (%d items)", n);
	free(buf);

	n = info_get(a, RDS6_INFO_CONNECTIONS, &buf, &each);
	found = 0;
	for (i = 0; i < n; i++) {
		c6 = (struct rds6_info_connection *)((char *)buf + i * each);
		if (!memcmp(&c6->laddr, &in6addr_loopback, 16) &&
		    !memcmp(&c6->faddr, &in6addr_loopback, 16) &&
		    (c6->flags & RDS_INFO_CONNECTION_FLAG_CONNECTED) &&
		    c6->next_tx_seq >= 6)
			found++;
	}
	ktap_result(each == sizeof(*c6) && found == 1 && n >= 2,
		    "RDS6_INFO_CONNECTIONS: ::1 and the v4 one (%d items)", n);
	free(buf);

	n = info_get(a, RDS_INFO_CONNECTION_STATS, &buf, &each);
	ktap_result(n >= 1 && each == sizeof(struct rds_info_connection),
		    "RDS_INFO_CONNECTION_STATS: %d paths", n);
	free(buf);

	/* Loopback acknowledges on delivery: nothing stays queued. */
	n = info_get(a, RDS_INFO_SEND_MESSAGES, &buf, &each);
	ktap_result(n == 0 && each == sizeof(struct rds_info_message),
		    "RDS_INFO_SEND_MESSAGES empty (%d, each %d)", n, each);
	free(buf);
	n = info_get(a, RDS_INFO_RETRANS_MESSAGES, &buf, &each);
	ktap_result(n == 0 && each == sizeof(struct rds_info_message),
		    "RDS_INFO_RETRANS_MESSAGES empty (%d, each %d)", n, each);
	free(buf);
	n = info_get(a, RDS6_INFO_SEND_MESSAGES, &buf, &each);
	ktap_result(n == 0 && each == sizeof(struct rds6_info_message),
		    "RDS6_INFO_SEND_MESSAGES empty (%d, each %d)", n, each);
	free(buf);
	n = info_get(a, RDS6_INFO_RETRANS_MESSAGES, &buf, &each);
	ktap_result(n == 0 && each == sizeof(struct rds6_info_message),
		    "RDS6_INFO_RETRANS_MESSAGES empty (%d, each %d)", n, each);
	free(buf);

	{
		socklen_t len = sizeof(struct rds_info_connection) - 1;
		char small[sizeof(struct rds_info_connection)];

		ktap_result(getsockopt(a, SOL_RDS, RDS_INFO_CONNECTIONS, small, &len) < 0 &&
			    errno == ENOSPC && len >= sizeof(struct rds_info_connection),
			    "short buffer: ENOSPC and the size needed (%u)", len);
	}
	close(a);
	close(b);
	return ktap_finish();
}

int main(int argc, char **argv)
{
	const char *test = argc > 1 ? argv[1] : "";
	const char *addr = argc > 2 ? argv[2] : "127.0.0.1";
	const char *profile = getenv("RDS_PROFILE");

	short_profile = profile && !strcmp(profile, "short");
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(test, "sizes"))
		return test_sizes(addr);
	if (!strcmp(test, "order"))
		return test_order(addr);
	if (!strcmp(test, "many"))
		return test_many(addr);
	if (!strcmp(test, "ping"))
		return test_ping(addr);
	if (!strcmp(test, "cancel"))
		return test_cancel();
	if (!strcmp(test, "cong"))
		return test_cong(addr);
	if (!strcmp(test, "info"))
		return test_info();
	fprintf(stderr, "usage: %s sizes|order|many|ping|cong [ADDR] | cancel | info\n",
		argv[0]);
	return 2;
}
