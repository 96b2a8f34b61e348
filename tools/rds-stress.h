/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rds-stress internals shared by its files: rds-stress.c (command line),
 * stress-report.c (statistics and summaries), stress-ctl.c (the TCP
 * control connection), stress-task.c (the per-task message loop) and
 * stress-rdma.c (the RDMA of -D).
 */
#ifndef RDS_STRESS_H
#define RDS_STRESS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#define MAX_TASKS	256
#define MAX_DEPTH	4096
#define MAX_MSG		(1024 * 1024)
#define MAX_RDMA	(1024 * 1024)	/* bytes of one RDMA, all vectors */
#define MAX_RDMA_VECTOR	512

/* The classic --rdma-* switches, in stress_opts.rdma_flags. */
#define RDMA_F_USE_ONCE		0x01	/* regions go after one RDMA */
#define RDMA_F_GET_MR		0x02	/* RDS_GET_MR + RDMA_DEST, not RDMA_MAP */
#define RDMA_F_FENCE		0x04	/* READs fence the ack behind them */
#define RDMA_F_CACHE_MRS	0x08	/* one region per slot for the whole run */
#define RDMA_F_KEY_O_METER	0x10	/* count R_Keys issued again */

/* -M: what requests ask for. */
#define RDMA_MODE_BOTH		0	/* alternately READ and WRITE */
#define RDMA_MODE_READ		1
#define RDMA_MODE_WRITE		2

/*
 * Everything both instances must agree on; the active one decides. All
 * fields are 32 bits: the control connection sends them one by one.
 */
struct stress_opts {
	uint32_t tasks;
	uint32_t depth;
	uint32_t req_bytes;
	uint32_t ack_bytes;
	uint32_t rdma_bytes;	/* -D, per local vector; 0: no RDMA */
	uint32_t time_s;	/* 0: until interrupted */
	uint32_t tos;
	uint32_t verify;
	uint32_t rdma_vector;	/* -I: local vectors of rdma_bytes each */
	uint32_t rdma_mode;
	uint32_t rdma_flags;
	uint32_t rdma_align;	/* buffers start this far into a page */
	uint32_t classic_io;	/* --classic-io: buffers and poll as the classic tool */
	uint32_t one_way;	/* --one-way: the passive side sends no requests */
};

/* This instance: the shared options plus what stays local. */
struct stress_run {
	struct stress_opts o;
	bool active;
	bool summary_only;
	bool json;
	uint16_t port;				/* control; tasks use port+1.. */
	struct sockaddr_storage ctl_addr;	/* -s (active) or -r (passive) */
	bool have_local;			/* -r given */
	struct sockaddr_storage local;		/* our RDS address */
	struct sockaddr_storage peer;		/* the other side's */
	int ctl_fd;
	bool peer_done;				/* peer sent its 'D' */
};

/*
 * Messages between tasks start with this header, in network byte order.
 * An ack echoes the request's timestamp, so the round trip is measured on
 * one clock and acks need no matching against requests. With -D a request
 * also names the RDMA its ack is to carry, in the requester's buffer
 * rdma_slot (whose cookie comes as RDS_CMSG_RDMA_DEST), filled from
 * rdma_seed; the ack echoes the three.
 */
#define STRESS_MAGIC	0x52445353u	/* "RDSS" */
#define MSG_REQ		1
#define MSG_ACK		2

#define RDMA_NONE	0
#define RDMA_READ	1	/* the acking task reads the requester's buffer */
#define RDMA_WRITE	2	/* the acking task writes into it */

struct stress_hdr {
	uint32_t magic;
	uint8_t type;
	uint8_t rdma_op;
	uint16_t from_task;
	uint32_t seq;
	uint32_t len;
	uint64_t sent_ns;
	uint32_t rdma_slot;
	uint32_t rdma_seed;
};

/* RDS_CMSG_RDMA_STATUS codes, RDS_RDMA_SUCCESS .. RDS_RDMA_OTHER_ERROR. */
#define RDMA_STATUSES	5

/*
 * Round trips by size, for their percentiles: a bucket is 1/RTT_SUBS of
 * its power of two wide (3 % at 32), so a percentile is read to within
 * that; RTT_BUCKETS reach past 30 minutes in nanoseconds.
 */
#define RTT_SUBS	32
#define RTT_BUCKETS	(RTT_SUBS * 38)

/*
 * Counters of one task. The task adds with relaxed atomics and the
 * reporter reads them the same way; only totals matter, never a
 * consistent snapshot across fields.
 */
struct task_stats {
	uint64_t tx_msgs, rx_msgs;
	uint64_t tx_bytes, rx_bytes;
	uint64_t tx_ns;			/* time spent inside sendmsg() */
	uint64_t rtt_ns, rtt_count;
	uint64_t rtt_hist[RTT_BUCKETS];	/* see rtt_bucket() */
	uint64_t verify_errors;
	uint64_t dropped;		/* malformed or from a stranger */
	/* RDMA issued by this task, on its acks, and their statuses */
	uint64_t rdma_reads, rdma_writes;
	uint64_t rdma_status[RDMA_STATUSES];
	uint64_t rdma_stray;		/* a status for nothing in flight */
	/* RDMA the peer did for this task's requests, seen in the acks */
	uint64_t rdma_acked;
	uint64_t rdma_bad;		/* a request or ack not as asked */
	/* both */
	uint64_t rdma_in_bytes;		/* into this node's buffers */
	uint64_t rdma_out_bytes;	/* out of them */
	uint64_t rdma_verified, rdma_verify_errors;
	uint64_t rdma_mrs;		/* regions registered */
};

struct task {
	unsigned int idx;
	int fd;
	pthread_t thread;
	const struct stress_run *run;
	struct task_stats stats;
	/* per peer task: requests in flight, and the acks we still owe */
	uint32_t *outstanding;
	uint32_t *owed_head, *owed_count;
	uint64_t *owed_ts;		/* [peer * depth + slot] */
	uint32_t seq;
	bool blocked;
	bool drained;			/* -D: our requests all acked (atomic) */
	bool ended;			/* task_main() returned (atomic) */
	char *buf;
	struct task_rdma *rdma;		/* NULL without -D */
};

/*
 * Set by the parent, read with atomics: stress_stop ends the requests.
 * Without -D the tasks then end; with it they go on answering until
 * stress_quit, so that no RDMA is cut off half way.
 */
extern int stress_stop;
extern int stress_quit;

#define stat_add(field, v)	__atomic_add_fetch(&(field), (v), __ATOMIC_RELAXED)
#define stat_get(field)		__atomic_load_n(&(field), __ATOMIC_RELAXED)

bool stress_opts_valid(const struct stress_opts *o);

void ctl_setup(struct stress_run *r);
void ctl_sync(struct stress_run *r, char what, int timeout_ms);
bool ctl_peer_gone(struct stress_run *r);

void task_open(struct task *t, const struct stress_run *r);
void *task_main(void *arg);
void task_close(struct task *t);

/* stress-rdma.c; it fills the msghdr's msg_control. */
struct msghdr;
void rdma_open(struct task *t);
void rdma_close(struct task *t);
bool rdma_req_build(struct task *t, unsigned int peer, struct stress_hdr *h,
		    struct msghdr *m);
void rdma_req_sent(struct task *t, unsigned int peer, const struct stress_hdr *h,
		   bool sent);
void rdma_req_received(struct task *t, unsigned int peer, unsigned int owed,
		       const struct stress_hdr *h, uint64_t cookie);
bool rdma_ack_ready(const struct task *t, unsigned int peer, unsigned int owed);
void rdma_ack_build(struct task *t, unsigned int peer, unsigned int owed,
		    struct stress_hdr *h, struct msghdr *m);
void rdma_ack_sent(struct task *t, unsigned int peer, const struct stress_hdr *h);
void rdma_ack_received(struct task *t, unsigned int peer, const struct stress_hdr *h);
void rdma_status(struct task *t, uint64_t token, int status);
unsigned int rdma_in_flight(const struct task *t);
uint64_t rdma_keys_interval(double *min_gap_s);
uint64_t rdma_keys_reissued(void);

/* stress-report.c */
struct sample {
	uint64_t ns;
	struct task_stats s;
	uint64_t cpu_busy, cpu_total;
};

struct rates {
	double secs, tx, rx, kbytes, mbi, mbo, tx_us, rtt_us, cpu;
	double rtt_p50_us, rtt_p99_us, rtt_p999_us;
};

unsigned int rtt_bucket(uint64_t ns);

void take_sample(struct task *tasks, unsigned int n, struct sample *s);
void rates(const struct sample *a, const struct sample *b, struct rates *r);
void print_header(void);
void print_line(unsigned int tasks, const struct rates *r);
void print_json(const struct stress_run *run, const struct rates *r,
		const struct sample *end);

#endif
