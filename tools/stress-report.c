// SPDX-License-Identifier: GPL-2.0
/*
 * What rds-stress prints: totals of all tasks at one moment (a sample),
 * the rates between two samples in the classic columns, and the JSON
 * summary.
 */
#include <stdio.h>
#include <string.h>
#include <linux/rds.h>

#include "rdstool.h"
#include "rds-stress.h"

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

/* struct task_stats is all uint64_t counters: add them field by field. */
#define NR_COUNTERS	(sizeof(struct task_stats) / sizeof(uint64_t))

void take_sample(struct task *tasks, unsigned int n, struct sample *s)
{
	uint64_t *sum = (uint64_t *)&s->s;
	unsigned int i, c;

	memset(s, 0, sizeof(*s));
	s->ns = now_ns();
	for (i = 0; i < n; i++) {
		uint64_t *one = (uint64_t *)&tasks[i].stats;

		for (c = 0; c < NR_COUNTERS; c++)
			sum[c] += stat_get(one[c]);
	}
	read_cpu(s);
}

/*
 * Below RTT_SUBS a bucket a nanosecond; above, RTT_SUBS buckets for each
 * power of two, by the RTT_SUBS values after the leading bit.
 */
unsigned int rtt_bucket(uint64_t ns)
{
	unsigned int shift, i;

	if (ns < RTT_SUBS)
		return ns;
	shift = 63 - __builtin_clzll(ns) - 5;	/* 5: log2(RTT_SUBS) */
	i = (shift + 1) * RTT_SUBS + ((ns >> shift) & (RTT_SUBS - 1));
	return i < RTT_BUCKETS ? i : RTT_BUCKETS - 1;
}

/* The middle of bucket @i, in microseconds. */
static double rtt_bucket_us(unsigned int i)
{
	unsigned int shift;

	if (i < RTT_SUBS)
		return i / 1e3;
	shift = i / RTT_SUBS - 1;
	return (((uint64_t)(RTT_SUBS + i % RTT_SUBS) << shift) +
		((1ULL << shift) >> 1)) / 1e3;
}

/* The @q quantile of the round trips between samples @a and @b; 0: none. */
static double rtt_quantile(const struct sample *a, const struct sample *b,
			   uint64_t count, double q)
{
	uint64_t want = (uint64_t)(q * count), seen = 0;
	unsigned int i;

	if (!count)
		return 0;
	for (i = 0; i < RTT_BUCKETS; i++) {
		seen += b->s.rtt_hist[i] - a->s.rtt_hist[i];
		if (seen > want)
			return rtt_bucket_us(i);
	}
	return rtt_bucket_us(RTT_BUCKETS - 1);
}

void rates(const struct sample *a, const struct sample *b, struct rates *r)
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
	r->mbi = (b->s.rdma_in_bytes - a->s.rdma_in_bytes) / 1024.0 / r->secs;
	r->mbo = (b->s.rdma_out_bytes - a->s.rdma_out_bytes) / 1024.0 / r->secs;
	r->tx_us = tx ? (b->s.tx_ns - a->s.tx_ns) / 1e3 / tx : 0;
	r->rtt_us = rtts ? (b->s.rtt_ns - a->s.rtt_ns) / 1e3 / rtts : 0;
	r->rtt_p50_us = rtt_quantile(a, b, rtts, 0.5);
	r->rtt_p99_us = rtt_quantile(a, b, rtts, 0.99);
	r->rtt_p999_us = rtt_quantile(a, b, rtts, 0.999);
	r->cpu = cpu ? 100.0 * (b->cpu_busy - a->cpu_busy) / cpu : -1;
}

void print_header(void)
{
	printf("%4s %6s %6s %10s %10s %10s %7s %8s %5s\n", "tsks", "tx/s", "rx/s",
	       "tx+rx K/s", "mbi K/s", "mbo K/s", "tx us/c", "rtt us", "cpu %");
}

void print_line(unsigned int tasks, const struct rates *r)
{
	printf("%4u %6.0f %6.0f %10.2f %10.2f %10.2f %7.2f %8.2f %5.2f\n", tasks,
	       r->tx, r->rx, r->kbytes, r->mbi, r->mbo, r->tx_us, r->rtt_us, r->cpu);
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

static void json_bool(const char *name, bool v)
{
	printf(", \"%s\": %s", name, v ? "true" : "false");
}

static void json_rdma(const struct stress_opts *o, const struct task_stats *s)
{
	static const char *const modes[] = { "readwrite", "read", "write" };
	static const char *const statuses[RDMA_STATUSES] = {
		[RDS_RDMA_SUCCESS] = "rdma_status_success",
		[RDS_RDMA_REMOTE_ERROR] = "rdma_status_remote_error",
		[RDS_RDMA_CANCELED] = "rdma_status_canceled",
		[RDS_RDMA_DROPPED] = "rdma_status_dropped",
		[RDS_RDMA_OTHER_ERROR] = "rdma_status_other_error",
	};
	unsigned int i;

	json_int("rdma_bytes", o->rdma_bytes);
	json_int("rdma_vector", o->rdma_vector);
	printf(", \"rdma_mode\": \"%s\"", modes[o->rdma_mode % 3]);
	json_bool("rdma_use_once", o->rdma_flags & RDMA_F_USE_ONCE);
	json_bool("rdma_use_get_mr", o->rdma_flags & RDMA_F_GET_MR);
	json_bool("rdma_use_fence", o->rdma_flags & RDMA_F_FENCE);
	json_bool("rdma_cache_mrs", o->rdma_flags & RDMA_F_CACHE_MRS);
	json_int("rdma_alignment", o->rdma_align);
	json_int("rdma_reads", s->rdma_reads);
	json_int("rdma_writes", s->rdma_writes);
	for (i = 0; i < RDMA_STATUSES; i++)
		json_int(statuses[i], s->rdma_status[i]);
	json_int("rdma_stray_statuses", s->rdma_stray);
	json_int("rdma_acked", s->rdma_acked);
	json_int("rdma_bad", s->rdma_bad);
	json_int("rdma_in_bytes", s->rdma_in_bytes);
	json_int("rdma_out_bytes", s->rdma_out_bytes);
	json_int("rdma_verified", s->rdma_verified);
	json_int("rdma_verify_errors", s->rdma_verify_errors);
	json_int("rdma_mrs", s->rdma_mrs);
	if (o->rdma_flags & RDMA_F_KEY_O_METER)
		json_int("rdma_keys_reissued", rdma_keys_reissued());
}

/* One line, one object: the benchmark harness parses it. */
void print_json(const struct stress_run *run, const struct rates *r,
		const struct sample *end)
{
	const struct stress_opts *o = &run->o;

	printf("{\"role\": \"%s\"", run->active ? "active" : "passive");
	json_int("tasks", o->tasks);
	json_int("depth", o->depth);
	json_bool("classic_io", o->classic_io);
	json_bool("one_way", o->one_way);
	json_int("req_bytes", o->req_bytes);
	json_int("ack_bytes", o->ack_bytes);
	json_int("tos", o->tos);
	json_bool("verify", o->verify);
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
	json_num("rtt_p50_us", r->rtt_p50_us);
	json_num("rtt_p99_us", r->rtt_p99_us);
	json_num("rtt_p999_us", r->rtt_p999_us);
	json_num("cpu_pct", r->cpu);
	json_int("verify_errors", end->s.verify_errors);
	json_int("dropped", end->s.dropped);
	if (o->rdma_bytes) {
		json_num("rdma_in_kbytes_per_sec", r->mbi);
		json_num("rdma_out_kbytes_per_sec", r->mbo);
		json_rdma(o, &end->s);
	}
	printf("}\n");
}
