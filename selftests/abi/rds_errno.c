// SPDX-License-Identifier: GPL-2.0
/*
 * Every error case of the AF_RDS system calls, one line each:
 * "case-name ERRNO-NAME", or "case-name ok" when the call succeeds.  The
 * output of a run on the in-tree modules is the golden file
 * (selftests/abi/rds_errno.golden); selftests/abi/test_errno.sh diffs a
 * run on ours against it, selftests/intree/test_errno.sh a run on in-tree,
 * so that drift on either side shows.
 *
 *   rds_errno LOCAL4 PEER4 LOCAL6 PEER6
 *
 * Runs in a network namespace where LOCAL4/LOCAL6 are this host's
 * addresses on a link to PEER4/PEER6, in the initial namespace (the
 * SO_RDS_TRANSPORT cases depend on it), with rds.ko loaded and rds_tcp not
 * yet: the first case loads it through SO_RDS_TRANSPORT.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/rds.h>

#include "../common/addr.h"

#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY	60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY	0x4000000
#endif

/* The largest payload, as in-tree (RDS_MAX_MSG_SIZE, not in the uapi). */
#define RDS_MAX_MSG_SIZE	1048576

static const char *local4, *peer4, *local6, *peer6;

static void report(const char *name, int ret)
{
	if (ret < 0)
		printf("%s %s\n", name, strerrorname_np(errno) ?: "E?");
	else
		printf("%s ok\n", name);
	fflush(stdout);
}

static int rds_socket(void)
{
	int fd = socket(AF_RDS, SOCK_SEQPACKET, 0);

	if (fd < 0)
		ktap_bail("socket(AF_RDS): %s", strerror(errno));
	return fd;
}

static int set_int(int fd, int level, int name, int val)
{
	return setsockopt(fd, level, name, &val, sizeof(val));
}

/* A socket bound to @str:@port, or -1 (and the case reported) on failure. */
static int bound(const char *str, int port, int trans)
{
	int fd = rds_socket();
	union addr a;
	socklen_t len = addr_make(&a, str, port);

	if (trans >= 0 && set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, trans))
		ktap_bail("SO_RDS_TRANSPORT %d: %s", trans, strerror(errno));
	if (bind(fd, &a.sa, len))
		ktap_bail("bind %s:%d: %s", str, port, strerror(errno));
	return fd;
}

static void case_socket(void)
{
	int fd;

	fd = socket(AF_RDS, SOCK_DGRAM, 0);
	report("socket-dgram", fd);
	if (fd >= 0)
		close(fd);
	fd = socket(AF_RDS, SOCK_SEQPACKET, 1);
	report("socket-protocol-1", fd);
	if (fd >= 0)
		close(fd);
	fd = socket(AF_RDS, SOCK_STREAM, 0);
	report("socket-stream", fd);
	if (fd >= 0)
		close(fd);
}

/* SO_RDS_TRANSPORT: lengths, values, and the on-demand module load. */
static void case_transport(void)
{
	int fd = rds_socket(), val = 0;
	socklen_t len = sizeof(val);
	short small = RDS_TRANS_TCP;

	report("transport-get-unset", getsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &val, &len));
	printf("transport-get-unset-value %d\n", val);
	len = 2;
	report("transport-get-short", getsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &val, &len));
	report("transport-set-short",
	       setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &small, sizeof(small)));
	report("transport-set-long",
	       setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &val, sizeof(val) + 4));
	report("transport-set-negative", set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, -1));
	report("transport-set-count", set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_COUNT));
	report("transport-set-none", set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_NONE));
	report("transport-set-gap", set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_GAP));
	report("transport-set-ib", set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_IB));
	report("transport-set-tcp", set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_TCP));
	len = sizeof(val);
	report("transport-get-tcp", getsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &val, &len));
	printf("transport-get-tcp-value %d len %u\n", val, len);
	report("transport-set-again", set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_TCP));
	report("transport-set-again-short",
	       setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &small, sizeof(small)));
	close(fd);

	fd = bound("127.0.0.1", 0, -1);
	report("transport-set-after-bind", set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_TCP));
	close(fd);
}

/* Only TCP is allowed outside the initial network namespace. */
static void case_transport_netns(void)
{
	pid_t pid = fork();
	int fd, status;

	if (pid < 0)
		ktap_bail("fork: %s", strerror(errno));
	if (pid) {
		waitpid(pid, &status, 0);
		return;
	}
	if (unshare(CLONE_NEWNET))
		ktap_bail("unshare(CLONE_NEWNET): %s", strerror(errno));
	fd = rds_socket();
	report("netns-transport-ib", set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_IB));
	report("netns-transport-gap", set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_GAP));
	report("netns-transport-tcp", set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_TCP));
	close(fd);
	exit(0);
}

static void try_bind(const char *name, const char *str, int port, socklen_t len)
{
	int fd = rds_socket();
	union addr a;
	socklen_t full = addr_make(&a, str, port);

	report(name, bind(fd, &a.sa, len ? len : full));
	close(fd);
}

static void case_bind(void)
{
	union addr a;
	int fd, fd2;

	try_bind("bind-len-0", "127.0.0.1", 0, 1);
	try_bind("bind-len-short", "127.0.0.1", 0, sizeof(struct sockaddr_in) - 1);
	try_bind("bind-v4-any", "0.0.0.0", 0, 0);
	try_bind("bind-v4-broadcast", "255.255.255.255", 0, 0);
	try_bind("bind-v4-multicast", "224.0.0.1", 0, 0);
	try_bind("bind-v4-not-local", "198.51.100.7", 0, 0);
	try_bind("bind-v4-loopback", "127.0.0.1", 0, 0);
	try_bind("bind-v4-local", local4, 0, 0);
	try_bind("bind-v6-len-v4", local6, 0, sizeof(struct sockaddr_in));
	try_bind("bind-v6-any", "::", 0, 0);
	try_bind("bind-v6-multicast", "ff02::1", 0, 0);
	try_bind("bind-v6-mapped", "::ffff:127.0.0.1", 0, 0);
	try_bind("bind-v6-linklocal-no-scope", "fe80::1", 0, 0);
	try_bind("bind-v6-not-local", "2001:db8::7", 0, 0);
	try_bind("bind-v6-loopback", "::1", 0, 0);
	try_bind("bind-v6-local", local6, 0, 0);

	fd = rds_socket();
	addr_make(&a, "127.0.0.1", 0);
	a.sa.sa_family = AF_UNIX;
	report("bind-family-unix", bind(fd, &a.sa, sizeof(a.in6)));
	close(fd);

	fd = bound("127.0.0.1", 4000, -1);
	addr_make(&a, "127.0.0.1", 4001);
	report("bind-twice", bind(fd, &a.sa, sizeof(a.in)));
	fd2 = rds_socket();
	addr_make(&a, "127.0.0.1", 4000);
	report("bind-in-use", bind(fd2, &a.sa, sizeof(a.in)));
	close(fd2);
	close(fd);

	fd = rds_socket();
	set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_TCP);
	addr_make(&a, "198.51.100.7", 0);
	report("bind-tcp-not-local", bind(fd, &a.sa, sizeof(a.in)));
	close(fd);
}

static void try_connect(const char *name, const char *str, socklen_t len)
{
	int fd = rds_socket();
	union addr a;
	socklen_t full = addr_make(&a, str, 4000);

	report(name, connect(fd, &a.sa, len ? len : full));
	close(fd);
}

static void case_connect(void)
{
	union addr a;
	socklen_t len;
	int fd;

	try_connect("connect-len-short", "127.0.0.1", sizeof(struct sockaddr_in) - 1);
	try_connect("connect-v4-any", "0.0.0.0", 0);
	try_connect("connect-v4-broadcast", "255.255.255.255", 0);
	try_connect("connect-v4-multicast", "224.0.0.1", 0);
	try_connect("connect-v4", peer4, 0);
	try_connect("connect-v6-len-v4", peer6, sizeof(struct sockaddr_in));
	try_connect("connect-v6-any", "::", 0);
	try_connect("connect-v6-multicast", "ff02::1", 0);
	try_connect("connect-v6-mapped", "::ffff:192.0.2.9", 0);
	try_connect("connect-v6-mapped-any", "::ffff:0.0.0.0", 0);
	try_connect("connect-v6-linklocal-no-scope", "fe80::1", 0);
	try_connect("connect-v6", peer6, 0);

	fd = rds_socket();
	addr_make(&a, "127.0.0.1", 0);
	a.sa.sa_family = AF_UNIX;
	report("connect-family-unix", connect(fd, &a.sa, sizeof(a.in6)));
	len = sizeof(a);
	report("getpeername-unconnected", getpeername(fd, &a.sa, &len));
	close(fd);

	fd = bound(local4, 0, -1);
	addr_make(&a, peer6, 4000);
	report("connect-v4-bound-to-v6", connect(fd, &a.sa, sizeof(a.in6)));
	close(fd);
}

/* sendmsg() of @len bytes to @dst (NULL: no name) with @flags and @cmsg.
 * Never blocking: in-tree waits without a timeout for the multipath
 * handshake of a connection that may never come up.
 */
static int send_to(int fd, const char *dst, socklen_t namelen, int flags,
		   void *cmsg, size_t cmsglen, size_t len)
{
	static char buf[RDS_MAX_MSG_SIZE + 2];
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	union addr a;
	socklen_t full;

	if (dst) {
		full = addr_make(&a, dst, 4000);
		msg.msg_name = &a;
		msg.msg_namelen = namelen ? namelen : full;
	}
	msg.msg_control = cmsg;
	msg.msg_controllen = cmsglen;
	return sendmsg(fd, &msg, flags | MSG_DONTWAIT);
}

static void case_send_addr(void)
{
	union addr a;
	int fd;

	fd = rds_socket();
	report("send-unbound", send_to(fd, "127.0.0.1", 0, 0, NULL, 0, 1));
	report("send-unbound-no-name", send_to(fd, NULL, 0, 0, NULL, 0, 1));
	close(fd);

	fd = bound(local4, 0, -1);
	report("send-no-name-unconnected", send_to(fd, NULL, 0, 0, NULL, 0, 1));
	report("send-name-short", send_to(fd, peer4, sizeof(struct sockaddr_in) - 1, 0,
					  NULL, 0, 1));
	report("send-v4-any", send_to(fd, "0.0.0.0", 0, 0, NULL, 0, 1));
	report("send-v4-broadcast", send_to(fd, "255.255.255.255", 0, 0, NULL, 0, 1));
	report("send-v4-multicast", send_to(fd, "224.0.0.1", 0, 0, NULL, 0, 1));
	report("send-v4-to-v6", send_to(fd, peer6, 0, 0, NULL, 0, 1));
	report("send-v4-to-v6-mapped", send_to(fd, "::ffff:192.0.2.9", 0, 0, NULL, 0, 1));
	report("send-v6-len-v4", send_to(fd, peer6, sizeof(struct sockaddr_in), 0,
					 NULL, 0, 1));
	report("send-v6-multicast", send_to(fd, "ff02::1", 0, 0, NULL, 0, 1));
	report("send-v6-linklocal-no-scope", send_to(fd, "fe80::1", 0, 0, NULL, 0, 1));
	addr_make(&a, peer4, 4000);
	a.sa.sa_family = AF_UNIX;
	{
		struct iovec iov = { .iov_base = &a, .iov_len = 1 };
		struct msghdr msg = {
			.msg_name = &a, .msg_namelen = sizeof(a.in6),
			.msg_iov = &iov, .msg_iovlen = 1,
		};

		report("send-family-unix", sendmsg(fd, &msg, MSG_DONTWAIT));
	}
	close(fd);

	fd = bound(local6, 0, -1);
	report("send-v6-to-v4", send_to(fd, peer4, 0, 0, NULL, 0, 1));
	addr_make(&a, peer4, 4000);
	connect(fd, &a.sa, sizeof(a.in));
	/* No case for a connected destination of the other family: in-tree
	 * sends it and retries the impossible connection forever; ours says
	 * EOPNOTSUPP, as for a named one.
	 */
	close(fd);
}

static void case_send_size(void)
{
	int fd, val;

	fd = bound("127.0.0.1", 0, -1);
	report("send-flag-oob", send_to(fd, "127.0.0.1", 0, MSG_OOB, NULL, 0, 1));
	report("send-flag-more", send_to(fd, "127.0.0.1", 0, MSG_MORE, NULL, 0, 1));
	report("send-flag-eor", send_to(fd, "127.0.0.1", 0, MSG_EOR, NULL, 0, 1));
	report("send-flag-nosignal", send_to(fd, "127.0.0.1", 0,
					     MSG_NOSIGNAL | MSG_DONTWAIT, NULL, 0, 1));
	report("send-flag-confirm", send_to(fd, "127.0.0.1", 0, MSG_CONFIRM, NULL, 0, 1));
	report("send-too-big", send_to(fd, "127.0.0.1", 0, 0, NULL, 0,
				       RDS_MAX_MSG_SIZE + 1));
	val = 4096;
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &val, sizeof(val));
	report("send-over-sndbuf", send_to(fd, "127.0.0.1", 0, 0, NULL, 0, 1 << 20));
	report("send-zero-bytes", send_to(fd, "127.0.0.1", 0, MSG_DONTWAIT, NULL, 0, 0));
	close(fd);
}

/* One SOL_RDS control message of @type carrying @len bytes of zeros. */
static size_t make_cmsg(void *buf, int level, int type, size_t len)
{
	struct cmsghdr *c = buf;

	memset(buf, 0, CMSG_SPACE(len));
	c->cmsg_level = level;
	c->cmsg_type = type;
	c->cmsg_len = CMSG_LEN(len);
	return CMSG_SPACE(len);
}

static void try_cmsg(int fd, const char *name, const char *dst, int type,
		     size_t len, int flags)
{
	char buf[CMSG_SPACE(256)] __attribute__((aligned(8)));
	size_t n = make_cmsg(buf, SOL_RDS, type, len);

	report(name, send_to(fd, dst, 0, flags | MSG_DONTWAIT, buf, n, 1));
}

static void case_send_cmsg(void)
{
	char buf[CMSG_SPACE(16)] __attribute__((aligned(8)));
	struct cmsghdr *c = (struct cmsghdr *)buf;
	int fd;

	fd = bound("127.0.0.1", 0, -1);
	make_cmsg(buf, SOL_RDS, 99, 4);
	c->cmsg_len = sizeof(*c) - 1;
	report("send-cmsg-len-short", send_to(fd, "127.0.0.1", 0, 0, buf, CMSG_SPACE(4), 1));
	try_cmsg(fd, "send-cmsg-unknown-type", "127.0.0.1", 99, 4, 0);
	make_cmsg(buf, SOL_SOCKET, 99, 4);
	report("send-cmsg-other-level", send_to(fd, "127.0.0.1", 0, MSG_DONTWAIT,
						buf, CMSG_SPACE(4), 1));
	/* No short RDMA_ARGS: in-tree reads the args before checking the size. */
	try_cmsg(fd, "send-cmsg-rdma-args", "127.0.0.1", RDS_CMSG_RDMA_ARGS,
		 sizeof(struct rds_rdma_args), 0);
	try_cmsg(fd, "send-cmsg-rdma-dest-short", "127.0.0.1", RDS_CMSG_RDMA_DEST, 4, 0);
	try_cmsg(fd, "send-cmsg-rdma-dest", "127.0.0.1", RDS_CMSG_RDMA_DEST,
		 sizeof(rds_rdma_cookie_t), 0);
	try_cmsg(fd, "send-cmsg-rdma-map", "127.0.0.1", RDS_CMSG_RDMA_MAP,
		 sizeof(struct rds_get_mr_args), 0);
	/* No full-size atomic: in-tree pins its address first (EFAULT). */
	try_cmsg(fd, "send-cmsg-atomic-fadd-short", "127.0.0.1", RDS_CMSG_ATOMIC_FADD, 4, 0);
	try_cmsg(fd, "send-cmsg-rdma-status", "127.0.0.1", RDS_CMSG_RDMA_STATUS,
		 sizeof(struct rds_rdma_notify), 0);
	try_cmsg(fd, "send-cmsg-cong-update", "127.0.0.1", RDS_CMSG_CONG_UPDATE,
		 sizeof(uint64_t), 0);
	try_cmsg(fd, "send-cmsg-zcopy-completion", "127.0.0.1",
		 RDS_CMSG_ZCOPY_COMPLETION, sizeof(struct rds_zcopy_cookies), 0);
	try_cmsg(fd, "send-cmsg-rxpath-latency", "127.0.0.1", RDS_CMSG_RXPATH_LATENCY,
		 sizeof(struct rds_cmsg_rx_trace), 0);
	close(fd);
}

/* MSG_ZEROCOPY and its cookie, on loopback and on TCP. */
static void on_alarm(int sig __attribute__((unused)))
{
}

/* A blocking sendmsg() of @len bytes to @dst:@port that gives up after
 * SO_SNDTIMEO @timeo_ms (0: none) or, at the latest, at a SIGALRM after
 * @alarm_ms, which interrupts it (no SA_RESTART): EINTR.
 */
static int send_blocking(int fd, const char *dst, int port, size_t len,
			 int timeo_ms, int alarm_ms)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct timeval tv = { timeo_ms / 1000, timeo_ms % 1000 * 1000 };
	struct itimerval it = { .it_value = { alarm_ms / 1000, alarm_ms % 1000 * 1000 } };
	struct itimerval off = { 0 };
	static char buf[4096];
	union addr a;
	socklen_t alen = addr_make(&a, dst, port);
	int ret, err;

	sigaction(SIGALRM, &sa, NULL);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setitimer(ITIMER_REAL, &it, NULL);
	ret = sendto(fd, buf, len, 0, &a.sa, alen);
	err = errno;
	setitimer(ITIMER_REAL, &off, NULL);
	errno = err;
	return ret;
}

/* One non-blocking sendmsg() of @len bytes to @dst:@port. */
static int send_to_port(int fd, const char *dst, int port, size_t len)
{
	static char buf[4096];
	union addr a;
	socklen_t alen = addr_make(&a, dst, port);

	return sendto(fd, buf, len, MSG_DONTWAIT, &a.sa, alen);
}

static void run_ip(const char *fmt, const char *addr)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), fmt, addr);
	if (system(cmd))
		ktap_bail("%s failed", cmd);
}

/* A socket of the peer's namespace (rds-peer, see errno_lib.sh) bound
 * to PEER4:@port with SO_RCVBUF @rcvbuf, that never reads.
 */
static int peer_socket(int port, int rcvbuf)
{
	int self = open("/proc/self/ns/net", O_RDONLY);
	int peer = open("/run/netns/rds-peer", O_RDONLY);
	int fd;

	if (self < 0 || peer < 0 || setns(peer, CLONE_NEWNET))
		ktap_bail("into netns rds-peer: %s", strerror(errno));
	fd = bound(peer4, port, -1);
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (setns(self, CLONE_NEWNET))
		ktap_bail("back from netns rds-peer: %s", strerror(errno));
	close(self);
	close(peer);
	return fd;
}

/* Send timeouts over RDS/TCP to the peer's namespace (in-tree's loopback
 * transport never congests).  The first message goes to a port nobody
 * holds, so that the multipath handshake is over before anything blocks:
 * a blocking send that in-tree hashes to a lane other than 0 would
 * otherwise wait for the handshake, without a timeout.
 *
 * A congested port: the peer's receiver has an 8 KiB SO_RCVBUF and does
 * not read; non-blocking sends go one every 2 ms until the peer's map
 * says congested.  In-tree then waits for the port however long it
 * takes, SO_SNDTIMEO or not: only the SIGALRM ends its wait.
 *
 * A full send buffer: a 4 KiB SO_SNDBUF holding 1 KiB messages that the
 * peer never acknowledges, because its neighbour entry points nowhere
 * now.
 */
static void case_send_timeout(void)
{
	int fd = bound(local4, 4008, -1), rx = peer_socket(4010, 8192);
	int val = 4096, i, ret = 0;

	if (send_blocking(fd, peer4, 4000, 16, 10000, 10000) < 0)
		ktap_bail("first send to %s: %s", peer4, strerror(errno));
	usleep(500000);

	for (i = 0; i < 1000 && ret >= 0; i++) {
		ret = send_to_port(fd, peer4, 4010, 4096);
		if (ret >= 0)
			usleep(2000);
	}
	report("send-cong-nonblock", ret);
	report("send-cong-signal", send_blocking(fd, peer4, 4010, 100, 0, 200));
	report("send-cong-sndtimeo", send_blocking(fd, peer4, 4010, 100, 200, 1000));
	close(rx);

	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &val, sizeof(val));
	run_ip("ip neigh replace %s lladdr 02:00:00:00:00:99 dev rdse0 nud permanent",
	       peer4);
	for (i = 0, ret = 0; i < 256 && ret >= 0; i++)
		ret = send_to_port(fd, peer4, 4000, 1024);
	report("send-full-nonblock", ret);
	report("send-full-sndtimeo", send_blocking(fd, peer4, 4000, 1024, 200, 5000));
	report("send-full-signal", send_blocking(fd, peer4, 4000, 1024, 0, 200));
	close(fd);
	run_ip("ip neigh del %s dev rdse0", peer4);
}

static void case_zerocopy(void)
{
	int fd;

	fd = bound("127.0.0.1", 0, -1);
	try_cmsg(fd, "zcopy-cookie-no-flag", "127.0.0.1", RDS_CMSG_ZCOPY_COOKIE, 4, 0);
	try_cmsg(fd, "zcopy-loop-no-sockopt", "127.0.0.1", RDS_CMSG_ZCOPY_COOKIE, 4,
		 MSG_ZEROCOPY);
	report("zcopy-loop-no-sockopt-no-cookie",
	       send_to(fd, "127.0.0.1", 0, MSG_ZEROCOPY | MSG_DONTWAIT, NULL, 0, 1));
	report("zcopy-sockopt", set_int(fd, SOL_SOCKET, SO_ZEROCOPY, 1));
	report("zcopy-sockopt-2", set_int(fd, SOL_SOCKET, SO_ZEROCOPY, 2));
	try_cmsg(fd, "zcopy-loop", "127.0.0.1", RDS_CMSG_ZCOPY_COOKIE, 4, MSG_ZEROCOPY);
	report("zcopy-loop-no-cookie",
	       send_to(fd, "127.0.0.1", 0, MSG_ZEROCOPY | MSG_DONTWAIT, NULL, 0, 1));
	close(fd);

	fd = bound(local4, 0, RDS_TRANS_TCP);
	try_cmsg(fd, "zcopy-tcp-no-sockopt", peer4, RDS_CMSG_ZCOPY_COOKIE, 4, MSG_ZEROCOPY);
	set_int(fd, SOL_SOCKET, SO_ZEROCOPY, 1);
	report("zcopy-tcp-no-cookie",
	       send_to(fd, peer4, 0, MSG_ZEROCOPY | MSG_DONTWAIT, NULL, 0, 1));
	try_cmsg(fd, "zcopy-tcp-cookie-short", peer4, RDS_CMSG_ZCOPY_COOKIE, 2,
		 MSG_ZEROCOPY);
	try_cmsg(fd, "zcopy-tcp-cookie-no-flag", peer4, RDS_CMSG_ZCOPY_COOKIE, 4, 0);
	try_cmsg(fd, "zcopy-tcp", peer4, RDS_CMSG_ZCOPY_COOKIE, 4, MSG_ZEROCOPY);
	close(fd);
}

static void case_recv(void)
{
	char data[16], ctl[64];
	struct iovec iov = { .iov_base = data, .iov_len = sizeof(data) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	int fd, ret;

	fd = rds_socket();
	report("recv-unbound", recvmsg(fd, &msg, MSG_DONTWAIT));
	close(fd);

	fd = bound("127.0.0.1", 4002, -1);
	report("recv-empty", recvmsg(fd, &msg, MSG_DONTWAIT));
	report("recv-oob", recvmsg(fd, &msg, MSG_DONTWAIT | MSG_OOB));
	report("recv-errqueue", recvmsg(fd, &msg, MSG_DONTWAIT | MSG_ERRQUEUE));
	report("recv-peek-empty", recvmsg(fd, &msg, MSG_DONTWAIT | MSG_PEEK));
	{
		struct timeval tv = { .tv_usec = 100000 };

		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		report("recv-timeout", recvmsg(fd, &msg, 0));
	}
	send_to(fd, "127.0.0.1", 0, 0, NULL, 0, 0);	/* to port 4000: nobody */
	{
		union addr self;

		addr_make(&self, "127.0.0.1", 4002);
		sendto(fd, "0123456789abcdefXYZ", 19, MSG_DONTWAIT, &self.sa,
		       sizeof(self.in));
	}
	iov.iov_len = 4;
	msg.msg_control = ctl;
	msg.msg_controllen = sizeof(ctl);
	ret = recvmsg(fd, &msg, MSG_PEEK);
	printf("recv-peek-truncated %s %d flags-trunc %d\n", ret < 0 ? "err" : "ok", ret,
	       !!(msg.msg_flags & MSG_TRUNC));
	msg.msg_controllen = sizeof(ctl);
	ret = recvmsg(fd, &msg, MSG_TRUNC);
	printf("recv-flag-trunc %s %d flags-trunc %d\n", ret < 0 ? "err" : "ok", ret,
	       !!(msg.msg_flags & MSG_TRUNC));
	close(fd);
}

static void case_sockopt(void)
{
	struct rds_free_mr_args fmr = { 0 };
	struct rds_get_mr_args gmr = { 0 };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int fd = rds_socket(), val = 1;
	socklen_t len;
	short small = 1;

	report("setsockopt-level-ip", set_int(fd, SOL_IP, IP_TOS, 1));
	report("setsockopt-unknown", set_int(fd, SOL_RDS, 99, 1));
	report("recverr-short", setsockopt(fd, SOL_RDS, RDS_RECVERR, &small, sizeof(small)));
	report("recverr", set_int(fd, SOL_RDS, RDS_RECVERR, 5));
	len = sizeof(val);
	report("recverr-get", getsockopt(fd, SOL_RDS, RDS_RECVERR, &val, &len));
	printf("recverr-get-value %d\n", val);
	len = 2;
	report("recverr-get-short", getsockopt(fd, SOL_RDS, RDS_RECVERR, &val, &len));
	report("cong-monitor-short",
	       setsockopt(fd, SOL_RDS, RDS_CONG_MONITOR, &small, sizeof(small)));
	report("cong-monitor", set_int(fd, SOL_RDS, RDS_CONG_MONITOR, 1));
	len = sizeof(val);
	report("cong-monitor-get", getsockopt(fd, SOL_RDS, RDS_CONG_MONITOR, &val, &len));
	report("getsockopt-unknown", getsockopt(fd, SOL_RDS, 99, &val, &len));
	report("getsockopt-level-ip", getsockopt(fd, SOL_IP, IP_TOS, &val, &len));
	report("cancel-unbound", setsockopt(fd, SOL_RDS, RDS_CANCEL_SENT_TO, &sin,
					    sizeof(sin)));
	report("get-mr-unbound", setsockopt(fd, SOL_RDS, RDS_GET_MR, &gmr, sizeof(gmr)));
	report("free-mr-unbound", setsockopt(fd, SOL_RDS, RDS_FREE_MR, &fmr, sizeof(fmr)));
	report("timestamp-short", setsockopt(fd, SOL_RDS, SO_TIMESTAMP, &small, sizeof(small)));
	report("timestamp", set_int(fd, SOL_RDS, SO_TIMESTAMP, 1));
	close(fd);

	fd = bound("127.0.0.1", 0, -1);
	report("cancel-short", setsockopt(fd, SOL_RDS, RDS_CANCEL_SENT_TO, &sin, 4));
	sin.sin_family = AF_UNIX;
	report("cancel-family-unix", setsockopt(fd, SOL_RDS, RDS_CANCEL_SENT_TO, &sin,
						sizeof(sin)));
	sin.sin_family = AF_INET6;
	report("cancel-v6-short", setsockopt(fd, SOL_RDS, RDS_CANCEL_SENT_TO, &sin,
					     sizeof(sin)));
	sin.sin_family = AF_INET;
	report("cancel", setsockopt(fd, SOL_RDS, RDS_CANCEL_SENT_TO, &sin, sizeof(sin)));
	report("get-mr-short", setsockopt(fd, SOL_RDS, RDS_GET_MR, &gmr, 4));
	report("get-mr-loop", setsockopt(fd, SOL_RDS, RDS_GET_MR, &gmr, sizeof(gmr)));
	report("get-mr-for-dest-short", setsockopt(fd, SOL_RDS, RDS_GET_MR_FOR_DEST, &gmr, 4));
	report("free-mr-short", setsockopt(fd, SOL_RDS, RDS_FREE_MR, &fmr, 4));
	report("free-mr-loop", setsockopt(fd, SOL_RDS, RDS_FREE_MR, &fmr, sizeof(fmr)));
	fmr.cookie = 7;
	report("free-mr-loop-cookie", setsockopt(fd, SOL_RDS, RDS_FREE_MR, &fmr,
						 sizeof(fmr)));
	close(fd);

	fd = bound(local4, 0, RDS_TRANS_TCP);
	fmr.cookie = 0;
	report("get-mr-tcp", setsockopt(fd, SOL_RDS, RDS_GET_MR, &gmr, sizeof(gmr)));
	report("free-mr-tcp", setsockopt(fd, SOL_RDS, RDS_FREE_MR, &fmr, sizeof(fmr)));
	close(fd);
}

static void case_rx_latency(void)
{
	struct rds_rx_trace_so t = { .rx_traces = 1 };
	int fd = rds_socket();

	report("rx-latency-short", setsockopt(fd, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY, &t, 1));
	report("rx-latency", setsockopt(fd, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY, &t,
					sizeof(t)));
	t.rx_traces = RDS_MSG_RX_DGRAM_TRACE_MAX + 1;
	report("rx-latency-too-many", setsockopt(fd, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY,
						 &t, sizeof(t)));
	t.rx_traces = 1;
	t.rx_trace_pos[0] = RDS_MSG_RX_DGRAM_TRACE_MAX;
	report("rx-latency-bad-pos", setsockopt(fd, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY,
						&t, sizeof(t)));
	close(fd);
}

static void case_info(void)
{
	char buf[64];
	int fd = rds_socket();
	socklen_t len;
	int ret;

	len = 0;
	ret = getsockopt(fd, SOL_RDS, RDS_INFO_COUNTERS, NULL, &len);
	report("info-counters-len-0", ret);
	printf("info-counters-len-0-each-set %d\n", len > 0);
	len = sizeof(buf);
	report("info-counters-short", getsockopt(fd, SOL_RDS, RDS_INFO_COUNTERS, buf, &len));
	len = -1;
	report("info-len-negative", getsockopt(fd, SOL_RDS, RDS_INFO_COUNTERS, buf, &len));
	/* No bad buffer: in-tree says EAGAIN, ours EFAULT (net/rds/info.c). */
	len = sizeof(buf);
	report("info-sockets", getsockopt(fd, SOL_RDS, RDS_INFO_SOCKETS, buf, &len));
	len = sizeof(buf);
	report("info-ib-connections", getsockopt(fd, SOL_RDS, RDS_INFO_IB_CONNECTIONS,
						 buf, &len));
	len = sizeof(buf);
	report("info-last-plus-1", getsockopt(fd, SOL_RDS, RDS_INFO_LAST + 1, buf, &len));
	len = sizeof(buf);
	report("info-first-minus-1", getsockopt(fd, SOL_RDS, RDS_INFO_FIRST - 1, buf, &len));
	close(fd);
}

static void case_ioctl(void)
{
	unsigned char tos = 0;
	int fd = rds_socket();
	union addr a;

	report("ioctl-unknown", ioctl(fd, SIOCRDSSETTOS + 9, &tos));
	report("ioctl-fionread", ioctl(fd, FIONREAD, &tos));
	report("ioctl-settos-fault", ioctl(fd, SIOCRDSSETTOS, (void *)8));
	report("ioctl-gettos-fault", ioctl(fd, SIOCRDSGETTOS, (void *)8));
	/* No SIOCRDSSETTOS without TCP: in-tree refuses it (ENOTTY) on
	 * unbound and loopback sockets, ours takes it.
	 */
	tos = 0;
	report("ioctl-gettos", ioctl(fd, SIOCRDSGETTOS, &tos));
	printf("ioctl-gettos-value %u\n", tos);
	close(fd);

	fd = bound(local4, 0, RDS_TRANS_TCP);
	tos = 5;
	report("ioctl-settos-tcp", ioctl(fd, SIOCRDSSETTOS, &tos));
	ioctl(fd, SIOCRDSGETTOS, &tos);
	printf("ioctl-gettos-tcp-value %u\n", tos);
	close(fd);

	fd = rds_socket();
	report("listen", listen(fd, 1));
	report("accept", accept(fd, NULL, NULL));
	report("shutdown", shutdown(fd, SHUT_RDWR));
	report("mmap", mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED ? -1 : 0);
	addr_make(&a, "127.0.0.1", 0);
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: %s LOCAL4 PEER4 LOCAL6 PEER6\n", argv[0]);
		return 2;
	}
	local4 = argv[1];
	peer4 = argv[2];
	local6 = argv[3];
	peer6 = argv[4];

	case_transport();
	case_transport_netns();
	case_socket();
	case_bind();
	case_connect();
	case_send_addr();
	case_send_size();
	case_send_cmsg();
	case_zerocopy();
	case_recv();
	case_sockopt();
	case_rx_latency();
	case_info();
	case_ioctl();
	case_send_timeout();
	return 0;
}
