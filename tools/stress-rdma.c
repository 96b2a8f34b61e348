// SPDX-License-Identifier: GPL-2.0
/*
 * The RDMA of rds-stress -D, with the classic rds-stress's roles.
 *
 * A request lends the peer task one of the requester's buffers: the
 * request registers it on the way (RDS_CMSG_RDMA_MAP), or it was
 * registered before (RDS_GET_MR) and the request names it
 * (RDS_CMSG_RDMA_DEST); either way the peer gets its cookie as
 * RDS_CMSG_RDMA_DEST. The ack carries the RDMA (RDS_CMSG_RDMA_ARGS,
 * RDS_RDMA_NOTIFY_ME): a READ of that buffer into one of the acker's, or
 * a WRITE of one of the acker's into it. Data is checked where it landed:
 * by the requester when the ack of a WRITE arrives (the RDMA goes before
 * the ack on the connection), by the acker when the status of its READ
 * comes.
 *
 * Per peer task and slot (depth of them) a task has a buffer it lends,
 * busy from its request to the ack, and one it RDMAs from or into, busy
 * from its ack to the RDMA's status. A task is one thread: nothing here
 * is shared but the counters and the key-o-meter.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/rds.h>

#include "rdstool.h"
#include "rds-stress.h"

/* Failed statuses reported on stderr per task; the rest are counted. */
#define STATUS_REPORTS	3

struct lent_buf {		/* a buffer this task lends with a request */
	uint64_t cookie;	/* its region; 0: none */
	uint32_t seed;
	uint8_t op;
	bool busy;		/* its request is not acked yet */
};

struct rdma_buf {		/* a buffer this task RDMAs on an ack */
	uint32_t seed;
	uint8_t op;
	bool busy;		/* no status yet */
};

struct owed_rdma {		/* what the ack of a request is to do */
	uint64_t cookie;
	uint32_t slot, seed;
	uint8_t op;
};

struct task_rdma {
	char *arena;
	size_t arena_len, stride, align;
	size_t bytes;			/* of one RDMA: rdma_bytes * rdma_vector */
	struct lent_buf *lent;		/* [peer * depth + slot] */
	struct rdma_buf *rbuf;		/* [peer * depth + the peer's slot] */
	struct owed_rdma *owed;		/* [peer * depth + owed ring index] */
	uint32_t *free_slots;		/* per peer, a stack of free lent slots */
	uint32_t *nfree;
	uint8_t *next_op;		/* per peer */
	unsigned int in_flight;		/* rbuf busy */
	unsigned int reports;
	uint32_t seed;
	bool registered;		/* the request being sent registers */
	struct rds_iovec *vecs;
	struct rds_get_mr_args map;
	union {
		char buf[CMSG_SPACE(sizeof(struct rds_rdma_args))];
		struct cmsghdr align;
	} ctl;
};

static bool flag(const struct task *t, uint32_t f)
{
	return t->run->o.rdma_flags & f;
}

/* Lent and RDMA buffers alternate, each in pages of its own. */
static char *lent_addr(const struct task_rdma *r, size_t i)
{
	return r->arena + 2 * i * r->stride + r->align;
}

static char *rbuf_addr(const struct task_rdma *r, size_t i)
{
	return lent_addr(r, i) + r->stride;
}

/*
 * The pattern: 64-bit words that depend on the operation's seed and
 * their offset, so that stale data, a neighbour's data and blocks in the
 * wrong place all show. Never all zeroes, which is what a buffer waiting
 * for a WRITE or READ holds.
 */
static uint64_t pattern_word(uint32_t seed, size_t word)
{
	return htole64(((((uint64_t)seed << 32) | word) + 1) * 0x9e3779b97f4a7c15ull);
}

static void pattern_fill(char *buf, size_t len, uint32_t seed)
{
	size_t i;
	uint64_t w;

	for (i = 0; i < len; i += sizeof(w)) {
		w = pattern_word(seed, i / sizeof(w));
		memcpy(buf + i, &w, len - i < sizeof(w) ? len - i : sizeof(w));
	}
}

static bool pattern_ok(const char *buf, size_t len, uint32_t seed)
{
	size_t i;
	uint64_t w;

	for (i = 0; i < len; i += sizeof(w)) {
		w = pattern_word(seed, i / sizeof(w));
		if (memcmp(buf + i, &w, len - i < sizeof(w) ? len - i : sizeof(w)))
			return false;
	}
	return true;
}

static void check_data(struct task *t, const char *buf, uint32_t seed)
{
	if (pattern_ok(buf, t->rdma->bytes, seed))
		stat_add(t->stats.rdma_verified, 1);
	else
		stat_add(t->stats.rdma_verify_errors, 1);
}

/*
 * The key-o-meter: which R_Keys (the low half of a cookie) this node
 * registered more than once within one reporting interval, and the
 * shortest time between two issues of one key. An open-addressed table
 * of the interval's keys, emptied by the reporter every second.
 */
#define KEYS_SLOTS	65536
#define KEYS_TRACKED	(KEYS_SLOTS / 2)

static pthread_mutex_t keys_lock = PTHREAD_MUTEX_INITIALIZER;
static struct key_seen {
	uint32_t key;
	bool used;
	uint64_t ns;
} keys[KEYS_SLOTS];
static unsigned int keys_count;
static uint64_t keys_reissued_now, keys_reissued_all, keys_min_gap_ns;

static void keys_add(uint32_t key)
{
	unsigned int i = (key * 2654435761u) % KEYS_SLOTS;
	uint64_t now = now_ns();

	pthread_mutex_lock(&keys_lock);
	while (keys[i].used && keys[i].key != key)
		i = (i + 1) % KEYS_SLOTS;
	if (keys[i].used) {
		if (!keys_reissued_now || now - keys[i].ns < keys_min_gap_ns)
			keys_min_gap_ns = now - keys[i].ns;
		keys_reissued_now++;
		keys[i].ns = now;
	} else if (keys_count < KEYS_TRACKED) {
		keys[i] = (struct key_seen){ .key = key, .used = true, .ns = now };
		keys_count++;
	}
	pthread_mutex_unlock(&keys_lock);
}

/* Keys re-issued since the last call, and the shortest gap between two. */
uint64_t rdma_keys_interval(double *min_gap_s)
{
	uint64_t n;

	pthread_mutex_lock(&keys_lock);
	n = keys_reissued_now;
	*min_gap_s = keys_min_gap_ns / 1e9;
	keys_reissued_all += n;
	keys_reissued_now = 0;
	keys_min_gap_ns = 0;
	keys_count = 0;
	memset(keys, 0, sizeof(keys));
	pthread_mutex_unlock(&keys_lock);
	return n;
}

uint64_t rdma_keys_reissued(void)
{
	uint64_t n;

	pthread_mutex_lock(&keys_lock);
	n = keys_reissued_all + keys_reissued_now;
	pthread_mutex_unlock(&keys_lock);
	return n;
}

static int get_mr(int fd, void *addr, size_t len, bool once, uint64_t *cookie)
{
	struct rds_get_mr_args a = {
		.vec = { .addr = (uintptr_t)addr, .bytes = len },
		.cookie_addr = (uintptr_t)cookie,
		.flags = once ? RDS_RDMA_USE_ONCE : 0,
	};

	return setsockopt(fd, SOL_RDS, RDS_GET_MR, &a, sizeof(a));
}

static int free_mr(int fd, uint64_t cookie)
{
	struct rds_free_mr_args a = { .cookie = cookie };

	return setsockopt(fd, SOL_RDS, RDS_FREE_MR, &a, sizeof(a));
}

static const char *transport_name(int fd)
{
	socklen_t len = sizeof(int);
	int type = -1;

	getsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &type, &len);
	switch (type) {
	case RDS_TRANS_IB:
		return "IB";
	case RDS_TRANS_TCP:
		return "TCP";
	case RDS_TRANS_COUNT:		/* the kernel's loopback transport */
		return "loopback";
	default:
		return "an unknown transport";
	}
}

/*
 * Before the test: a transport without RDMA refuses to register memory,
 * as it would refuse every RDMA cmsg, with EOPNOTSUPP. Say so once, on
 * both sides, rather than from the first sendmsg().
 */
static void probe(struct task *t)
{
	uint64_t cookie = 0;

	if (get_mr(t->fd, lent_addr(t->rdma, 0), 1, false, &cookie) == 0) {
		free_mr(t->fd, cookie);
		return;
	}
	if (errno == EOPNOTSUPP)
		die("-D needs RDS/IB (rds_rdma); %s has no RDMA (RDS_GET_MR: EOPNOTSUPP)",
		    transport_name(t->fd));
	if (errno == EPERM)
		die("-D: RDS_GET_MR: EPERM: needs CAP_IPC_LOCK or RLIMIT_MEMLOCK > 0");
	die_errno("-D: cannot register an RDMA buffer (RDS_GET_MR)");
}

void rdma_open(struct task *t)
{
	const struct stress_opts *o = &t->run->o;
	size_t n = (size_t)o->tasks * o->depth;
	size_t page = sysconf(_SC_PAGESIZE);
	struct task_rdma *r;
	unsigned int p, s;

	r = xcalloc(1, sizeof(*r));
	t->rdma = r;
	r->bytes = (size_t)o->rdma_bytes * o->rdma_vector;
	r->align = o->rdma_align;
	r->stride = (r->align + r->bytes + page - 1) / page * page;
	r->arena_len = 2 * n * r->stride;
	r->arena = mmap(NULL, r->arena_len, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->arena == MAP_FAILED)
		die_errno("task %u: cannot map %zu KiB of RDMA buffers", t->idx,
			  r->arena_len / 1024);
	r->lent = xcalloc(n, sizeof(*r->lent));
	r->rbuf = xcalloc(n, sizeof(*r->rbuf));
	r->owed = xcalloc(n, sizeof(*r->owed));
	r->free_slots = xcalloc(n, sizeof(*r->free_slots));
	r->nfree = xcalloc(o->tasks, sizeof(*r->nfree));
	r->next_op = xcalloc(o->tasks, sizeof(*r->next_op));
	r->vecs = xcalloc(o->rdma_vector, sizeof(*r->vecs));
	for (p = 0; p < o->tasks; p++) {
		for (s = 0; s < o->depth; s++)
			r->free_slots[p * o->depth + s] = o->depth - 1 - s;
		r->nfree[p] = o->depth;
		/* As the classic tool: odd peers start with a READ. */
		if (o->rdma_mode == RDMA_MODE_READ || (o->rdma_mode == RDMA_MODE_BOTH && p % 2))
			r->next_op[p] = RDMA_READ;
		else
			r->next_op[p] = RDMA_WRITE;
	}
	probe(t);
}

/* Closing the socket, after this, takes back every region. */
void rdma_close(struct task *t)
{
	struct task_rdma *r = t->rdma;

	if (!r)
		return;
	munmap(r->arena, r->arena_len);
	free(r->lent);
	free(r->rbuf);
	free(r->owed);
	free(r->free_slots);
	free(r->nfree);
	free(r->next_op);
	free(r->vecs);
	free(r);
	t->rdma = NULL;
}

static void put_cmsg(struct task_rdma *r, struct msghdr *m, int type,
		     const void *data, size_t len)
{
	struct cmsghdr *c;

	m->msg_control = r->ctl.buf;
	m->msg_controllen = CMSG_SPACE(len);
	c = CMSG_FIRSTHDR(m);
	c->cmsg_level = SOL_RDS;
	c->cmsg_type = type;
	c->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(c), data, len);
}

/*
 * A request: the next free slot's buffer, filled for a READ or cleared
 * for a WRITE, its region for the peer. False when no region can be had
 * right now; the caller retries as if the socket were full.
 */
bool rdma_req_build(struct task *t, unsigned int peer, struct stress_hdr *h,
		    struct msghdr *m)
{
	const struct stress_opts *o = &t->run->o;
	struct task_rdma *r = t->rdma;
	uint32_t slot;
	struct lent_buf *lb;
	size_t i;
	char *buf;

	if (!r->nfree[peer])
		return false;	/* a bad ack kept one: rdma_bad says so */
	slot = r->free_slots[peer * o->depth + r->nfree[peer] - 1];
	i = (size_t)peer * o->depth + slot;
	lb = &r->lent[i];
	buf = lent_addr(r, i);
	lb->op = r->next_op[peer];
	lb->seed = ++r->seed ^ (uint32_t)t->idx << 24;
	if (o->verify) {
		if (lb->op == RDMA_READ)
			pattern_fill(buf, r->bytes, lb->seed);
		else
			memset(buf, 0, r->bytes);
	}
	r->registered = false;
	if (flag(t, RDMA_F_GET_MR)) {
		if (!lb->cookie) {
			if (get_mr(t->fd, buf, r->bytes, flag(t, RDMA_F_USE_ONCE),
				   &lb->cookie) < 0) {
				if (errno == ENOMEM || errno == EAGAIN || errno == ENOBUFS)
					return false;
				die_errno("task %u: RDS_GET_MR of %zu bytes", t->idx, r->bytes);
			}
			r->registered = true;
		}
		put_cmsg(r, m, RDS_CMSG_RDMA_DEST, &lb->cookie, sizeof(lb->cookie));
	} else {
		lb->cookie = 0;		/* sendmsg() writes it */
		r->map = (struct rds_get_mr_args){
			.vec = { .addr = (uintptr_t)buf, .bytes = r->bytes },
			.cookie_addr = (uintptr_t)&lb->cookie,
			.flags = flag(t, RDMA_F_USE_ONCE) ? RDS_RDMA_USE_ONCE : 0,
		};
		put_cmsg(r, m, RDS_CMSG_RDMA_MAP, &r->map, sizeof(r->map));
		r->registered = true;
	}
	h->rdma_op = lb->op;
	h->rdma_slot = htonl(slot);
	h->rdma_seed = htonl(lb->seed);
	return true;
}

/*
 * A region RDMA_MAP registered for a message that was not sent stays
 * with the socket: take it back. One from RDS_GET_MR waits for the retry.
 */
void rdma_req_sent(struct task *t, unsigned int peer, const struct stress_hdr *h,
		   bool sent)
{
	const struct stress_opts *o = &t->run->o;
	struct task_rdma *r = t->rdma;
	struct lent_buf *lb = &r->lent[(size_t)peer * o->depth + ntohl(h->rdma_slot)];

	if (!sent) {
		if (!flag(t, RDMA_F_GET_MR) && lb->cookie) {
			free_mr(t->fd, lb->cookie);
			lb->cookie = 0;
		}
		return;
	}
	r->nfree[peer]--;
	lb->busy = true;
	if (r->registered) {
		stat_add(t->stats.rdma_mrs, 1);
		if (flag(t, RDMA_F_KEY_O_METER))
			keys_add((uint32_t)lb->cookie);
	}
	if (o->rdma_mode == RDMA_MODE_BOTH)
		r->next_op[peer] = lb->op == RDMA_READ ? RDMA_WRITE : RDMA_READ;
}

/* A request arrived; its ack, owed at ring index @owed, is to do its RDMA. */
void rdma_req_received(struct task *t, unsigned int peer, unsigned int owed,
		       const struct stress_hdr *h, uint64_t cookie)
{
	const struct stress_opts *o = &t->run->o;
	struct owed_rdma *ow = &t->rdma->owed[(size_t)peer * o->depth + owed];

	ow->op = h->rdma_op;
	ow->slot = ntohl(h->rdma_slot);
	ow->seed = ntohl(h->rdma_seed);
	ow->cookie = cookie;
	if ((ow->op != RDMA_READ && ow->op != RDMA_WRITE) || ow->slot >= o->depth ||
	    !cookie) {
		stat_add(t->stats.rdma_bad, 1);
		ow->op = RDMA_NONE;	/* acked without an RDMA */
	}
}

/* Our buffer for the peer's slot is free once the last RDMA on it is done. */
bool rdma_ack_ready(const struct task *t, unsigned int peer, unsigned int owed)
{
	unsigned int depth = t->run->o.depth;
	const struct owed_rdma *ow = &t->rdma->owed[(size_t)peer * depth + owed];

	return ow->op == RDMA_NONE ||
	       !t->rdma->rbuf[(size_t)peer * depth + ow->slot].busy;
}

void rdma_ack_build(struct task *t, unsigned int peer, unsigned int owed,
		    struct stress_hdr *h, struct msghdr *m)
{
	const struct stress_opts *o = &t->run->o;
	struct task_rdma *r = t->rdma;
	const struct owed_rdma *ow = &r->owed[(size_t)peer * o->depth + owed];
	size_t i = (size_t)peer * o->depth + ow->slot;
	char *buf = rbuf_addr(r, i);
	struct rds_rdma_args a = {
		.cookie = ow->cookie,
		.remote_vec = { .addr = 0, .bytes = r->bytes },
		.local_vec_addr = (uintptr_t)r->vecs,
		.nr_local = o->rdma_vector,
		.flags = RDS_RDMA_NOTIFY_ME,
		.user_token = i,
	};
	unsigned int v;

	h->rdma_op = ow->op;
	h->rdma_slot = htonl(ow->slot);
	h->rdma_seed = htonl(ow->seed);
	if (ow->op == RDMA_NONE)
		return;
	for (v = 0; v < o->rdma_vector; v++)
		r->vecs[v] = (struct rds_iovec){
			.addr = (uintptr_t)buf + (size_t)v * o->rdma_bytes,
			.bytes = o->rdma_bytes,
		};
	if (ow->op == RDMA_WRITE) {
		a.flags |= RDS_RDMA_READWRITE;
		if (o->verify)
			pattern_fill(buf, r->bytes, ow->seed);
	} else {
		/* Else the ack may overtake the READ's data. */
		if (flag(t, RDMA_F_FENCE))
			a.flags |= RDS_RDMA_FENCE;
		if (o->verify)
			memset(buf, 0, r->bytes);
	}
	put_cmsg(r, m, RDS_CMSG_RDMA_ARGS, &a, sizeof(a));
}

void rdma_ack_sent(struct task *t, unsigned int peer, const struct stress_hdr *h)
{
	struct task_rdma *r = t->rdma;
	struct rdma_buf *rb;

	if (h->rdma_op == RDMA_NONE)
		return;
	rb = &r->rbuf[(size_t)peer * t->run->o.depth + ntohl(h->rdma_slot)];
	rb->busy = true;
	rb->op = h->rdma_op;
	rb->seed = ntohl(h->rdma_seed);
	r->in_flight++;
	if (rb->op == RDMA_READ)
		stat_add(t->stats.rdma_reads, 1);
	else
		stat_add(t->stats.rdma_writes, 1);
}

/*
 * The ack of our request: the peer's RDMA on our buffer is over. A
 * use-once region went when the ack arrived; any other but a cached one
 * is ours to free.
 */
void rdma_ack_received(struct task *t, unsigned int peer, const struct stress_hdr *h)
{
	const struct stress_opts *o = &t->run->o;
	struct task_rdma *r = t->rdma;
	uint32_t slot = ntohl(h->rdma_slot);
	struct lent_buf *lb;

	if (slot >= o->depth || !r->lent[(size_t)peer * o->depth + slot].busy) {
		stat_add(t->stats.rdma_bad, 1);
		return;
	}
	lb = &r->lent[(size_t)peer * o->depth + slot];
	if (h->rdma_op != lb->op || ntohl(h->rdma_seed) != lb->seed) {
		stat_add(t->stats.rdma_bad, 1);
	} else if (lb->op == RDMA_WRITE) {
		stat_add(t->stats.rdma_acked, 1);
		stat_add(t->stats.rdma_in_bytes, r->bytes);
		if (o->verify)
			check_data(t, lent_addr(r, (size_t)peer * o->depth + slot), lb->seed);
	} else {
		stat_add(t->stats.rdma_acked, 1);
		stat_add(t->stats.rdma_out_bytes, r->bytes);
	}
	if (!flag(t, RDMA_F_CACHE_MRS)) {
		if (h->rdma_op == RDMA_NONE || !flag(t, RDMA_F_USE_ONCE))
			if (free_mr(t->fd, lb->cookie) < 0)
				die_errno("task %u: RDS_FREE_MR", t->idx);
		lb->cookie = 0;
	}
	lb->busy = false;
	r->free_slots[peer * o->depth + r->nfree[peer]++] = slot;
}

static const char *status_name(int status)
{
	switch (status) {
	case RDS_RDMA_SUCCESS:
		return "success";
	case RDS_RDMA_REMOTE_ERROR:
		return "remote error";
	case RDS_RDMA_CANCELED:
		return "canceled";
	case RDS_RDMA_DROPPED:
		return "dropped";
	default:
		return "other error";
	}
}

/* RDS_CMSG_RDMA_STATUS of an RDMA of ours; a READ's data is here now. */
void rdma_status(struct task *t, uint64_t token, int status)
{
	const struct stress_opts *o = &t->run->o;
	struct task_rdma *r = t->rdma;
	struct rdma_buf *rb;

	if (!r || token >= (uint64_t)o->tasks * o->depth || !r->rbuf[token].busy) {
		stat_add(t->stats.rdma_stray, 1);
		return;
	}
	rb = &r->rbuf[token];
	rb->busy = false;
	r->in_flight--;
	if (status < RDS_RDMA_SUCCESS || status >= RDMA_STATUSES)
		status = RDS_RDMA_OTHER_ERROR;
	stat_add(t->stats.rdma_status[status], 1);
	if (status != RDS_RDMA_SUCCESS) {
		if (r->reports++ < STATUS_REPORTS)
			fprintf(stderr, "%s: task %u: RDMA %s for task %u failed: %s\n",
				progname, t->idx, rb->op == RDMA_READ ? "READ" : "WRITE",
				(unsigned int)(token / o->depth), status_name(status));
		return;
	}
	if (rb->op == RDMA_WRITE) {
		stat_add(t->stats.rdma_out_bytes, r->bytes);
		return;
	}
	stat_add(t->stats.rdma_in_bytes, r->bytes);
	if (o->verify)
		check_data(t, rbuf_addr(r, token), rb->seed);
}

unsigned int rdma_in_flight(const struct task *t)
{
	return t->rdma ? t->rdma->in_flight : 0;
}
