// SPDX-License-Identifier: GPL-2.0
/*
 * rds_smp: threads racing on one RDS socket, on every CPU at once, for
 * test_smp_stress.sh.
 *
 *   rds_smp -l ADDR -r PEER -p PORT [-T tcp|ib] [-s SECONDS] [-c FIRST_CPU]
 *
 * One socket bound to ADDR:PORT is shared by five threads; thread i runs
 * pinned to CPU (FIRST_CPU + i) % ncpus, so that on two CPUs two of them
 * are always in the kernel at the same moment:
 *
 *   send     messages of 12 B .. 8 KiB to PEER:PORT (one in sixteen to
 *            PORT + 1, where nobody listens), non-blocking
 *   recv     reads what comes, each message checked against its header
 *   poll     poll() for POLLIN and POLLOUT
 *   sockopt  SO_SNDBUF, SO_RCVBUF, RDS_CONG_MONITOR, SO_RDS_TRANSPORT,
 *            RDS_GET_MR then RDS_FREE_MR, RDS_CANCEL_SENT_TO, RDS_INFO
 *   churn    throwaway sockets bound, sent from and closed at once; and
 *            every tenth round the shared socket itself replaced (dup2) by
 *            a new one bound to the same port, the old one released while
 *            the others may still be in a call on it
 *
 * Any call may fail, as connections are reset and devices removed under
 * it: failures are counted and printed by errno at the end. A message
 * whose content is not what its header says, or an errno that no call
 * here may return (EFAULT, EBADF, ENOTSOCK), fails the run. Exit 0 when
 * every thread ran for SECONDS (default 10) and nothing failed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/rds.h>

#include "../common/rds_sock.h"

#ifndef SOL_RDS
#define SOL_RDS 276
#endif

#define MAGIC		0x52445353u	/* "RDSS" */
#define MAX_MSG		8192
#define NR_ERRNO	256

struct hdr {
	uint32_t magic;
	uint32_t len;
	uint32_t seed;
};

static const char *laddr;
static union addr local, peer, nobody;
static socklen_t addrlen;
static int transport = -1;
static int sfd;				/* the shared socket's number */
static int stop;
static int first_cpu, ncpus;
static unsigned long errs[NR_ERRNO];
static unsigned long sent, rcvd, notes, replaced, bad;

/* A failed call: counted, unless no call here may fail so. */
static void failed(const char *what)
{
	int e = errno;

	if (e == EFAULT || e == EBADF || e == ENOTSOCK) {
		fprintf(stderr, "%s: %s\n", what, strerror(e));
		__atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
	}
	__atomic_add_fetch(&errs[e < NR_ERRNO ? e : 0], 1, __ATOMIC_RELAXED);
}

static int stopped(void)
{
	return __atomic_load_n(&stop, __ATOMIC_RELAXED);
}

static void count(unsigned long *c)
{
	__atomic_add_fetch(c, 1, __ATOMIC_RELAXED);
}

static void wait_for(int fd, short events)
{
	struct pollfd p = { .fd = fd, .events = events };

	poll(&p, 1, 10);
}

static unsigned int rnd(unsigned int *state)
{
	*state = *state * 1103515245u + 12345u;
	return *state >> 8;
}

static void fill(unsigned char *buf, uint32_t len, uint32_t seed)
{
	struct hdr h = { MAGIC, len, seed };
	uint32_t i;

	memcpy(buf, &h, sizeof(h));
	for (i = sizeof(h); i < len; i++)
		buf[i] = (unsigned char)(seed + i * 31);
}

static int check(const unsigned char *buf, ssize_t len)
{
	struct hdr h;
	uint32_t i;

	if (len < (ssize_t)sizeof(h))
		return -1;
	memcpy(&h, buf, sizeof(h));
	if (h.magic != MAGIC || h.len != len)
		return -1;
	for (i = sizeof(h); i < len; i++)
		if (buf[i] != (unsigned char)(h.seed + i * 31))
			return -1;
	return 0;
}

/* A new socket, on the transport asked for, bound to ADDR:@port. */
static int new_socket(int port)
{
	union addr a;
	int fd, i;

	fd = socket(AF_RDS, SOCK_SEQPACKET, 0);
	if (fd < 0) {
		failed("socket");
		return -1;
	}
	if (transport >= 0 &&
	    setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &transport, sizeof(transport)))
		failed("SO_RDS_TRANSPORT");
	addr_make(&a, laddr, port);
	/* The old socket of the port may still be on its way out. */
	for (i = 0; i < 200; i++) {
		if (!bind(fd, &a.sa, addrlen))
			return fd;
		if (errno != EADDRINUSE || !port)
			break;
		usleep(1000);
	}
	failed("bind");
	return fd;
}

static void *do_send(void *arg)
{
	static unsigned char buf[MAX_MSG];
	unsigned int r = 1;

	while (!stopped()) {
		uint32_t len = sizeof(struct hdr) + rnd(&r) % (MAX_MSG - sizeof(struct hdr));
		union addr *to = rnd(&r) % 16 ? &peer : &nobody;

		fill(buf, len, r);
		if (sendto(sfd, buf, len, MSG_DONTWAIT, &to->sa, addrlen) < 0) {
			failed("sendto");
			if (errno == EAGAIN || errno == ENOBUFS)
				wait_for(sfd, POLLOUT);
			else
				usleep(1000);	/* an unbound socket, for one */
		} else {
			count(&sent);
			/* Room for the checked traffic on the same CPUs. */
			usleep(200);
		}
	}
	return NULL;
}

static void *do_recv(void *arg)
{
	static unsigned char buf[MAX_MSG + 64];
	char cbuf[256];

	while (!stopped()) {
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr msg = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
		};
		ssize_t ret = recvmsg(sfd, &msg, MSG_DONTWAIT);

		if (ret < 0) {
			if (errno != EAGAIN)
				failed("recvmsg");
			wait_for(sfd, POLLIN);
		} else if (ret == 0 && msg.msg_controllen) {
			count(&notes);	/* a congestion update */
		} else if (check(buf, ret) || (msg.msg_flags & MSG_TRUNC)) {
			fprintf(stderr, "received %zd bytes that are not what they say\n",
				ret);
			count(&bad);
		} else {
			count(&rcvd);
		}
	}
	return NULL;
}

static void *do_poll(void *arg)
{
	while (!stopped()) {
		struct pollfd p = { .fd = sfd, .events = POLLIN | POLLOUT };

		if (poll(&p, 1, 10) < 0)
			failed("poll");
		else if (p.revents & POLLNVAL)
			count(&bad);
		if (p.revents & POLLOUT)
			usleep(1000);	/* not a busy loop while writable */
	}
	return NULL;
}

static void *do_sockopt(void *arg)
{
	static char info[65536];
	static unsigned char region[2 * 4096];
	unsigned int r = 2, i = 0;

	while (!stopped()) {
		int v = 4096 + rnd(&r) % (1 << 20), on = i & 1, t = rnd(&r) % 3;
		uint64_t cookie = 0;
		struct rds_get_mr_args mr = {
			.vec = { (uintptr_t)region, sizeof(region) },
			.cookie_addr = (uintptr_t)&cookie,
			.flags = RDS_RDMA_READWRITE,
		};
		struct rds_free_mr_args fr = { 0 };
		socklen_t len = sizeof(info);

		switch (i++ % 7) {
		case 0:
			if (setsockopt(sfd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v)))
				failed("SO_SNDBUF");
			break;
		case 1:
			if (setsockopt(sfd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)))
				failed("SO_RCVBUF");
			break;
		case 2:
			if (setsockopt(sfd, SOL_RDS, RDS_CONG_MONITOR, &on, sizeof(on)))
				failed("RDS_CONG_MONITOR");
			break;
		case 3:
			/* A bound socket refuses it; a placeholder takes it. */
			if (setsockopt(sfd, SOL_RDS, SO_RDS_TRANSPORT, &t, sizeof(t)))
				failed("SO_RDS_TRANSPORT");
			break;
		case 4:
			if (setsockopt(sfd, SOL_RDS, RDS_GET_MR, &mr, sizeof(mr))) {
				failed("RDS_GET_MR");
				break;
			}
			fr.cookie = cookie;
			if (setsockopt(sfd, SOL_RDS, RDS_FREE_MR, &fr, sizeof(fr)))
				failed("RDS_FREE_MR");
			break;
		case 5:
			if (setsockopt(sfd, SOL_RDS, RDS_CANCEL_SENT_TO, &peer, addrlen))
				failed("RDS_CANCEL_SENT_TO");
			break;
		case 6:
			/* Returns the size of an entry, or -1. */
			if (getsockopt(sfd, SOL_RDS, RDS_INFO_FIRST + rnd(&r) % 10, info,
				       &len) < 0 && errno != ENOSPC)
				failed("RDS_INFO");
			break;
		}
		usleep(500);
	}
	return NULL;
}

static void *do_churn(void *arg)
{
	static unsigned char buf[1024];
	unsigned int i = 0;
	int fd;

	fill(buf, sizeof(buf), 7);
	while (!stopped()) {
		if (++i % 10) {
			/* Queued to the peer, then closed at once. */
			fd = new_socket(0);
			if (fd < 0)
				continue;
			if (sendto(fd, buf, sizeof(buf), MSG_DONTWAIT,
				   &peer.sa, addrlen) < 0)
				failed("sendto");
			close(fd);
			usleep(1000);
			continue;
		}
		/* The shared socket goes, an unbound one in its place... */
		fd = socket(AF_RDS, SOCK_SEQPACKET, 0);
		if (fd < 0 || dup2(fd, sfd) < 0) {
			failed("dup2");
			break;
		}
		close(fd);
		/* ... then a new one on its port. */
		fd = new_socket(addr_port(&local));
		if (fd < 0 || dup2(fd, sfd) < 0) {
			failed("dup2");
			break;
		}
		close(fd);
		count(&replaced);
	}
	return NULL;
}

static void pin(pthread_t t, int i)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET((first_cpu + i) % ncpus, &set);
	pthread_setaffinity_np(t, sizeof(set), &set);
}

int main(int argc, char **argv)
{
	void *(*fns[])(void *) = { do_send, do_recv, do_poll, do_sockopt, do_churn };
	const char *raddr = NULL;
	pthread_t threads[5];
	int opt, port = 0, secs = 10, fd, i;

	while ((opt = getopt(argc, argv, "l:r:p:T:s:c:")) != -1) {
		switch (opt) {
		case 'l':
			laddr = optarg;
			break;
		case 'r':
			raddr = optarg;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 'T':
			transport = strcmp(optarg, "ib") ? RDS_TRANS_TCP : RDS_TRANS_IB;
			break;
		case 's':
			secs = atoi(optarg);
			break;
		case 'c':
			first_cpu = atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (!laddr || !raddr || port <= 0 || port > 65534 || secs <= 0)
		goto usage;
	addrlen = addr_make(&local, laddr, port);
	if (addr_make(&peer, raddr, port) != addrlen) {
		fprintf(stderr, "%s and %s are not of one family\n", laddr, raddr);
		return 2;
	}
	addr_make(&nobody, raddr, port + 1);
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);

	fd = new_socket(port);
	if (fd < 0)
		return 1;
	sfd = fd;
	for (i = 0; i < 5; i++) {
		if (pthread_create(&threads[i], NULL, fns[i], NULL)) {
			perror("pthread_create");
			return 1;
		}
		pin(threads[i], i);
	}
	sleep(secs);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < 5; i++)
		pthread_join(threads[i], NULL);
	close(sfd);

	printf("%s: %lu sent, %lu received, %lu notes, %lu replaced;", laddr,
	       sent, rcvd, notes, replaced);
	for (i = 0; i < NR_ERRNO; i++)
		if (errs[i])
			printf(" %s %lu", strerrorname_np(i) ?: "?", errs[i]);
	printf("\n");
	return bad ? 1 : 0;
usage:
	fprintf(stderr,
		"usage: rds_smp -l ADDR -r PEER -p PORT [-T tcp|ib] [-s SECONDS] [-c CPU]\n");
	return 2;
}
