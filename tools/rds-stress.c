// SPDX-License-Identifier: GPL-2.0
/*
 * rds-stress: exchange requests and acks between groups of tasks on two
 * nodes over RDS and report the rates and latencies.
 *
 * The passive instance waits for the active one on a TCP control
 * connection, takes its options, and from then on both behave the same:
 * start the tasks, print a line of statistics a second, and a summary.
 * This file has the command line and the run's course.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rdstool.h"
#include "rds-stress.h"

const char *progname = "rds-stress";

#define DEFAULT_PORT	4000

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
		"  -T, --time S          run for S seconds (default: until interrupted)\n"
		"  -Q, --tos N           type of service, 0-255 (default 0)\n"
		"  -v, --verify          fill messages and RDMA buffers with a pattern and check it\n"
		"  -z, --report-summary  print only the summary\n"
		"      --json            print only a JSON summary on stdout\n"
		"      --version         this tool's version and which RDS modules are loaded\n"
		"      --classic-io      size and drive the sockets as the classic rds-stress does:\n"
		"                        SO_SNDBUF and SO_RCVBUF of tasks x depth x (q + a) x 2,\n"
		"                        sends only once poll() reported POLLOUT\n"
		"  -o, --one-way         only the active side sends requests, the passive side\n"
		"                        only acks: one message each way a round trip\n"
		"RDMA (RDS/IB only): every ack does an RDMA READ or WRITE on a buffer its request lent\n"
		"  -D, --rdma-bytes N    bytes per local vector (default 0: no RDMA)\n"
		"  -I, --rdma-buffers N  local vectors per RDMA, 1-%u (default 1; also --rdma-vector)\n"
		"  -M, --rdma-mode N     0 READ and WRITE in turn, 1 READ only, 2 WRITE only (default 0)\n"
		"      --rdma-use-once 0|1     regions used once (default 1 unless --rdma-cache-mrs 1)\n"
		"      --rdma-use-get-mr 0|1   RDS_GET_MR instead of RDS_CMSG_RDMA_MAP (default 0)\n"
		"      --rdma-use-fence 0|1    fence the ack behind a READ (default 1)\n"
		"      --rdma-cache-mrs 0|1    one region per buffer for the whole run (default 0)\n"
		"      --rdma-alignment N      buffers start N bytes into a page (default 0)\n"
		"      --rdma-key-o-meter      count R_Keys issued again within a second\n",
		progname, progname, progname, DEFAULT_PORT, sizeof(struct stress_hdr),
		MAX_RDMA_VECTOR);
	exit(status);
}

enum {
	OPT_JSON = 0x100,
	OPT_RDMA_USE_ONCE,
	OPT_RDMA_USE_GET_MR,
	OPT_RDMA_USE_FENCE,
	OPT_RDMA_USE_NOTIFY,
	OPT_RDMA_CACHE_MRS,
	OPT_RDMA_ALIGNMENT,
	OPT_RDMA_KEY_O_METER,
	OPT_CLASSIC,		/* the classic tool's, not ours */
	OPT_CLASSIC_IO,
	OPT_ONE_WAY,
	OPT_VERSION,
};

static const struct option long_opts[] = {
	{ "port", required_argument, NULL, 'p' },
	{ "recv-addr", required_argument, NULL, 'r' },
	{ "send-addr", required_argument, NULL, 's' },
	{ "tasks", required_argument, NULL, 't' },
	{ "depth", required_argument, NULL, 'd' },
	{ "req-bytes", required_argument, NULL, 'q' },
	{ "ack-bytes", required_argument, NULL, 'a' },
	{ "time", required_argument, NULL, 'T' },
	{ "tos", required_argument, NULL, 'Q' },
	{ "verify", no_argument, NULL, 'v' },
	{ "report-summary", no_argument, NULL, 'z' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "classic-io", no_argument, NULL, OPT_CLASSIC_IO },
	{ "one-way", no_argument, NULL, OPT_ONE_WAY },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "help", no_argument, NULL, 'h' },
	{ "rdma-bytes", required_argument, NULL, 'D' },
	{ "rdma-buffers", required_argument, NULL, 'I' },
	{ "rdma-vector", required_argument, NULL, 'I' },
	{ "rdma-mode", required_argument, NULL, 'M' },
	{ "rdma-use-once", required_argument, NULL, OPT_RDMA_USE_ONCE },
	{ "rdma-use-get-mr", required_argument, NULL, OPT_RDMA_USE_GET_MR },
	{ "rdma-use-fence", required_argument, NULL, OPT_RDMA_USE_FENCE },
	{ "rdma-use-notify", required_argument, NULL, OPT_RDMA_USE_NOTIFY },
	{ "rdma-cache-mrs", required_argument, NULL, OPT_RDMA_CACHE_MRS },
	{ "rdma-alignment", required_argument, NULL, OPT_RDMA_ALIGNMENT },
	{ "rdma-key-o-meter", no_argument, NULL, OPT_RDMA_KEY_O_METER },
	/* -c is accepted: the cpu column is always there */
	{ "report-cpu", no_argument, NULL, 'c' },
	{ "rtprio", no_argument, NULL, OPT_CLASSIC },
	{ "trace", no_argument, NULL, OPT_CLASSIC },
	{ "show-params", no_argument, NULL, OPT_CLASSIC },
	{ "show-perfdata", no_argument, NULL, OPT_CLASSIC },
	{ "show-histogram", no_argument, NULL, OPT_CLASSIC },
	{ "show-outliers", required_argument, NULL, OPT_CLASSIC },
	{ "cancel-sent-to", no_argument, NULL, OPT_CLASSIC },
	{ "abort-after", required_argument, NULL, OPT_CLASSIC },
	{ "connect-retries", required_argument, NULL, OPT_CLASSIC },
	{ "use-cong-monitor", required_argument, NULL, OPT_CLASSIC },
	{ "reset", no_argument, NULL, OPT_CLASSIC },
	{ "async", no_argument, NULL, OPT_CLASSIC },
	{ NULL, 0, NULL, 0 }
};

static const char *opt_name(int c, int idx)
{
	static char buf[4];

	if (c < 0x100) {
		snprintf(buf, sizeof(buf), "-%c", c);
		return buf;
	}
	return long_opts[idx].name;
}

static uint32_t num_arg(int c, int idx, const char *arg, unsigned long min,
			unsigned long max)
{
	unsigned long v;
	bool ok;

	if (c == 'q' || c == 'a' || c == 'D')
		ok = parse_size(arg, max, &v);
	else
		ok = parse_uint(arg, max, &v);
	if (!ok || v < min)
		bad_usage("invalid argument to %s%s: '%s' (%lu to %lu)", c < 0x100 ? "" : "--",
			  opt_name(c, idx), arg, min, max);
	return v;
}

/* What the --rdma-* options said, before the defaults that depend on each other. */
struct rdma_args {
	int use_once, get_mr, fence, cache_mrs;		/* -1: not given */
	const char *given;				/* an RDMA option given */
};

static void rdma_flag(uint32_t *flags, uint32_t f, bool on)
{
	if (on)
		*flags |= f;
}

/* The classic defaults and conflicts, then the limits of one RDMA. */
static void rdma_opts(struct stress_opts *o, const struct rdma_args *ra)
{
	bool cache = ra->cache_mrs == 1;
	bool once = ra->use_once < 0 ? !cache : ra->use_once;
	bool get_mr = ra->get_mr < 0 ? cache : ra->get_mr;

	if (!o->rdma_bytes) {
		if (ra->given)
			bad_usage("%s%s needs -D (RDMA bytes)", ra->given[0] == '-' ? "" : "--",
				  ra->given);
		return;
	}
	if (cache && once)
		bad_usage("--rdma-cache-mrs 1 conflicts with --rdma-use-once 1");
	if (cache && !get_mr)
		bad_usage("--rdma-cache-mrs 1 conflicts with --rdma-use-get-mr 0");
	if ((uint64_t)o->rdma_bytes * o->rdma_vector > MAX_RDMA)
		bad_usage("-D %u times -I %u is more than one RDMA can move (1M)",
			  o->rdma_bytes, o->rdma_vector);
	rdma_flag(&o->rdma_flags, RDMA_F_USE_ONCE, once);
	rdma_flag(&o->rdma_flags, RDMA_F_GET_MR, get_mr);
	rdma_flag(&o->rdma_flags, RDMA_F_FENCE, ra->fence);
	rdma_flag(&o->rdma_flags, RDMA_F_CACHE_MRS, cache);
}

static int bool_arg(int c, int idx, const char *arg, struct rdma_args *ra)
{
	ra->given = long_opts[idx].name;
	return num_arg(c, idx, arg, 0, 1);
}

/* The RDMA options; false if @c is none of them. */
static bool parse_rdma(int c, int idx, struct stress_opts *o, struct rdma_args *ra)
{
	long page = sysconf(_SC_PAGESIZE);

	switch (c) {
	case 'D':
		o->rdma_bytes = num_arg(c, idx, optarg, 0, MAX_RDMA);
		return true;
	case 'I':
		o->rdma_vector = num_arg(c, idx, optarg, 1, MAX_RDMA_VECTOR);
		ra->given = "-I";
		return true;
	case 'M':
		o->rdma_mode = num_arg(c, idx, optarg, 0, 2);
		ra->given = "-M";
		return true;
	case OPT_RDMA_USE_ONCE:
		ra->use_once = bool_arg(c, idx, optarg, ra);
		return true;
	case OPT_RDMA_USE_GET_MR:
		ra->get_mr = bool_arg(c, idx, optarg, ra);
		return true;
	case OPT_RDMA_USE_FENCE:
		ra->fence = bool_arg(c, idx, optarg, ra);
		return true;
	case OPT_RDMA_CACHE_MRS:
		ra->cache_mrs = bool_arg(c, idx, optarg, ra);
		return true;
	case OPT_RDMA_USE_NOTIFY:
		/* Obsolete in the classic tool too: statuses are always asked for. */
		bool_arg(c, idx, optarg, ra);
		return true;
	case OPT_RDMA_ALIGNMENT:
		o->rdma_align = num_arg(c, idx, optarg, 0, page > 0 ? page : 4096);
		ra->given = long_opts[idx].name;
		return true;
	case OPT_RDMA_KEY_O_METER:
		o->rdma_flags |= RDMA_F_KEY_O_METER;
		ra->given = long_opts[idx].name;
		return true;
	}
	return false;
}

static void parse_addrs(struct stress_run *r, const char *send, const char *recv)
{
	if (r->summary_only && !r->o.time_s && send)
		bad_usage("-z needs -T");
	if (recv && !parse_addr(recv, 0, &r->local))
		bad_usage("invalid local address '%s'", recv);
	r->have_local = recv;
	if (send && !parse_addr(send, r->port, &r->ctl_addr))
		bad_usage("invalid peer address '%s'", send);
	if (!send) {
		if (!recv)
			parse_addr("::", 0, &r->ctl_addr);	/* and IPv4, mapped */
		else
			r->ctl_addr = r->local;
		addr_set_port(&r->ctl_addr, r->port);
	}
}

static void parse_opts(int argc, char **argv, struct stress_run *r)
{
	struct rdma_args ra = { .use_once = -1, .get_mr = -1, .fence = 1, .cache_mrs = -1 };
	const char *send = NULL, *recv = NULL;
	unsigned long port = DEFAULT_PORT;
	int c, idx;

	memset(r, 0, sizeof(*r));
	r->o = (struct stress_opts){ .tasks = 1, .depth = 1, .req_bytes = 1024,
				     .ack_bytes = sizeof(struct stress_hdr),
				     .rdma_vector = 1 };
	while ((c = getopt_long(argc, argv, "p:r:s:t:d:q:a:D:I:M:T:Q:vzhcRVo", long_opts,
				&idx)) != -1) {
		if (parse_rdma(c, idx, &r->o, &ra))
			continue;
		switch (c) {
		case 'p':
			port = num_arg(c, idx, optarg, 1, 65535 - MAX_TASKS - 1);
			break;
		case 'r':
			recv = optarg;
			break;
		case 's':
			send = optarg;
			break;
		case 't':
			r->o.tasks = num_arg(c, idx, optarg, 1, MAX_TASKS);
			break;
		case 'd':
			r->o.depth = num_arg(c, idx, optarg, 1, MAX_DEPTH);
			break;
		case 'q':
			r->o.req_bytes = num_arg(c, idx, optarg, sizeof(struct stress_hdr),
						 MAX_MSG);
			break;
		case 'a':
			r->o.ack_bytes = num_arg(c, idx, optarg, sizeof(struct stress_hdr),
						 MAX_MSG);
			break;
		case 'T':
			r->o.time_s = num_arg(c, idx, optarg, 1, 86400);
			break;
		case 'Q':
			r->o.tos = num_arg(c, idx, optarg, 0, 255);
			break;
		case 'v':
			r->o.verify = 1;
			break;
		case 'z':
			r->summary_only = true;
			break;
		case OPT_JSON:
			r->json = true;
			break;
		case OPT_CLASSIC_IO:
			r->o.classic_io = 1;
			break;
		case 'o':	/* the classic tool's spelling */
		case OPT_ONE_WAY:
			r->o.one_way = 1;
			break;
		case OPT_VERSION:
			print_version();
		case 'c':
			break;
		case 'R':
		case 'V':
		case OPT_CLASSIC:
			bad_usage("%s%s of the classic rds-stress is not supported by this one",
				  c == OPT_CLASSIC ? "--" : "", opt_name(c, idx));
		case 'h':
			usage(0);
		default:
			usage(EXIT_USAGE);
		}
	}
	if (optind != argc)
		bad_usage("unexpected argument '%s'", argv[optind]);
	r->active = send;
	if (send)
		rdma_opts(&r->o, &ra);
	r->port = port;
	parse_addrs(r, send, recv);
}

/* The passive side checks what it adopts as the active one checked it. */
bool stress_opts_valid(const struct stress_opts *o)
{
	long page = sysconf(_SC_PAGESIZE);

	if (o->tasks < 1 || o->tasks > MAX_TASKS || o->depth < 1 || o->depth > MAX_DEPTH ||
	    o->req_bytes < sizeof(struct stress_hdr) || o->req_bytes > MAX_MSG ||
	    o->ack_bytes < sizeof(struct stress_hdr) || o->ack_bytes > MAX_MSG)
		return false;
	return !o->rdma_bytes ||
	       (o->rdma_vector >= 1 && o->rdma_vector <= MAX_RDMA_VECTOR &&
		(uint64_t)o->rdma_bytes * o->rdma_vector <= MAX_RDMA &&
		o->rdma_mode <= RDMA_MODE_WRITE && o->rdma_align <= (uint32_t)page);
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

/* The key-o-meter's line of the second, as the classic tool prints it. */
static void report_keys(const struct stress_run *run, bool lines)
{
	uint64_t n;
	double gap;

	if (!(run->o.rdma_flags & RDMA_F_KEY_O_METER))
		return;
	n = rdma_keys_interval(&gap);
	if (n && lines)
		printf(" *** %llu R_Keys were re-issued; min distance=%f sec\n",
		       (unsigned long long)n, gap);
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
		report_keys(run, lines);
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

/* Waits until every task's flag at @offset is set; false on timeout. */
static bool wait_tasks(struct task *tasks, unsigned int n, size_t offset, int timeout_ms)
{
	unsigned int i;
	int waited;

	for (waited = 0; waited <= timeout_ms; waited += 10) {
		for (i = 0; i < n; i++)
			if (!__atomic_load_n((bool *)((char *)&tasks[i] + offset),
					     __ATOMIC_ACQUIRE))
				break;
		if (i == n)
			return true;
		poll(NULL, 0, 10);
	}
	return false;
}

/*
 * With -D nothing may be cut off: a region taken back under the peer's
 * RDMA fails it. So the tasks first see their own requests answered,
 * then, once the peer's are too ('D'), their own RDMAs' statuses in.
 */
static void stop_tasks(struct stress_run *run, struct task *tasks, struct sample *end)
{
	int wait_ms = stopped() ? 2000 : 10000;
	unsigned int i, n = run->o.tasks;

	__atomic_store_n(&stress_stop, 1, __ATOMIC_RELAXED);
	if (!run->o.rdma_bytes) {
		for (i = 0; i < n; i++)
			pthread_join(tasks[i].thread, NULL);
		take_sample(tasks, n, end);
		ctl_sync(run, 'D', wait_ms);
		return;
	}
	take_sample(tasks, n, end);
	if (!wait_tasks(tasks, n, offsetof(struct task, drained), wait_ms))
		fprintf(stderr, "%s: requests still unanswered after %d s\n", progname,
			wait_ms / 1000);
	ctl_sync(run, 'D', wait_ms);
	__atomic_store_n(&stress_quit, 1, __ATOMIC_RELAXED);
	if (!wait_tasks(tasks, n, offsetof(struct task, ended), wait_ms))
		__atomic_store_n(&stress_quit, 2, __ATOMIC_RELAXED);
	for (i = 0; i < n; i++)
		pthread_join(tasks[i].thread, NULL);
}

/* What went wrong with the RDMA, a line each; true if anything did. */
static bool rdma_failed(const struct stress_run *run, const struct task_stats *s,
			unsigned int no_status)
{
	uint64_t failed = s->rdma_status[1] + s->rdma_status[2] + s->rdma_status[3] +
			  s->rdma_status[4];
	bool bad = false;

	if (!run->o.rdma_bytes)
		return false;
	if (failed)
		bad = fprintf(stderr, "%s: %llu RDMA operations failed\n", progname,
			      (unsigned long long)failed);
	if (no_status)
		bad = fprintf(stderr, "%s: %u RDMA operations got no status\n", progname,
			      no_status);
	if (s->rdma_stray || s->rdma_bad)
		bad = fprintf(stderr, "%s: %llu stray RDMA statuses, %llu bad requests or acks\n",
			      progname, (unsigned long long)s->rdma_stray,
			      (unsigned long long)s->rdma_bad);
	if (s->rdma_verify_errors)
		bad = fprintf(stderr, "%s: %llu RDMA transfers failed verification\n",
			      progname, (unsigned long long)s->rdma_verify_errors);
	if (!s->rdma_acked || !s->rdma_status[0])
		bad = fprintf(stderr, "%s: no RDMA completed (%llu acked, %llu done)\n",
			      progname, (unsigned long long)s->rdma_acked,
			      (unsigned long long)s->rdma_status[0]);
	return bad;
}

static int finish(struct stress_run *run, struct task *tasks, const struct sample *first)
{
	unsigned int i, no_status = 0;
	struct sample end, total;
	struct rates r;
	bool bad;

	/* Interrupted too: the peer should end cleanly, not see us vanish. */
	stop_tasks(run, tasks, &end);
	rates(first, &end, &r);
	take_sample(tasks, run->o.tasks, &total);
	for (i = 0; i < run->o.tasks; i++) {
		no_status += rdma_in_flight(&tasks[i]);
		task_close(&tasks[i]);
	}

	if (run->json) {
		print_json(run, &r, &total);
	} else {
		if (run->summary_only)
			print_header();
		else
			printf("---------------------------------------------\n");
		print_line(run->o.tasks, &r);
	}
	bad = rdma_failed(run, &total.s, no_status);
	if (total.s.verify_errors)
		fprintf(stderr, "%s: %llu messages failed verification\n", progname,
			(unsigned long long)total.s.verify_errors);
	if (!total.s.rx_msgs)
		fprintf(stderr, "%s: no messages received from %s\n", progname,
			addr_str(&run->peer));
	return bad || total.s.verify_errors || !total.s.rx_msgs;
}

int main(int argc, char **argv)
{
	struct stress_run run;
	struct sample first;
	struct task *tasks;

	setvbuf(stdout, NULL, _IOLBF, 0);
	parse_opts(argc, argv, &run);
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
