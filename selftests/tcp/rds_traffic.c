// SPDX-License-Identifier: GPL-2.0
/*
 * rds_traffic: exactly-once, in-order checker for RDS between two network
 * namespaces.
 *
 * One process opens K RDS sockets in namespace A and K in namespace B
 * (setns() between the socket() calls) and sends messages of pseudo-random
 * sizes over every (sender, receiver) pair of the full mesh between the two
 * sides, in one or both directions, non-blocking, driven by epoll.  The
 * size and the content of message N of a pair follow from (seed, pair, N),
 * so the receiver checks each arriving message against the one it expects
 * next: anything lost, duplicated, reordered or corrupted fails the run.
 *
 *   rds_traffic -a ADDR_A -b ADDR_B [-A NETNS_A] [-B NETNS_B] [-p PORT]
 *               [-k SOCKETS] [-n MESSAGES] [-m MAX_SIZE] [-d ab|ba|both]
 *               [-s SEED] [-t TIMEOUT_S] [-v] [-S a|b [-l LINGER_S]]
 *               [-T tcp|ib] [-M BIG_SIZE] [-R] [-X]
 *
 * An IPv6 address may name its link, fe80::1%veth0: each side binds on its
 * own, and sends to a link-local peer over it.
 * -T pins every socket to that transport (SO_RDS_TRANSPORT) before bind.
 * -M mixes large messages in: one in 64 (chosen by the same hash) is up
 * to BIG_SIZE bytes, the rest up to MAX_SIZE.  A run of many messages
 * then covers 1 B .. 1 MiB without moving gigabytes under TCG.
 * -R is for runs under fault injection: ENOMEM from sendto() or recvmsg()
 * means the call did nothing, and is tried again (a recvmsg() that lost
 * the message it failed on shows up as a gap).
 * -X makes the mesh whole: every socket sends to every other one, those of
 * its own side (its own address) included, so that one node checks its
 * connections to itself as well as those between its addresses.
 * -n is the total over all pairs.  Exit status 0 when every message
 * arrived exactly once and in order, and nothing more came within a
 * second after the last.
 *
 * With -S a (or -S b) only that side's sockets are opened, here; the other
 * side runs the same command with the other -S on another machine.  Then
 * the run ends -l seconds (default 5) after this side is done, so that the
 * peer gets what we queued last before our sockets close.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/rds.h>

#ifndef AF_RDS
#define AF_RDS 21
#endif

#define MAX_SOCKS	16
#define MAX_SIZE	(1024 * 1024)

struct rsock {
	int fd;
	int side;			/* 0: A, 1: B */
	int idx;			/* index within its side */
	struct sockaddr_storage addr;
	socklen_t addrlen;
	int next_dst;			/* round robin over the peers */
	int blocked;			/* waits for EPOLLOUT */
	int last_err;			/* of the last refused send */
	double last_err_at;		/* and when */
};

/* One direction of one pair: sender socket s -> receiver socket r (of the
 * other side, or with -X of either).
 */
struct flow {
	int active;
	uint64_t total;
	uint64_t sent;
	uint64_t rcvd;
};

static struct rsock socks[2][MAX_SOCKS];
/* [from side][s][to side][r] */
static struct flow flows[2][MAX_SOCKS][2][MAX_SOCKS];
static int nsocks = 2;
static uint64_t seed = 1;
static unsigned int max_size = 65536;
static unsigned int big_size;		/* -M, or 0 */
static int enomem_ok;			/* -R */
static uint64_t enomem_seen;
static int verbose;
static int only_side = -1;		/* -S: the side opened here, or -1 */
static int transport = -1;		/* -T: RDS_TRANS_*, or -1 */
static int got_hello;			/* an empty message came in */
static int mesh;			/* -X */
static unsigned char *sbuf, *rbuf;

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* A flow within one side (-X) has bit 61 set; the others are as before. */
static uint64_t msg_base(int side, int s, int to, int r, uint64_t seq)
{
	return splitmix64(seed ^ ((uint64_t)side << 62) ^
			  ((uint64_t)(side == to) << 61) ^ ((uint64_t)s << 54) ^
			  ((uint64_t)r << 46) ^ seq);
}

static unsigned int msg_size(int side, int s, int to, int r, uint64_t seq)
{
	uint64_t x = splitmix64(msg_base(side, s, to, r, seq));

	/* The top six bits pick the large ones, the low ones the size. */
	if (big_size && !(x >> 58))
		return 1 + x % big_size;
	return 1 + x % max_size;
}

static void msg_fill(unsigned char *buf, unsigned int len, uint64_t base)
{
	unsigned int i, words = len / 8;
	uint64_t w = base;

	for (i = 0; i < words; i++) {
		memcpy(buf + i * 8, &w, 8);
		w += 0x9e3779b97f4a7c15ULL;
	}
	for (i = words * 8; i < len; i++)
		buf[i] = (unsigned char)(base >> (i % 8 * 8));
}

/* Whether buf/len is message @seq of the pair. */
static int msg_check(const unsigned char *buf, unsigned int len, int side,
		     int s, int to, int r, uint64_t seq)
{
	uint64_t base = msg_base(side, s, to, r, seq), w = base, v;
	unsigned int i, words = len / 8;

	if (len != msg_size(side, s, to, r, seq))
		return 0;
	for (i = 0; i < words; i++) {
		memcpy(&v, buf + i * 8, 8);
		if (v != w)
			return 0;
		w += 0x9e3779b97f4a7c15ULL;
	}
	for (i = words * 8; i < len; i++)
		if (buf[i] != (unsigned char)(base >> (i % 8 * 8)))
			return 0;
	return 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int enter_netns(const char *name)
{
	char path[256];
	int fd, ret;

	if (!name || !*name)
		return 0;
	if (strchr(name, '/'))
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(path);
		return -1;
	}
	ret = setns(fd, CLONE_NEWNET);
	if (ret)
		perror("setns");
	close(fd);
	return ret;
}

/* "ADDR", or "ADDR%IF" for an IPv6 address on link IF (in the side's
 * netns).
 */
static int parse_addr(const char *str, int port, struct sockaddr_storage *ss,
		      socklen_t *len)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	char buf[INET6_ADDRSTRLEN + IF_NAMESIZE + 1], *pct;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, str, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		*len = sizeof(*sin);
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", str);
	pct = strchr(buf, '%');
	if (pct) {
		*pct++ = '\0';
		sin6->sin6_scope_id = if_nametoindex(pct);
	}
	if ((!pct || sin6->sin6_scope_id) &&
	    inet_pton(AF_INET6, buf, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		*len = sizeof(*sin6);
		return 0;
	}
	fprintf(stderr, "bad address %s\n", str);
	return -1;
}

/* Where @rs sends to reach @dst: a link-local peer's scope is a link of the
 * peer's host, so the sender names its own link (the one it is bound on).
 */
static const struct sockaddr *dst_addr(const struct rsock *rs,
				       const struct rsock *dst,
				       struct sockaddr_storage *tmp)
{
	const struct sockaddr_in6 *own = (const struct sockaddr_in6 *)&rs->addr;

	if (dst->addr.ss_family != AF_INET6 || !own->sin6_scope_id)
		return (const struct sockaddr *)&dst->addr;
	*tmp = dst->addr;
	((struct sockaddr_in6 *)tmp)->sin6_scope_id = own->sin6_scope_id;
	return (const struct sockaddr *)tmp;
}

/* With -R a setup call that failed for ENOMEM goes again, as sends do:
 * under failslab the sockets themselves may fail to come.
 */
static int setup_again(int ret)
{
	if (ret >= 0 || errno != ENOMEM || !enomem_ok)
		return 0;
	enomem_seen++;
	return 1;
}

static int open_side(int side, const char *ns, const char *addr, int port,
		     int epfd)
{
	int i, fd, ret, bufsz = 4 << 20;
	struct epoll_event ev;

	if ((only_side < 0 || side == only_side) && enter_netns(ns))
		return -1;
	for (i = 0; i < nsocks; i++) {
		struct rsock *rs = &socks[side][i];

		rs->side = side;
		rs->idx = i;
		rs->fd = -1;
		if (parse_addr(addr, port + i, &rs->addr, &rs->addrlen))
			return -1;
		if (only_side >= 0 && side != only_side)
			continue;
		do
			fd = socket(AF_RDS, SOCK_SEQPACKET | SOCK_NONBLOCK, 0);
		while (setup_again(fd));
		if (fd < 0) {
			perror("socket(AF_RDS)");
			return -1;
		}
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bufsz, sizeof(bufsz));
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bufsz, sizeof(bufsz));
		do
			ret = transport < 0 ? 0 :
			      setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT,
					 &transport, sizeof(transport));
		while (setup_again(ret));
		if (ret) {
			perror("SO_RDS_TRANSPORT");
			return -1;
		}
		do
			ret = bind(fd, (struct sockaddr *)&rs->addr, rs->addrlen);
		while (setup_again(ret));
		if (ret) {
			fprintf(stderr, "bind %s port %d: %s\n", addr, port + i,
				strerror(errno));
			return -1;
		}
		rs->fd = fd;
		ev.events = EPOLLIN | EPOLLOUT;
		ev.data.ptr = rs;
		do
			ret = epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
		while (setup_again(ret));
		if (ret) {
			perror("epoll_ctl");
			return -1;
		}
	}
	return 0;
}

static int sockaddr_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port);
	return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
}

static int set_out(int epfd, struct rsock *rs, int want_out)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = rs };

	if (want_out)
		ev.events |= EPOLLOUT;
	rs->blocked = want_out;
	return epoll_ctl(epfd, EPOLL_CTL_MOD, rs->fd, &ev);
}

/*
 * Messages one pump_send() call sends before it lets the loop read: one
 * process both sends and receives, and a sender that went on until the
 * socket refused would leave the receivers unread for as long as that
 * takes (tens of seconds on a debug kernel, where a send costs tens of
 * ms), which looked like a stall.
 */
#define SEND_BATCH	16

/* Sends what this socket may; returns -1 on a hard error. */
static int pump_send(int epfd, struct rsock *rs, int *congested)
{
	int side = rs->side, tries, batch, ndst = 2 * nsocks;
	struct sockaddr_storage tmp;

	for (batch = 0;; batch++) {
		struct flow *f = NULL;
		struct rsock *dst;
		unsigned int len;
		ssize_t ret;
		int r = 0, to = 0, d = 0;

		/* Destinations 0..nsocks-1 are side A's, the rest B's. */
		for (tries = 0; tries < ndst; tries++) {
			d = (rs->next_dst + tries) % ndst;
			to = d / nsocks;
			r = d % nsocks;
			f = &flows[side][rs->idx][to][r];
			if (f->active && f->sent < f->total)
				break;
			f = NULL;
		}
		if (!f)
			return set_out(epfd, rs, 0);
		/* More to send: EPOLLOUT brings us back after the reads. */
		if (batch == SEND_BATCH)
			return set_out(epfd, rs, 1);
		dst = &socks[to][r];
		len = msg_size(side, rs->idx, to, r, f->sent);
		msg_fill(sbuf, len, msg_base(side, rs->idx, to, r, f->sent));
		ret = sendto(rs->fd, sbuf, len, 0, dst_addr(rs, dst, &tmp),
			     dst->addrlen);
		if (ret < 0) {
			rs->last_err = errno;
			rs->last_err_at = now();
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return set_out(epfd, rs, 1);
			if (errno == ENOMEM && enomem_ok) {
				enomem_seen++;
				return set_out(epfd, rs, 1);
			}
			if (errno == ENOBUFS) {
				/* The receiver is congested: try again later. */
				*congested = 1;
				return set_out(epfd, rs, 0);
			}
			fprintf(stderr, "sendto: %s\n", strerror(errno));
			return -1;
		}
		if ((size_t)ret != len) {
			fprintf(stderr, "short send %zd of %u\n", ret, len);
			return -1;
		}
		f->sent++;
		rs->next_dst = (d + 1) % ndst;
	}
}

static int same_host(const struct sockaddr_storage *a,
		     const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return 0;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		       &((const struct sockaddr_in6 *)b)->sin6_addr,
		       sizeof(struct in6_addr));
}

/* The sender's index in @side, or -1.  With -X its address says which
 * side it is (*side in, then out); else it is of the other side.
 */
static int find_sender(int *side, const struct sockaddr_storage *from)
{
	int i, d, port = sockaddr_port(from);

	for (d = 0; d < 2; d++) {
		if (!mesh && d != *side)
			continue;
		for (i = 0; i < nsocks; i++) {
			if (sockaddr_port(&socks[d][i].addr) != port ||
			    (mesh && !same_host(&socks[d][i].addr, from)))
				continue;
			*side = d;
			return i;
		}
	}
	return -1;
}

#define GOLDEN	0x9e3779b97f4a7c15ULL

/* Which message, of any flow, wrote word @v, and where in it. */
static void name_origin(uint64_t v)
{
	uint64_t inv = GOLDEN, k, seq;
	int i, d, s, to, r;

	/* The inverse of an odd number modulo 2^64, by Newton's iteration. */
	for (i = 0; i < 6; i++)
		inv *= 2 - GOLDEN * inv;
	for (i = 0; i < 4 * nsocks * nsocks; i++) {
		struct flow *f;

		r = i % nsocks;
		to = i / nsocks % 2;
		s = i / nsocks / 2 % nsocks;
		d = i / nsocks / 2 / nsocks;
		f = &flows[d][s][to][r];
		for (seq = 0; f->active && seq < f->total; seq++) {
			k = (v - msg_base(d, s, to, r, seq)) * inv;
			if (k >= (1 << 21) / 8)
				continue;
			fprintf(stderr,
				"    from %c%d -> %c%d message %llu (sent %llu, rcvd %llu) at offset %llu\n",
				"AB"[d], s, "AB"[to], r,
				(unsigned long long)seq,
				(unsigned long long)f->sent,
				(unsigned long long)f->rcvd,
				(unsigned long long)k * 8);
			return;
		}
	}
	fprintf(stderr, "    from no message: %016llx\n", (unsigned long long)v);
}

/*
 * Where a corrupt message went wrong: each run of bad words, and for its
 * first word the message (of any flow) and offset it came from. A stale
 * receive buffer or a reused send slot names an older message there.
 */
static void trace_bad_bytes(const unsigned char *buf, unsigned int len,
			    uint64_t base)
{
	unsigned int i, words = len / 8, start = 0, runs = 0;
	uint64_t w = base, v;
	int bad = 0;

	for (i = 0; i <= words && runs < 8; i++, w += GOLDEN) {
		int now_bad = 0;

		if (i < words) {
			memcpy(&v, buf + i * 8, 8);
			now_bad = v != w;
		}
		if (now_bad && !bad) {
			start = i;
			fprintf(stderr, "  bad from byte %u\n", i * 8);
			name_origin(v);
		} else if (!now_bad && bad) {
			fprintf(stderr, "  bad bytes %u..%u (%u bytes)\n",
				start * 8, i * 8 - 1, (i - start) * 8);
			runs++;
		}
		bad = now_bad;
	}
}

/* Explains a mismatch: a duplicate, a gap, or garbage. */
static void diagnose(const unsigned char *buf, unsigned int len, int side,
		     int s, int to, int r, uint64_t expect)
{
	int64_t d;

	for (d = -64; d <= 64; d++) {
		if (d == 0 || (int64_t)expect + d < 0)
			continue;
		if (msg_check(buf, len, side, s, to, r, expect + d)) {
			fprintf(stderr, "  it is message %lld (%s)\n",
				(long long)(expect + d),
				d < 0 ? "duplicate/old" : "messages lost/reordered");
			return;
		}
	}
	fprintf(stderr, "  it matches no nearby message (corrupt)\n");
	trace_bad_bytes(buf, len, msg_base(side, s, to, r, expect));
}

static int pump_recv(struct rsock *rs, int *extra)
{
	int side = rs->side, from_side;

	for (;;) {
		struct sockaddr_storage from;
		struct iovec iov = { .iov_base = rbuf, .iov_len = MAX_SIZE };
		struct msghdr msg = {
			.msg_name = &from, .msg_namelen = sizeof(from),
			.msg_iov = &iov, .msg_iovlen = 1,
		};
		struct flow *f;
		ssize_t ret;
		int s;

		ret = recvmsg(rs->fd, &msg, MSG_DONTWAIT);
		if (ret < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			if (errno == ENOMEM && enomem_ok) {
				enomem_seen++;
				return 0;
			}
			fprintf(stderr, "recvmsg: %s\n", strerror(errno));
			return -1;
		}
		if (ret == 0) {
			/* -S: the peer's sockets are bound (see wait_for_peer()). */
			got_hello = 1;
			continue;
		}
		if (msg.msg_flags & MSG_TRUNC) {
			fprintf(stderr, "truncated message\n");
			return -1;
		}
		from_side = !side;
		s = find_sender(&from_side, &from);
		if (s < 0) {
			fprintf(stderr, "message from unknown port %d\n",
				sockaddr_port(&from));
			return -1;
		}
		f = &flows[from_side][s][side][rs->idx];
		if (!f->active || f->rcvd >= f->total) {
			fprintf(stderr, "extra message on %c%d -> %c%d (len %zd)\n",
				"AB"[from_side], s, "AB"[side], rs->idx, ret);
			(*extra)++;
			return -1;
		}
		if (!msg_check(rbuf, ret, from_side, s, side, rs->idx, f->rcvd)) {
			fprintf(stderr,
				"%c%d -> %c%d: message %llu wrong (len %zd, expected %u)\n",
				"AB"[from_side], s, "AB"[side], rs->idx,
				(unsigned long long)f->rcvd, ret,
				msg_size(from_side, s, side, rs->idx, f->rcvd));
			diagnose(rbuf, ret, from_side, s, side, rs->idx, f->rcvd);
			return -1;
		}
		f->rcvd++;
	}
}

/* The flow of index @i, 0 .. 4 * nsocks * nsocks - 1, and its ends. */
static struct flow *flow_at(int i, int *d, int *s, int *to, int *r)
{
	*r = i % nsocks;
	i /= nsocks;
	*to = i % 2;
	i /= 2;
	*s = i % nsocks;
	*d = i / nsocks;
	return &flows[*d][*s][*to][*r];
}

#define NFLOWS	(4 * nsocks * nsocks)

static void totals(uint64_t *sent, uint64_t *rcvd, uint64_t *total)
{
	int i, d, s, to, r;

	*sent = *rcvd = *total = 0;
	for (i = 0; i < NFLOWS; i++) {
		struct flow *f = flow_at(i, &d, &s, &to, &r);

		*sent += f->sent;
		*rcvd += f->rcvd;
		*total += f->total;
	}
}

/*
 * What a timeout needs to be told apart: a refused send long ago is not
 * why the run is stuck now, and progress that stopped at some point is not
 * a run that was merely slow.
 */
static void report_pending(double last_progress)
{
	double t = now();
	struct flow *f;
	int i, d, s, to, r;

	fprintf(stderr, "  last message sent or received %.1fs ago\n",
		t - last_progress);
	for (d = 0; d < 2; d++)
		for (s = 0; s < nsocks; s++)
			if (socks[d][s].fd >= 0 && socks[d][s].last_err)
				fprintf(stderr, "  %c%d: %s, last refused send: %s, %.1fs ago\n",
					"AB"[d], s, socks[d][s].blocked ?
					"waits for EPOLLOUT" : "not waiting",
					strerror(socks[d][s].last_err),
					t - socks[d][s].last_err_at);
			else if (socks[d][s].fd >= 0)
				fprintf(stderr, "  %c%d: %s, no refused send\n",
					"AB"[d], s, socks[d][s].blocked ?
					"waits for EPOLLOUT" : "not waiting");

	for (i = 0; i < NFLOWS; i++) {
		f = flow_at(i, &d, &s, &to, &r);
		if (!f->active || f->rcvd == f->total)
			continue;
		fprintf(stderr, "  %c%d -> %c%d: sent %llu rcvd %llu of %llu\n",
			"AB"[d], s, "AB"[to], r,
			(unsigned long long)f->sent,
			(unsigned long long)f->rcvd,
			(unsigned long long)f->total);
	}
}

/*
 * -S: messages to a port nobody bound are dropped, so wait until the peer
 * is there: send empty messages from our first socket to its first until
 * one of its own arrives, then one more so that it knows of us as well.
 */
static int wait_for_peer(double timeout)
{
	struct rsock *me = &socks[only_side][0], *peer = &socks[!only_side][0];
	struct sockaddr_storage tmp;
	double start = now();
	int extra = 0;

	while (!got_hello) {
		sendto(me->fd, "", 0, 0, dst_addr(me, peer, &tmp),
		       peer->addrlen);
		usleep(100000);
		if (pump_recv(me, &extra))
			return -1;
		if (now() - start > timeout) {
			fprintf(stderr, "no hello from the peer\n");
			return -1;
		}
	}
	sendto(me->fd, "", 0, 0, dst_addr(me, peer, &tmp), peer->addrlen);
	return 0;
}

/*
 * Progress towards the end: messages received of those coming here, and
 * with -S also messages sent of those leaving from here.
 */
static void progress(uint64_t *have, uint64_t *want)
{
	struct flow *f;
	int i, d, s, to, r;

	*have = *want = 0;
	for (i = 0; i < NFLOWS; i++) {
		f = flow_at(i, &d, &s, &to, &r);
		*want += f->total;
		*have += only_side == d ? f->sent : f->rcvd;
	}
}

static void die_usage(void)
{
	fprintf(stderr,
		"usage: rds_traffic -a ADDR_A -b ADDR_B [-A NETNS_A] [-B NETNS_B]\n"
		"       [-p PORT] [-k SOCKETS] [-n MESSAGES] [-m MAX_SIZE]\n"
		"       [-d ab|ba|both] [-s SEED] [-t TIMEOUT_S] [-v] [-S a|b [-l S]]\n"
		"       [-T tcp|ib] [-M BIG_SIZE] [-R] [-X]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *addr_a = NULL, *addr_b = NULL, *ns_a = NULL, *ns_b = NULL;
	const char *dir = "both";
	uint64_t nmsgs = 10000, sent, rcvd, total, nflows = 0, i;
	double timeout = 120, start, last_print, last_rx = 0, linger = 5;
	int port = 5000, opt, epfd, d, s, to, r, self, congested = 0, extra = 0;
	uint64_t missed = 0, have, want, moved = 0, nth;
	double last_progress;

	while ((opt = getopt(argc, argv, "a:b:A:B:p:k:n:m:M:d:s:t:vS:l:T:RX")) != -1) {
		switch (opt) {
		case 'a':
			addr_a = optarg;
			break;
		case 'b':
			addr_b = optarg;
			break;
		case 'A':
			ns_a = optarg;
			break;
		case 'B':
			ns_b = optarg;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 'k':
			nsocks = atoi(optarg);
			break;
		case 'n':
			nmsgs = strtoull(optarg, NULL, 0);
			break;
		case 'm':
			max_size = strtoul(optarg, NULL, 0);
			break;
		case 'R':
			enomem_ok = 1;
			break;
		case 'X':
			mesh = 1;
			break;
		case 'M':
			big_size = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			dir = optarg;
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 't':
			timeout = atof(optarg);
			break;
		case 'S':
			only_side = optarg[0] == 'b';
			break;
		case 'l':
			linger = atof(optarg);
			break;
		case 'v':
			verbose++;
			break;
		case 'T':
			transport = !strcmp(optarg, "ib") ? RDS_TRANS_IB :
				    !strcmp(optarg, "tcp") ? RDS_TRANS_TCP : -2;
			if (transport < 0)
				die_usage();
			break;
		default:
			die_usage();
		}
	}
	if (!addr_a || !addr_b || nsocks < 1 || nsocks > MAX_SOCKS ||
	    max_size < 1 || max_size > MAX_SIZE || big_size > MAX_SIZE ||
	    (mesh && only_side >= 0))
		die_usage();

	sbuf = malloc(MAX_SIZE);
	rbuf = malloc(MAX_SIZE);
	self = open(("/proc/self/ns/net"), O_RDONLY | O_CLOEXEC);
	epfd = epoll_create1(0);
	if (!sbuf || !rbuf || self < 0 || epfd < 0) {
		perror("setup");
		return 1;
	}
	if (open_side(0, ns_a, addr_a, port, epfd) ||
	    open_side(1, ns_b, addr_b, port, epfd))
		return 1;
	setns(self, CLONE_NEWNET);

	for (i = 0; i < (uint64_t)NFLOWS; i++) {
		struct flow *f = flow_at(i, &d, &s, &to, &r);

		if (mesh) {
			f->active = d != to || s != r;
		} else {
			f->active = d != to &&
				    !(d == 0 && !strcmp(dir, "ba")) &&
				    !(d == 1 && !strcmp(dir, "ab"));
		}
		nflows += f->active;
	}
	/* Spread the messages over the flows, the remainder on the first ones. */
	for (i = 0, nth = 0; i < (uint64_t)NFLOWS; i++) {
		struct flow *f = flow_at(i, &d, &s, &to, &r);

		if (!f->active)
			continue;
		f->total = nmsgs / nflows + (nth < nmsgs % nflows);
		nth++;
	}

	if (only_side >= 0 && wait_for_peer(timeout))
		return 1;
	start = now();
	last_print = start;
	last_progress = start;
	for (;;) {
		struct epoll_event evs[2 * MAX_SOCKS];
		double t;
		int n, k;

		totals(&sent, &rcvd, &total);
		progress(&have, &want);
		t = now();
		if (sent + rcvd != moved) {
			moved = sent + rcvd;
			last_progress = t;
		}
		if (have == want) {
			if (!last_rx)
				last_rx = t;
			if (t - last_rx >= (only_side < 0 ? 1.0 : linger))
				break;		/* nothing extra came: done */
		}
		if (t - start > timeout) {
			fprintf(stderr, "timeout: sent %llu, received %llu of %llu\n",
				(unsigned long long)sent, (unsigned long long)rcvd,
				(unsigned long long)total);
			report_pending(last_progress);
			if (missed)
				fprintf(stderr, "  %llu readable without an EPOLLIN\n",
					(unsigned long long)missed);
			return 1;
		}
		if (verbose && t - last_print >= 1.0) {
			fprintf(stderr, "%.0fs: sent %llu received %llu of %llu\n",
				t - start, (unsigned long long)sent,
				(unsigned long long)rcvd, (unsigned long long)total);
			last_print = t;
		}
		n = epoll_wait(epfd, evs, 2 * MAX_SOCKS, congested ? 10 : 100);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("epoll_wait");
			return 1;
		}
		for (k = 0; k < n; k++) {
			struct rsock *rs = evs[k].data.ptr;

			if ((evs[k].events & EPOLLIN) && pump_recv(rs, &extra))
				return 1;
			if ((evs[k].events & EPOLLOUT) &&
			    pump_send(epfd, rs, &congested))
				return 1;
		}
		/*
		 * Nothing happened for a while: look at every socket anyway,
		 * counting messages that arrived without an EPOLLIN.
		 */
		if (n == 0) {
			uint64_t before = rcvd;

			for (d = 0; d < 2; d++)
				for (s = 0; s < nsocks; s++)
					if (socks[d][s].fd >= 0 &&
					    pump_recv(&socks[d][s], &extra))
						return 1;
			totals(&sent, &rcvd, &total);
			missed += rcvd - before;
		}
		/* Sockets not waiting for EPOLLOUT: congested, or done. */
		if (n == 0 || congested) {
			congested = 0;
			for (d = 0; d < 2; d++)
				for (s = 0; s < nsocks; s++)
					if (socks[d][s].fd >= 0 && !socks[d][s].blocked &&
					    pump_send(epfd, &socks[d][s], &congested))
						return 1;
		}
	}
	totals(&sent, &rcvd, &total);
	if (missed)
		fprintf(stderr, "%llu messages were readable without an EPOLLIN\n",
			(unsigned long long)missed);
	printf("ok: %llu messages in %llu flows, exactly once and in order, %.1fs\n",
	       (unsigned long long)rcvd, (unsigned long long)nflows, now() - start);
	if (enomem_ok)
		printf("ENOMEM, tried again: %llu times\n",
		       (unsigned long long)enomem_seen);
	return extra ? 1 : 0;
}
