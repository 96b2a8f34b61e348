// SPDX-License-Identifier: GPL-2.0
/*
 * rds_rdma_example: an RDMA WRITE through RDS/IB sockets, in two roles.
 *
 *   rds_rdma_example owner [-m] [-s SIZE] [-t TIMEOUT_MS] ADDR PORT
 *   rds_rdma_example writer [-t TIMEOUT_MS] ADDR OWNER_ADDR PORT
 *
 * The owner has a region of SIZE bytes (default 65536, 2 to 1 MiB) and
 * lets the writer fill it by RDMA: the writer's device puts the bytes
 * straight into the owner's memory, which no CPU of the owner copies.
 *
 *   writer (ADDR, any port)              owner (ADDR:PORT)
 *     HELLO ------------------------------>
 *                                          RDS_GET_MR: register the region
 *           <------------------------------ COOKIE: the region's cookie
 *     sendmsg with RDS_CMSG_RDMA_ARGS:
 *       the WRITE - - - - - - - - - - - - > the bytes, into the region
 *       and its message ------------------> (comes after the bytes)
 *     recvmsg: RDS_CMSG_RDMA_STATUS
 *     DONE -------------------------------> RDS_FREE_MR, check the bytes
 *
 * Start the owner first: a message to a port that nobody has bound yet is
 * dropped. The writer exits 0 when its WRITE completed (RDS_RDMA_SUCCESS),
 * the owner when it found the writer's bytes in its region. The timeout
 * (default 30000 ms) bounds every wait.
 *
 * RDMA is for RDS/IB sockets (InfiniBand, RoCE, Soft-RoCE): both
 * addresses must belong to RDMA devices, and each socket asks for the IB
 * transport (SO_RDS_TRANSPORT) before bind(). The in-tree RDS of Linux 6.1
 * refuses RDS_GET_MR with EOPNOTSUPP (it registers only on a connection);
 * the owner then registers with RDS_CMSG_RDMA_MAP on the message that
 * carries the cookie, which works on both. -m asks for that at once.
 *
 * Build: gcc -Wall -O2 -o rds_rdma_example rds_rdma_example.c
 */
#define _GNU_SOURCE
#include <endian.h>
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
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
/* After <netinet/in.h>, which then keeps <linux/in6.h> from redefining. */
#include <linux/rds.h>

/* RDS moves at most 1 MiB in one RDMA operation. */
#define MAX_REGION	(1024 * 1024)
/* Names the WRITE in its RDS_CMSG_RDMA_STATUS: any value the writer likes. */
#define WRITE_TOKEN	0x5752495445ULL

enum { MSG_HELLO = 1, MSG_COOKIE, MSG_WRITE, MSG_DONE };

/* What the two roles tell each other; big-endian on the wire. */
struct example_msg {
	uint32_t type;		/* MSG_* */
	uint32_t status;	/* MSG_DONE: the WRITE's RDS_RDMA_* status */
	uint64_t cookie;	/* MSG_COOKIE: the region's cookie */
	uint64_t bytes;		/* MSG_COOKIE, MSG_WRITE: the region's size */
};

static const char *prog = "rds_rdma_example";

#include "rds_example.h"

/* A message received, with what came along. */
struct received {
	struct example_msg m;	/* in host order, 0 where nothing came */
	union rds_addr from;
	socklen_t from_len;
	bool has_dest;		/* an RDS_CMSG_RDMA_DEST: a peer's cookie */
	rds_rdma_cookie_t dest;
	bool has_status;	/* an RDS_CMSG_RDMA_STATUS: the WRITE is done */
	struct rds_rdma_notify status;
};

static int timeout_ms = 30000;

static void bad_usage(void)
{
	fprintf(stderr,
		"usage: %s owner [-m] [-s SIZE] [-t TIMEOUT_MS] ADDR PORT\n"
		"       %s writer [-t TIMEOUT_MS] ADDR OWNER_ADDR PORT\n",
		prog, prog);
	exit(2);
}

static const char *status_name(int status)
{
	static const char * const names[] = {
		[RDS_RDMA_SUCCESS] = "SUCCESS",
		[RDS_RDMA_REMOTE_ERROR] = "REMOTE_ERROR",
		[RDS_RDMA_CANCELED] = "CANCELED",
		[RDS_RDMA_DROPPED] = "DROPPED",
		[RDS_RDMA_OTHER_ERROR] = "OTHER_ERROR",
	};

	if (status < 0 || status > RDS_RDMA_OTHER_ERROR)
		return "unknown";
	return names[status];
}

/* What the writer writes at byte @i of the region. */
static unsigned char pattern(size_t i)
{
	return (unsigned char)(i * 7 + (i >> 8) + 1);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* An RDS/IB socket bound to @addr:@port; the address into @a. */
static int rds_ib_socket(const char *addr, unsigned int port,
			 union rds_addr *a)
{
	struct timeval tv = {
		.tv_sec = timeout_ms / 1000,
		.tv_usec = timeout_ms % 1000 * 1000,
	};
	int trans = RDS_TRANS_IB;
	socklen_t len;
	int fd;

	len = parse_addr(addr, port, a);
	if (!len) {
		fprintf(stderr, "%s: %s: not an address\n", prog, addr);
		exit(2);
	}
	fd = socket(AF_RDS, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		if (errno == EAFNOSUPPORT)
			die("socket(AF_RDS) (rds.ko not loaded?)");
		die("socket(AF_RDS)");
	}
	/*
	 * Without it, bind() would choose IB anyway for an RDMA device's
	 * address; with it, any other address fails there, not at the
	 * first RDMA. It loads rds_rdma where root could.
	 */
	if (setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &trans, sizeof(trans)))
		die("setsockopt(SO_RDS_TRANSPORT, RDS_TRANS_IB)");
	/* A blocking send waits for room in the send buffer: not for ever. */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		die("setsockopt(SO_SNDTIMEO)");
	if (bind(fd, &a->sa, len))
		die("bind %s (an address of an RDMA device?)", addr_str(a));
	return fd;
}

/* Send @m to @to, with the control messages in @ctl, if any. */
static void send_msg(int fd, const union rds_addr *to, socklen_t to_len,
		     const struct example_msg *m, void *ctl, size_t ctl_len)
{
	struct example_msg wire = {
		.type = htonl(m->type),
		.status = htonl(m->status),
		.cookie = htobe64(m->cookie),
		.bytes = htobe64(m->bytes),
	};
	struct iovec iov = { .iov_base = &wire, .iov_len = sizeof(wire) };
	struct msghdr msg = {
		.msg_name = (void *)to,
		.msg_namelen = to_len,
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl,
		.msg_controllen = ctl_len,
	};

	if (sendmsg(fd, &msg, 0) < 0)
		die("sendmsg to %s", addr_str(to));
}

/*
 * Pick the RDS control messages we know out of @msg. One recvmsg() gives
 * as many RDMA statuses as the control buffer has room for: the one of
 * our WRITE is kept.
 */
static void take_cmsgs(struct msghdr *msg, struct received *r)
{
	struct rds_rdma_notify n;
	struct cmsghdr *c;

	if (msg->msg_flags & MSG_CTRUNC)
		fprintf(stderr, "%s: control messages truncated\n", prog);
	for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level != SOL_RDS)
			continue;
		if (c->cmsg_type == RDS_CMSG_RDMA_DEST &&
		    c->cmsg_len >= CMSG_LEN(sizeof(r->dest))) {
			memcpy(&r->dest, CMSG_DATA(c), sizeof(r->dest));
			r->has_dest = true;
		} else if (c->cmsg_type == RDS_CMSG_RDMA_STATUS &&
			   c->cmsg_len >= CMSG_LEN(sizeof(n))) {
			memcpy(&n, CMSG_DATA(c), sizeof(n));
			if (n.user_token != WRITE_TOKEN)
				continue;
			r->status = n;
			r->has_status = true;
		}
	}
}

/*
 * The next message, or notification, within the timeout. An RDMA status
 * comes alone: recvmsg() returns 0 bytes, and the cmsg.
 */
static void receive(int fd, struct received *r)
{
	union {
		char buf[256];
		struct cmsghdr align;
	} ctl;
	long long deadline = now_ms() + timeout_ms;
	struct example_msg wire;
	struct iovec iov = { .iov_base = &wire, .iov_len = sizeof(wire) };
	struct msghdr msg;
	ssize_t n;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long long left = deadline - now_ms();
		int ready = left > 0 ? poll(&p, 1, (int)left) : 0;

		if (ready < 0 && errno != EINTR)
			die("poll");
		if (!ready) {
			fprintf(stderr, "%s: nothing came in %d ms\n", prog,
				timeout_ms);
			exit(1);
		}
		memset(r, 0, sizeof(*r));
		memset(&wire, 0, sizeof(wire));
		memset(&msg, 0, sizeof(msg));
		msg.msg_name = &r->from;
		msg.msg_namelen = sizeof(r->from);
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		/* Not blocking: POLLIN may also be news of congestion. */
		n = recvmsg(fd, &msg, MSG_DONTWAIT);
		if (n >= 0)
			break;
		if (errno != EAGAIN && errno != EINTR)
			die("recvmsg");
	}
	r->from_len = msg.msg_namelen;
	take_cmsgs(&msg, r);
	/* Not one of ours: leave the type 0, which nothing waits for. */
	if (n != sizeof(wire) || (msg.msg_flags & MSG_TRUNC))
		return;
	r->m.type = ntohl(wire.type);
	r->m.status = ntohl(wire.status);
	r->m.cookie = be64toh(wire.cookie);
	r->m.bytes = be64toh(wire.bytes);
}

/*
 * Register @size bytes at @region for the peer's RDMA; the cookie that
 * names them into @cookie. False where the kernel registers only with a
 * message (EOPNOTSUPP: RDS_CMSG_RDMA_MAP).
 */
static bool get_mr(int fd, void *region, size_t size,
		   rds_rdma_cookie_t *cookie)
{
	struct rds_get_mr_args mr = {
		.vec = { .addr = (uintptr_t)region, .bytes = size },
		.cookie_addr = (uintptr_t)cookie,
	};

	if (!setsockopt(fd, SOL_RDS, RDS_GET_MR, &mr, sizeof(mr)))
		return true;
	if (errno == EOPNOTSUPP)
		return false;
	die("setsockopt(RDS_GET_MR, %zu bytes)", size);
}

/*
 * Send @m with an RDS_CMSG_RDMA_MAP for @size bytes at @region: the kernel
 * registers them as it sends, writes the cookie into @cookie and hands it
 * to the peer as an RDS_CMSG_RDMA_DEST with the message.
 */
static void send_mapped(int fd, const union rds_addr *to, socklen_t to_len,
			const struct example_msg *m, void *region,
			size_t size, rds_rdma_cookie_t *cookie)
{
	struct rds_get_mr_args mr = {
		.vec = { .addr = (uintptr_t)region, .bytes = size },
		.cookie_addr = (uintptr_t)cookie,
	};
	union {
		char buf[CMSG_SPACE(sizeof(mr))];
		struct cmsghdr align;
	} ctl;
	struct cmsghdr *c = &ctl.align;

	memset(&ctl, 0, sizeof(ctl));
	c->cmsg_level = SOL_RDS;
	c->cmsg_type = RDS_CMSG_RDMA_MAP;
	c->cmsg_len = CMSG_LEN(sizeof(mr));
	memcpy(CMSG_DATA(c), &mr, sizeof(mr));
	send_msg(fd, to, to_len, m, ctl.buf, sizeof(ctl.buf));
}

static int run_owner(const char *addr, unsigned int port, size_t size,
		     bool map)
{
	struct example_msg m = { .type = MSG_COOKIE, .bytes = size };
	struct rds_free_mr_args fr = { .flags = RDS_RDMA_INVALIDATE };
	rds_rdma_cookie_t cookie = 0;
	union rds_addr self, writer;
	socklen_t writer_len;
	unsigned char *region;
	struct received r;
	size_t i;
	int fd;

	fd = rds_ib_socket(addr, port, &self);
	/*
	 * The region need not be aligned: its cookie carries where in its
	 * first page it starts. Anything but what the writer writes is in
	 * it before, so that a byte the WRITE missed shows.
	 */
	region = mmap(NULL, size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED)
		die("mmap %zu bytes", size);
	for (i = 0; i < size; i++)
		region[i] = ~pattern(i);
	printf("owner: bound to %s, a region of %zu bytes\n", addr_str(&self),
	       size);

	do
		receive(fd, &r);
	while (r.m.type != MSG_HELLO);
	writer = r.from;
	writer_len = r.from_len;

	if (!map && !get_mr(fd, region, size, &cookie)) {
		printf("owner: RDS_GET_MR not supported: RDS_CMSG_RDMA_MAP\n");
		map = true;
	}
	if (map) {
		send_mapped(fd, &writer, writer_len, &m, region, size, &cookie);
	} else {
		m.cookie = cookie;
		send_msg(fd, &writer, writer_len, &m, NULL, 0);
	}
	printf("owner: registered with %s, cookie %#llx sent to %s\n",
	       map ? "RDS_CMSG_RDMA_MAP" : "RDS_GET_MR",
	       (unsigned long long)cookie, addr_str(&writer));

	for (;;) {
		receive(fd, &r);
		/* RDS delivers it after the bytes of its WRITE are in place. */
		if (r.m.type == MSG_WRITE)
			printf("owner: the message of the WRITE came\n");
		if (r.m.type == MSG_DONE)
			break;
	}
	printf("owner: the writer says: %s\n", status_name(r.m.status));

	/*
	 * Free the region first, so that nothing changes it any more.
	 * RDS_RDMA_INVALIDATE: its key is dead at once, where the in-tree
	 * modules could otherwise leave it valid until they flush or reuse
	 * the MR.
	 */
	fr.cookie = cookie;
	if (setsockopt(fd, SOL_RDS, RDS_FREE_MR, &fr, sizeof(fr)))
		die("setsockopt(RDS_FREE_MR, %#llx)",
		    (unsigned long long)cookie);
	close(fd);

	i = 0;
	while (i < size && region[i] == pattern(i))
		i++;
	if (i < size) {
		fprintf(stderr, "%s: owner: byte %zu is %#x, want %#x\n", prog,
			i, region[i], pattern(i));
		return 1;
	}
	printf("owner: the region holds the writer's %zu bytes\n", size);
	munmap(region, size);
	return 0;
}

static int run_writer(const char *addr, const char *owner_addr,
		      unsigned int port)
{
	struct example_msg m = { .type = MSG_HELLO };
	union rds_addr self, to;
	struct rds_iovec local[2];
	struct rds_rdma_args args;
	union {
		char buf[CMSG_SPACE(sizeof(args))];
		struct cmsghdr align;
	} ctl;
	struct cmsghdr *c = &ctl.align;
	rds_rdma_cookie_t cookie;
	unsigned char *head, *tail;
	size_t bytes, half, i;
	socklen_t to_len;
	struct received r;
	int fd, status;

	to_len = parse_addr(owner_addr, port, &to);
	if (!to_len) {
		fprintf(stderr, "%s: %s: not an address\n", prog, owner_addr);
		exit(2);
	}
	fd = rds_ib_socket(addr, 0, &self);
	send_msg(fd, &to, to_len, &m, NULL, 0);
	do
		receive(fd, &r);
	while (r.m.type != MSG_COOKIE);
	/* With RDS_CMSG_RDMA_MAP, the cookie came as an RDS_CMSG_RDMA_DEST. */
	cookie = r.has_dest ? r.dest : r.m.cookie;
	bytes = r.m.bytes;
	if (!cookie || bytes < 2 || bytes > MAX_REGION) {
		fprintf(stderr, "%s: writer: cookie %#llx, %zu bytes?\n", prog,
			(unsigned long long)cookie, bytes);
		return 1;
	}
	printf("writer: cookie %#llx for %zu bytes\n",
	       (unsigned long long)cookie, bytes);

	/*
	 * The bytes in two buffers, which one WRITE gathers: the local side
	 * is an array of struct rds_iovec (any number up to 1024), the
	 * remote one a range of the region.
	 */
	half = bytes / 2;
	head = malloc(half);
	tail = malloc(bytes - half);
	if (!head || !tail) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	for (i = 0; i < bytes; i++) {
		if (i < half)
			head[i] = pattern(i);
		else
			tail[i - half] = pattern(i);
	}
	local[0].addr = (uintptr_t)head;
	local[0].bytes = half;
	local[1].addr = (uintptr_t)tail;
	local[1].bytes = bytes - half;

	memset(&args, 0, sizeof(args));
	args.cookie = cookie;
	/*
	 * Where in the region, counted from its first byte: the kernel adds
	 * the offset in the page that the cookie carries.
	 */
	args.remote_vec.addr = 0;
	args.remote_vec.bytes = bytes;
	args.local_vec_addr = (uintptr_t)local;
	args.nr_local = 2;
	/* READWRITE: a WRITE to the region (without it, a READ from it). */
	args.flags = RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME;
	args.user_token = WRITE_TOKEN;

	memset(&ctl, 0, sizeof(ctl));
	c->cmsg_level = SOL_RDS;
	c->cmsg_type = RDS_CMSG_RDMA_ARGS;
	c->cmsg_len = CMSG_LEN(sizeof(args));
	memcpy(CMSG_DATA(c), &args, sizeof(args));
	m.type = MSG_WRITE;
	m.bytes = bytes;
	send_msg(fd, &to, to_len, &m, ctl.buf, sizeof(ctl.buf));

	/*
	 * The device reads head and tail after sendmsg() returned: they stay
	 * as they are until the status says the WRITE is done.
	 */
	do
		receive(fd, &r);
	while (!r.has_status);
	status = r.status.status;
	printf("writer: RDS_CMSG_RDMA_STATUS %s\n", status_name(status));

	m.type = MSG_DONE;
	m.status = status;
	send_msg(fd, &to, to_len, &m, NULL, 0);
	drain(fd);
	close(fd);
	free(head);
	free(tail);
	return status == RDS_RDMA_SUCCESS ? 0 : 1;
}

int main(int argc, char **argv)
{
	size_t size = 65536;
	bool map = false;
	const char *role;
	int opt;

	if (argc < 2)
		bad_usage();
	role = argv[1];
	/* A line at a time, so that a log shows how far a killed run got. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* The options after the role: getopt() takes it for the name. */
	argc--;
	argv++;
	while ((opt = getopt(argc, argv, "ms:t:")) != -1) {
		switch (opt) {
		case 'm':
			map = true;
			break;
		case 's':
			size = parse_number(optarg, 2, MAX_REGION);
			break;
		case 't':
			timeout_ms = parse_number(optarg, 1, INT_MAX);
			break;
		default:
			bad_usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (!strcmp(role, "owner") && argc == 2)
		return run_owner(argv[0], parse_number(argv[1], 1, 65535), size,
			     map);
	if (!strcmp(role, "writer") && argc == 3)
		return run_writer(argv[0], argv[1],
			      parse_number(argv[2], 1, 65535));
	bad_usage();
}
