// SPDX-License-Identifier: GPL-2.0
/*
 * The RDS socket API without traffic: every bad input gets its errno, and
 * the calls that need no peer (bind, connect, getname, options, info
 * tables, ioctl, poll, recv on an empty queue) do what they should.
 *
 *   rds_sock_api            needs rds.ko loaded, nothing else
 *   rds_sock_api tcp LADDR  with rds_tcp.ko: SO_RDS_TRANSPORT, bind and TOS
 *                           of a TCP socket; LADDR is a local IPv4 address
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
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>
#include <linux/rds.h>

#include "../common/ktap.h"

#ifndef AF_RDS
#define AF_RDS 21
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int rds_socket(void)
{
	int fd = socket(AF_RDS, SOCK_SEQPACKET, 0);

	if (fd < 0)
		ktap_bail("socket(AF_RDS)");
	return fd;
}

static struct sockaddr_in sin4(const char *addr, int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };

	inet_pton(AF_INET, addr, &sin.sin_addr);
	return sin;
}

static struct sockaddr_in6 sin6(const char *addr, int port)
{
	struct sockaddr_in6 sin = { .sin6_family = AF_INET6, .sin6_port = htons(port) };

	inet_pton(AF_INET6, addr, &sin.sin6_addr);
	return sin;
}

static int bind4(int fd, const char *addr, int port)
{
	struct sockaddr_in sin = sin4(addr, port);

	return bind(fd, (struct sockaddr *)&sin, sizeof(sin));
}

static int bind6(int fd, const char *addr, int port)
{
	struct sockaddr_in6 sin = sin6(addr, port);

	return bind(fd, (struct sockaddr *)&sin, sizeof(sin));
}

static int connect4(int fd, const char *addr, int port)
{
	struct sockaddr_in sin = sin4(addr, port);

	return connect(fd, (struct sockaddr *)&sin, sizeof(sin));
}

static int connect6(int fd, const char *addr, int port)
{
	struct sockaddr_in6 sin = sin6(addr, port);

	return connect(fd, (struct sockaddr *)&sin, sizeof(sin));
}

static int setint(int fd, int name, int val, socklen_t len)
{
	return setsockopt(fd, SOL_RDS, name, &val, len);
}

static void test_socket_create(void)
{
	ktap_expect_errno(socket(AF_RDS, SOCK_DGRAM, 0), ESOCKTNOSUPPORT,
			  "socket SOCK_DGRAM");
	ktap_expect_errno(socket(AF_RDS, SOCK_STREAM, 0), ESOCKTNOSUPPORT,
			  "socket SOCK_STREAM");
	ktap_expect_errno(socket(AF_RDS, SOCK_SEQPACKET, 6), ESOCKTNOSUPPORT,
			  "socket protocol 6");
}

static void test_bind_errors(void)
{
	struct sockaddr_in6 s6;
	struct sockaddr_in s4;
	int fd = rds_socket();

	s4 = sin4("127.0.0.1", 4000);
	ktap_expect_errno(bind(fd, (struct sockaddr *)&s4, sizeof(s4) - 1), EINVAL,
			  "bind short sockaddr");
	s4.sin_family = AF_UNSPEC;
	ktap_expect_errno(bind(fd, (struct sockaddr *)&s4, sizeof(s4)), EINVAL,
			  "bind AF_UNSPEC");
	s4.sin_family = AF_UNIX;
	ktap_expect_errno(bind(fd, (struct sockaddr *)&s4, sizeof(s4)), EINVAL,
			  "bind wrong family");
	ktap_expect_errno(bind4(fd, "0.0.0.0", 4000), EINVAL, "bind INADDR_ANY");
	ktap_expect_errno(bind4(fd, "255.255.255.255", 4000), EINVAL, "bind broadcast");
	ktap_expect_errno(bind4(fd, "224.0.0.1", 4000), EINVAL, "bind multicast");
	s6 = sin6("::1", 4000);
	ktap_expect_errno(bind(fd, (struct sockaddr *)&s6, sizeof(struct sockaddr_in)),
			  EINVAL, "bind AF_INET6 with a sockaddr_in length");
	ktap_expect_errno(bind6(fd, "::", 4000), EINVAL, "bind in6addr_any");
	ktap_expect_errno(bind6(fd, "ff02::1", 4000), EINVAL, "bind IPv6 multicast");
	ktap_expect_errno(bind6(fd, "::ffff:0.0.0.0", 4000), EINVAL, "bind mapped any");
	ktap_expect_errno(bind6(fd, "::ffff:224.0.0.1", 4000), EINVAL,
			  "bind mapped multicast");
	ktap_expect_errno(bind6(fd, "fe80::1", 4000), EINVAL,
			  "bind link-local without scope id");
	ktap_expect_errno(bind4(fd, "192.0.2.77", 4000), EADDRNOTAVAIL,
			  "bind address no transport can use");
	close(fd);
}

static void test_bind_ok(void)
{
	struct sockaddr_storage ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	socklen_t len = sizeof(ss);
	int a = rds_socket(), b = rds_socket(), c = rds_socket();

	ktap_expect_ok(bind4(a, "127.0.0.1", 4001), "bind 127.0.0.1:4001");
	ktap_expect_ok(getsockname(a, (struct sockaddr *)&ss, &len), "getsockname");
	ktap_result(len == sizeof(*s4) && s4->sin_family == AF_INET &&
		    s4->sin_port == htons(4001) &&
		    s4->sin_addr.s_addr == htonl(INADDR_LOOPBACK),
		    "getsockname is 127.0.0.1:4001 (len %u)", len);
	ktap_expect_errno(bind4(a, "127.0.0.1", 4002), EINVAL, "bind twice");
	ktap_expect_errno(bind4(b, "127.0.0.1", 4001), EADDRINUSE, "bind port in use");
	ktap_expect_errno(bind6(b, "::ffff:127.0.0.1", 4001), EADDRINUSE,
			  "bind port in use, v4-mapped spelling");
	ktap_expect_ok(bind4(b, "127.0.0.2", 4001), "same port, other address");

	ktap_expect_ok(bind4(c, "127.0.0.1", 0), "bind port 0");
	len = sizeof(ss);
	getsockname(c, (struct sockaddr *)&ss, &len);
	ktap_result(s4->sin_port != 0 && s4->sin_port != htons(1),
		    "port 0 picked port %u", ntohs(s4->sin_port));
	close(a);
	close(b);
	close(c);

	a = rds_socket();
	ktap_expect_ok(bind4(a, "127.0.0.1", 4001), "port free again after close");
	close(a);

	a = rds_socket();
	ktap_expect_ok(bind6(a, "::1", 4001), "bind [::1]:4001");
	len = sizeof(ss);
	getsockname(a, (struct sockaddr *)&ss, &len);
	ktap_result(len == sizeof(*s6) && s6->sin6_family == AF_INET6 &&
		    s6->sin6_port == htons(4001) &&
		    IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr),
		    "getsockname is [::1]:4001 (len %u)", len);
	b = rds_socket();
	ktap_expect_errno(bind6(b, "::1", 4001), EADDRINUSE, "[::1] port in use");
	close(b);
	close(a);
}

static void test_connect(void)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in s = sin4("127.0.0.1", 4100);
	socklen_t len = sizeof(ss);
	int fd = rds_socket();

	ktap_expect_errno(connect(fd, (struct sockaddr *)&s, 1), EINVAL,
			  "connect without a family");
	ktap_expect_errno(connect(fd, (struct sockaddr *)&s, sizeof(s) - 2), EINVAL,
			  "connect short sockaddr_in");
	ktap_expect_errno(connect4(fd, "0.0.0.0", 4100), EDESTADDRREQ,
			  "connect INADDR_ANY");
	ktap_expect_errno(connect4(fd, "255.255.255.255", 4100), EINVAL,
			  "connect broadcast");
	ktap_expect_errno(connect4(fd, "224.0.0.1", 4100), EINVAL, "connect multicast");
	ktap_expect_errno(connect6(fd, "ff02::1", 4100), EPROTOTYPE,
			  "connect IPv6 multicast");
	ktap_expect_errno(connect6(fd, "::ffff:0.0.0.0", 4100), EPROTOTYPE,
			  "connect mapped any");
	s.sin_family = AF_UNIX;
	ktap_expect_errno(connect(fd, (struct sockaddr *)&s, sizeof(s)), EAFNOSUPPORT,
			  "connect wrong family");
	ktap_expect_errno(getpeername(fd, (struct sockaddr *)&ss, &len), ENOTCONN,
			  "getpeername before connect");
	ktap_expect_ok(connect4(fd, "127.0.0.1", 4100), "connect 127.0.0.1:4100");
	len = sizeof(ss);
	ktap_expect_ok(getpeername(fd, (struct sockaddr *)&ss, &len), "getpeername");
	ktap_result(len == sizeof(*s4) && s4->sin_port == htons(4100) &&
		    s4->sin_addr.s_addr == htonl(INADDR_LOOPBACK),
		    "getpeername is 127.0.0.1:4100");
	close(fd);
}

static void test_send_errors(void)
{
	struct sockaddr_in dst = sin4("127.0.0.1", 4201);
	struct sockaddr_in6 dst6 = sin6("::1", 4201);
	static char big[2 << 20];
	int fd = rds_socket(), val;

	ktap_expect_errno(send(fd, "x", 1, 0), ENOTCONN, "send unbound, no destination");
	ktap_expect_errno(sendto(fd, "x", 1, 0, (struct sockaddr *)&dst, sizeof(dst)),
			  ENOTCONN, "sendto unbound");
	bind4(fd, "127.0.0.1", 4200);
	ktap_expect_errno(send(fd, "x", 1, 0), ENOTCONN, "send bound, no destination");
	ktap_expect_errno(sendto(fd, "x", 1, 0, (struct sockaddr *)&dst, 8), EINVAL,
			  "sendto short msg_name");
	dst.sin_family = AF_UNIX;
	ktap_expect_errno(sendto(fd, "x", 1, 0, (struct sockaddr *)&dst, sizeof(dst)),
			  EINVAL, "sendto wrong family");
	dst.sin_family = AF_INET;
	dst.sin_addr.s_addr = htonl(INADDR_BROADCAST);
	ktap_expect_errno(sendto(fd, "x", 1, 0, (struct sockaddr *)&dst, sizeof(dst)),
			  EINVAL, "sendto broadcast");
	dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ktap_expect_errno(sendto(fd, "x", 1, MSG_OOB, (struct sockaddr *)&dst,
				 sizeof(dst)), EOPNOTSUPP, "sendto MSG_OOB");
	ktap_expect_errno(sendto(fd, "x", 1, 0, (struct sockaddr *)&dst6, sizeof(dst6)),
			  EOPNOTSUPP, "IPv4 socket to an IPv6 destination");
	val = 4096;
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &val, sizeof(val));
	ktap_expect_errno(sendto(fd, big, 8192, 0, (struct sockaddr *)&dst, sizeof(dst)),
			  EMSGSIZE, "message larger than sndbuf");
	val = 64 << 20;
	setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &val, sizeof(val));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &val, sizeof(val));
	ktap_expect_errno(sendto(fd, big, sizeof(big), 0, (struct sockaddr *)&dst,
				 sizeof(dst)), EMSGSIZE, "message larger than 1 MiB");
	close(fd);
}

static void test_setsockopt(void)
{
	struct rds_rx_trace_so tr = { 0 };
	struct sockaddr_in s = sin4("127.0.0.1", 1);
	int fd = rds_socket(), one = 1;

	ktap_expect_errno(setsockopt(fd, SOL_IP, RDS_RECVERR, &one, sizeof(one)),
			  ENOPROTOOPT, "setsockopt level SOL_IP");
	ktap_expect_errno(setint(fd, 99, 1, sizeof(int)), ENOPROTOOPT,
			  "setsockopt unknown optname");
	ktap_expect_errno(setint(fd, RDS_RECVERR, 1, 2), EINVAL, "RDS_RECVERR short optlen");
	ktap_expect_ok(setint(fd, RDS_RECVERR, 1, sizeof(int)), "RDS_RECVERR on");
	ktap_expect_errno(setint(fd, RDS_CONG_MONITOR, 1, 1), EINVAL,
			  "RDS_CONG_MONITOR short optlen");
	ktap_expect_ok(setint(fd, RDS_CONG_MONITOR, 1, sizeof(int)), "RDS_CONG_MONITOR on");
	ktap_expect_ok(setint(fd, RDS_CONG_MONITOR, 0, sizeof(int)), "RDS_CONG_MONITOR off");
	ktap_expect_errno(setint(fd, RDS_GET_MR, 0, sizeof(int)), EINVAL,
			  "RDS_GET_MR short optlen");
	/* In-tree checks the binding first. */
	ktap_expect_errno(setsockopt(fd, SOL_RDS, RDS_CANCEL_SENT_TO, &s, 4), ENOTCONN,
			  "RDS_CANCEL_SENT_TO short optlen, unbound");
	ktap_expect_errno(setsockopt(fd, SOL_RDS, RDS_CANCEL_SENT_TO, &s, sizeof(s)),
			  ENOTCONN, "RDS_CANCEL_SENT_TO unbound");
	ktap_expect_errno(setint(fd, SO_RDS_TRANSPORT, RDS_TRANS_TCP, 2), EINVAL,
			  "SO_RDS_TRANSPORT short optlen");
	ktap_expect_errno(setint(fd, SO_RDS_TRANSPORT, 99, sizeof(int)), EINVAL,
			  "SO_RDS_TRANSPORT out of range");
	ktap_expect_errno(setint(fd, SO_RDS_TRANSPORT, RDS_TRANS_IB, sizeof(int)),
			  ENOPROTOOPT, "SO_RDS_TRANSPORT IB not loaded");
	ktap_expect_errno(setsockopt(fd, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY, &tr, 2),
			  EFAULT, "RXPATH_LATENCY short optlen");
	tr.rx_traces = RDS_MSG_RX_DGRAM_TRACE_MAX + 1;
	ktap_expect_errno(setsockopt(fd, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY, &tr,
				     sizeof(tr)), EFAULT, "RXPATH_LATENCY too many traces");
	tr.rx_traces = 1;
	tr.rx_trace_pos[0] = RDS_MSG_RX_DGRAM_TRACE_MAX;
	ktap_expect_errno(setsockopt(fd, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY, &tr,
				     sizeof(tr)), EFAULT, "RXPATH_LATENCY bad position");
	tr.rx_trace_pos[0] = RDS_MSG_RX_DGRAM_DELIVERED;
	ktap_expect_ok(setsockopt(fd, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY, &tr, sizeof(tr)),
		       "RXPATH_LATENCY valid");
	ktap_expect_ok(setint(fd, SO_TIMESTAMP, 1, sizeof(int)), "SOL_RDS SO_TIMESTAMP");
	ktap_expect_errno(setint(fd, SO_TIMESTAMP, 1, 1), EFAULT,
			  "SOL_RDS SO_TIMESTAMP short optlen");

	bind4(fd, "127.0.0.1", 4300);
	ktap_expect_errno(setint(fd, SO_RDS_TRANSPORT, RDS_TRANS_TCP, sizeof(int)),
			  EOPNOTSUPP, "SO_RDS_TRANSPORT after bind");
	close(fd);
}

static void test_getsockopt(void)
{
	int fd = rds_socket(), val = 0;
	socklen_t len;

	setint(fd, RDS_RECVERR, 1, sizeof(int));
	len = sizeof(val);
	ktap_expect_ok(getsockopt(fd, SOL_RDS, RDS_RECVERR, &val, &len), "get RDS_RECVERR");
	ktap_result(val == 1 && len == sizeof(int), "RDS_RECVERR reads back 1");
	len = 2;
	ktap_expect_errno(getsockopt(fd, SOL_RDS, RDS_RECVERR, &val, &len), EINVAL,
			  "get RDS_RECVERR short optlen");
	len = (socklen_t)-1;
	ktap_expect_errno(getsockopt(fd, SOL_RDS, RDS_RECVERR, &val, &len), EINVAL,
			  "get negative optlen");
	len = sizeof(val);
	ktap_expect_ok(getsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &val, &len),
		       "get SO_RDS_TRANSPORT");
	ktap_result(val == RDS_TRANS_NONE, "no transport before bind (%d)", val);
	len = sizeof(val);
	ktap_expect_errno(getsockopt(fd, SOL_RDS, 99, &val, &len), ENOPROTOOPT,
			  "get unknown optname");
	len = sizeof(val);
	ktap_expect_errno(getsockopt(fd, SOL_IP, RDS_RECVERR, &val, &len), ENOPROTOOPT,
			  "get level SOL_IP");
	close(fd);
}

/* Reads a whole table; returns the item size, or -errno. */
static int info_read(int fd, int name, void **buf, socklen_t *len)
{
	socklen_t need = 0;
	int ret;

	*buf = NULL;
	ret = getsockopt(fd, SOL_RDS, name, NULL, &need);
	if (ret < 0 && errno != ENOSPC)
		return -errno;
	if (ret >= 0) {
		*len = 0;
		return ret;
	}
	need += 4096;	/* room for what appears meanwhile */
	*buf = calloc(1, need);
	*len = need;
	ret = getsockopt(fd, SOL_RDS, name, *buf, len);
	return ret < 0 ? -errno : ret;
}

static void test_info_counters(int fd)
{
	struct rds_info_counter *c;
	socklen_t len = 0, need;
	void *buf;
	int each, n, i, found = 0;

	ktap_expect_errno(getsockopt(fd, SOL_RDS, RDS_INFO_COUNTERS, NULL, &len), ENOSPC,
			  "RDS_INFO_COUNTERS with no buffer");
	ktap_result(len > 0 && len % sizeof(*c) == 0, "ENOSPC says %u bytes needed", len);
	need = len;
	buf = calloc(1, need);
	len = need - 1;
	ktap_expect_errno(getsockopt(fd, SOL_RDS, RDS_INFO_COUNTERS, buf, &len), ENOSPC,
			  "RDS_INFO_COUNTERS one byte short");
	ktap_result(len == need, "needed length stays %u", len);
	len = (socklen_t)-4;
	ktap_expect_errno(getsockopt(fd, SOL_RDS, RDS_INFO_COUNTERS, buf, &len), EINVAL,
			  "RDS_INFO_COUNTERS negative length");
	free(buf);

	each = info_read(fd, RDS_INFO_COUNTERS, &buf, &len);
	ktap_result(each == sizeof(*c) && len % each == 0,
		    "RDS_INFO_COUNTERS returns the item size (%d, %u bytes)", each, len);
	n = each > 0 ? len / each : 0;
	for (i = 0, c = buf; i < n; i++, c++)
		if (!strcmp((char *)c[0].name, "recv_delivered") ||
		    !strcmp((char *)c[0].name, "conn_reset"))
			found++;
	ktap_result(found == 2, "counters include recv_delivered and conn_reset");
	free(buf);
}

static void test_info_sockets(int fd)
{
	struct rds6_info_socket *s6;
	struct rds_info_socket *s4;
	int a = rds_socket(), b = rds_socket(), each, i, n, found;
	struct stat st;
	socklen_t len;
	void *buf;

	bind4(a, "127.0.0.1", 4401);
	bind6(b, "::1", 4402);

	fstat(a, &st);
	each = info_read(fd, RDS_INFO_SOCKETS, &buf, &len);
	ktap_result(each == sizeof(*s4), "RDS_INFO_SOCKETS item size %d", each);
	n = each > 0 ? len / each : 0;
	for (i = 0, found = 0, s4 = buf; i < n; i++)
		if (s4[i].inum == st.st_ino && s4[i].bound_port == htons(4401) &&
		    s4[i].bound_addr == htonl(INADDR_LOOPBACK))
			found++;
	ktap_result(found == 1, "RDS_INFO_SOCKETS lists 127.0.0.1:4401");
	free(buf);

	fstat(b, &st);
	each = info_read(fd, RDS6_INFO_SOCKETS, &buf, &len);
	ktap_result(each == sizeof(*s6), "RDS6_INFO_SOCKETS item size %d", each);
	n = each > 0 ? len / each : 0;
	for (i = 0, found = 0, s6 = buf; i < n; i++) {
		struct in6_addr addr;

		memcpy(&addr, &s6[i].bound_addr, sizeof(addr));
		if (s6[i].inum == st.st_ino && s6[i].bound_port == htons(4402) &&
		    IN6_IS_ADDR_LOOPBACK(&addr))
			found++;
	}
	ktap_result(found == 1, "RDS6_INFO_SOCKETS lists [::1]:4402");
	free(buf);
	close(a);
	close(b);
}

static const struct {
	int name;
	unsigned int each;
	const char *desc;
} info_tables[] = {
	{ RDS_INFO_CONNECTIONS, sizeof(struct rds_info_connection), "CONNECTIONS" },
	{ RDS_INFO_SEND_MESSAGES, sizeof(struct rds_info_message), "SEND_MESSAGES" },
	{ RDS_INFO_RETRANS_MESSAGES, sizeof(struct rds_info_message), "RETRANS_MESSAGES" },
	{ RDS_INFO_RECV_MESSAGES, sizeof(struct rds_info_message), "RECV_MESSAGES" },
	{ RDS_INFO_CONNECTION_STATS, sizeof(struct rds_info_connection),
	  "CONNECTION_STATS" },
	{ RDS6_INFO_CONNECTIONS, sizeof(struct rds6_info_connection), "RDS6_CONNECTIONS" },
	{ RDS6_INFO_SEND_MESSAGES, sizeof(struct rds6_info_message), "RDS6_SEND_MESSAGES" },
	{ RDS6_INFO_RETRANS_MESSAGES, sizeof(struct rds6_info_message),
	  "RDS6_RETRANS_MESSAGES" },
	{ RDS6_INFO_RECV_MESSAGES, sizeof(struct rds6_info_message), "RDS6_RECV_MESSAGES" },
	/* Ours alone, past upstream's and UEK's numbers. */
	{ RDS_INFO_PATHS, sizeof(struct rds_info_path), "PATHS (ours)" },
	{ RDS_INFO_SOCKET_DROPS, sizeof(struct rds_info_socket_drops), "SOCKET_DROPS (ours)" },
	{ RDS_INFO_CARRIERS, sizeof(struct rds_info_carrier), "CARRIERS (ours)" },
};

static void test_info_tables(void)
{
	int fd = rds_socket(), each;
	bool sized;
	socklen_t len;
	unsigned int i;
	void *buf;

	test_info_counters(fd);
	test_info_sockets(fd);
	for (i = 0; i < ARRAY_SIZE(info_tables); i++) {
		each = info_read(fd, info_tables[i].name, &buf, &len);
		sized = each == (int)info_tables[i].each && len % each == 0;

		/* An empty table may report any size; a full one its own. */
		ktap_result(each >= 0 && (len == 0 || sized),
			    "RDS_INFO %s reads back (%d, %u bytes)", info_tables[i].desc,
			    each, len);
		free(buf);
	}
	len = 64;
	buf = calloc(1, len);
	ktap_expect_errno(getsockopt(fd, SOL_RDS, RDS_INFO_IB_CONNECTIONS, buf, &len),
			  ENOPROTOOPT, "RDS_INFO_IB_CONNECTIONS without IB");
	len = 64;
	ktap_expect_errno(getsockopt(fd, SOL_RDS, RDS_INFO_LAST + 1, buf, &len),
			  ENOPROTOOPT, "RDS_INFO beyond LAST");
	len = 64;
	ktap_expect_errno(getsockopt(fd, SOL_RDS, RDS_INFO_OWN_FIRST - 1, buf, &len),
			  ENOPROTOOPT, "RDS_INFO between upstream's tables and ours");
	len = 64;
	ktap_expect_errno(getsockopt(fd, SOL_RDS, RDS_INFO_OWN_LAST + 1, buf, &len),
			  ENOPROTOOPT, "RDS_INFO beyond our own tables");
	free(buf);
	close(fd);
}

static void test_ioctl(void)
{
	int fd = rds_socket();
	unsigned char tos = 0xff;

	ktap_expect_ok(ioctl(fd, SIOCRDSGETTOS, &tos), "SIOCRDSGETTOS");
	ktap_result(tos == 0, "TOS is 0 by default (%u)", tos);
	tos = 5;
	ktap_expect_ok(ioctl(fd, SIOCRDSSETTOS, &tos), "SIOCRDSSETTOS 5");
	tos = 0;
	ioctl(fd, SIOCRDSGETTOS, &tos);
	ktap_result(tos == 5, "TOS reads back 5 (%u)", tos);
	tos = 7;
	ktap_expect_errno(ioctl(fd, SIOCRDSSETTOS, &tos), EINVAL, "TOS set twice");
	ktap_expect_errno(ioctl(fd, SIOCRDSSETTOS, (void *)8), EFAULT,
			  "SIOCRDSSETTOS bad pointer");
	ktap_expect_errno(ioctl(fd, SIOCRDSGETTOS, (void *)8), EFAULT,
			  "SIOCRDSGETTOS bad pointer");
	ktap_expect_errno(ioctl(fd, TCGETS, &tos), ENOTTY, "unknown ioctl");
	close(fd);
}

static void test_poll_recv_empty(void)
{
	struct timeval tv = { .tv_usec = 100000 };
	struct pollfd pfd;
	char buf[16];
	int fd = rds_socket();

	pfd.fd = fd;
	pfd.events = POLLIN | POLLOUT;
	pfd.revents = 0;
	poll(&pfd, 1, 0);
	ktap_result(pfd.revents == POLLOUT, "poll on an idle socket: POLLOUT only (%#x)",
		    pfd.revents);
	ktap_expect_errno(recv(fd, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN,
			  "recv MSG_DONTWAIT on an empty queue");
	bind4(fd, "127.0.0.1", 4500);
	ktap_expect_errno(recv(fd, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN,
			  "bound, recv MSG_DONTWAIT on an empty queue");
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	/* In-tree's errnos: ETIMEDOUT, and MSG_OOB reads nothing. */
	ktap_expect_errno(recv(fd, buf, sizeof(buf), 0), ETIMEDOUT, "recv SO_RCVTIMEO expires");
	ktap_expect_ok(recv(fd, buf, sizeof(buf), MSG_OOB), "recv MSG_OOB");
	ktap_expect_errno(recv(fd, buf, sizeof(buf), MSG_ERRQUEUE), EAGAIN,
			  "recv MSG_ERRQUEUE, nothing queued");
	close(fd);
}

/* A socket set to TCP: its transport decides which addresses it may bind. */
static int tcp_tests(const char *laddr)
{
	int fd = rds_socket(), val = -1;
	unsigned char tos = 5;
	socklen_t len = sizeof(val);

	ktap_plan(7);
	ktap_expect_ok(setint(fd, SO_RDS_TRANSPORT, RDS_TRANS_TCP, sizeof(int)),
		       "SO_RDS_TRANSPORT TCP");
	getsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &val, &len);
	ktap_result(val == RDS_TRANS_TCP, "SO_RDS_TRANSPORT reads back TCP (%d)", val);
	ktap_expect_errno(setint(fd, SO_RDS_TRANSPORT, RDS_TRANS_TCP, sizeof(int)),
			  EOPNOTSUPP, "SO_RDS_TRANSPORT twice");
	ktap_expect_errno(bind4(fd, "192.0.2.77", 4600), ENOPROTOOPT,
			  "bind an address TCP cannot use");
	ktap_expect_ok(bind4(fd, laddr, 4600), "bind the local address");
	ktap_expect_ok(ioctl(fd, SIOCRDSSETTOS, &tos), "SIOCRDSSETTOS on TCP");
	ioctl(fd, SIOCRDSGETTOS, &tos);
	ktap_result(tos == 0, "TCP forces TOS 0 (%u)", tos);
	close(fd);
	return ktap_finish();
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "tcp"))
		return tcp_tests(argv[2]);
	if (argc != 1) {
		fprintf(stderr, "usage: %s [tcp LADDR]\n", argv[0]);
		return KSFT_FAIL;
	}
	ktap_plan(120);
	test_socket_create();
	test_bind_errors();
	test_bind_ok();
	test_connect();
	test_send_errors();
	test_setsockopt();
	test_getsockopt();
	test_info_tables();
	test_ioctl();
	test_poll_recv_empty();
	return ktap_finish();
}
