// SPDX-License-Identifier: GPL-2.0
/*
 * RDS sockets with traffic.
 *
 *   rds_sock_msgs                   over the loopback transport (127.0.0.1,
 *                                   ::1): poll, recvmsg flags and names,
 *                                   cmsgs, info tables, ping, congestion
 *   rds_sock_msgs sndbuf LADDR DADDR
 *                                   LADDR is a local address a transport
 *                                   serves, DADDR a peer that never answers:
 *                                   the send buffer fills, then EAGAIN,
 *                                   and RDS_CANCEL_SENT_TO empties it
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <linux/rds.h>

#include "../common/ktap.h"
#include "../common/addr.h"
#include "../common/rds_sock.h"

#ifndef AF_RDS
#define AF_RDS 21
#endif

static short poll_events(int fd, short events, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = events };

	if (poll(&pfd, 1, timeout_ms) < 0)
		return -1;
	return pfd.revents;
}

/* recvmsg into @buf with the sender in @from; msg_flags in @mflags. */
static ssize_t recv_from(int fd, void *buf, size_t n, int flags, union addr *from,
			 socklen_t *fromlen, int *mflags)
{
	struct iovec iov = { .iov_base = buf, .iov_len = n };
	struct msghdr msg = {
		.msg_name = from, .msg_namelen = sizeof(*from),
		.msg_iov = &iov, .msg_iovlen = 1,
	};
	ssize_t ret;

	memset(from, 0, sizeof(*from));
	ret = recvmsg(fd, &msg, flags);
	*fromlen = msg.msg_namelen;
	*mflags = msg.msg_flags;
	return ret;
}

static void test_exchange(const char *addr, int pa, int pb)
{
	char out[100], in[200];
	int a = rds_bound(addr, pa), b = rds_bound(addr, pb), mflags;
	bool v6 = !!strchr(addr, ':');
	socklen_t fromlen;
	union addr from;
	ssize_t n;
	short ev;

	memset(out, 'a' + pa % 26, sizeof(out));
	ev = poll_events(b, POLLIN | POLLOUT, 0);
	ktap_result(ev == POLLOUT, "[%s] poll before any message: POLLOUT only (%#x)",
		    addr, ev);
	ktap_result(send_to(a, addr, pb, out, sizeof(out), 0) == sizeof(out),
		    "[%s] send 100 bytes", addr);
	ev = poll_events(b, POLLIN, 5000);
	ktap_result(ev & POLLIN, "[%s] poll: POLLIN once the message is queued (%#x)",
		    addr, ev);

	n = recv(b, in, sizeof(in), MSG_PEEK);
	ktap_result(n == sizeof(out) && !memcmp(in, out, n),
		    "[%s] MSG_PEEK returns the message (%zd)", addr, n);
	ktap_result(poll_events(b, POLLIN, 0) & POLLIN, "[%s] still POLLIN after peek",
		    addr);
	n = recv_from(b, in, sizeof(in), 0, &from, &fromlen, &mflags);
	ktap_result(n == sizeof(out) && !memcmp(in, out, n) && !(mflags & MSG_TRUNC),
		    "[%s] recvmsg returns it (%zd)", addr, n);
	if (v6)
		ktap_result(fromlen == sizeof(from.in6) && from.in6.sin6_family == AF_INET6 &&
			    from.in6.sin6_port == htons(pa) &&
			    IN6_IS_ADDR_LOOPBACK(&from.in6.sin6_addr),
			    "[%s] msg_name is the sender (len %u)", addr, fromlen);
	else
		ktap_result(fromlen == sizeof(from.in) && from.in.sin_family == AF_INET &&
			    from.in.sin_port == htons(pa) &&
			    from.in.sin_addr.s_addr == htonl(INADDR_LOOPBACK),
			    "[%s] msg_name is the sender (len %u)", addr, fromlen);
	ev = poll_events(b, POLLIN | POLLOUT, 0);
	ktap_result(ev == POLLOUT, "[%s] queue empty: no POLLIN (%#x)", addr, ev);
	ktap_expect_errno(recv(b, in, sizeof(in), MSG_DONTWAIT), EAGAIN,
			  "recv MSG_DONTWAIT, queue empty");

	/* Truncation: the rest of the message is gone either way. */
	send_to(a, addr, pb, out, sizeof(out), 0);
	poll_events(b, POLLIN, 5000);
	n = recv_from(b, in, 10, 0, &from, &fromlen, &mflags);
	ktap_result(n == 10 && (mflags & MSG_TRUNC), "[%s] short buffer: 10 bytes, MSG_TRUNC",
		    addr);
	send_to(a, addr, pb, out, sizeof(out), 0);
	poll_events(b, POLLIN, 5000);
	n = recv_from(b, in, 10, MSG_TRUNC, &from, &fromlen, &mflags);
	ktap_result(n == sizeof(out) && (mflags & MSG_TRUNC),
		    "[%s] MSG_TRUNC returns the full length (%zd)", addr, n);
	ktap_expect_errno(recv(b, in, sizeof(in), MSG_DONTWAIT), EAGAIN,
			  "truncated messages are consumed");

	/* connect() sets the default destination. */
	addr_make(&from, addr, pb);
	ktap_expect_ok(connect(a, &from.sa, v6 ? sizeof(from.in6) : sizeof(from.in)),
		       "connect");
	ktap_result(send(a, out, 0, 0) == 0, "[%s] send() a zero-length message", addr);
	poll_events(b, POLLIN, 5000);
	n = recv_from(b, in, sizeof(in), MSG_DONTWAIT, &from, &fromlen, &mflags);
	ktap_result(n == 0 && fromlen > 0, "[%s] zero-length message arrives", addr);
	close(a);
	close(b);
}

struct delayed_send {
	int fd, port;
};

static void *send_later(void *arg)
{
	struct delayed_send *d = arg;

	usleep(200000);
	send_to(d->fd, "127.0.0.1", d->port, "late", 4, 0);
	return NULL;
}

static void test_blocking_recv(void)
{
	int a = rds_bound("127.0.0.1", 5101), b = rds_bound("127.0.0.1", 5102);
	struct delayed_send d = { a, 5102 };
	struct timeval tv = { .tv_sec = 10 };
	pthread_t t;
	char in[16];
	ssize_t n;

	setsockopt(b, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	pthread_create(&t, NULL, send_later, &d);
	n = recv(b, in, sizeof(in), 0);
	pthread_join(t, NULL);
	ktap_result(n == 4 && !memcmp(in, "late", 4), "blocking recv wakes up (%zd)", n);
	close(a);
	close(b);
}

static void test_cmsgs(void)
{
	int a = rds_bound("127.0.0.1", 5201), b = rds_bound("127.0.0.1", 5202), one = 1;
	struct rds_rx_trace_so tr = { .rx_traces = 2,
				      .rx_trace_pos = { 0, RDS_MSG_RX_DGRAM_DELIVERED } };
	char in[16], cbuf[512];
	struct iovec iov = { .iov_base = in, .iov_len = sizeof(in) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct rds_cmsg_rx_trace rt;
	struct timeval tv = { 0 };
	struct cmsghdr *c;
	ssize_t n;

	ktap_expect_ok(setsockopt(b, SOL_SOCKET, SO_TIMESTAMP, &one, sizeof(one)),
		       "SO_TIMESTAMP");
	ktap_expect_ok(setsockopt(b, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY, &tr, sizeof(tr)),
		       "SO_RDS_MSG_RXPATH_LATENCY");
	send_to(a, "127.0.0.1", 5202, "stamp", 5, 0);
	poll_events(b, POLLIN, 5000);
	n = recvmsg(b, &msg, MSG_DONTWAIT);
	ktap_result(n == 5, "message with cmsgs (%zd)", n);
	c = find_cmsg(&msg, SOL_SOCKET, SCM_TIMESTAMP);
	if (c)
		memcpy(&tv, CMSG_DATA(c), sizeof(tv));
	ktap_result(c && tv.tv_sec > 0, "SCM_TIMESTAMP cmsg (%ld s)", (long)tv.tv_sec);
	c = find_cmsg(&msg, SOL_RDS, RDS_CMSG_RXPATH_LATENCY);
	if (c)
		memcpy(&rt, CMSG_DATA(c), sizeof(rt));
	ktap_result(c && rt.rx_traces == 2 && rt.rx_trace_pos[1] == RDS_MSG_RX_DGRAM_DELIVERED,
		    "RDS_CMSG_RXPATH_LATENCY cmsg");
	close(a);
	close(b);
}

static int info_get(int fd, int name, void *buf, socklen_t *len)
{
	return getsockopt(fd, SOL_RDS, name, buf, len);
}

static uint64_t counter(int fd, const char *name)
{
	static struct rds_info_counter ctr[256];
	socklen_t len = sizeof(ctr);
	int i, n;

	if (info_get(fd, RDS_INFO_COUNTERS, ctr, &len) < 0)
		return ~0ULL;
	n = len / sizeof(ctr[0]);
	for (i = 0; i < n; i++)
		if (!strcmp((char *)ctr[i].name, name))
			return ctr[i].value;
	return ~0ULL;
}

static void test_info(void)
{
	int a = rds_bound("127.0.0.1", 5301), b = rds_bound("127.0.0.1", 5302);
	static char buf[1 << 16];
	struct rds_info_connection *conn;
	struct rds_info_message *m;
	uint64_t before, after;
	int each, i, n, found;
	socklen_t len;
	char in[64];

	before = counter(a, "recv_delivered");
	send_to(a, "127.0.0.1", 5302, "info", 4, 0);
	poll_events(b, POLLIN, 5000);

	len = sizeof(buf);
	each = info_get(a, RDS_INFO_RECV_MESSAGES, buf, &len);
	n = each > 0 ? len / each : 0;
	for (i = 0, found = 0, m = (void *)buf; i < n; i++)
		if (m[i].lport == htons(5302) && m[i].fport == htons(5301) && m[i].len == 4)
			found++;
	ktap_result(each == sizeof(*m) && found == 1,
		    "RDS_INFO_RECV_MESSAGES lists the queued message");
	len = sizeof(buf);
	each = info_get(a, RDS6_INFO_RECV_MESSAGES, buf, &len);
	ktap_result(each == sizeof(struct rds6_info_message) && len >= (socklen_t)each,
		    "RDS6_INFO_RECV_MESSAGES lists it too");

	len = sizeof(buf);
	each = info_get(a, RDS_INFO_CONNECTIONS, buf, &len);
	n = each > 0 ? len / each : 0;
	for (i = 0, found = 0, conn = (void *)buf; i < n; i++)
		if (conn[i].laddr == htonl(INADDR_LOOPBACK) &&
		    conn[i].faddr == htonl(INADDR_LOOPBACK))
			found++;
	ktap_result(each == sizeof(*conn) && found >= 1,
		    "RDS_INFO_CONNECTIONS lists 127.0.0.1 -> 127.0.0.1");

	recv(b, in, sizeof(in), 0);
	after = counter(a, "recv_delivered");
	ktap_result(after != ~0ULL && after > before,
		    "recv_delivered counts it (%llu -> %llu)",
		    (unsigned long long)before, (unsigned long long)after);
	len = sizeof(buf);
	each = info_get(a, RDS_INFO_RECV_MESSAGES, buf, &len);
	ktap_result(each >= 0 && len == 0, "RDS_INFO_RECV_MESSAGES empty after recv (%u)", len);
	close(a);
	close(b);
}

static void test_ping(void)
{
	int a = rds_bound("127.0.0.1", 5401), mflags;
	socklen_t fromlen;
	union addr from;
	char in[16];
	ssize_t n;

	ktap_result(send_to(a, "127.0.0.1", 0, "", 0, 0) == 0, "ping 127.0.0.1 port 0");
	poll_events(a, POLLIN, 5000);
	n = recv_from(a, in, sizeof(in), MSG_DONTWAIT, &from, &fromlen, &mflags);
	ktap_result(n == 0 && fromlen == sizeof(from.in) && from.in.sin_port == 0,
		    "pong from port 0 (%zd)", n);
	close(a);
}

/* Fills b (tiny rcvbuf) from a until a is refused; returns how many were sent. */
static int fill_until_enobufs(int a, int port)
{
	char out[512] = { 0 };
	int i, sent = 0;

	for (i = 0; i < 2000; i++) {
		if (send_to(a, "127.0.0.1", port, out, sizeof(out), MSG_DONTWAIT) >= 0) {
			sent++;
			continue;
		}
		if (errno == ENOBUFS)
			return sent;
		if (errno != EAGAIN)
			break;
		usleep(1000);
	}
	return -1;
}

static void test_congestion(void)
{
	int a = rds_bound("127.0.0.1", 5501), b = rds_bound("127.0.0.1", 5502);
	int small = 1, one = 1, sent, drained = 0;
	char cbuf[256], in[1024];
	struct iovec iov = { .iov_base = in, .iov_len = sizeof(in) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	uint64_t mask = 0;
	short ev;
	ssize_t n;

	setsockopt(b, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	ktap_expect_ok(setsockopt(a, SOL_RDS, RDS_CONG_MONITOR, &one, sizeof(one)),
		       "RDS_CONG_MONITOR on the sender");
	sent = fill_until_enobufs(a, 5502);
	ktap_result(sent > 0, "a full receiver refuses with ENOBUFS (after %d)", sent);
	ev = poll_events(a, POLLIN, 0);
	ktap_result(!(ev & POLLIN), "no congestion news yet (%#x)", ev);

	while (recv(b, in, sizeof(in), MSG_DONTWAIT) >= 0)
		drained++;
	ktap_result(drained >= sent - 1, "receiver drained %d of %d", drained, sent);
	ev = poll_events(a, POLLIN, 5000);
	ktap_result(ev & POLLIN, "sender polls POLLIN: the port opened (%#x)", ev);
	n = recvmsg(a, &msg, MSG_DONTWAIT);
	c = find_cmsg(&msg, SOL_RDS, RDS_CMSG_CONG_UPDATE);
	if (c)
		memcpy(&mask, CMSG_DATA(c), sizeof(mask));
	ktap_result(n == 0 && c && (mask & RDS_CONG_MONITOR_MASK(5502)),
		    "RDS_CMSG_CONG_UPDATE names the port (%zd, %#llx)", n,
		    (unsigned long long)mask);
	ktap_result(send_to(a, "127.0.0.1", 5502, in, 16, MSG_DONTWAIT) == 16,
		    "sending works again");
	close(a);
	close(b);
}

/* A sender without RDS_CONG_MONITOR, watched by epoll from before it is
 * refused: epoll hooks the wait queues of its first poll only, so the map
 * change that opens the port must come on the socket's own queue.  And
 * poll reports a change after the refusal, not the one that congested the
 * port in the first place.
 */
static void test_congestion_epoll(void)
{
	int a = rds_bound("127.0.0.1", 5511), b = rds_bound("127.0.0.1", 5512);
	struct epoll_event ev = { .events = EPOLLIN | EPOLLWRBAND };
	int small = 1, sent, n, ep = epoll_create1(0);
	char in[1024];

	setsockopt(b, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, a, &ev))
		ktap_bail("epoll");
	sent = fill_until_enobufs(a, 5512);
	ktap_result(sent > 0, "epoll: a full receiver refuses with ENOBUFS (after %d)",
		    sent);
	n = epoll_wait(ep, &ev, 1, 200);
	ktap_result(n == 0, "epoll: no congestion news before the port opens (%d, %#x)",
		    n, n > 0 ? ev.events : 0);
	while (recv(b, in, sizeof(in), MSG_DONTWAIT) >= 0)
		;
	n = epoll_wait(ep, &ev, 1, 5000);
	ktap_result(n == 1 && (ev.events & EPOLLWRBAND),
		    "epoll: the port opening wakes the refused sender (%d, %#x)",
		    n, n > 0 ? ev.events : 0);
	close(ep);
	close(a);
	close(b);
}

struct reader {
	int fd, got;
};

static void *read_all(void *arg)
{
	struct timeval tv = { .tv_usec = 500000 };
	struct reader *r = arg;
	char in[64];

	setsockopt(r->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while (recv(r->fd, in, sizeof(in), 0) >= 0)
		r->got++;
	return NULL;
}

/* @t on CPU @cpu, modulo the CPUs there are. */
static void pin(pthread_t t, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu % sysconf(_SC_NPROCESSORS_ONLN), &set);
	pthread_setaffinity_np(t, sizeof(set), &set);
}

/*
 * Two readers on one socket, on two CPUs so that they dequeue at the same
 * moment: every message is read exactly once.
 */
static void test_two_readers(void)
{
	int a = rds_bound("127.0.0.1", 5601), b = rds_bound("127.0.0.1", 5602);
	struct reader r1 = { b, 0 }, r2 = { b, 0 };
	int i, sent = 0, big = 1 << 20;
	pthread_t t1, t2;

	setsockopt(b, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	pthread_create(&t1, NULL, read_all, &r1);
	pthread_create(&t2, NULL, read_all, &r2);
	pin(t1, 0);
	pin(t2, 1);
	for (i = 0; i < 500; i++)
		if (send_to(a, "127.0.0.1", 5602, &i, sizeof(i), 0) == sizeof(i))
			sent++;
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	ktap_result(sent == 500 && r1.got + r2.got == sent,
		    "two readers got %d + %d of %d messages", r1.got, r2.got, sent);
	close(a);
	close(b);
}

/* Receivers close while messages are on their way to them. */
static void test_close_under_traffic(void)
{
	int a = rds_bound("127.0.0.1", 5701), i, j, b, errors = 0;
	char out[256] = { 0 };

	for (i = 0; i < 20; i++) {
		b = rds_bound("127.0.0.1", 5702);
		for (j = 0; j < 20; j++)
			if (send_to(a, "127.0.0.1", 5702, out, sizeof(out),
				    MSG_DONTWAIT) < 0 && errno != ENOBUFS && errno != EAGAIN)
				errors++;
		close(b);
	}
	ktap_result(errors == 0, "close receivers under traffic (%d errors)", errors);
	close(a);
}

static int loopback_tests(void)
{
	ktap_plan(55);
	test_exchange("127.0.0.1", 5001, 5002);
	test_exchange("::1", 5001, 5002);
	test_blocking_recv();
	test_cmsgs();
	test_info();
	test_ping();
	test_congestion();
	test_congestion_epoll();
	test_two_readers();
	test_close_under_traffic();
	return ktap_finish();
}

static int sndbuf_test(const char *laddr, const char *daddr)
{
	int fd = rds_bound(laddr, 6001), val = 16384, i, sent = 0, err = 0;
	struct timeval tv = { .tv_usec = 200000 };
	char out[1024] = { 0 };
	socklen_t dlen;
	union addr d;
	short ev;

	ktap_plan(6);
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &val, sizeof(val));
	for (i = 0; i < 1000; i++) {
		if (send_to(fd, daddr, 6002, out, sizeof(out), MSG_DONTWAIT) < 0) {
			err = errno;
			break;
		}
		sent++;
	}
	ktap_result(err == EAGAIN && sent >= 16,
		    "sndbuf full: EAGAIN after %d messages (%s)", sent, strerror(err));
	ev = poll_events(fd, POLLOUT, 0);
	ktap_result(!(ev & POLLOUT), "no POLLOUT while full (%#x)", ev);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	ktap_expect_errno(send_to(fd, daddr, 6002, out, sizeof(out), 0), ETIMEDOUT,
			  "blocking send times out (SO_SNDTIMEO)");

	dlen = addr_make(&d, daddr, 6002);
	ktap_expect_ok(setsockopt(fd, SOL_RDS, RDS_CANCEL_SENT_TO, &d, dlen),
		       "RDS_CANCEL_SENT_TO the silent peer");
	ev = poll_events(fd, POLLOUT, 5000);
	ktap_result(ev & POLLOUT, "POLLOUT once the queue is dropped (%#x)", ev);
	ktap_result(send_to(fd, daddr, 6002, out, sizeof(out), MSG_DONTWAIT) ==
		    sizeof(out), "sending works again");
	close(fd);
	return ktap_finish();
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "sndbuf"))
		return sndbuf_test(argv[2], argv[3]);
	if (argc != 1) {
		fprintf(stderr, "usage: %s [sndbuf LADDR DADDR]\n", argv[0]);
		return KSFT_FAIL;
	}
	return loopback_tests();
}
