// SPDX-License-Identifier: GPL-2.0
/*
 * One rds-stress task: an RDS socket bound to port+1+idx that keeps
 * "depth" requests in flight to every task of the peer and acks every
 * request it receives. The socket is non-blocking so that a full send
 * queue never stops the task from receiving, which could deadlock two
 * tasks that both wait to send. With -D, stress-rdma.c adds the RDMA
 * to requests and acks, and the statuses come in with the messages.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/rds.h>

#include "rdstool.h"
#include "rds-stress.h"

/* Messages handled per wakeup before sending again. */
#define RECV_BATCH	64
/* RDMA statuses taken per recvmsg() */
#define STATUS_BATCH	32

int stress_stop;
int stress_quit;

static bool stopping(void)
{
	return __atomic_load_n(&stress_stop, __ATOMIC_RELAXED);
}

/*
 * Room for everything that can be in flight on this socket, with slack:
 * RDS counts only half of the buffer size, and a receiver over its limit
 * marks its port congested, which stalls every sender.  --classic-io asks
 * for what the classic tool asks, no more: just the pipeline, twice, with
 * the plain options, which the kernel caps at wmem_max and rmem_max.
 */
static void size_buffers(int fd, const struct stress_opts *o)
{
	uint64_t want = (uint64_t)o->tasks * o->depth * (o->req_bytes + o->ack_bytes);
	int size;

	if (o->classic_io) {
		size = want * 2 > INT_MAX ? INT_MAX : (int)(want * 2);
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
		return;
	}
	want = want * 4 + 256 * 1024;
	size = want > (1U << 30) ? 1 << 30 : (int)want;
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
}

void task_open(struct task *t, const struct stress_run *r)
{
	const struct stress_opts *o = &r->o;
	struct sockaddr_storage me = r->local;
	size_t max = o->req_bytes > o->ack_bytes ? o->req_bytes : o->ack_bytes;

	t->run = r;
	t->fd = rds_socket();
	size_buffers(t->fd, o);
	addr_set_port(&me, r->port + 1 + t->idx);
	rds_bind(t->fd, &me);
	/* The TOS goes through the transport, which bind() picks. */
	if (o->tos)
		rds_set_tos(t->fd, o->tos);
	if (o->rdma_bytes)
		rdma_open(t);

	t->outstanding = xcalloc(o->tasks, sizeof(*t->outstanding));
	t->owed_head = xcalloc(o->tasks, sizeof(*t->owed_head));
	t->owed_count = xcalloc(o->tasks, sizeof(*t->owed_count));
	t->owed_ts = xcalloc((size_t)o->tasks * o->depth, sizeof(*t->owed_ts));
	t->buf = xcalloc(1, max);
}

void task_close(struct task *t)
{
	close(t->fd);
	rdma_close(t);
	free(t->outstanding);
	free(t->owed_head);
	free(t->owed_count);
	free(t->owed_ts);
	free(t->buf);
}

/* The verify pattern depends on the sequence number and the offset. */
static uint8_t pattern(uint32_t seq, size_t i)
{
	return (uint8_t)(seq * 13 + i * 7 + (i >> 8));
}

static bool pattern_ok(const char *buf, size_t len, uint32_t seq)
{
	size_t i;

	for (i = sizeof(struct stress_hdr); i < len; i++)
		if ((uint8_t)buf[i] != pattern(seq, i))
			return false;
	return true;
}

static __noreturn void send_failed(const struct task *t, const struct sockaddr_storage *to)
{
	if (errno == EOPNOTSUPP && t->rdma)
		die("task %u: RDMA to %s refused (EOPNOTSUPP): -D needs RDS/IB",
		    t->idx, addr_str(to));
	die_errno("task %u: cannot send to %s", t->idx, addr_str(to));
}

/*
 * Returns false when the message cannot go right now. An ack goes to ring
 * index @owed's request.
 */
static bool send_msg(struct task *t, unsigned int peer, int type, uint64_t ts,
		     unsigned int owed)
{
	const struct stress_run *r = t->run;
	struct sockaddr_storage to = r->peer;
	struct stress_hdr *h = (struct stress_hdr *)t->buf;
	size_t len = type == MSG_REQ ? r->o.req_bytes : r->o.ack_bytes;
	struct iovec iov = { .iov_base = t->buf, .iov_len = len };
	struct msghdr m = {
		.msg_name = &to,
		.msg_namelen = addr_len(&to),
		.msg_iov = &iov,
		.msg_iovlen = 1,
	};
	uint64_t start;
	ssize_t ret;
	size_t i;

	memset(h, 0, sizeof(*h));
	h->magic = htonl(STRESS_MAGIC);
	h->type = type;
	h->from_task = htons(t->idx);
	h->seq = htonl(++t->seq);
	h->len = htonl(len);
	h->sent_ns = htobe64(ts);
	if (r->o.verify)
		for (i = sizeof(*h); i < len; i++)
			t->buf[i] = pattern(t->seq, i);
	if (t->rdma && type == MSG_REQ && !rdma_req_build(t, peer, h, &m))
		return false;
	if (t->rdma && type == MSG_ACK)
		rdma_ack_build(t, peer, owed, h, &m);

	addr_set_port(&to, r->port + 1 + peer);
	start = now_ns();
	ret = sendmsg(t->fd, &m, MSG_DONTWAIT);
	stat_add(t->stats.tx_ns, now_ns() - start);
	if (t->rdma && type == MSG_REQ)
		rdma_req_sent(t, peer, h, ret >= 0);
	if (ret < 0) {
		if (errno == EAGAIN || errno == ENOBUFS || errno == EINTR)
			return false;
		send_failed(t, &to);
	}
	if (t->rdma && type == MSG_ACK)
		rdma_ack_sent(t, peer, h);
	stat_add(t->stats.tx_msgs, 1);
	stat_add(t->stats.tx_bytes, len);
	return true;
}

/* Whether the task sends requests now: not once stopping, and with
 * --one-way only on the active side.
 */
static bool task_requests(const struct task *t)
{
	return !stopping() && (t->run->active || !t->run->o.one_way);
}

/* Owed acks first: they are what unblocks the peer. */
static void send_pending(struct task *t)
{
	const struct stress_opts *o = &t->run->o;
	unsigned int p;
	uint32_t slot;

	t->blocked = false;
	for (p = 0; p < o->tasks; p++) {
		while (t->owed_count[p]) {
			/* An RDMA status will make room: no need to poll for it. */
			if (t->rdma && !rdma_ack_ready(t, p, t->owed_head[p]))
				break;
			slot = p * o->depth + t->owed_head[p];
			if (!send_msg(t, p, MSG_ACK, t->owed_ts[slot], t->owed_head[p]))
				goto blocked;
			t->owed_head[p] = (t->owed_head[p] + 1) % o->depth;
			t->owed_count[p]--;
		}
	}
	for (p = 0; p < o->tasks && task_requests(t); p++) {
		while (t->outstanding[p] < o->depth) {
			if (!send_msg(t, p, MSG_REQ, now_ns(), 0))
				goto blocked;
			t->outstanding[p]++;
		}
	}
	return;
blocked:
	t->blocked = true;
}

/* Which peer task sent this, or -1 if it is not one of ours. */
static int peer_of(const struct task *t, const struct sockaddr_storage *from)
{
	const struct stress_run *r = t->run;
	unsigned int port = addr_port(from);

	if (!addr_equal(from, &r->peer) || port <= r->port || port > r->port + r->o.tasks)
		return -1;
	return port - r->port - 1;
}

static void handle_msg(struct task *t, int peer, size_t len, uint64_t cookie)
{
	const struct stress_opts *o = &t->run->o;
	struct stress_hdr *h = (struct stress_hdr *)t->buf;
	uint32_t slot;

	if (len < sizeof(*h) || ntohl(h->magic) != STRESS_MAGIC || ntohl(h->len) != len) {
		stat_add(t->stats.dropped, 1);
		return;
	}
	stat_add(t->stats.rx_msgs, 1);
	stat_add(t->stats.rx_bytes, len);
	if (o->verify && !pattern_ok(t->buf, len, ntohl(h->seq)))
		stat_add(t->stats.verify_errors, 1);

	if (h->type == MSG_REQ) {
		if (t->owed_count[peer] == o->depth) {
			/* more than depth in flight: the peer broke the rules */
			stat_add(t->stats.dropped, 1);
			return;
		}
		slot = (t->owed_head[peer] + t->owed_count[peer]) % o->depth;
		t->owed_ts[peer * o->depth + slot] = be64toh(h->sent_ns);
		if (t->rdma)
			rdma_req_received(t, peer, slot, h, cookie);
		t->owed_count[peer]++;
	} else if (h->type == MSG_ACK && t->outstanding[peer]) {
		uint64_t rtt = now_ns() - be64toh(h->sent_ns);

		t->outstanding[peer]--;
		stat_add(t->stats.rtt_ns, rtt);
		stat_add(t->stats.rtt_count, 1);
		stat_add(t->stats.rtt_hist[rtt_bucket(rtt)], 1);
		if (t->rdma)
			rdma_ack_received(t, peer, h);
	}
}

/*
 * The cmsgs of one recvmsg(): RDMA statuses, which come alone, or the
 * cookie of the region a request lends us.
 */
static uint64_t take_cmsgs(struct task *t, struct msghdr *m)
{
	struct rds_rdma_notify n;
	struct cmsghdr *c;
	uint64_t cookie = 0;

	for (c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		if (c->cmsg_level != SOL_RDS)
			continue;
		if (c->cmsg_type == RDS_CMSG_RDMA_STATUS &&
		    c->cmsg_len >= CMSG_LEN(sizeof(n))) {
			memcpy(&n, CMSG_DATA(c), sizeof(n));
			rdma_status(t, n.user_token, n.status);
		} else if (c->cmsg_type == RDS_CMSG_RDMA_DEST &&
			   c->cmsg_len >= CMSG_LEN(sizeof(cookie))) {
			memcpy(&cookie, CMSG_DATA(c), sizeof(cookie));
		}
	}
	return cookie;
}

static void recv_batch(struct task *t)
{
	const struct stress_opts *o = &t->run->o;
	size_t max = o->req_bytes > o->ack_bytes ? o->req_bytes : o->ack_bytes;
	union {
		char buf[CMSG_SPACE(sizeof(struct rds_rdma_notify)) * STATUS_BATCH];
		struct cmsghdr align;
	} ctl;
	struct sockaddr_storage from;
	struct iovec iov = { .iov_base = t->buf, .iov_len = max };
	struct msghdr m;
	uint64_t cookie;
	ssize_t len;
	int i, peer;

	for (i = 0; i < RECV_BATCH; i++) {
		m = (struct msghdr){
			.msg_name = &from,
			.msg_namelen = sizeof(from),
			.msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = ctl.buf,
			.msg_controllen = sizeof(ctl.buf),
		};
		len = recvmsg(t->fd, &m, MSG_DONTWAIT | MSG_TRUNC);
		if (len < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			die_errno("task %u: receive", t->idx);
		}
		cookie = take_cmsgs(t, &m);
		if (!m.msg_namelen)
			continue;	/* statuses only */
		peer = peer_of(t, &from);
		if (peer < 0 || (size_t)len > max) {
			stat_add(t->stats.dropped, 1);
			continue;
		}
		handle_msg(t, peer, len, cookie);
	}
}

/* Nothing of ours unanswered, nothing owed, no RDMA without a status. */
static bool task_idle(const struct task *t)
{
	unsigned int p;

	for (p = 0; p < t->run->o.tasks; p++)
		if (t->outstanding[p] || t->owed_count[p])
			return false;
	return !rdma_in_flight(t);
}

/*
 * Without -D a task ends at stress_stop. With it, it tells the parent
 * when its requests are all answered (drained) and goes on answering
 * the peer's until stress_quit: 1 once idle, 2 at once.
 */
static bool task_done(struct task *t)
{
	unsigned int p;
	bool drained = true;
	int quit;

	if (!stopping())
		return false;
	if (!t->rdma)
		return true;
	for (p = 0; p < t->run->o.tasks; p++)
		drained &= !t->outstanding[p];
	__atomic_store_n(&t->drained, drained, __ATOMIC_RELAXED);
	quit = __atomic_load_n(&stress_quit, __ATOMIC_RELAXED);
	return quit > 1 || (quit && task_idle(t));
}

/* Whether the task has an ack to send, or room for a request. */
static bool task_wants_send(const struct task *t)
{
	const struct stress_opts *o = &t->run->o;
	unsigned int p;

	for (p = 0; p < o->tasks; p++)
		if (t->owed_count[p] || (task_requests(t) && t->outstanding[p] < o->depth))
			return true;
	return false;
}

/*
 * The classic tool's rhythm: wait for POLLIN only, and for POLLOUT as
 * well only once there is something to send; send only after poll()
 * reported POLLOUT. So every send waits for a POLLOUT, and a socket
 * whose POLLOUT comes late, or lies, shows here as it does there.
 */
static void task_loop_classic(struct task *t)
{
	struct pollfd pfd = { .fd = t->fd, .events = POLLIN | POLLOUT };

	while (!task_done(t)) {
		if (poll(&pfd, 1, 100) <= 0) {
			pfd.events = POLLIN | POLLOUT;
			continue;
		}
		if (pfd.revents & POLLIN)
			recv_batch(t);
		if (pfd.revents & POLLOUT)
			send_pending(t);
		pfd.events = POLLIN;
		if (task_wants_send(t))
			pfd.events |= POLLOUT;
	}
}

void *task_main(void *arg)
{
	struct task *t = arg;
	struct pollfd pfd = { .fd = t->fd };

	if (t->run->o.classic_io) {
		task_loop_classic(t);
		__atomic_store_n(&t->ended, true, __ATOMIC_RELEASE);
		return NULL;
	}
	while (!task_done(t)) {
		send_pending(t);
		/*
		 * Blocked on a congested peer, POLLOUT can stay set while
		 * sends still fail: then just retry after a short nap.
		 */
		pfd.events = POLLIN | (t->blocked ? POLLOUT : 0);
		if (poll(&pfd, 1, t->blocked ? 1 : 100) > 0 && (pfd.revents & POLLIN))
			recv_batch(t);
		else if (t->blocked)
			poll(NULL, 0, 1);
	}
	__atomic_store_n(&t->ended, true, __ATOMIC_RELEASE);
	return NULL;
}
