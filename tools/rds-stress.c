// SPDX-License-Identifier: GPL-2.0
/*
 * rds-stress: exchange requests and acks between groups of tasks on two
 * nodes over RDS and report the rates and latencies.
 *
 * The passive instance waits for the active one on a TCP control
 * connection, takes its options, and from then on both behave the same:
 * start the tasks, print a line of statistics a second, and a summary.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rdstool.h"
#include "rds-stress.h"

const char *progname = "rds-stress";

#define DEFAULT_PORT	4000
#define MAX_TASKS	256
#define MAX_DEPTH	4096
#define MAX_MSG		(1024 * 1024)

/* Totals over all tasks at one moment. */
struct sample {
	uint64_t ns;
	struct task_stats s;
	uint64_t cpu_busy, cpu_total;
};

static __noreturn void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"Usage: %s [options]\n"
		"Passive side: %s [-r addr] [-p port]\n"
		"Active side:  %s -s peer [options]\n"
		"  -p, --port N          control port; tasks use the next ports (default %u)\n"
		"  -r, --recv-addr A     local address (default: the control connection's)\n"
		"  -s, --send-addr A     passive peer to connect to (makes this side active)\n"
		"  -t, --tasks N         tasks on each side (default 1)\n"
		"  -d, --depth N         requests in flight per peer task (default 1)\n"
		"  -q, --req-bytes N     request size, K/M/G suffixes allowed (default 1024)\n"
		"  -a, --ack-bytes N     ack size (default %zu)\n"
		"  -D, --rdma-bytes N    RDMA transfer size (needs rds_rdma; not supported)\n"
		"  -T, --time S          run for S seconds (default: until interrupted)\n"
		"  -Q, --tos N           type of service, 0-255 (default 0)\n"
		"  -v, --verify          fill messages with a pattern and check it\n"
		"  -z, --report-summary  print only the summary\n"
		"      --json            print only a JSON summary on stdout\n",
		progname, progname, progname, DEFAULT_PORT, sizeof(struct stress_hdr));
	exit(status);
}

static const struct option long_opts[] = {
	{ "port", required_argument, NULL, 'p' },
	{ "recv-addr", required_argument, NULL, 'r' },
	{ "send-addr", required_argument, NULL, 's' },
	{ "tasks", required_argument, NULL, 't' },
	{ "depth", required_argument, NULL, 'd' },
	{ "req-bytes", required_argument, NULL, 'q' },
	{ "ack-bytes", required_argument, NULL, 'a' },
	{ "rdma-bytes", required_argument, NULL, 'D' },
	{ "time", required_argument, NULL, 'T' },
	{ "tos", required_argument, NULL, 'Q' },
	{ "verify", no_argument, NULL, 'v' },
	{ "report-summary", no_argument, NULL, 'z' },
	{ "json", no_argument, NULL, 'J' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static uint32_t num_arg(int c, const char *arg, unsigned long min, unsigned long max)
{
	unsigned long v;
	bool ok;

	if (c == 'q' || c == 'a' || c == 'D')
		ok = parse_size(arg, max, &v);
	else
		ok = parse_uint(arg, max, &v);
	if (!ok || v < min)
		bad_usage("invalid argument to -%c: '%s' (%lu to %lu)", c, arg, min, max);
	return v;
}

static void parse_args(int argc, char **argv, struct stress_run *r)
{
	const char *send = NULL, *recv = NULL;
	unsigned long port = DEFAULT_PORT;
	int c;

	memset(r, 0, sizeof(*r));
	r->o = (struct stress_opts){ .tasks = 1, .depth = 1, .req_bytes = 1024,
				     .ack_bytes = sizeof(struct stress_hdr) };
	while ((c = getopt_long(argc, argv, "p:r:s:t:d:q:a:D:T:Q:vzh", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'p':
			port = num_arg(c, optarg, 1, 65535 - MAX_TASKS - 1);
			break;
		case 'r':
			recv = optarg;
			break;
		case 's':
			send = optarg;
			break;
		case 't':
			r->o.tasks = num_arg(c, optarg, 1, MAX_TASKS);
			break;
		case 'd':
			r->o.depth = num_arg(c, optarg, 1, MAX_DEPTH);
			break;
		case 'q':
			r->o.req_bytes = num_arg(c, optarg, sizeof(struct stress_hdr), MAX_MSG);
			break;
		case 'a':
			r->o.ack_bytes = num_arg(c, optarg, sizeof(struct stress_hdr), MAX_MSG);
			break;
		case 'D':
			r->o.rdma_bytes = num_arg(c, optarg, 0, MAX_MSG);
			break;
		case 'T':
			r->o.time_s = num_arg(c, optarg, 1, 86400);
			break;
		case 'Q':
			r->o.tos = num_arg(c, optarg, 0, 255);
			break;
		case 'v':
			r->o.verify = 1;
			break;
		case 'z':
			r->summary_only = true;
			break;
		case 'J':
			r->json = true;
			break;
		case 'h':
			usage(0);
		default:
			usage(EXIT_USAGE);
		}
	}
	if (optind != argc)
		bad_usage("unexpected argument '%s'", argv[optind]);
	if (r->summary_only && !r->o.time_s && send)
		bad_usage("-z needs -T");
	r->port = port;
	r->active = send;
	if (recv && !parse_addr(recv, 0, &r->local))
		bad_usage("invalid local address '%s'", recv);
	r->have_local = recv;
	if (send && !parse_addr(send, port, &r->ctl_addr))
		bad_usage("invalid peer address '%s'", send);
	if (!send) {
		if (!recv)
			parse_addr("::", 0, &r->ctl_addr);	/* and IPv4, mapped */
		else
			r->ctl_addr = r->local;
		addr_set_port(&r->ctl_addr, port);
	}
	if (r->o.rdma_bytes)
		die("RDMA (-D) needs the rds_rdma transport; this rds-stress only does messages");
}

/* System-wide CPU use from /proc/stat; left at zero if unreadable. */
static void read_cpu(struct sample *s)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int i;

	s->cpu_busy = 0;
	s->cpu_total = 0;
	if (!f)
		return;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
		   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
		for (i = 0; i < 8; i++)
			s->cpu_total += v[i];
		s->cpu_busy = s->cpu_total - v[3] - v[4];	/* idle, iowait */
	}
	fclose(f);
}

static void take_sample(struct task *tasks, unsigned int n, struct sample *s)
{
	struct task_stats *a = &s->s;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->ns = now_ns();
	for (i = 0; i < n; i++) {
		struct task_stats *b = &tasks[i].stats;

		a->tx_msgs += stat_get(b->tx_msgs);
		a->rx_msgs += stat_get(b->rx_msgs);
		a->tx_bytes += stat_get(b->tx_bytes);
		a->rx_bytes += stat_get(b->rx_bytes);
		a->tx_ns += stat_get(b->tx_ns);
		a->rtt_ns += stat_get(b->rtt_ns);
		a->rtt_count += stat_get(b->rtt_count);
		a->verify_errors += stat_get(b->verify_errors);
		a->dropped += stat_get(b->dropped);
	}
	read_cpu(s);
}

/* What happened between two samples, in the units of the columns. */
struct rates {
	double secs, tx, rx, kbytes, tx_us, rtt_us, cpu;
};

static void rates(const struct sample *a, const struct sample *b, struct rates *r)
{
	uint64_t tx = b->s.tx_msgs - a->s.tx_msgs;
	uint64_t rtts = b->s.rtt_count - a->s.rtt_count;
	uint64_t cpu = b->cpu_total - a->cpu_total;

	r->secs = (b->ns - a->ns) / 1e9;
	if (r->secs <= 0)
		r->secs = 1.0 / 1000000;	/* no division by zero below */
	r->tx = tx / r->secs;
	r->rx = (b->s.rx_msgs - a->s.rx_msgs) / r->secs;
	r->kbytes = (b->s.tx_bytes - a->s.tx_bytes + b->s.rx_bytes - a->s.rx_bytes) /
		    1024.0 / r->secs;
	r->tx_us = tx ? (b->s.tx_ns - a->s.tx_ns) / 1e3 / tx : 0;
	r->rtt_us = rtts ? (b->s.rtt_ns - a->s.rtt_ns) / 1e3 / rtts : 0;
	r->cpu = cpu ? 100.0 * (b->cpu_busy - a->cpu_busy) / cpu : -1;
}

static void print_header(void)
{
	printf("%4s %6s %6s %10s %10s %10s %7s %8s %5s\n", "tsks", "tx/s", "rx/s",
	       "tx+rx K/s", "mbi K/s", "mbo K/s", "tx us/c", "rtt us", "cpu %");
}

/* mbi/mbo (RDMA in and out) stay 0: this rds-stress does no RDMA. */
static void print_line(unsigned int tasks, const struct rates *r)
{
	printf("%4u %6.0f %6.0f %10.2f %10.2f %10.2f %7.2f %8.2f %5.2f\n", tasks,
	       r->tx, r->rx, r->kbytes, 0.0, 0.0, r->tx_us, r->rtt_us, r->cpu);
	fflush(stdout);
}

static void json_int(const char *name, unsigned long long v)
{
	printf(", \"%s\": %llu", name, v);
}

static void json_num(const char *name, double v)
{
	printf(", \"%s\": %.3f", name, v);
}

/* One line, one object: the benchmark harness parses it. */
static void print_json(const struct stress_run *run, const struct rates *r,
		       const struct sample *end)
{
	const struct stress_opts *o = &run->o;

	printf("{\"role\": \"%s\"", run->active ? "active" : "passive");
	json_int("tasks", o->tasks);
	json_int("depth", o->depth);
	json_int("req_bytes", o->req_bytes);
	json_int("ack_bytes", o->ack_bytes);
	json_int("tos", o->tos);
	printf(", \"verify\": %s", o->verify ? "true" : "false");
	json_num("seconds", r->secs);
	json_int("tx_msgs", end->s.tx_msgs);
	json_int("rx_msgs", end->s.rx_msgs);
	json_int("tx_bytes", end->s.tx_bytes);
	json_int("rx_bytes", end->s.rx_bytes);
	json_num("tx_per_sec", r->tx);
	json_num("rx_per_sec", r->rx);
	json_num("tx_rx_kbytes_per_sec", r->kbytes);
	json_num("tx_us_per_call", r->tx_us);
	json_num("rtt_us", r->rtt_us);
	json_num("cpu_pct", r->cpu);
	json_int("verify_errors", end->s.verify_errors);
	json_int("dropped", end->s.dropped);
	printf("}\n");
}

/* Set from a signal handler: accessed with atomics only. */
static int interrupted;

static void on_signal(int sig)
{
	(void)sig;
	__atomic_store_n(&interrupted, 1, __ATOMIC_RELAXED);
}

static bool stopped(void)
{
	return __atomic_load_n(&interrupted, __ATOMIC_RELAXED);
}

/* Prints a line a second until the time is up, we are told, or the peer is done. */
static void report_loop(struct stress_run *run, struct task *tasks, struct sample *first)
{
	struct sample prev = *first, cur;
	bool lines = !run->summary_only && !run->json;
	struct rates r;
	unsigned int secs = 0;

	if (lines)
		print_header();
	while (!stopped() && (!run->o.time_s || secs < run->o.time_s)) {
		sleep(1);
		secs++;
		if (ctl_peer_gone(run))
			break;
		take_sample(tasks, run->o.tasks, &cur);
		rates(&prev, &cur, &r);
		if (lines)
			print_line(run->o.tasks, &r);
		prev = cur;
	}
}

static void start_tasks(struct stress_run *run, struct task *tasks)
{
	unsigned int i;
	int err;

	for (i = 0; i < run->o.tasks; i++) {
		tasks[i].idx = i;
		task_open(&tasks[i], run);
	}
	/* Every task of both sides must be bound before anyone sends. */
	ctl_sync(run, 'R', 30000);
	for (i = 0; i < run->o.tasks; i++) {
		err = pthread_create(&tasks[i].thread, NULL, task_main, &tasks[i]);
		if (err) {
			errno = err;
			die_errno("cannot start task %u", i);
		}
	}
}

static int finish(struct stress_run *run, struct task *tasks, const struct sample *first)
{
	struct sample end;
	struct rates r;
	unsigned int i;

	__atomic_store_n(&stress_stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < run->o.tasks; i++)
		pthread_join(tasks[i].thread, NULL);
	take_sample(tasks, run->o.tasks, &end);
	rates(first, &end, &r);
	/* Interrupted too: the peer should end cleanly, not see us vanish. */
	ctl_sync(run, 'D', stopped() ? 2000 : 10000);
	for (i = 0; i < run->o.tasks; i++)
		task_close(&tasks[i]);

	if (run->json) {
		print_json(run, &r, &end);
	} else {
		if (run->summary_only)
			print_header();
		else
			printf("---------------------------------------------\n");
		print_line(run->o.tasks, &r);
	}
	if (end.s.verify_errors)
		fprintf(stderr, "%s: %llu messages failed verification\n", progname,
			(unsigned long long)end.s.verify_errors);
	if (!end.s.rx_msgs)
		fprintf(stderr, "%s: no messages received from %s\n", progname,
			addr_str(&run->peer));
	return end.s.verify_errors || !end.s.rx_msgs;
}

int main(int argc, char **argv)
{
	struct stress_run run;
	struct sample first;
	struct task *tasks;

	setvbuf(stdout, NULL, _IOLBF, 0);
	parse_args(argc, argv, &run);
	signal(SIGPIPE, SIG_IGN);
	/* Until the test runs, a signal just ends us (a passive waiting, say). */
	ctl_setup(&run);
	on_signals(SIGINT, SIGTERM, on_signal);
	tasks = calloc(run.o.tasks, sizeof(*tasks));
	if (!tasks)
		die("out of memory");
	start_tasks(&run, tasks);
	take_sample(tasks, run.o.tasks, &first);
	report_loop(&run, tasks, &first);
	return finish(&run, tasks, &first);
}
