// SPDX-License-Identifier: GPL-2.0
/* Congestion maps.  A receiver that holds more than its rcvbuf sets its
 * port's bit in the map of its address; the map travels to every peer with
 * a connection from that address, and senders there refuse (or wait) to
 * send to a congested port instead of filling the receiver further.
 */
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "cong.h"
#include "connection.h"
#include "message.h"
#include "netns.h"
#include "recv.h"
#include "socket.h"
#include "stats.h"
#include "trace.h"

/* Sockets with RDS_CONG_MONITOR on, across all netns (a notification only
 * concerns the socket's own mask), and sockets refused with ENOBUFS since
 * the last map change, which that change wakes once.  rds_cong_monitor_lock
 * guards both lists; it is taken with interrupts off because updates
 * arrive from softirq receive paths and from under the receive queue
 * locks; rs_lock nests inside it.
 */
static LIST_HEAD(rds_cong_monitor);
static LIST_HEAD(rds_cong_refused);
static DEFINE_SPINLOCK(rds_cong_monitor_lock);

/* Bumped on every map change, for poll()'s rds_cong_updated_since(). */
static atomic_t rds_cong_generation = ATOMIC_INIT(0);

static int rds_cong_cmp(const struct in6_addr *a, const struct in6_addr *b)
{
	return memcmp(a, b, sizeof(*a));
}

/* cong_lock held.  Returns the map for @addr, or NULL and where to link it. */
static struct rds_cong_map *rds_cong_lookup(struct rds_net *rn,
					    const struct in6_addr *addr,
					    struct rb_node ***linkp,
					    struct rb_node **parentp)
{
	struct rb_node **link = &rn->cong_tree.rb_node, *parent = NULL;

	while (*link) {
		struct rds_cong_map *map;
		int cmp;

		parent = *link;
		map = rb_entry(parent, struct rds_cong_map, m_rb_node);
		cmp = rds_cong_cmp(addr, &map->m_addr);
		if (cmp < 0)
			link = &parent->rb_left;
		else if (cmp > 0)
			link = &parent->rb_right;
		else
			return map;
	}
	*linkp = link;
	*parentp = parent;
	return NULL;
}

/* A map is allocated outside cong_lock (it is 8 KiB) and thrown away if
 * another caller linked one for the same address meanwhile.
 */
struct rds_cong_map *rds_cong_map_get(struct net *net,
				      const struct in6_addr *addr, gfp_t gfp)
{
	struct rds_net *rn = rds_net(net);
	struct rds_cong_map *map, *new;
	struct rb_node **link, *parent;
	unsigned long flags;

	new = kzalloc(sizeof(*new), gfp);
	if (!new)
		return NULL;
	refcount_set(&new->m_ref, 1);
	new->m_net = net;
	new->m_addr = *addr;
	init_waitqueue_head(&new->m_waitq);

	spin_lock_irqsave(&rn->cong_lock, flags);
	map = rds_cong_lookup(rn, addr, &link, &parent);
	if (map) {
		refcount_inc(&map->m_ref);
	} else {
		rb_link_node(&new->m_rb_node, parent, link);
		rb_insert_color(&new->m_rb_node, &rn->cong_tree);
		map = new;
		new = NULL;
	}
	spin_unlock_irqrestore(&rn->cong_lock, flags);
	kfree(new);
	return map;
}

/* The count only drops to zero under cong_lock, so a lookup holding that
 * lock never finds a dying map.
 */
void rds_cong_map_put(struct rds_cong_map *map)
{
	struct rds_net *rn;
	unsigned long flags;
	bool last;

	if (!map)
		return;
	rn = rds_net(map->m_net);
	spin_lock_irqsave(&rn->cong_lock, flags);
	last = refcount_dec_and_test(&map->m_ref);
	if (last)
		rb_erase(&map->m_rb_node, &rn->cong_tree);
	spin_unlock_irqrestore(&rn->cong_lock, flags);
	if (last)
		kfree(map);
}

/* m_changed collects the monitor bits of the ports changed since the last update. */
void rds_cong_set_bit(struct rds_cong_map *map, __be16 port)
{
	set_bit_le(be16_to_cpu(port), map->m_bits);
	atomic64_or(RDS_CONG_MONITOR_MASK(be16_to_cpu(port)), &map->m_changed);
}

void rds_cong_clear_bit(struct rds_cong_map *map, __be16 port)
{
	clear_bit_le(be16_to_cpu(port), map->m_bits);
	atomic64_or(RDS_CONG_MONITOR_MASK(be16_to_cpu(port)), &map->m_changed);
}

bool rds_cong_test_bit(struct rds_cong_map *map, __be16 port)
{
	return test_bit_le(be16_to_cpu(port), map->m_bits);
}

static void rds_cong_queue_one(struct rds_connection *conn, void *arg)
{
	struct rds_cong_map *map = arg;

	if (conn->c_lcong != map || conn->c_loopback)
		return;
	if (!test_and_set_bit(0, &conn->c_map_queued)) {
		rds_stats_inc(RDS_STAT_CONG_UPDATE_QUEUED);
		rds_path_queue_send(&conn->c_path[0], 0);
	}
}

/* Peers get the whole map on each connection from the map's address.
 * Senders of this netns use this very map object as their c_fcong (the
 * loopback case), so they are told directly, about the ports that changed.
 */
void rds_cong_queue_updates(struct rds_cong_map *map)
{
	rds_conn_visit_rcu(map->m_net, rds_cong_queue_one, map);
	rds_cong_map_updated(map, atomic64_xchg(&map->m_changed, 0));
}

void rds_cong_map_updated(struct rds_cong_map *map, u64 portmask)
{
	struct rds_sock *rs, *tmp;
	unsigned long flags;

	wake_up_all(&map->m_waitq);
	atomic_inc(&rds_cong_generation);
	if (list_empty_careful(&rds_cong_refused) &&
	    (!portmask || list_empty_careful(&rds_cong_monitor)))
		return;

	spin_lock_irqsave(&rds_cong_monitor_lock, flags);
	/* Refused senders that do not monitor poll for any change: one
	 * wake-up each, on their own queue; poll() reports it.
	 */
	list_for_each_entry_safe(rs, tmp, &rds_cong_refused, rs_cong_refused_item) {
		list_del_init(&rs->rs_cong_refused_item);
		rds_wake_sk_sleep(rs, 0);
	}
	if (!portmask)
		goto out;
	list_for_each_entry(rs, &rds_cong_monitor, rs_cong_item) {
		bool notify;

		spin_lock(&rs->rs_lock);
		rs->rs_cong_notify |= rs->rs_cong_mask & portmask;
		rs->rs_cong_mask &= ~portmask;
		notify = rs->rs_cong_notify != 0;
		spin_unlock(&rs->rs_lock);
		if (notify)
			rds_wake_sk_sleep(rs, 0);
	}
out:
	spin_unlock_irqrestore(&rds_cong_monitor_lock, flags);
}

/* A nonblocking send of @rs to @port was refused.  A monitor notes the
 * port in its mask; any other socket goes on the refused list, and its
 * poll() reports the next map change, not an older one (rs_cong_track
 * moves to now).  Noted before the caller tests the port again, so an
 * update that the test misses finds the socket noted.
 */
static void rds_cong_note_refused(struct rds_sock *rs, __be16 port)
{
	unsigned long flags;

	spin_lock_irqsave(&rds_cong_monitor_lock, flags);
	spin_lock(&rs->rs_lock);
	rs->rs_seen_congestion = true;
	if (rs->rs_cong_monitor) {
		rs->rs_cong_mask |= RDS_CONG_MONITOR_MASK(be16_to_cpu(port));
	} else {
		rs->rs_cong_track = atomic_read(&rds_cong_generation);
		if (list_empty(&rs->rs_cong_refused_item))
			list_add_tail(&rs->rs_cong_refused_item,
				      &rds_cong_refused);
	}
	spin_unlock(&rs->rs_lock);
	spin_unlock_irqrestore(&rds_cong_monitor_lock, flags);
}

/* How long a congested port may go without news before we first ask
 * again, and at most between two asks.
 */
#define RDS_CONG_RESYNC_JIFFIES	(2 * HZ)
#define RDS_CONG_RESYNC_MAX	(60 * HZ)

/* A peer that sends its map on whichever path transmits next (in-tree RDS
 * does) can have an old map, queued behind bulk data on a busy path,
 * arrive after the newer one sent on an idle path, path 0 included.  When
 * that old map marks a port congested and the peer's map then stays as it
 * is, our senders are refused for good.  Such a peer sends its whole map
 * whenever a path comes up, so when a congested port has had no news for a
 * while, reset path 0 (retransmission covers what was in flight) to get
 * the map again.  A port the answer still marks congested may well be
 * congested: each ask waits four times longer than the one before (2 s,
 * 8 s, 32 s, then every 60 s) until a map opens a port, so one socket
 * cannot have a shared path reset again and again.  Our own peers send
 * maps on path 0 only, in order: never for them.
 */
static void rds_cong_resync(struct rds_connection *conn, __be16 port)
{
	unsigned long last = READ_ONCE(conn->c_fcong_jiffies);
	unsigned long wait = READ_ONCE(conn->c_fcong_backoff);

	if (!wait)
		wait = RDS_CONG_RESYNC_JIFFIES;
	if (!READ_ONCE(conn->c_fcong_any_path) ||
	    !rds_cong_test_bit(conn->c_fcong, port) ||
	    time_before(jiffies, last + wait) ||
	    !rds_conn_path_up(&conn->c_path[0]))
		return;
	if (cmpxchg(&conn->c_fcong_jiffies, last, jiffies) != last)
		return;	/* another sender asked, or a map came */
	WRITE_ONCE(conn->c_fcong_backoff, min(wait * 4, RDS_CONG_RESYNC_MAX));
	rds_stats_inc(RDS_STAT_CONG_RESYNC);
	rds_conn_path_error(&conn->c_path[0], "peer congestion map may be stale");
}

/* A blocked sender looks again this often, so that it asks for a stale map
 * itself rather than wait for another sender to.
 */
#define RDS_CONG_RESYNC_POLL	(RDS_CONG_RESYNC_JIFFIES / 4)

/* A send to a congested port: ENOBUFS when non-blocking, as in-tree; a
 * blocking one waits for the port to open, but no longer than SO_SNDTIMEO
 * (ETIMEDOUT then, as a full send buffer says).  In-tree waits for the
 * port however long that takes, whatever SO_SNDTIMEO says: a port whose
 * reader is gone would hold the sender for good.
 */
int rds_cong_wait(struct rds_connection *conn, __be16 port, bool nonblock,
		  struct rds_sock *rs)
{
	struct rds_cong_map *map = conn->c_fcong;
	long timeo, left, slice, ret;

	rds_cong_resync(conn, port);
	if (!rds_cong_test_bit(map, port))
		return 0;
	if (nonblock) {
		/* The port may have opened between the test and noting it,
		 * and that update would have found nothing to notify.
		 */
		if (rs) {
			rds_cong_note_refused(rs, port);
			if (!rds_cong_test_bit(map, port))
				return 0;
		}
		rds_stats_inc(RDS_STAT_CONG_SEND_ERROR);
		return -ENOBUFS;
	}

	rds_stats_inc(RDS_STAT_CONG_SEND_BLOCKED);
	timeo = rs ? rds_rs_to_sk(rs)->sk_sndtimeo : MAX_SCHEDULE_TIMEOUT;
	left = timeo;
	for (;;) {
		slice = min_t(long, left, RDS_CONG_RESYNC_POLL);
		ret = wait_event_interruptible_timeout(map->m_waitq,
						       !rds_cong_test_bit(map, port),
						       slice);
		if (ret > 0)
			return 0;
		if (ret < 0)
			return sock_intr_errno(timeo);
		if (left != MAX_SCHEDULE_TIMEOUT) {
			left -= slice;
			if (!left)
				return -ETIMEDOUT;
		}
		rds_cong_resync(conn, port);
	}
}

struct rds_message *rds_cong_update_alloc(struct rds_connection *conn)
{
	struct rds_message *rm;

	rm = rds_message_from_buffer(conn->c_lcong->m_bits, RDS_CONG_MAP_BYTES,
				     GFP_NOWAIT | __GFP_NOWARN);
	if (!rm)
		return NULL;
	rm->m_inc.i_hdr.h_flags = RDS_FLAG_CONG_BITMAP;
	rds_message_populate_header(&rm->m_inc.i_hdr, 0, 0, 0);
	return rm;
}

/* Copies the peer's map into c_fcong and tells waiters about the ports
 * whose bits changed.  The map is stored little endian bit order as on the
 * wire, so word i bit b is port 64 * i + b on every host.
 */
void rds_cong_recv(struct rds_connection *conn, struct rds_incoming *inc)
{
	struct rds_cong_map *map = conn->c_fcong;
	__le64 *dst = (__le64 *)map->m_bits;
	struct iov_iter iter;
	struct kvec kv;
	unsigned int i, congested = 0, changed = 0;
	bool traced = trace_rds_cong_update_enabled();
	u64 portmask = 0, opened = 0;
	__le64 *buf;
	int ret;

	if (be32_to_cpu(inc->i_hdr.h_len) != RDS_CONG_MAP_BYTES) {
		rds_recv_dropped(inc, RDS_STAT_RECV_DROP_BAD_CONG_MAP);
		return;
	}
	buf = kmalloc(RDS_CONG_MAP_BYTES, GFP_ATOMIC);
	if (!buf)
		return;
	kv.iov_base = buf;
	kv.iov_len = RDS_CONG_MAP_BYTES;
	iov_iter_kvec(&iter, ITER_DEST, &kv, 1, RDS_CONG_MAP_BYTES);
	ret = inc->i_trans->inc_copy_to_user(inc, &iter);
	if (ret != RDS_CONG_MAP_BYTES)
		goto out;

	for (i = 0; i < RDS_CONG_MAP_BYTES / sizeof(*buf); i++) {
		__le64 old = READ_ONCE(dst[i]);

		portmask |= le64_to_cpu(old ^ buf[i]);
		opened |= le64_to_cpu(old & ~buf[i]);
		WRITE_ONCE(dst[i], buf[i]);
		if (traced) {
			congested += hweight64(le64_to_cpu(buf[i]));
			changed += hweight64(le64_to_cpu(old ^ buf[i]));
		}
	}
	if (traced)
		trace_rds_cong_update(conn, congested, changed);
	rds_stats_inc(RDS_STAT_CONG_UPDATE_RECEIVED);
	WRITE_ONCE(conn->c_fcong_jiffies, jiffies);
	if (inc->i_cp && inc->i_cp->cp_index)
		WRITE_ONCE(conn->c_fcong_any_path, true);
	if (opened)
		WRITE_ONCE(conn->c_fcong_backoff, 0);
	rds_cong_map_updated(map, portmask);
out:
	kfree(buf);
}

int rds_cong_monitor_set(struct rds_sock *rs, bool on)
{
	unsigned long flags;

	spin_lock_irqsave(&rds_cong_monitor_lock, flags);
	spin_lock(&rs->rs_lock);
	if (on && !rs->rs_cong_monitor) {
		list_add_tail(&rs->rs_cong_item, &rds_cong_monitor);
		rs->rs_cong_monitor = true;
	} else if (!on && rs->rs_cong_monitor) {
		list_del_init(&rs->rs_cong_item);
		rs->rs_cong_monitor = false;
		rs->rs_cong_mask = 0;
		rs->rs_cong_notify = 0;
	}
	spin_unlock(&rs->rs_lock);
	spin_unlock_irqrestore(&rds_cong_monitor_lock, flags);
	return 0;
}

void rds_cong_remove_socket(struct rds_sock *rs)
{
	unsigned long flags;

	rds_cong_monitor_set(rs, false);
	spin_lock_irqsave(&rds_cong_monitor_lock, flags);
	list_del_init(&rs->rs_cong_refused_item);
	spin_unlock_irqrestore(&rds_cong_monitor_lock, flags);
}

bool rds_cong_updated_since(unsigned long *recent)
{
	unsigned long gen = atomic_read(&rds_cong_generation);

	if (likely(*recent == gen))
		return false;
	*recent = gen;
	return true;
}

/* Every connection of @net is gone by now, and with it every map. */
void rds_cong_net_exit(struct net *net)
{
	WARN_ON(!RB_EMPTY_ROOT(&rds_net(net)->cong_tree));
}

int rds_cong_init(void)
{
	return 0;
}

void rds_cong_exit(void)
{
	WARN_ON(!list_empty(&rds_cong_monitor));
}
