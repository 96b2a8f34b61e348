// SPDX-License-Identifier: GPL-2.0
/*
 * MSG_ZEROCOPY over RDS/TCP: the sender's pages go out without a copy and
 * every send's cookie comes back once, in an RDS_CMSG_ZCOPY_COMPLETION,
 * after the peer has the message.
 *
 *   rds_zcopy recv ADDR PORT COUNT [LEN]
 *   rds_zcopy send LADDR DADDR PORT COUNT
 *   rds_zcopy fault pin LADDR DADDR PORT ROUNDS
 *   rds_zcopy fault queue LADDR DADDR PORT ROUNDS DEAD
 *
 * The receiver checks the length and bytes of COUNT messages (each of LEN
 * bytes from the start of the buffer, and nothing after them, when LEN is
 * given); the sender sends COUNT messages of assorted sizes and page
 * offsets from one buffer it never touches until all cookies are back,
 * then checks that each cookie came back exactly once.
 *
 * fault: zerocopy sends that fail after their pages were charged to
 * RLIMIT_MEMLOCK and (some of them) pinned, each round followed by one
 * that succeeds; see do_fault().  Prints KTAP, one point per check.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
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
/* Cookies of the sends that must fail: above any good one, never completed. */
#define FAIL_COOKIE	0x10000

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

/* @fixed: every message is that many bytes from the start of buf, and
 * none follows the last (a failed send that went anyway would).
 */
static int do_recv(const char *addr, int port, int count, size_t fixed)
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
		size_t want = fixed ? fixed : msg_len(i);
		size_t off = fixed ? 0 : msg_off(i);
		ssize_t n = recv(fd, data, BUF_SIZE, 0);

		if (n < 0)
			ktap_bail("recv %d", i);
		if ((size_t)n != want || memcmp(data, buf + off, n)) {
			printf("message %d: %zd bytes, expected %zu, or bad bytes\n",
			       i, n, want);
			return 1;
		}
	}
	if (fixed && recv(fd, data, BUF_SIZE, MSG_DONTWAIT) >= 0) {
		printf("a message after the %d expected\n", count);
		return 1;
	}
	printf("received %d messages intact\n", count);
	return 0;
}

/* One MSG_ZEROCOPY sendmsg (| @flags) of @len bytes at @base with
 * @cookie; with @rdma_dest also an RDS_CMSG_RDMA_DEST naming a region the
 * socket never mapped.  Returns sendmsg's result, errno as it left it.
 */
static ssize_t zc_send(int fd, const union addr *dst, socklen_t dlen,
		       void *base, size_t len, uint32_t cookie,
		       bool rdma_dest, int flags)
{
	char ctl[CMSG_SPACE(sizeof(uint32_t)) +
		 CMSG_SPACE(sizeof(rds_rdma_cookie_t))] __attribute__((aligned(8)));
	struct iovec iov = { .iov_base = base, .iov_len = len };
	struct msghdr msg = {
		.msg_name = (void *)dst, .msg_namelen = dlen,
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl,
		.msg_controllen = CMSG_SPACE(sizeof(cookie)),
	};
	/* Key 0x5eed, offset 0: no region of this socket's (it has none). */
	rds_rdma_cookie_t unmapped = 0x5eed;
	struct cmsghdr *c;

	memset(ctl, 0, sizeof(ctl));	/* CMSG_NXTHDR reads the next length */
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_RDS;
	c->cmsg_type = RDS_CMSG_ZCOPY_COOKIE;
	c->cmsg_len = CMSG_LEN(sizeof(cookie));
	memcpy(CMSG_DATA(c), &cookie, sizeof(cookie));
	if (rdma_dest) {
		msg.msg_controllen = sizeof(ctl);
		c = CMSG_NXTHDR(&msg, c);
		c->cmsg_level = SOL_RDS;
		c->cmsg_type = RDS_CMSG_RDMA_DEST;
		c->cmsg_len = CMSG_LEN(sizeof(unmapped));
		memcpy(CMSG_DATA(c), &unmapped, sizeof(unmapped));
	}
	return sendmsg(fd, &msg, MSG_ZEROCOPY | flags);
}

static int send_one(int fd, const union addr *dst, socklen_t dlen, int i)
{
	for (;;) {
		ssize_t n = zc_send(fd, dst, dlen, buf + msg_off(i), msg_len(i),
				    i + 1, false, 0);

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
			if (done.cookies[k] >= FAIL_COOKIE) {
				printf("cookie %#x of a send that failed completed\n",
				       done.cookies[k]);
				return -1;
			}
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

/* A zerocopy sender over RDS/TCP bound to @laddr, any port. */
static int zc_socket(const char *laddr)
{
	int fd = socket(AF_RDS, SOCK_SEQPACKET, 0), one = 1, tcp = RDS_TRANS_TCP;
	int sndbuf = 4 << 20;
	union addr la;
	socklen_t llen = addr_make(&la, laddr, 0);

	if (fd < 0 || setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &tcp, sizeof(tcp)) ||
	    bind(fd, &la.sa, llen))
		ktap_bail("sender socket/transport/bind");
	if (setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)))
		ktap_bail("SO_ZEROCOPY");
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	return fd;
}

static int do_send(const char *laddr, const char *daddr, int port, int count)
{
	unsigned char seen[MAX_COUNT + 1] = { 0 };
	int fd = zc_socket(laddr), i, got = 0, n;
	union addr da;
	socklen_t dlen = addr_make(&da, daddr, port);
	time_t end;

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

/* Sends that must fail with one errno, and how many did not. */
struct expect {
	int want;
	int missed;
};

/* Counts @ret against @e; the first three misses are told, with @what. */
static void expect_errno(struct expect *e, ssize_t ret, int err, int round,
			 const char *what)
{
	if (ret < 0 && err == e->want)
		return;
	if (e->missed++ < 3)
		ktap_diag("round %d: %s: %zd (%s), expected %s", round, what,
			  ret, ret < 0 ? strerror(err) : "sent", strerror(e->want));
}

/* Waits up to 10 s for good cookie @cookie, taking whatever else comes;
 * -1 on a cookie that should not be (reap() says which).
 */
static int wait_cookie(int fd, unsigned char *seen, int count, uint32_t cookie)
{
	time_t end = time(NULL) + 10;

	while (!seen[cookie] && time(NULL) < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		poll(&p, 1, 100);
		if (reap(fd, seen, count) < 0)
			return -1;
	}
	return seen[cookie] ? 0 : 1;
}

/* Copied sends to @dead (an address nobody has: its connection never
 * comes up) until the socket's share of sndbuf for it is full.
 */
static void fill_queue(int fd, const union addr *dead, socklen_t len)
{
	ssize_t ret = 0;
	int n;

	for (n = 0; n < 1000; n++) {
		ret = sendto(fd, buf, 8192, MSG_DONTWAIT, &dead->sa, len);
		if (ret < 0)
			break;
	}
	if (!n || ret >= 0 || errno != EAGAIN)
		ktap_bail("filling the send queue to a dead peer: %d sends, then %zd",
			  n, ret);
}

/*
 * Zerocopy sends that fail after rds_message_zcopy_from_user() charged
 * their pages to the user's locked_vm, run unprivileged (no CAP_IPC_LOCK)
 * under an RLIMIT_MEMLOCK of L pages, 8 to 64.  A send of n pages is
 * charged n + 2 (mm_account_pinned_pages() counts the worst case), so one
 * of FULL = L - 2 pages takes the whole limit, one page more is ENOBUFS
 * (checked first: else nothing below could show a leak), and a page a
 * failure left charged makes the next FULL send ENOBUFS where it would go.
 * Each round:
 *  pin:   FULL pages of which one (the second to the last, in turn) is
 *         unmapped: those before it are pinned, then EFAULT
 *         (CVE-2026-43494: what was pinned and charged must go back);
 *  queue: FULL pages with an RDS_CMSG_RDMA_DEST of a region the socket
 *         never mapped, which TCP lets through parsing and rds_send_rdma()
 *         refuses after the pinning: EINVAL; and FULL pages, MSG_DONTWAIT,
 *         to DEAD, for which a second socket's share of sndbuf is full:
 *         EAGAIN from the send queue, after the pinning and the connection
 *         lookup (CVE-2026-43502: a message that was never queued is freed
 *         by its builder, and completes nothing);
 * then FULL pages to DADDR, which must go and whose cookie must come back
 * before the next round.  No failed send's cookie may ever come back.
 */
static int do_fault(const char *kind, const char *laddr, const char *daddr,
		    int port, int rounds, const char *dead)
{
	struct expect efault = { EFAULT }, einval = { EINVAL }, eagain = { EAGAIN };
	unsigned char seen[MAX_COUNT + 1] = { 0 }, none[1] = { 0 };
	size_t page = sysconf(_SC_PAGESIZE), limit, full;
	int fd = zc_socket(laddr), dfd = -1, sndbuf, r, n, err;
	int unsent = 0, stalled = 0, wrong = 0, dead_wrong = 0;
	bool queue = !strcmp(kind, "queue");
	socklen_t dlen, xlen = 0, olen = sizeof(sndbuf);
	unsigned char *bad;
	union addr da, xa;
	struct rlimit rl;
	ssize_t ret;

	if (getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur / page < 8 || rl.rlim_cur / page > 64)
		ktap_bail("RLIMIT_MEMLOCK of 8 to 64 pages wanted (prlimit --memlock)");
	limit = rl.rlim_cur / page;
	full = (limit - 2) * page;
	if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &olen) ||
	    (size_t)sndbuf / 2 < full + page)
		ktap_bail("SO_SNDBUF %d: too small for %zu bytes", sndbuf, full + page);
	dlen = addr_make(&da, daddr, port);
	/* Not buf's bytes: a failed send delivered anyway fails the receiver. */
	bad = mmap(NULL, full, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (bad == MAP_FAILED)
		ktap_bail("mmap");
	memset(bad, 0xee, full);
	if (queue) {
		dfd = zc_socket(laddr);
		xlen = addr_make(&xa, dead, port);
		fill_queue(dfd, &xa, xlen);
	}

	ktap_plan(queue ? 6 : 4);
	ret = zc_send(fd, &da, dlen, buf, full + page, FAIL_COOKIE, false, 0);
	err = errno;
	ktap_result(ret < 0 && err == ENOBUFS,
		    "%zu pages, charged one over RLIMIT_MEMLOCK's %zu: %s (got %zd, %s)",
		    full / page + 1, limit, strerror(ENOBUFS), ret,
		    ret < 0 ? strerror(err) : "sent");
	if (ret >= 0 || err != ENOBUFS)
		ktap_bail("the limit does not hold (CAP_IPC_LOCK?): a leak would not show");

	for (r = 0; r < rounds && !stalled && !wrong; r++) {
		uint32_t fc = FAIL_COOKIE + 1 + 2 * r;

		if (!queue) {
			size_t hole = 1 + r % (limit - 3);
			unsigned char *h = bad + hole * page;
			char what[64];

			if (munmap(h, page))
				ktap_bail("munmap");
			ret = zc_send(fd, &da, dlen, bad, full, fc, false, 0);
			err = errno;
			snprintf(what, sizeof(what), "page %zu of %zu unmapped",
				 hole, full / page);
			expect_errno(&efault, ret, err, r, what);
			if (mmap(h, page, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != h)
				ktap_bail("mmap the hole again");
			memset(h, 0xee, page);
		} else {
			ret = zc_send(fd, &da, dlen, bad, full, fc, true, 0);
			expect_errno(&einval, ret, errno, r, "RDMA_DEST never mapped");
			ret = zc_send(dfd, &xa, xlen, bad, full, fc + 1, false,
				      MSG_DONTWAIT);
			expect_errno(&eagain, ret, errno, r, "to the full queue");
		}
		ret = zc_send(fd, &da, dlen, buf, full, r + 1, false, 0);
		if (ret != (ssize_t)full) {
			if (unsent++ < 3)
				ktap_diag("round %d: the send of the whole limit: %zd (%s)",
					  r, ret, ret < 0 ? strerror(errno) : "short");
			continue;
		}
		n = wait_cookie(fd, seen, rounds, r + 1);
		wrong = n < 0;
		stalled = n > 0;
		if (stalled)
			ktap_diag("round %d: its cookie did not come back in 10 s", r);
	}
	/* The last failed sends' completions, were there any, came already:
	 * the failing sendmsg itself frees the message.  A last look.
	 */
	if (!wrong && !stalled) {
		usleep(100000);
		while ((n = reap(fd, seen, rounds)) > 0)
			;
		wrong = n < 0;
	}
	if (queue) {
		dead_wrong = reap(dfd, none, 0) != 0;
		close(dfd);
	}

	if (queue) {
		ktap_result(!einval.missed, "%d sends with an RDMA_DEST never mapped: %s",
			    r, strerror(EINVAL));
		ktap_result(!eagain.missed, "%d non-blocking sends to a full queue: %s",
			    r, strerror(EAGAIN));
	} else {
		ktap_result(!efault.missed, "%d sends with a page unmapped: %s",
			    r, strerror(EFAULT));
	}
	ktap_result(r == rounds && !unsent && !stalled,
		    "%d sends of the whole limit (%zu pages) after them: sent and completed",
		    rounds, full / page);
	ktap_result(!wrong, "no failed send's cookie completed, no good one twice");
	if (queue)
		ktap_result(!dead_wrong, "no completion on the socket of the full queue");
	close(fd);
	return ktap_finish();
}

int main(int argc, char **argv)
{
	buf = aligned_alloc(4096, BUF_SIZE);
	if (!buf)
		return 1;
	fill();
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "recv"))
		return do_recv(argv[2], atoi(argv[3]), atoi(argv[4]),
			       argc == 6 ? strtoul(argv[5], NULL, 0) : 0);
	if (argc == 6 && !strcmp(argv[1], "send") && atoi(argv[5]) <= MAX_COUNT)
		return do_send(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]));
	if (argc >= 7 && !strcmp(argv[1], "fault") && atoi(argv[6]) <= MAX_COUNT &&
	    ((argc == 7 && !strcmp(argv[2], "pin")) ||
	     (argc == 8 && !strcmp(argv[2], "queue"))))
		return do_fault(argv[2], argv[3], argv[4], atoi(argv[5]),
				atoi(argv[6]), argc == 8 ? argv[7] : NULL);
	fprintf(stderr, "usage: %s recv ADDR PORT COUNT [LEN] | send LADDR DADDR PORT COUNT\n"
		"       %s fault pin LADDR DADDR PORT ROUNDS\n"
		"       %s fault queue LADDR DADDR PORT ROUNDS DEAD\n",
		argv[0], argv[0], argv[0]);
	return 2;
}
