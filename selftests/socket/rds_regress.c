// SPDX-License-Identifier: GPL-2.0
/*
 * Regression tests for bug classes in-tree RDS has had, over the loopback
 * transport (127.0.0.1 and ::1):
 *
 *  - no uninitialized kernel byte reaches user space: every buffer the
 *    kernel writes into is filled with a pattern first, then the bytes the
 *    kernel owes us (sin_zero, sin6_flowinfo, the padding and unused slots
 *    of the RXPATH_LATENCY cmsg, the tails of counter and transport names)
 *    must be zero;
 *  - a control buffer too small for the cmsgs: MSG_CTRUNC, the message is
 *    delivered once, the next one follows in order (the debug kernel's
 *    kmemleak checks that nothing was leaked on the way);
 *  - SO_RDS_MSG_RXPATH_LATENCY with trace positions at their limits.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/rds.h>

#include "../common/ktap.h"
#include "../common/addr.h"
#include "../common/rds_sock.h"

#ifndef AF_RDS
#define AF_RDS 21
#endif
#ifndef SOL_RDS
#define SOL_RDS 276
#endif

#define PATTERN 0xa5
#define offsetofend(type, member) \
	(offsetof(type, member) + sizeof(((type *)0)->member))

/* A send that must go through. */
static void send_ok(int fd, const char *str, int port, const void *buf, size_t n)
{
	if (send_to(fd, str, port, buf, n, 0) != (ssize_t)n)
		ktap_bail("sendto %s:%d", str, port);
}

static bool all_zero(const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		if (*c++)
			return false;
	return true;
}

/* The bytes of a name after its NUL: zero, not leftovers. */
static bool name_tail_clean(const unsigned char *name, size_t size)
{
	size_t len = strnlen((const char *)name, size);

	return len < size && all_zero(name + len, size - len);
}

/* A name the kernel wrote over the pattern: the family's length, and the
 * bytes that carry no address (sin_zero; sin6_flowinfo and sin6_scope_id of
 * a global address) zero.
 */
static bool name_clean(bool v4, const union addr *a, socklen_t len)
{
	if (v4)
		return len == sizeof(a->in) &&
		       all_zero(a->in.sin_zero, sizeof(a->in.sin_zero));
	return len == sizeof(a->in6) && a->in6.sin6_flowinfo == 0 &&
	       a->in6.sin6_scope_id == 0;
}

/* Names from recvmsg, getsockname and getpeername, in a patterned buffer. */
static void test_names(const char *host, int port)
{
	bool v4 = !strchr(host, ':');
	int a = rds_bound(host, port), b = rds_bound(host, port + 1);
	char buf[16];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	union addr name, peer;
	struct msghdr msg = { .msg_name = &name, .msg_namelen = sizeof(name),
			      .msg_iov = &iov, .msg_iovlen = 1 };
	socklen_t len, plen = addr_make(&peer, host, port + 1);

	send_ok(a, host, port + 1, "x", 1);
	memset(&name, PATTERN, sizeof(name));
	if (recvmsg(b, &msg, 0) != 1)
		ktap_bail("recvmsg");
	ktap_result(name_clean(v4, &name, msg.msg_namelen),
		    "[%s] recvmsg's source name: no stray bytes (len %u)",
		    host, msg.msg_namelen);

	memset(&name, PATTERN, sizeof(name));
	len = sizeof(name);
	if (getsockname(a, &name.sa, &len))
		ktap_bail("getsockname");
	ktap_result(name_clean(v4, &name, len), "[%s] getsockname: no stray bytes",
		    host);

	if (connect(a, &peer.sa, plen))
		ktap_bail("connect");
	memset(&name, PATTERN, sizeof(name));
	len = sizeof(name);
	if (getpeername(a, &name.sa, &len))
		ktap_bail("getpeername");
	ktap_result(name_clean(v4, &name, len), "[%s] getpeername: no stray bytes",
		    host);
	close(a);
	close(b);
}

/* The RXPATH_LATENCY cmsg: padding and the slots beyond rx_traces. */
static void test_trace_cmsg(void)
{
	int a = rds_bound("127.0.0.1", 5701), b = rds_bound("127.0.0.1", 5702);
	struct rds_rx_trace_so tr = { .rx_traces = 1,
				      .rx_trace_pos = { RDS_MSG_RX_DGRAM_DELIVERED } };
	char buf[16], cbuf[CMSG_SPACE(sizeof(struct rds_cmsg_rx_trace)) + 64];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	const size_t pad = offsetof(struct rds_cmsg_rx_trace, rx_trace) -
			   offsetofend(struct rds_cmsg_rx_trace, rx_trace_pos);
	struct rds_cmsg_rx_trace t;
	struct cmsghdr *c;
	bool clean;

	if (setsockopt(b, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY, &tr, sizeof(tr)))
		ktap_bail("SO_RDS_MSG_RXPATH_LATENCY");
	send_ok(a, "127.0.0.1", 5702, "x", 1);
	memset(cbuf, PATTERN, sizeof(cbuf));
	if (recvmsg(b, &msg, 0) != 1)
		ktap_bail("recvmsg");
	c = find_cmsg(&msg, SOL_RDS, RDS_CMSG_RXPATH_LATENCY);
	if (!c || c->cmsg_len < CMSG_LEN(sizeof(t))) {
		ktap_result(0, "RXPATH_LATENCY cmsg present (%p)", (void *)c);
		goto out;
	}
	memcpy(&t, CMSG_DATA(c), sizeof(t));
	clean = t.rx_traces == 1 &&
		all_zero(&t.rx_trace_pos[1], sizeof(t.rx_trace_pos) - 1) &&
		all_zero((char *)CMSG_DATA(c) +
			 offsetofend(struct rds_cmsg_rx_trace, rx_trace_pos), pad) &&
		all_zero(&t.rx_trace[1], sizeof(t.rx_trace) - sizeof(t.rx_trace[0]));
	ktap_result(clean, "RXPATH_LATENCY cmsg: padding and unused slots zero");
out:
	close(a);
	close(b);
}

/* SO_RDS_MSG_RXPATH_LATENCY: the last valid position, and one past it. */
static void test_trace_limits(void)
{
	int fd = rds_bound("127.0.0.1", 5711);
	struct rds_rx_trace_so tr = { .rx_traces = RDS_MSG_RX_DGRAM_TRACE_MAX };
	int i;

	for (i = 0; i < RDS_MSG_RX_DGRAM_TRACE_MAX; i++)
		tr.rx_trace_pos[i] = RDS_MSG_RX_DGRAM_TRACE_MAX - 1;
	ktap_expect_ok(setsockopt(fd, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY, &tr,
				  sizeof(tr)),
		       "RXPATH_LATENCY: every slot at the last position");
	tr.rx_trace_pos[RDS_MSG_RX_DGRAM_TRACE_MAX - 1] = RDS_MSG_RX_DGRAM_TRACE_MAX;
	ktap_expect_errno(setsockopt(fd, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY, &tr,
				     sizeof(tr)), EFAULT,
			  "RXPATH_LATENCY: the last slot one past the limit");
	tr.rx_trace_pos[RDS_MSG_RX_DGRAM_TRACE_MAX - 1] = 0xff;
	ktap_expect_errno(setsockopt(fd, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY, &tr,
				     sizeof(tr)), EFAULT,
			  "RXPATH_LATENCY: position 255");
	close(fd);
}

/* Too little room for the cmsgs: truncated, delivered once, in order. */
static void test_small_control(void)
{
	int a = rds_bound("127.0.0.1", 5721), b = rds_bound("127.0.0.1", 5722);
	struct rds_rx_trace_so tr = { .rx_traces = 2,
				      .rx_trace_pos = { 0, 1 } };
	char buf[16], cbuf[sizeof(struct cmsghdr) + 4];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	int one = 1, i;
	ssize_t n;
	bool ok = true;

	if (setsockopt(b, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY, &tr, sizeof(tr)) ||
	    setsockopt(b, SOL_SOCKET, SO_TIMESTAMP, &one, sizeof(one)))
		ktap_bail("setsockopt");
	for (i = 0; i < 3; i++) {
		buf[0] = '0' + i;
		send_ok(a, "127.0.0.1", 5722, buf, 1);
	}

	msg.msg_control = NULL;
	msg.msg_controllen = 0;
	n = recvmsg(b, &msg, 0);
	ok = n == 1 && buf[0] == '0' && (msg.msg_flags & MSG_CTRUNC);
	ktap_result(ok, "no control buffer: message 0, MSG_CTRUNC (%zd, %#x)", n,
		    msg.msg_flags);

	msg.msg_control = cbuf;
	msg.msg_controllen = sizeof(cbuf);
	n = recvmsg(b, &msg, 0);
	ok = n == 1 && buf[0] == '1' && (msg.msg_flags & MSG_CTRUNC);
	ktap_result(ok, "control buffer of %zu bytes: message 1, MSG_CTRUNC (%zd, %#x)",
		    sizeof(cbuf), n, msg.msg_flags);

	msg.msg_control = cbuf;
	msg.msg_controllen = sizeof(cbuf);
	n = recvmsg(b, &msg, MSG_DONTWAIT);
	ok = n == 1 && buf[0] == '2';
	n = recvmsg(b, &msg, MSG_DONTWAIT);
	ok = ok && n < 0 && errno == EAGAIN;
	ktap_result(ok, "then message 2, and nothing more");
	close(a);
	close(b);
}

/* RDS_INFO tables into a patterned buffer: names end in zeros. */
static void test_info_names(void)
{
	int fd = rds_bound("127.0.0.1", 5731), peer = rds_bound("127.0.0.1", 5732);
	socklen_t len = 1 << 20;
	unsigned char *buf = malloc(len);
	int each, nr, i;
	bool clean = true;

	if (!buf)
		ktap_bail("malloc");
	/* A loopback connection, for the connections table. */
	send_ok(fd, "127.0.0.1", 5732, "x", 1);

	memset(buf, PATTERN, len);
	each = getsockopt(fd, SOL_RDS, RDS_INFO_COUNTERS, buf, &len);
	nr = each > 0 ? len / each : 0;
	for (i = 0; i < nr; i++) {
		struct rds_info_counter *c = (void *)(buf + (size_t)i * each);

		clean &= name_tail_clean(c->name, sizeof(c->name));
	}
	ktap_result(each == sizeof(struct rds_info_counter) && nr > 0 && clean,
		    "RDS_INFO_COUNTERS: %d names, each zero after its end", nr);

	len = 1 << 20;
	memset(buf, PATTERN, len);
	each = getsockopt(fd, SOL_RDS, RDS_INFO_CONNECTIONS, buf, &len);
	nr = each > 0 ? len / each : 0;
	clean = true;
	for (i = 0; i < nr; i++) {
		struct rds_info_connection *c = (void *)(buf + (size_t)i * each);

		clean &= name_tail_clean(c->transport, sizeof(c->transport));
	}
	ktap_result(each == sizeof(struct rds_info_connection) && nr > 0 && clean,
		    "RDS_INFO_CONNECTIONS: %d transport names, each zero after its end",
		    nr);
	free(buf);
	close(fd);
	close(peer);
}

int main(void)
{
	ktap_plan(15);
	test_names("127.0.0.1", 5601);
	test_names("::1", 5611);
	test_trace_cmsg();
	test_trace_limits();
	test_small_control();
	test_info_names();
	return ktap_finish();
}
