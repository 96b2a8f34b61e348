/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rds-stress internals shared by its three files: rds-stress.c (command
 * line, reporting), stress-ctl.c (the TCP control connection) and
 * stress-task.c (the per-task message loop).
 */
#ifndef RDS_STRESS_H
#define RDS_STRESS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

/* Everything both instances must agree on; the active one decides. */
struct stress_opts {
	uint32_t tasks;
	uint32_t depth;
	uint32_t req_bytes;
	uint32_t ack_bytes;
	uint32_t rdma_bytes;
	uint32_t time_s;	/* 0: until interrupted */
	uint32_t tos;
	uint32_t verify;
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
 * one clock and acks need no matching against requests.
 */
#define STRESS_MAGIC	0x52445353u	/* "RDSS" */
#define MSG_REQ		1
#define MSG_ACK		2

struct stress_hdr {
	uint32_t magic;
	uint8_t type;
	uint8_t pad;
	uint16_t from_task;
	uint32_t seq;
	uint32_t len;
	uint64_t sent_ns;
	uint32_t rsvd[2];
};

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
	uint64_t verify_errors;
	uint64_t dropped;		/* malformed or from a stranger */
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
	char *buf;
};

/* Set by the parent to end the tasks; read with atomics. */
extern int stress_stop;

#define stat_add(field, v)	__atomic_add_fetch(&(field), (v), __ATOMIC_RELAXED)
#define stat_get(field)		__atomic_load_n(&(field), __ATOMIC_RELAXED)

void ctl_setup(struct stress_run *r);
void ctl_sync(struct stress_run *r, char what, int timeout_ms);
bool ctl_peer_gone(struct stress_run *r);

void task_open(struct task *t, const struct stress_run *r);
void *task_main(void *arg);
void task_close(struct task *t);

#endif
