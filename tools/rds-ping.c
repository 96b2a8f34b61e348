// SPDX-License-Identifier: GPL-2.0
/*
 * rds-ping: check that a node answers over RDS and time the round trips.
 *
 * A message sent to port 0 is answered by the peer's kernel itself with an
 * empty "pong" from port 0 back to the sending port. The pong carries no
 * sequence number, so each ping in flight gets its own socket (and port):
 * the socket a pong arrives on says which ping it answers.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/rds.h>

#include "rdstool.h"

/* Pings in flight at once; a slot still busy when reused counts as lost. */
#define NR_SLOTS	16

const char *progname = "rds-ping";

struct slot {
	int fd;
	unsigned int seq;	/* 0: nothing outstanding */
	uint64_t sent_ns;
};

struct stats {
	unsigned long sent, received;
	double min, max, sum, sum2;	/* microseconds */
};

/* Set from a signal handler: accessed with atomics only. */
static int interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	__atomic_store_n(&interrupted, 1, __ATOMIC_RELAXED);
}

static bool stopped(void)
{
	return __atomic_load_n(&interrupted, __ATOMIC_RELAXED);
}

static __noreturn void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"Usage: %s [-c count] [-i interval] [-I local_addr] [-Q tos] dest\n"
		"  -c count     stop after count pings (default: until interrupted)\n"
		"  -i interval  seconds between pings, fractions or a msec/usec suffix allowed\n"
		"               (default 1)\n"
		"  -I addr      local address to send from (default: from the routing table)\n"
		"  -Q tos       type of service, 0-255 (default 0)\n"
		"  --version    this tool's version and which RDS modules are loaded\n",
		progname);
	exit(status);
}

struct options {
	unsigned long count;	/* 0: unlimited */
	uint64_t interval_us;
	unsigned long tos;
	struct sockaddr_storage src, dst;
};

static const struct option long_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

static void parse_args(int argc, char **argv, struct options *o)
{
	const char *local = NULL;
	int c;

	memset(o, 0, sizeof(*o));
	o->interval_us = 1000000;
	while ((c = getopt_long(argc, argv, "c:i:I:Q:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (!parse_uint(optarg, 1UL << 31, &o->count) || !o->count)
				bad_usage("invalid count '%s'", optarg);
			break;
		case 'i':
			if (!parse_interval(optarg, &o->interval_us))
				bad_usage("invalid interval '%s'", optarg);
			break;
		case 'I':
			local = optarg;
			break;
		case 'Q':
			if (!parse_uint(optarg, 255, &o->tos))
				bad_usage("invalid tos '%s' (0-255)", optarg);
			break;
		case 'h':
			usage(0);
		case 'V':
			print_version();
		default:
			usage(EXIT_USAGE);
		}
	}
	if (optind != argc - 1)
		bad_usage(optind == argc ? "no destination given" : "too many arguments");
	if (!parse_addr(argv[optind], 0, &o->dst))
		bad_usage("invalid destination address '%s'", argv[optind]);
	if (!local)
		route_source(&o->dst, &o->src);
	else if (!parse_addr(local, 0, &o->src))
		bad_usage("invalid local address '%s'", local);
	if (o->src.ss_family != o->dst.ss_family)
		bad_usage("local and destination address families differ");
}

static void open_slots(struct slot *slots, const struct options *o)
{
	int i;

	for (i = 0; i < NR_SLOTS; i++) {
		slots[i].fd = rds_socket();
		slots[i].seq = 0;
		rds_bind(slots[i].fd, &o->src);
		/* The TOS goes through the transport, which bind() picks. */
		if (o->tos)
			rds_set_tos(slots[i].fd, o->tos);
	}
}

static void send_ping(struct slot *s, unsigned int seq, const struct options *o,
		      struct stats *st)
{
	uint32_t payload = seq;
	ssize_t ret;

	s->seq = seq;
	s->sent_ns = now_ns();
	st->sent++;
	/*
	 * Never block: a blocking send to a peer whose connection is not up
	 * yet can wait for the connection, i.e. forever if nobody is there.
	 */
	ret = sendto(s->fd, &payload, sizeof(payload), MSG_DONTWAIT,
		     (const struct sockaddr *)&o->dst, addr_len(&o->dst));
	if (ret >= 0)
		return;
	/* A full send queue is a lost ping, like a dropped ICMP echo. */
	if (errno == ENOBUFS || errno == EAGAIN)
		return;
	die_errno("cannot send to %s", addr_str(&o->dst));
}

static void take_pong(struct slot *s, const struct options *o, struct stats *st)
{
	struct sockaddr_storage from;
	socklen_t flen = sizeof(from);
	char buf[64];
	double us;

	if (recvfrom(s->fd, buf, sizeof(buf), MSG_DONTWAIT,
		     (struct sockaddr *)&from, &flen) < 0)
		return;
	if (!s->seq || addr_port(&from) != 0 || !addr_equal(&from, &o->dst))
		return;
	us = (now_ns() - s->sent_ns) / 1000.0;
	printf(" %3u: %.0f usec\n", s->seq, us);
	fflush(stdout);
	s->seq = 0;
	if (!st->received || us < st->min)
		st->min = us;
	if (us > st->max)
		st->max = us;
	st->sum += us;
	st->sum2 += us * us;
	st->received++;
}

/* Waits for pongs until deadline_ns; returns early once none are due. */
static void wait_pongs(struct slot *slots, uint64_t deadline_ns,
		       const struct options *o, struct stats *st)
{
	struct pollfd pfd[NR_SLOTS];
	uint64_t now;
	int i, busy;

	while (!stopped() && (now = now_ns()) < deadline_ns) {
		for (i = 0, busy = 0; i < NR_SLOTS; i++) {
			pfd[i].fd = slots[i].fd;
			pfd[i].events = POLLIN;
			busy |= slots[i].seq != 0;
		}
		if (!busy && o->count && st->sent >= o->count)
			return;
		if (poll(pfd, NR_SLOTS, (deadline_ns - now + 999999) / 1000000) < 0)
			continue;
		for (i = 0; i < NR_SLOTS; i++)
			if (pfd[i].revents & POLLIN)
				take_pong(&slots[i], o, st);
	}
}

static int summary(const struct options *o, const struct stats *st)
{
	double avg, mdev;

	printf("\n--- %s rds-ping statistics ---\n", addr_str(&o->dst));
	printf("%lu packets transmitted, %lu received, %.0f%% packet loss\n",
	       st->sent, st->received,
	       st->sent ? 100.0 * (st->sent - st->received) / st->sent : 0.0);
	if (!st->received)
		return 1;
	avg = st->sum / st->received;
	mdev = sqrt(fmax(st->sum2 / st->received - avg * avg, 0));
	printf("rtt min/avg/max/mdev = %.0f/%.0f/%.0f/%.0f usec\n",
	       st->min, avg, st->max, mdev);
	return 0;
}

int main(int argc, char **argv)
{
	struct slot slots[NR_SLOTS];
	struct stats st = { 0 };
	struct options o;
	uint64_t next, linger;
	unsigned int seq;

	parse_args(argc, argv, &o);
	open_slots(slots, &o);
	on_signals(SIGINT, SIGTERM, on_sigint);

	next = now_ns();
	for (seq = 1; !stopped() && (!o.count || seq <= o.count); seq++) {
		send_ping(&slots[seq % NR_SLOTS], seq, &o, &st);
		next += o.interval_us * 1000;
		wait_pongs(slots, next, &o, &st);
	}
	/* Give the last pings as long as a full interval, and at least 2 s. */
	linger = o.interval_us > 2000000 ? o.interval_us : 2000000;
	if (!stopped())
		wait_pongs(slots, now_ns() + linger * 1000, &o, &st);
	return summary(&o, &st);
}
