// SPDX-License-Identifier: GPL-2.0
/* The memory RDS/IB connections pin, and the bound on it.
 *
 * A queue pair comes with rings whose memory stays pinned while it lives:
 * a page per receive slot (recv.c) and a fragment buffer per send slot
 * (send.c), some 5 MiB a connection at the default sizes.  Peers make us
 * accept connections (max_accepted per netns), and a local user opens one
 * per TOS and address pair: nothing bounded the sum.  Now every ring is
 * admitted against one bound for the host, max_ring_memory, and a share
 * of it per netns, max_ring_memory_per_netns:
 *
 *  - a new connection gets its rings at full size while they take at most
 *    a quarter of what is still free under both; past that they shrink to
 *    that quarter, down to RDS_IB_MIN_RECV_WR receives and
 *    RDS_IB_MIN_SEND_WR sends, and below that the connection is refused
 *    (-ENOBUFS: the active side tries again later, the passive side
 *    rejects the request with RDS_IB_REJ_REFUSED).  So the bound is
 *    never passed, there is always room left for the next connection to
 *    be judged, and no admitted connection has fewer than the minimums:
 *    none starves.
 *  - receive pages a ring takes beyond its size (held by messages that
 *    sockets have not read, struct rds_ib_recv_budget) count in the
 *    host's total too, and are taken only while it is under the bound.
 *
 * The host's count is in pages (rds_ib_mem_used); a netns counts what its
 * live rings were given (rin_ring_pages).  A ring's send part and its
 * netns share are given back when the ring is freed; its receive part
 * when the last of its pages is, which may be later (struct
 * rds_ib_recv_budget).  Admissions take rds_ib_mem_mutex, so that two of
 * them never count the same free pages; everything else is atomic.
 */
#include <linux/mm.h>

#include "ib.h"

static atomic_long_t rds_ib_mem_used = ATOMIC_LONG_INIT(0);
static DEFINE_MUTEX(rds_ib_mem_mutex);

static unsigned long rds_ib_mem_limit(const unsigned long *bytes)
{
	return READ_ONCE(*bytes) >> PAGE_SHIFT;
}

/* Pages pinned by every ring of the host now (the ring_memory sysctl). */
unsigned long rds_ib_mem_pages(void)
{
	return max_t(long, atomic_long_read(&rds_ib_mem_used), 0);
}

static unsigned long rds_ib_mem_room(unsigned long limit, long used)
{
	return used < 0 || (unsigned long)used < limit ? limit - used : 0;
}

/* Sizes rings of *send and *recv slots (as the sysctls asked) within
 * what is free, and charges them to the host and to @rin.  0, or
 * -ENOBUFS: not even the minimums fit.
 */
static int rds_ib_mem_charge(struct rds_ib_net *rin, u32 *send_nr,
			     u32 *recv_nr)
{
	unsigned long room, want = *send_nr + *recv_nr, grant;
	u32 send = *send_nr, recv = *recv_nr;

	mutex_lock(&rds_ib_mem_mutex);
	room = min(rds_ib_mem_room(rds_ib_mem_limit(&rds_ib_sysctl_max_ring_memory),
				   atomic_long_read(&rds_ib_mem_used)),
		   rds_ib_mem_room(rds_ib_mem_limit(&rds_ib_sysctl_max_ring_memory_netns),
				   atomic_long_read(&rin->rin_ring_pages)));
	if (want > room / 4) {
		/* Both rings shrink alike, to a quarter of the room. */
		grant = room / 4;
		send = max_t(u32, div64_ul((u64)send * grant, want),
			     min_t(u32, send, RDS_IB_MIN_SEND_WR));
		recv = max_t(u32, div64_ul((u64)recv * grant, want),
			     min_t(u32, recv, RDS_IB_MIN_RECV_WR));
		if (send + recv > room) {
			mutex_unlock(&rds_ib_mem_mutex);
			rds_ib_stats_inc(RDS_IB_STAT_RING_REFUSED);
			return -ENOBUFS;
		}
		rds_ib_stats_inc(RDS_IB_STAT_RING_SHRUNK);
	}
	atomic_long_add(send + recv, &rds_ib_mem_used);
	atomic_long_add(send + recv, &rin->rin_ring_pages);
	mutex_unlock(&rds_ib_mem_mutex);
	*send_nr = send;
	*recv_nr = recv;
	return 0;
}

/* Sizes @ic's rings within what is free, and charges them.  A connection
 * on an SRQ asks for no receive ring (*recv_nr 0).
 */
int rds_ib_mem_admit(struct rds_ib_connection *ic, struct rds_ib_net *rin,
		     u32 *send_nr, u32 *recv_nr)
{
	int ret = rds_ib_mem_charge(rin, send_nr, recv_nr);

	if (ret)
		return ret;
	ic->i_mem_rin = rin;
	ic->i_mem_send = *send_nr;
	ic->i_mem_recv = *recv_nr;
	return 0;
}

/* An SRQ's slots (srq.c), by the rings' rule: its budget gives the host's
 * share back (rds_ib_mem_put()), its end the netns's
 * (rds_ib_mem_release_srq()).
 */
int rds_ib_mem_admit_srq(struct rds_ib_net *rin, u32 *nr)
{
	u32 send = 0;

	return rds_ib_mem_charge(rin, &send, nr);
}

void rds_ib_mem_release_srq(struct rds_ib_net *rin, u32 pages)
{
	atomic_long_sub(pages, &rin->rin_ring_pages);
}

/* The ring is freed: its send part and its netns share go back.  The
 * receive part went to the ring's budget (rds_ib_mem_recv_take()), or
 * goes back now if the ring never had one.
 */
void rds_ib_mem_release(struct rds_ib_connection *ic)
{
	if (!ic->i_mem_rin)
		return;
	atomic_long_sub(ic->i_mem_send + ic->i_mem_recv + ic->i_mem_recv_given,
			&ic->i_mem_rin->rin_ring_pages);
	atomic_long_sub(ic->i_mem_send + ic->i_mem_recv, &rds_ib_mem_used);
	ic->i_mem_rin = NULL;
	ic->i_mem_send = 0;
	ic->i_mem_recv = 0;
	ic->i_mem_recv_given = 0;
}

/* The receive part goes to the ring's budget, which gives it back when it
 * is freed (rds_ib_mem_put()): the pages returned.
 */
u32 rds_ib_mem_recv_take(struct rds_ib_connection *ic)
{
	u32 pages = ic->i_mem_recv;

	ic->i_mem_recv_given = pages;
	ic->i_mem_recv = 0;
	return pages;
}

void rds_ib_mem_put(unsigned long pages)
{
	atomic_long_sub(pages, &rds_ib_mem_used);
}

/* A receive page beyond a ring's size: only while the host is under the
 * bound.
 */
bool rds_ib_mem_get_extra(void)
{
	unsigned long limit = rds_ib_mem_limit(&rds_ib_sysctl_max_ring_memory);

	if (atomic_long_inc_return(&rds_ib_mem_used) <= (long)limit)
		return true;
	atomic_long_dec(&rds_ib_mem_used);
	return false;
}
