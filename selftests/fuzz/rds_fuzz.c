// SPDX-License-Identifier: GPL-2.0
/*
 * A structure-aware fuzzer for the RDS socket API.  Where a generic
 * syscall fuzzer mostly gets EINVAL back, this one builds calls that get
 * past the first checks: real addresses and a small pool of ports (so
 * messages are delivered, queued and received), every RDS cmsg with its
 * right, short and overlong length, every SOL_RDS and SOL_SOCKET option
 * with lengths 0..N, every RDS_INFO table into odd-sized and unaligned
 * buffers.  Threads share one table of sockets, so a socket is closed,
 * polled and written by different threads at once; with -N each thread
 * lives in one of the given network namespaces, so one socket is used
 * from several.
 *
 *   rds_fuzz [-s SEED] [-t SECONDS] [-j THREADS] [-v]
 *            [-N /run/netns/NAME]... -a ADDR...
 *
 * The seed is printed first.  Each thread draws from its own generator,
 * seeded with SEED + its index, so a run with -j 1 repeats exactly and
 * -v prints every call for the replay.  The kernel is the thing under
 * test: the fuzzer itself only fails when it cannot run at all; what
 * counts is the guest's dmesg (run-guest.sh fails on any splat or leak)
 * and that the modules unload afterwards.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/rds.h>

#ifndef AF_RDS
#define AF_RDS 21
#endif

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_THREADS	16
#define MAX_ADDRS	16
#define MAX_NETNS	4
#define NR_SLOTS	24
/* Ports 4000..4007: few enough that sends find bound sockets. */
#define PORT_BASE	4000
#define NR_PORTS	8
/* Each thread's buffers: ARENA_SIZE bytes, then an unmapped guard page, so
 * a kernel that writes past what we asked for faults instead of corrupting
 * our heap.
 */
#define ARENA_SIZE	(256 * 1024)

struct fuzz_thread {
	pthread_t	thread;
	int		id;
	int		netns_fd;
	uint64_t	rng;
	unsigned char	*arena;
	unsigned long	ops;
};

static struct sockaddr_storage addrs[MAX_ADDRS];
static int nr_addrs;
static int netns_fds[MAX_NETNS];
static int nr_netns;
static int slots[NR_SLOTS];
static bool stop;
static bool verbose;
static long page_size;

/* Call counts per operation and outcome, printed at the end. */
enum { OP_SOCKET, OP_BIND, OP_CONNECT, OP_SEND, OP_RECV, OP_SETOPT, OP_GETOPT,
	OP_INFO, OP_POLL, OP_IOCTL, OP_CLOSE, OP_SHUTDOWN, NR_OPS };
static const char * const op_names[NR_OPS] = {
	"socket", "bind", "connect", "sendmsg", "recvmsg", "setsockopt",
	"getsockopt", "rds_info", "poll", "ioctl", "close", "shutdown",
};

static unsigned long op_ok[NR_OPS], op_err[NR_OPS];

static uint64_t rnd(struct fuzz_thread *t)
{
	/* splitmix64: tiny, and each seed gives its own sequence */
	uint64_t z = (t->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int below(struct fuzz_thread *t, unsigned int n)
{
	return n ? rnd(t) % n : 0;
}

static bool chance(struct fuzz_thread *t, unsigned int percent)
{
	return below(t, 100) < percent;
}

static void fill(struct fuzz_thread *t, void *buf, size_t len)
{
	unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = rnd(t);
}

static void note(struct fuzz_thread *t, int op, long ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void note(struct fuzz_thread *t, int op, long ret, const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	__atomic_fetch_add(ret < 0 ? &op_err[op] : &op_ok[op], 1, __ATOMIC_RELAXED);
	t->ops++;
	if (!verbose)
		return;
	flockfile(stderr);
	fprintf(stderr, "[%d] %s(", t->id, op_names[op]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ") = %ld%s%s\n", ret, ret < 0 ? " " : "",
		ret < 0 ? strerror(err) : "");
	funlockfile(stderr);
}

/* A buffer of @len bytes in the arena, ending @skew bytes before the guard
 * page (so odd lengths are odd-aligned too); @len is capped to the arena.
 */
static void *arena_buf(struct fuzz_thread *t, size_t *len, unsigned int skew)
{
	if (*len + skew > ARENA_SIZE)
		*len = ARENA_SIZE - skew;
	return t->arena + ARENA_SIZE - *len - skew;
}

/* A length around @size: exact, one short or long, zero or anything. */
static size_t near_len(struct fuzz_thread *t, size_t size)
{
	switch (below(t, 8)) {
	case 0:
		return 0;
	case 1:
		return size ? size - 1 : 0;
	case 2:
		return size + 1;
	case 3:
		return size + 1 + below(t, 64);
	case 4:
		return below(t, 2 * size + 16);
	default:
		return size;
	}
}

static int pick_slot_fd(struct fuzz_thread *t)
{
	return __atomic_load_n(&slots[below(t, NR_SLOTS)], __ATOMIC_RELAXED);
}

/* An address from the list with a port from the pool, or now and then
 * one of the odd ones: port 0, the probe port 1, RDS/TCP's own port, or
 * a family or length that is wrong.
 */
static socklen_t pick_addr(struct fuzz_thread *t, struct sockaddr_storage *ss)
{
	static const uint16_t odd_ports[] = { 0, 1, 16385, 65535 };
	uint16_t port = PORT_BASE + below(t, NR_PORTS);
	socklen_t len;

	memset(ss, 0, sizeof(*ss));
	if (nr_addrs && chance(t, 90))
		*ss = addrs[below(t, nr_addrs)];
	else
		fill(t, ss, sizeof(*ss));
	if (chance(t, 10))
		port = odd_ports[below(t, ARRAY_SIZE(odd_ports))];
	if (ss->ss_family == AF_INET6) {
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
		len = sizeof(struct sockaddr_in6);
	} else {
		((struct sockaddr_in *)ss)->sin_port = htons(port);
		len = sizeof(struct sockaddr_in);
	}
	if (chance(t, 5))
		ss->ss_family = chance(t, 50) ? AF_UNSPEC : AF_RDS;
	if (chance(t, 10))
		len = near_len(t, len);
	if (len > sizeof(*ss))
		len = sizeof(*ss);
	return len;
}

static void op_socket(struct fuzz_thread *t)
{
	int i = below(t, NR_SLOTS);
	int fd = socket(AF_RDS, SOCK_SEQPACKET, 0);
	int old;

	note(t, OP_SOCKET, fd, "slot %d", i);
	if (fd < 0)
		return;
	old = __atomic_exchange_n(&slots[i], fd, __ATOMIC_RELAXED);
	if (old >= 0)
		note(t, OP_CLOSE, close(old), "%d", old);
}

static void op_close(struct fuzz_thread *t)
{
	int i = below(t, NR_SLOTS);
	int fd = __atomic_exchange_n(&slots[i], -1, __ATOMIC_RELAXED);

	if (fd >= 0)
		note(t, OP_CLOSE, close(fd), "%d", fd);
}

static void op_bind_connect(struct fuzz_thread *t, bool do_bind)
{
	struct sockaddr_storage ss;
	socklen_t len = pick_addr(t, &ss);
	int fd = pick_slot_fd(t);
	int ret;

	if (do_bind)
		ret = bind(fd, (struct sockaddr *)&ss, len);
	else
		ret = connect(fd, (struct sockaddr *)&ss, len);
	note(t, do_bind ? OP_BIND : OP_CONNECT, ret, "%d, family %d, len %u",
	     fd, ss.ss_family, len);
}

/* A user pointer for a cmsg's argument struct: into the arena, NULL, or
 * an address nothing is mapped at.
 */
static uint64_t pick_uptr(struct fuzz_thread *t)
{
	switch (below(t, 4)) {
	case 0:
		return 0;
	case 1:
		return rnd(t);
	default:
		return (uintptr_t)(t->arena + below(t, ARENA_SIZE / 2));
	}
}

static size_t cmsg_payload_size(int type)
{
	switch (type) {
	case RDS_CMSG_RDMA_ARGS:
		return sizeof(struct rds_rdma_args);
	case RDS_CMSG_RDMA_DEST:
		return sizeof(rds_rdma_cookie_t);
	case RDS_CMSG_RDMA_MAP:
		return sizeof(struct rds_get_mr_args);
	case RDS_CMSG_ATOMIC_FADD:
	case RDS_CMSG_ATOMIC_CSWP:
	case RDS_CMSG_MASKED_ATOMIC_FADD:
	case RDS_CMSG_MASKED_ATOMIC_CSWP:
		return sizeof(struct rds_atomic_args);
	case RDS_CMSG_ZCOPY_COOKIE:
		return sizeof(uint32_t);
	case RDS_CMSG_RDMA_STATUS:
		return sizeof(struct rds_rdma_notify);
	case RDS_CMSG_RXPATH_LATENCY:
		return sizeof(struct rds_cmsg_rx_trace);
	case RDS_CMSG_ZCOPY_COMPLETION:
		return sizeof(struct rds_zcopy_cookies);
	default:
		return 8;
	}
}

/* The argument struct of a cmsg, random but with its pointers pointing
 * somewhere plausible and its vector counts small now and then.
 */
static void cmsg_payload(struct fuzz_thread *t, int type, void *data, size_t len)
{
	struct rds_rdma_args ra;
	struct rds_get_mr_args mr;
	struct rds_atomic_args aa;

	fill(t, data, len);
	switch (type) {
	case RDS_CMSG_RDMA_ARGS:
		fill(t, &ra, sizeof(ra));
		ra.local_vec_addr = pick_uptr(t);
		ra.remote_vec.bytes = below(t, 3 * 4096);
		if (chance(t, 70))
			ra.nr_local = below(t, 4);
		memcpy(data, &ra, len < sizeof(ra) ? len : sizeof(ra));
		break;
	case RDS_CMSG_RDMA_MAP:
		fill(t, &mr, sizeof(mr));
		mr.vec.addr = pick_uptr(t);
		mr.vec.bytes = below(t, 3 * 4096);
		mr.cookie_addr = pick_uptr(t);
		memcpy(data, &mr, len < sizeof(mr) ? len : sizeof(mr));
		break;
	case RDS_CMSG_ATOMIC_FADD:
	case RDS_CMSG_ATOMIC_CSWP:
	case RDS_CMSG_MASKED_ATOMIC_FADD:
	case RDS_CMSG_MASKED_ATOMIC_CSWP:
		fill(t, &aa, sizeof(aa));
		aa.local_addr = pick_uptr(t);
		memcpy(data, &aa, len < sizeof(aa) ? len : sizeof(aa));
		break;
	}
}

/* Up to four cmsgs into @buf (of @room bytes); returns msg_controllen.
 * Each has a payload of the right size for its type, or a short or long
 * one, and now and then a cmsg_len that lies (below the header, or past
 * the end of the buffer).
 */
static size_t build_cmsgs(struct fuzz_thread *t, unsigned char *buf, size_t room)
{
	unsigned int n = below(t, 5), i;
	size_t used = 0;

	for (i = 0; i < n; i++) {
		struct cmsghdr *c = (struct cmsghdr *)(buf + used);
		int type = 1 + below(t, RDS_CMSG_ZCOPY_COMPLETION);
		size_t plen = near_len(t, cmsg_payload_size(type));

		if (chance(t, 5))
			type = rnd(t);
		if (used + CMSG_SPACE(plen) > room)
			break;
		c->cmsg_level = chance(t, 90) ? SOL_RDS : chance(t, 50) ? SOL_SOCKET : (int)rnd(t);
		c->cmsg_type = type;
		c->cmsg_len = CMSG_LEN(plen);
		cmsg_payload(t, type, CMSG_DATA(c), plen);
		if (chance(t, 5))
			c->cmsg_len = below(t, sizeof(*c));
		else if (chance(t, 5))
			c->cmsg_len = room - used + 1 + below(t, 64);
		used += CMSG_SPACE(plen);
	}
	return used;
}

static size_t pick_payload_len(struct fuzz_thread *t)
{
	switch (below(t, 10)) {
	case 0:
		return 0;
	case 1:
		return below(t, 64 * 1024) + 1;
	case 2:
		/* past RDS_MAX_MSG_SIZE: EMSGSIZE, or EFAULT from the arena */
		return (1 << 20) + below(t, 16);
	default:
		return below(t, 2048) + 1;
	}
}

static void op_send(struct fuzz_thread *t)
{
	struct sockaddr_storage ss;
	struct iovec iov[2];
	struct msghdr msg = { };
	unsigned char ctl[512];
	size_t len = pick_payload_len(t), half;
	int fd = pick_slot_fd(t), flags = MSG_DONTWAIT;
	unsigned char *data;
	long ret;

	data = arena_buf(t, &len, below(t, 8));
	fill(t, data, len < 64 ? len : 64);
	half = below(t, len + 1);
	iov[0].iov_base = data;
	iov[0].iov_len = half;
	iov[1].iov_base = data + half;
	iov[1].iov_len = len - half;
	msg.msg_iov = iov;
	msg.msg_iovlen = chance(t, 50) ? 2 : 1;
	if (msg.msg_iovlen == 1)
		iov[0].iov_len = len;
	if (chance(t, 85)) {
		msg.msg_namelen = pick_addr(t, &ss);
		msg.msg_name = &ss;
	}
	if (chance(t, 40)) {
		msg.msg_control = ctl;
		msg.msg_controllen = build_cmsgs(t, ctl, sizeof(ctl));
	}
	if (chance(t, 10))
		flags |= MSG_ZEROCOPY;
	if (chance(t, 5))
		flags |= rnd(t) & (MSG_OOB | MSG_MORE | MSG_CONFIRM | MSG_EOR);
	ret = sendmsg(fd, &msg, flags);
	note(t, OP_SEND, ret, "%d, len %zu, controllen %zu, flags %#x", fd, len,
	     (size_t)msg.msg_controllen, flags);
}

static void op_recv(struct fuzz_thread *t)
{
	static const size_t ctl_sizes[] = {
		0, 1, sizeof(struct cmsghdr), CMSG_SPACE(4), CMSG_SPACE(16), 64, 512,
	};
	struct sockaddr_storage ss;
	struct iovec iov;
	struct msghdr msg = { };
	size_t len = below(t, 3) ? below(t, 4096) : below(t, 70000);
	size_t ctl_len = ctl_sizes[below(t, ARRAY_SIZE(ctl_sizes))];
	int fd = pick_slot_fd(t), flags = MSG_DONTWAIT;
	long ret;

	iov.iov_base = arena_buf(t, &len, below(t, 8));
	iov.iov_len = len;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_name = &ss;
	msg.msg_namelen = chance(t, 90) ? sizeof(ss) : below(t, sizeof(ss));
	if (ctl_len) {
		/* just below the guard page: a cmsg written past ctl_len faults */
		msg.msg_control = t->arena + ARENA_SIZE - ctl_len;
		msg.msg_controllen = ctl_len;
	}
	if (chance(t, 15))
		flags |= MSG_PEEK;
	if (chance(t, 10))
		flags |= MSG_TRUNC;
	if (chance(t, 10))
		flags |= MSG_ERRQUEUE;
	if (chance(t, 3))
		flags |= MSG_OOB;
	ret = recvmsg(fd, &msg, flags);
	note(t, OP_RECV, ret, "%d, len %zu, controllen %zu, flags %#x", fd, len,
	     ctl_len, flags);
}

/* Every SOL_RDS option, and the SOL_SOCKET ones RDS or its transports
 * look at, plus a random one now and then (the default case of a switch).
 */
static const int rds_opts[] = {
	RDS_CANCEL_SENT_TO, RDS_GET_MR, RDS_FREE_MR, 4, RDS_RECVERR,
	RDS_CONG_MONITOR, RDS_GET_MR_FOR_DEST, SO_RDS_TRANSPORT, 9,
	SO_RDS_MSG_RXPATH_LATENCY, SO_TIMESTAMP_OLD, SO_TIMESTAMP_NEW,
};

static const int sock_opts[] = {
	SO_SNDBUF, SO_RCVBUF, SO_SNDBUFFORCE, SO_RCVBUFFORCE, SO_ZEROCOPY,
	SO_TIMESTAMP_OLD, SO_TIMESTAMP_NEW, SO_TIMESTAMPNS_OLD, SO_PRIORITY,
	SO_LINGER, SO_BINDTODEVICE, SO_REUSEADDR, SO_KEEPALIVE, SO_RCVLOWAT,
	SO_MARK, SO_ERROR, SO_TYPE, SO_PROTOCOL, SO_DOMAIN, SO_PEERNAME,
	SO_ACCEPTCONN, SO_COOKIE, SO_MEMINFO, SO_TXTIME, SO_BUSY_POLL,
};

static void pick_opt(struct fuzz_thread *t, int *level, int *name)
{
	if (chance(t, 60)) {
		*level = SOL_RDS;
		*name = rds_opts[below(t, ARRAY_SIZE(rds_opts))];
	} else {
		*level = SOL_SOCKET;
		*name = sock_opts[below(t, ARRAY_SIZE(sock_opts))];
	}
	if (chance(t, 3))
		*name = below(t, 80);
}

/* A value for setsockopt: random bytes with a small integer, a valid
 * transport, the rx trace struct or a user pointer where one is expected.
 */
static void opt_value(struct fuzz_thread *t, int level, int name, void *buf, size_t len)
{
	union {
		int i;
		struct rds_rx_trace_so trace;
		struct rds_get_mr_args mr;
		struct rds_free_mr_args free_mr;
		struct sockaddr_storage ss;
	} v;

	fill(t, &v, sizeof(v));
	if (level == SOL_RDS && name == SO_RDS_TRANSPORT && chance(t, 80)) {
		v.i = below(t, RDS_TRANS_COUNT + 1);
	} else if (level == SOL_RDS && (name == RDS_GET_MR || name == RDS_GET_MR_FOR_DEST)) {
		v.mr.vec.addr = pick_uptr(t);
		v.mr.vec.bytes = below(t, 8192);
		v.mr.cookie_addr = pick_uptr(t);
	} else if (level == SOL_RDS && name == RDS_CANCEL_SENT_TO) {
		pick_addr(t, &v.ss);
	} else if (chance(t, 70) || (level == SOL_SOCKET && name != SO_BINDTODEVICE)) {
		/* bounded: a 2 GiB SO_SNDBUFFORCE would only test the OOM killer */
		v.i = below(t, 3) ? below(t, 2) : below(t, 1 << 20);
	}
	fill(t, buf, len);
	memcpy(buf, &v, len < sizeof(v) ? len : sizeof(v));
}

static void op_setsockopt(struct fuzz_thread *t)
{
	size_t len = chance(t, 70) ? near_len(t, sizeof(int)) : below(t, 300);
	int fd = pick_slot_fd(t), level, name, ret;
	void *buf;

	pick_opt(t, &level, &name);
	buf = arena_buf(t, &len, below(t, 4));
	opt_value(t, level, name, buf, len);
	ret = setsockopt(fd, level, name, buf, len);
	note(t, OP_SETOPT, ret, "%d, %d, %d, len %zu", fd, level, name, len);
}

static void op_getsockopt(struct fuzz_thread *t)
{
	size_t len = chance(t, 70) ? near_len(t, sizeof(int)) : below(t, 300);
	int fd = pick_slot_fd(t), level, name, ret;
	socklen_t optlen;
	void *buf;

	pick_opt(t, &level, &name);
	buf = arena_buf(t, &len, below(t, 4));
	optlen = len;
	if (chance(t, 3))
		optlen = -1 - below(t, 4);
	ret = getsockopt(fd, level, name, buf, &optlen);
	note(t, OP_GETOPT, ret, "%d, %d, %d, len %zu", fd, level, name, len);
}

/* RDS_INFO: every table, into buffers of every odd size, unaligned and
 * ending at the guard page; and the length-only query with no buffer.
 */
static void op_info(struct fuzz_thread *t)
{
	int fd = pick_slot_fd(t), ret;
	int name = RDS_INFO_FIRST + below(t, RDS_INFO_LAST - RDS_INFO_FIRST + 3) - 1;
	size_t len;
	socklen_t optlen;
	void *buf;

	switch (below(t, 4)) {
	case 0:
		len = below(t, 16);
		break;
	case 1:
		len = below(t, 512);
		break;
	case 2:
		len = ARENA_SIZE;
		break;
	default:
		len = below(t, 64 * 1024);
		break;
	}
	buf = arena_buf(t, &len, below(t, 8));
	optlen = len;
	if (chance(t, 5))
		buf = NULL;
	else if (chance(t, 3))
		optlen = len + page_size;
	ret = getsockopt(fd, SOL_RDS, name, buf, &optlen);
	note(t, OP_INFO, ret, "%d, %d, len %zu -> %u", fd, name, len, optlen);
}

static void op_poll(struct fuzz_thread *t)
{
	struct pollfd p[4];
	int i, n = 1 + below(t, ARRAY_SIZE(p)), ret;

	for (i = 0; i < n; i++) {
		p[i].fd = pick_slot_fd(t);
		p[i].events = rnd(t) & (POLLIN | POLLOUT | POLLERR | POLLPRI | POLLHUP);
	}
	ret = poll(p, n, chance(t, 80) ? 0 : below(t, 30));
	note(t, OP_POLL, ret, "%d fds", n);
}

static void op_ioctl(struct fuzz_thread *t)
{
	static const unsigned long cmds[] = {
		SIOCRDSSETTOS, SIOCRDSGETTOS, FIONREAD, SIOCOUTQ, SIOCGSTAMP_OLD, FIONBIO,
	};
	unsigned long cmd = cmds[below(t, ARRAY_SIZE(cmds))];
	int fd = pick_slot_fd(t), ret;
	size_t len = 8;
	unsigned char *arg = arena_buf(t, &len, below(t, 8));

	fill(t, arg, len);
	if (cmd == FIONBIO)
		arg[0] = 1;	/* never make a socket blocking */
	ret = ioctl(fd, cmd, chance(t, 90) ? (void *)arg : NULL);
	note(t, OP_IOCTL, ret, "%d, %#lx", fd, cmd);
}

static void op_shutdown(struct fuzz_thread *t)
{
	int fd = pick_slot_fd(t);

	note(t, OP_SHUTDOWN, shutdown(fd, below(t, 4)), "%d", fd);
}

/* Weights: mostly traffic and options, with enough socket churn that
 * every socket soon has both a past and a racing close.
 */
static void one_op(struct fuzz_thread *t)
{
	unsigned int r = below(t, 100);

	if (r < 6)
		op_socket(t);
	else if (r < 9)
		op_close(t);
	else if (r < 18)
		op_bind_connect(t, true);
	else if (r < 22)
		op_bind_connect(t, false);
	else if (r < 45)
		op_send(t);
	else if (r < 60)
		op_recv(t);
	else if (r < 70)
		op_setsockopt(t);
	else if (r < 78)
		op_getsockopt(t);
	else if (r < 86)
		op_info(t);
	else if (r < 94)
		op_poll(t);
	else if (r < 98)
		op_ioctl(t);
	else
		op_shutdown(t);
}

static void *fuzz_thread_fn(void *arg)
{
	struct fuzz_thread *t = arg;

	if (t->netns_fd >= 0 && setns(t->netns_fd, CLONE_NEWNET)) {
		perror("setns");
		exit(1);
	}
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
		one_op(t);
	return NULL;
}

static int add_addr(const char *s)
{
	struct sockaddr_storage *ss = &addrs[nr_addrs];

	if (nr_addrs == MAX_ADDRS)
		return -1;
	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, s, &((struct sockaddr_in *)ss)->sin_addr) == 1)
		ss->ss_family = AF_INET;
	else if (inet_pton(AF_INET6, s, &((struct sockaddr_in6 *)ss)->sin6_addr) == 1)
		ss->ss_family = AF_INET6;
	else
		return -1;
	nr_addrs++;
	return 0;
}

static int add_netns(const char *path)
{
	int fd;

	if (nr_netns == MAX_NETNS)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(path);
		return -1;
	}
	netns_fds[nr_netns++] = fd;
	return 0;
}

static void bad_args(void)
{
	fprintf(stderr, "usage: rds_fuzz [-s SEED] [-t SECONDS] [-j THREADS] [-v]\n"
		"                [-N NETNS_PATH]... -a ADDR...\n");
	exit(2);
}

static void report(unsigned long secs, uint64_t seed, int nr_threads)
{
	unsigned long total = 0;
	int i;

	for (i = 0; i < NR_OPS; i++) {
		printf("%-11s %9lu ok %9lu failed\n", op_names[i], op_ok[i], op_err[i]);
		total += op_ok[i] + op_err[i];
	}
	printf("seed %llu: %lu calls in %lu s by %d threads\n",
	       (unsigned long long)seed, total, secs, nr_threads);
}

int main(int argc, char **argv)
{
	struct fuzz_thread threads[MAX_THREADS];
	uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	unsigned long secs = 10;
	int nr_threads = 4, i, c, fd;

	while ((c = getopt(argc, argv, "s:t:j:vN:a:")) != -1) {
		switch (c) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 't':
			secs = strtoul(optarg, NULL, 0);
			break;
		case 'j':
			nr_threads = atoi(optarg);
			if (nr_threads < 1 || nr_threads > MAX_THREADS)
				bad_args();
			break;
		case 'v':
			verbose = true;
			break;
		case 'N':
			if (add_netns(optarg))
				bad_args();
			break;
		case 'a':
			if (add_addr(optarg))
				bad_args();
			break;
		default:
			bad_args();
		}
	}
	printf("rds_fuzz: seed %llu, %d threads, %lu s, %d addresses, %d netns\n",
	       (unsigned long long)seed, nr_threads, secs, nr_addrs, nr_netns);
	printf("replay one thread's sequence: rds_fuzz -s %llu -j 1 -v ...\n",
	       (unsigned long long)seed);
	fflush(stdout);

	fd = socket(AF_RDS, SOCK_SEQPACKET, 0);
	if (fd < 0) {
		perror("socket(AF_RDS)");
		return errno == EAFNOSUPPORT ? 4 : 1;
	}
	close(fd);

	signal(SIGPIPE, SIG_IGN);
	page_size = sysconf(_SC_PAGESIZE);
	for (i = 0; i < NR_SLOTS; i++)
		slots[i] = -1;
	for (i = 0; i < nr_threads; i++) {
		struct fuzz_thread *t = &threads[i];

		memset(t, 0, sizeof(*t));
		t->id = i;
		t->rng = seed + i;
		t->netns_fd = nr_netns ? netns_fds[i % nr_netns] : -1;
		t->arena = mmap(NULL, ARENA_SIZE + page_size, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (t->arena == MAP_FAILED ||
		    mprotect(t->arena + ARENA_SIZE, page_size, PROT_NONE)) {
			perror("mmap");
			return 1;
		}
		if (pthread_create(&t->thread, NULL, fuzz_thread_fn, t)) {
			perror("pthread_create");
			return 1;
		}
	}
	sleep(secs);
	__atomic_store_n(&stop, true, __ATOMIC_RELAXED);
	for (i = 0; i < nr_threads; i++)
		pthread_join(threads[i].thread, NULL);
	for (i = 0; i < NR_SLOTS; i++)
		if (slots[i] >= 0)
			close(slots[i]);
	report(secs, seed, nr_threads);
	return 0;
}
