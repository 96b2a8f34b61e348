// SPDX-License-Identifier: GPL-2.0
/*
 * rds_pipeline: a sender whose buffers are just big enough for its
 * pipeline, as the classic rds-stress sizes them, keeps DEPTH messages in
 * flight to an echoing peer, and measures how long each send waits after
 * the peer's answer freed its slot (issue #22).
 *
 *   rds_pipeline -a ADDR_A -b ADDR_B [-A NETNS_A] [-B NETNS_B] [-p PORT]
 *                [-T tcp|ib] [-m block|poll|epoll] [-n MESSAGES] [-d DEPTH]
 *                [-s SIZE] [-S BUFFER] [-w BOUND_MS] [-t TIMEOUT_S]
 *
 * The sender (ADDR_A, namespace A) and the echo (ADDR_B, namespace B)
 * both set SO_SNDBUF and SO_RCVBUF to BUFFER (default 2048: depth 8 of
 * 64-byte requests and 64-byte answers, times two, the classic formula).
 * The echo answers every request with a copy, from a thread of its own,
 * blocking.  The sender's answer is its acknowledgment by the peer: from
 * the moment it has it, the next send must go.  -m block: a blocking
 * sendmsg(), timed from the answer to its return; poll, epoll: a
 * non-blocking socket, timed from the answer to the POLLOUT that lets
 * the next send go (and to the send's success, should it be refused).
 *
 * Every request and answer is checked exactly once and in order.  Exit
 * status 0 when all arrived, no more than OUTLIERS waits (-W, default 0)
 * exceeded BOUND_MS (default 100), none ten times that, and no send was
 * refused (EAGAIN, ENOBUFS): the pipeline fits the buffers, so a refusal
 * is a stall in the making, whatever its length.  A stall of the stack's
 * own comes every few messages (issue #22 had one in three) or never
 * ends; a guest vCPU the host did not run for a while (two-CPU guests
 * beside others on two cores) delays one wait now and then.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>
#include <linux/rds.h>

#include "../common/rds_sock.h"

enum mode { MODE_BLOCK, MODE_POLL, MODE_EPOLL };

struct opts {
	const char *addr_a, *addr_b, *ns_a, *ns_b;
	int port, transport, buffer, depth, size, timeout_s;
	unsigned int count, outliers;
	double bound_ms;
	enum mode mode;
};

struct waits {
	unsigned int n, over, refused;
	double max_ms, sum_ms;
};

static struct opts o = {
	.port = 4600, .transport = -1, .buffer = 2048, .depth = 8, .size = 64,
	.timeout_s = 120, .count = 2000, .bound_ms = 100, .mode = MODE_POLL,
};

static union addr peer_a, peer_b;
static socklen_t peer_a_len, peer_b_len;
static int echo_failed;		/* atomics: the echo thread sets it */

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void enter_netns(const char *ns)
{
	char path[256];
	int fd;

	if (!ns)
		return;
	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	fd = open(path, O_RDONLY);
	if (fd < 0 || setns(fd, CLONE_NEWNET))
		ktap_bail("netns %s", ns);
	close(fd);
}

/* A socket of namespace @ns bound to @addr, with the classic buffers. */
static int pipeline_socket(const char *ns, const char *addr, int port)
{
	struct timeval tv = { .tv_sec = o.timeout_s };
	int self = open("/proc/self/ns/net", O_RDONLY);
	union addr a;
	socklen_t len = addr_make(&a, addr, port);
	int fd;

	enter_netns(ns);
	fd = socket(AF_RDS, SOCK_SEQPACKET, 0);
	if (fd < 0)
		ktap_bail("socket(AF_RDS)");
	if (o.transport >= 0 &&
	    setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &o.transport, sizeof(o.transport)))
		ktap_bail("SO_RDS_TRANSPORT");
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &o.buffer, sizeof(o.buffer)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &o.buffer, sizeof(o.buffer)))
		ktap_bail("SO_SNDBUF/SO_RCVBUF");
	/* A blocking call that never returns would hang the test. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		ktap_bail("SO_RCVTIMEO/SO_SNDTIMEO");
	if (bind(fd, &a.sa, len))
		ktap_bail("bind %s:%d", addr, port);
	if (self < 0 || setns(self, CLONE_NEWNET))
		ktap_bail("back to our netns");
	close(self);
	return fd;
}

/* The echo: every request back to its sender, in order. */
static void *echo_main(void *arg)
{
	int fd = *(int *)arg;
	unsigned char buf[65536];
	uint32_t seq;
	unsigned int i;
	ssize_t n;

	for (i = 0; i < o.count; i++) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n != o.size) {
			fprintf(stderr, "echo: request %u: %zd bytes (%s)\n", i, n,
				n < 0 ? strerror(errno) : "wrong size");
			__atomic_store_n(&echo_failed, 1, __ATOMIC_RELAXED);
			return NULL;
		}
		memcpy(&seq, buf, sizeof(seq));
		if (seq != i) {
			fprintf(stderr, "echo: request %u came as %u\n", i, seq);
			__atomic_store_n(&echo_failed, 1, __ATOMIC_RELAXED);
			return NULL;
		}
		if (sendto(fd, buf, n, 0, &peer_a.sa, peer_a_len) != n) {
			fprintf(stderr, "echo: answer %u: %s\n", i, strerror(errno));
			__atomic_store_n(&echo_failed, 1, __ATOMIC_RELAXED);
			return NULL;
		}
	}
	return NULL;
}

/* Sends request @seq; false when refused (EAGAIN, ENOBUFS: counted). */
static bool send_request(int fd, uint32_t seq, struct waits *w)
{
	unsigned char buf[65536];
	int flags = o.mode == MODE_BLOCK ? 0 : MSG_DONTWAIT;

	memset(buf, (unsigned char)seq, o.size);
	memcpy(buf, &seq, sizeof(seq));
	if (sendto(fd, buf, o.size, flags, &peer_b.sa, peer_b_len) == o.size)
		return true;
	if (errno != EAGAIN && errno != ENOBUFS)
		ktap_bail("send %u", seq);
	w->refused++;
	return false;
}

/* Takes the next answer; false when none is there yet (non-blocking). */
static bool take_answer(int fd, uint32_t want)
{
	unsigned char buf[65536];
	uint32_t seq;
	ssize_t n;

	n = recv(fd, buf, sizeof(buf), o.mode == MODE_BLOCK ? 0 : MSG_DONTWAIT);
	if (n < 0 && errno == EAGAIN)
		return false;
	if (n != o.size)
		ktap_bail("answer %u: %zd bytes", want, n);
	memcpy(&seq, buf, sizeof(seq));
	if (seq != want)
		ktap_bail("answer %u came as %u", want, seq);
	return true;
}

static void wait_done(struct waits *w, double from)
{
	double ms = now_ms() - from;

	w->n++;
	w->sum_ms += ms;
	if (ms > w->max_ms)
		w->max_ms = ms;
	if (ms > o.bound_ms)
		w->over++;
}

/* Level-triggered readiness of @fd for @events, or 0 on the timeout. */
static unsigned int wait_ready(int fd, int ep, unsigned int events)
{
	struct epoll_event ev = { .events = events };
	struct pollfd pfd = { .fd = fd, .events = events };

	if (o.mode == MODE_POLL)
		return poll(&pfd, 1, 1000) > 0 ? pfd.revents : 0;
	if (epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev))
		ktap_bail("epoll_ctl");
	return epoll_wait(ep, &ev, 1, 1000) > 0 ? ev.events : 0;
}

/*
 * Keeps o.depth requests in flight.  A slot frees when its answer comes;
 * then the send of the next request is timed until it went.
 */
static void run_sender(int fd, struct waits *w)
{
	uint32_t sent = 0, answered = 0;
	double deadline = now_ms() + o.timeout_s * 1e3, freed = -1;
	struct epoll_event ev = { .events = EPOLLIN };
	int ep = -1;
	unsigned int ready;
	bool want_send;

	if (o.mode == MODE_EPOLL) {
		ep = epoll_create1(0);
		if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
			ktap_bail("epoll");
	}
	while (answered < o.count) {
		if (now_ms() > deadline || __atomic_load_n(&echo_failed, __ATOMIC_RELAXED))
			ktap_bail("%u of %u answers after %d s", answered, o.count, o.timeout_s);
		if (o.mode == MODE_BLOCK) {
			if (sent < o.count && sent - answered < (uint32_t)o.depth) {
				if (send_request(fd, sent, w))
					sent++;
				if (freed >= 0)
					wait_done(w, freed);
				freed = -1;
				continue;
			}
			take_answer(fd, answered);
			answered++;
			freed = now_ms();
			continue;
		}
		/* Non-blocking: a send only once POLLOUT said so. */
		want_send = sent < o.count && sent - answered < (uint32_t)o.depth;

		ready = wait_ready(fd, ep, POLLIN | (want_send ? POLLOUT : 0));
		if (want_send && (ready & POLLOUT)) {
			if (send_request(fd, sent, w)) {
				sent++;
				if (freed >= 0)
					wait_done(w, freed);
				freed = -1;
			}
		}
		while ((ready & POLLIN) && answered < sent && take_answer(fd, answered)) {
			answered++;
			if (freed < 0 && sent < o.count)
				freed = now_ms();
		}
	}
	if (ep >= 0)
		close(ep);
}

static void print_usage(void)
{
	fprintf(stderr, "usage: rds_pipeline -a ADDR_A -b ADDR_B [-A NS] [-B NS] [-p PORT]\n"
		"  [-T tcp|ib] [-m block|poll|epoll] [-n N] [-d DEPTH] [-s SIZE] [-S BUFFER]\n"
		"  [-w BOUND_MS] [-W OUTLIERS] [-t TIMEOUT_S]\n");
	exit(2);
}

static void parse(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "a:b:A:B:p:T:m:n:d:s:S:w:W:t:")) != -1) {
		switch (c) {
		case 'a':
			o.addr_a = optarg;
			break;
		case 'b':
			o.addr_b = optarg;
			break;
		case 'A':
			o.ns_a = optarg;
			break;
		case 'B':
			o.ns_b = optarg;
			break;
		case 'p':
			o.port = atoi(optarg);
			break;
		case 'T':
			o.transport = strcmp(optarg, "ib") ? RDS_TRANS_TCP : RDS_TRANS_IB;
			break;
		case 'm':
			o.mode = !strcmp(optarg, "block") ? MODE_BLOCK :
				 !strcmp(optarg, "epoll") ? MODE_EPOLL : MODE_POLL;
			break;
		case 'n':
			o.count = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			o.depth = atoi(optarg);
			break;
		case 's':
			o.size = atoi(optarg);
			break;
		case 'S':
			o.buffer = atoi(optarg);
			break;
		case 'w':
			o.bound_ms = atof(optarg);
			break;
		case 'W':
			o.outliers = atoi(optarg);
			break;
		case 't':
			o.timeout_s = atoi(optarg);
			break;
		default:
			print_usage();
		}
	}
	if (!o.addr_a || !o.addr_b || o.depth < 1 || o.size < 4 || o.size > 65536)
		print_usage();
}

int main(int argc, char **argv)
{
	static const char *const modes[] = { "block", "poll", "epoll" };
	struct waits w = { 0 };
	pthread_t echo;
	int a, b;

	parse(argc, argv);
	peer_a_len = addr_make(&peer_a, o.addr_a, o.port);
	peer_b_len = addr_make(&peer_b, o.addr_b, o.port + 1);
	a = pipeline_socket(o.ns_a, o.addr_a, o.port);
	b = pipeline_socket(o.ns_b, o.addr_b, o.port + 1);
	if (pthread_create(&echo, NULL, echo_main, &b))
		ktap_bail("pthread_create");
	run_sender(a, &w);
	pthread_join(echo, NULL);

	printf("%s: %u messages of %d B, depth %d, buffers %d: ", modes[o.mode], o.count,
	       o.size, o.depth, o.buffer);
	printf("%u waits, mean %.2f ms, max %.2f ms, %u over %.0f ms, %u sends refused\n",
	       w.n, w.n ? w.sum_ms / w.n : 0, w.max_ms, w.over, o.bound_ms, w.refused);
	close(a);
	close(b);
	return __atomic_load_n(&echo_failed, __ATOMIC_RELAXED) || w.over > o.outliers ||
	       w.max_ms > 10 * o.bound_ms || w.refused ? 1 : 0;
}
