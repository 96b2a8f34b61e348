// SPDX-License-Identifier: GPL-2.0
/* Memory regions for RDS_GET_MR: a fast-registration MR of the device that
 * serves the socket's bound address, mapped onto the pinned pages.
 *
 * MRs come from a pool per device and size class (rd_mr_pool): allocating
 * one (ib_alloc_mr) is a verb that may sleep in the driver for each
 * region, while a pooled one only needs its pages mapped again.
 * Registering maps the pages into the MR zero-based as in-tree does
 * (ib_map_mr_sg_zbva: the peer addresses the region from 0, plus the
 * cookie's offset) and picks the key the registration will carry
 * (ib_update_fast_reg_key, one more than the MR's last key): the cookie
 * the user gets is the rkey for good, and a key a peer kept from the MR's
 * last region reaches nothing.
 *
 * Registering and invalidating are work requests, IB_WR_REG_MR and
 * IB_WR_LOCAL_INV, and a work request needs a queue pair, which
 * RDS_GET_MR may come before (a queue pair of our own per device would
 * need rdma_cm to connect it to itself, which rxe cannot do without a
 * second device).  So the region waits on its device's rd_mr_pending, and
 * the next sender on any path of the device posts its work request ahead
 * of whatever it sends: RDS_GET_MR kicks every path up on the device, a
 * path that comes up sends first thing, and every message sent after
 * RDS_GET_MR returned follows the registration on its queue pair.  A
 * registration flushed by a connection that went waits for the next one.
 *
 * Releasing kills the key before the pages are unpinned, whether or not
 * RDS_RDMA_INVALIDATE asked for it: a key left alive would let a peer
 * write into pages that went back to their owner.  A registered region is
 * invalidated (IB_WR_LOCAL_INV, queued as above) and its MR goes back to
 * the pool; when no path on the device is up to post that, or the
 * invalidation fails, the MR is deregistered (ib_dereg_mr), which kills
 * the key as surely, and the pool is refilled by a later allocation.  A
 * release waits for a work request of the region in flight (it points at
 * the MR).  A socket closing with many regions starts every invalidation
 * before it waits for the first (rds_ib_mr_invalidate()), so that they go
 * out together, a ring at a time.
 *
 * Regions hold no device reference: a device being removed takes the
 * mappings of all its regions (rds_ib_mr_device_remove()), once its paths
 * are gone, so that `rdma link del` never waits for a user to free them.
 * The region itself and its pinned pages stay until the user frees it or
 * closes the socket, which then only frees our bookkeeping.
 */
#include <linux/slab.h>

#include "ib.h"

/* The page lists of the two pooled sizes: 8 KiB and 1 MiB at any offset
 * (3 and 257 pages), with the spare entry rds_ib_mr_map() explains.  A
 * larger region gets an MR of its own, deregistered when it goes.
 */
#define RDS_IB_MR_8K_PAGES	4
#define RDS_IB_MR_1M_PAGES	258
/* Idle MRs a device keeps per size; more are deregistered. */
#define RDS_IB_MR_POOL_MAX	1024
/* How long a release waits for its invalidation before it looks again
 * whether any path is left to post it.
 */
#define RDS_IB_MR_INV_WAIT	HZ
/* ...and how many times before it stops waiting for one not yet posted. */
#define RDS_IB_MR_INV_TRIES	10

/* rds_ib_mr_mutex protects every device's rd_mrs and each region's
 * ibmr_dev, so that a release and a device removal agree on which of them
 * undoes a mapping.  No other lock of ours is taken under it but rd_lock;
 * the driver's ib_dereg_mr() is.
 */
static DEFINE_MUTEX(rds_ib_mr_mutex);
/* Releases waiting for a work request of their region (ibmr_state). */
static DECLARE_WAIT_QUEUE_HEAD(rds_ib_mr_wq);

/* Where a region's MR stands, under its device's rd_lock.  The _QUEUED
 * states are those on rd_mr_pending; a sender moves them to _POSTED, the
 * completion on.  Only IDLE lets the MR map other pages: its key is dead.
 */
enum rds_ib_mr_state {
	RDS_IB_MR_IDLE,		/* the key reaches nothing */
	RDS_IB_MR_REG_QUEUED,
	RDS_IB_MR_REG_POSTED,
	RDS_IB_MR_LIVE,		/* registered: the key reaches the pages */
	RDS_IB_MR_INV_QUEUED,
	RDS_IB_MR_INV_POSTED,
	RDS_IB_MR_BROKEN,	/* a work request failed: deregister it */
};

/* r_trans_private of an RDS/IB region, and an idle MR of a pool.
 *
 * Lifetime: from mr_register to mr_release, then in its device's pool
 * (ibmr_item on rd_mr_pool[], rd_lock) until a registration takes it or
 * the device goes.  ibmr_dev is set while the region is mapped on that
 * device (on its rd_mrs, ibmr_sgt DMA-mapped), and cleared by whichever of
 * release and device removal unmaps it.  ibmr_pending is on rd_mr_pending
 * in the _QUEUED states; ibmr_state and ibmr_gone (release began: nothing
 * queues a registration again) are under rd_lock.  Release and device
 * removal take the region off rd_mr_pending and release waits for the
 * _POSTED states to end before they unmap.
 */
struct rds_ib_mr {
	struct list_head	ibmr_item;	/* rd_mrs, or the pool */
	struct list_head	ibmr_pending;	/* rd_mr_pending, rd_lock */
	enum rds_ib_mr_state	ibmr_state;
	bool			ibmr_gone;
	struct rds_ib_device	*ibmr_dev;
	struct ib_mr		*ibmr_mr;
	unsigned int		ibmr_max_pages;	/* of ibmr_mr's page list */
	struct sg_table		ibmr_sgt;
};

/* The pool a page list of @pages belongs to, or -1: none. */
static int rds_ib_mr_class(unsigned int pages)
{
	if (pages == RDS_IB_MR_8K_PAGES)
		return 0;
	if (pages == RDS_IB_MR_1M_PAGES)
		return 1;
	return -1;
}

/* The page list a region of @npages gets: the smallest pooled one. */
static unsigned int rds_ib_mr_list_pages(unsigned int npages)
{
	if (npages + 1 <= RDS_IB_MR_8K_PAGES)
		return RDS_IB_MR_8K_PAGES;
	if (npages + 1 <= RDS_IB_MR_1M_PAGES)
		return RDS_IB_MR_1M_PAGES;
	return npages + 1;
}

static void rds_ib_mr_count(struct rds_ib_mr *ibmr, enum rds_ib_stat s8k,
			    enum rds_ib_stat s1m)
{
	rds_ib_stats_inc(ibmr->ibmr_max_pages <= RDS_IB_MR_8K_PAGES ? s8k : s1m);
}

/* An idle MR for @npages from @rdev's pool, or a new one. */
static struct rds_ib_mr *rds_ib_mr_get(struct rds_ib_device *rdev,
				       unsigned int npages)
{
	unsigned int pages = rds_ib_mr_list_pages(npages);
	struct rds_ib_mr *ibmr = NULL;
	unsigned long flags;
	struct ib_mr *mr;
	int class;

	/* A device with shorter page lists has no pool for this size. */
	if (pages > rdev->rd_dev->attrs.max_fast_reg_page_list_len)
		pages = npages + 1;
	class = rds_ib_mr_class(pages);
	if (class >= 0) {
		spin_lock_irqsave(&rdev->rd_lock, flags);
		ibmr = list_first_entry_or_null(&rdev->rd_mr_pool[class],
						struct rds_ib_mr, ibmr_item);
		if (ibmr) {
			list_del(&ibmr->ibmr_item);
			rdev->rd_mr_pooled[class]--;
		}
		spin_unlock_irqrestore(&rdev->rd_lock, flags);
	}
	if (ibmr) {
		rds_ib_mr_count(ibmr, RDS_IB_STAT_RDMA_MR_8K_REUSED,
				RDS_IB_STAT_RDMA_MR_1M_REUSED);
		return ibmr;
	}

	ibmr = kzalloc(sizeof(*ibmr), GFP_KERNEL);
	if (!ibmr)
		return ERR_PTR(-ENOMEM);
	mr = ib_alloc_mr(rdev->rd_pd, IB_MR_TYPE_MEM_REG, pages);
	if (IS_ERR(mr)) {
		kfree(ibmr);
		return ERR_CAST(mr);
	}
	ibmr->ibmr_mr = mr;
	ibmr->ibmr_max_pages = pages;
	rds_ib_mr_count(ibmr, RDS_IB_STAT_RDMA_MR_8K_ALLOC,
			RDS_IB_STAT_RDMA_MR_1M_ALLOC);
	return ibmr;
}

/* Deregistering kills the key, whatever state the MR is in. */
static void rds_ib_mr_dereg(struct rds_ib_mr *ibmr)
{
	ib_dereg_mr(ibmr->ibmr_mr);
	ibmr->ibmr_mr = NULL;
	rds_ib_mr_count(ibmr, RDS_IB_STAT_RDMA_MR_8K_FREE,
			RDS_IB_STAT_RDMA_MR_1M_FREE);
}

/* An unmapped MR whose key is dead back to @rdev's pool, or destroyed. */
static void rds_ib_mr_put(struct rds_ib_device *rdev, struct rds_ib_mr *ibmr)
{
	int class = rds_ib_mr_class(ibmr->ibmr_max_pages);
	unsigned long flags;
	bool pooled = false;

	if (class >= 0 && ibmr->ibmr_state == RDS_IB_MR_IDLE) {
		spin_lock_irqsave(&rdev->rd_lock, flags);
		/* Device removal empties the pool once, after rd_dying. */
		if (!rdev->rd_dying &&
		    rdev->rd_mr_pooled[class] < RDS_IB_MR_POOL_MAX) {
			list_add(&ibmr->ibmr_item, &rdev->rd_mr_pool[class]);
			rdev->rd_mr_pooled[class]++;
			pooled = true;
		}
		spin_unlock_irqrestore(&rdev->rd_lock, flags);
	}
	if (!pooled) {
		rds_ib_mr_dereg(ibmr);
		kfree(ibmr);
	}
}

/* Undoes rds_ib_mr_map(): the key dies before the pages are unmapped.
 * Under rds_ib_mr_mutex once the region is on rd_mrs.
 */
static void rds_ib_mr_unmap(struct rds_ib_device *rdev, struct rds_ib_mr *ibmr)
{
	unsigned long flags;

	spin_lock_irqsave(&rdev->rd_lock, flags);
	list_del_init(&ibmr->ibmr_pending);
	if (ibmr->ibmr_state == RDS_IB_MR_REG_QUEUED)
		ibmr->ibmr_state = RDS_IB_MR_IDLE;
	spin_unlock_irqrestore(&rdev->rd_lock, flags);
	if (ibmr->ibmr_state != RDS_IB_MR_IDLE)
		rds_ib_mr_dereg(ibmr);
	ib_dma_unmap_sgtable_attrs(rdev->rd_dev, &ibmr->ibmr_sgt,
				   DMA_BIDIRECTIONAL, 0);
	sg_free_table(&ibmr->ibmr_sgt);
}

/* Maps the pages into @ibmr's MR and picks its key. */
static int rds_ib_mr_map(struct rds_ib_device *rdev, struct rds_ib_mr *ibmr,
			 struct rds_mr *mr)
{
	struct ib_mr *ib_mr = ibmr->ibmr_mr;
	int ret, n;

	ret = sg_alloc_table_from_pages(&ibmr->ibmr_sgt, mr->r_pages,
					mr->r_npages, 0,
					(unsigned long)mr->r_npages << PAGE_SHIFT,
					GFP_KERNEL);
	if (ret)
		return ret;
	ret = ib_dma_map_sgtable_attrs(rdev->rd_dev, &ibmr->ibmr_sgt,
				       DMA_BIDIRECTIONAL, 0);
	if (ret)
		goto err_free_sgt;
	/* The page list has one entry to spare (rds_ib_mr_list_pages()):
	 * 6.1's rxe reads the map after the last when a copy ends on a
	 * multiple of 256 pages (KASAN says slab-out-of-bounds in
	 * rxe_mr_copy()), and allocates that map only for an MR at least one
	 * page longer than the region.
	 */
	n = ib_map_mr_sg_zbva(ib_mr, ibmr->ibmr_sgt.sgl, ibmr->ibmr_sgt.nents,
			      NULL, PAGE_SIZE);
	if (n != ibmr->ibmr_sgt.nents) {
		ret = n < 0 ? n : -EINVAL;
		goto err_unmap;
	}
	/* A key other than the last one registered with this MR's index,
	 * as a REG_MR wants: a peer's stale key cannot reach the new region.
	 */
	ib_update_fast_reg_key(ib_mr, ib_inc_rkey(ib_mr->rkey));
	return 0;

err_unmap:
	ib_dma_unmap_sgtable_attrs(rdev->rd_dev, &ibmr->ibmr_sgt,
				   DMA_BIDIRECTIONAL, 0);
err_free_sgt:
	sg_free_table(&ibmr->ibmr_sgt);
	return ret;
}

/* Kicks every path up on @rdev to post what waits on rd_mr_pending; false
 * when there is none.  Under rd_lock.
 */
static bool rds_ib_mr_kick(struct rds_ib_device *rdev)
{
	struct rds_ib_connection *ic;
	bool up = false;

	list_for_each_entry(ic, &rdev->rd_conns, i_dev_item) {
		if (rds_conn_path_up(ic->i_cp)) {
			rds_path_queue_send(ic->i_cp, 0);
			up = true;
		}
	}
	return up;
}

/* Queues @ibmr's next work request as @state, unless the device is
 * going.  Under rd_lock.
 */
static void rds_ib_mr_queue(struct rds_ib_device *rdev, struct rds_ib_mr *ibmr,
			    enum rds_ib_mr_state state)
{
	if (rdev->rd_dying)
		return;
	ibmr->ibmr_state = state;
	list_add_tail(&ibmr->ibmr_pending, &rdev->rd_mr_pending);
}

/* Takes a _QUEUED @ibmr off rd_mr_pending, as @state.  Under rd_lock. */
static void rds_ib_mr_unqueue(struct rds_ib_mr *ibmr,
			      enum rds_ib_mr_state state)
{
	list_del_init(&ibmr->ibmr_pending);
	ibmr->ibmr_state = state;
}

/* The next region waiting on @rdev, marked posted, or NULL. */
static struct rds_ib_mr *rds_ib_mr_next_pending(struct rds_ib_device *rdev)
{
	struct rds_ib_mr *ibmr;
	unsigned long flags;

	spin_lock_irqsave(&rdev->rd_lock, flags);
	ibmr = list_first_entry_or_null(&rdev->rd_mr_pending,
					struct rds_ib_mr, ibmr_pending);
	if (ibmr) {
		list_del_init(&ibmr->ibmr_pending);
		ibmr->ibmr_state = ibmr->ibmr_state == RDS_IB_MR_REG_QUEUED ?
				   RDS_IB_MR_REG_POSTED : RDS_IB_MR_INV_POSTED;
	}
	spin_unlock_irqrestore(&rdev->rd_lock, flags);
	return ibmr;
}

/* A work request of @ibmr is no longer in flight: it ran (@status), was
 * flushed by a connection that went, or was never posted (@status
 * IB_WC_WR_FLUSH_ERR too).  Flushed, it waits for the next connection:
 * a release that finds none deregisters instead.
 */
static void rds_ib_mr_unpost(struct rds_ib_device *rdev,
			     struct rds_ib_mr *ibmr, enum ib_wc_status status)
{
	unsigned long flags;
	bool reg;

	spin_lock_irqsave(&rdev->rd_lock, flags);
	reg = ibmr->ibmr_state == RDS_IB_MR_REG_POSTED;
	if (status == IB_WC_SUCCESS) {
		ibmr->ibmr_state = reg ? RDS_IB_MR_LIVE : RDS_IB_MR_IDLE;
		if (!reg)
			rds_ib_stats_inc(RDS_IB_STAT_RDMA_MR_INVALIDATE);
	} else if (status != IB_WC_WR_FLUSH_ERR) {
		ibmr->ibmr_state = RDS_IB_MR_BROKEN;
	} else if (reg) {
		ibmr->ibmr_state = RDS_IB_MR_IDLE;
		if (!ibmr->ibmr_gone)
			rds_ib_mr_queue(rdev, ibmr, RDS_IB_MR_REG_QUEUED);
	} else {
		ibmr->ibmr_state = RDS_IB_MR_LIVE;
		rds_ib_mr_queue(rdev, ibmr, RDS_IB_MR_INV_QUEUED);
	}
	spin_unlock_irqrestore(&rdev->rd_lock, flags);
	wake_up_all(&rds_ib_mr_wq);
}

/* Posts the IB_WR_REG_MR and IB_WR_LOCAL_INV of every region waiting on
 * the path's device, ahead of anything else the sender (RDS_IN_XMIT)
 * posts.  -EAGAIN when the ring is full: the completion kicks us.  The
 * region's MR stays mapped while we post: its release waits for the
 * _POSTED states to end, and device removal for this path to go.
 */
int rds_ib_mr_post_wrs(struct rds_ib_connection *ic)
{
	struct rds_ib_device *rdev = ic->i_dev;
	struct rds_ib_send_slot *s;
	struct rds_ib_mr *ibmr;
	struct ib_send_wr *wr;
	int ret;

	while (!list_empty_careful(&rdev->rd_mr_pending)) {
		if (!rds_ib_send_room(ic, 1))
			return -EAGAIN;
		ibmr = rds_ib_mr_next_pending(rdev);
		if (!ibmr)
			break;
		s = &ic->i_sends[ic->i_send_head];
		if (ibmr->ibmr_state == RDS_IB_MR_REG_POSTED) {
			memset(&s->s_reg_wr, 0, sizeof(s->s_reg_wr));
			wr = &s->s_reg_wr.wr;
			wr->opcode = IB_WR_REG_MR;
			s->s_reg_wr.mr = ibmr->ibmr_mr;
			s->s_reg_wr.key = ibmr->ibmr_mr->rkey;
			s->s_reg_wr.access = IB_ACCESS_LOCAL_WRITE |
					     IB_ACCESS_REMOTE_READ |
					     IB_ACCESS_REMOTE_WRITE;
			/* The peer's atomics too, where the device has any. */
			if (rdev->rd_dev->attrs.atomic_cap != IB_ATOMIC_NONE)
				s->s_reg_wr.access |= IB_ACCESS_REMOTE_ATOMIC;
		} else {
			memset(&s->s_wr, 0, sizeof(s->s_wr));
			wr = &s->s_wr;
			wr->opcode = IB_WR_LOCAL_INV;
			wr->ex.invalidate_rkey = ibmr->ibmr_mr->rkey;
		}
		wr->wr_cqe = &s->s_cqe;
		wr->send_flags = IB_SEND_SIGNALED;
		s->s_ibmr = ibmr;
		atomic_dec(&ic->i_send_free);
		ret = ib_post_send(ic->i_qp, wr, NULL);
		if (ret) {
			atomic_inc(&ic->i_send_free);
			s->s_ibmr = NULL;
			rds_ib_mr_unpost(rdev, ibmr, IB_WC_WR_FLUSH_ERR);
			return ret;
		}
		ic->i_send_head = (ic->i_send_head + 1) % ic->i_send_nr;
	}
	return 0;
}

/* The completion of a region's work request, any context.  Another error
 * than a flush leaves the MR unusable: for a registration the peer learns
 * it as a remote access error, and the region stays the user's to free.
 */
void rds_ib_mr_wr_done(struct rds_ib_connection *ic, struct rds_ib_mr *ibmr,
		       enum ib_wc_status status)
{
	rds_ib_mr_unpost(ic->i_dev, ibmr, status);
}

int rds_ib_mr_register(struct net *net, const struct in6_addr *laddr,
		       u32 scope_id, struct rds_mr *mr)
{
	struct rds_ib_device *rdev;
	struct rds_ib_mr *ibmr;
	unsigned long flags;
	int ret;

	/* Held until the region is on rd_mrs: the PD stays till then. */
	rdev = rds_ib_addr_device(net, laddr, scope_id);
	if (!rdev)
		return -ENODEV;
	if (mr->r_npages + 1 > rdev->rd_dev->attrs.max_fast_reg_page_list_len) {
		ret = -EMSGSIZE;
		goto out_put_dev;
	}
	ibmr = rds_ib_mr_get(rdev, mr->r_npages);
	if (IS_ERR(ibmr)) {
		ret = PTR_ERR(ibmr);
		goto out_put_dev;
	}
	INIT_LIST_HEAD(&ibmr->ibmr_pending);
	ibmr->ibmr_state = RDS_IB_MR_IDLE;
	ibmr->ibmr_gone = false;
	ret = rds_ib_mr_map(rdev, ibmr, mr);
	if (ret)
		goto err_put;

	/* Removal sets rd_dying before it takes the mutex to unmap rd_mrs:
	 * either it finds this region there, or we see rd_dying here.
	 */
	mutex_lock(&rds_ib_mr_mutex);
	if (READ_ONCE(rdev->rd_dying)) {
		mutex_unlock(&rds_ib_mr_mutex);
		rds_ib_mr_unmap(rdev, ibmr);
		ret = -ENODEV;
		goto err_put;
	}
	ibmr->ibmr_dev = rdev;
	list_add_tail(&ibmr->ibmr_item, &rdev->rd_mrs);
	mr->r_key = ibmr->ibmr_mr->rkey;
	mr->r_trans_private = ibmr;
	spin_lock_irqsave(&rdev->rd_lock, flags);
	rds_ib_mr_queue(rdev, ibmr, RDS_IB_MR_REG_QUEUED);
	rds_ib_mr_kick(rdev);
	spin_unlock_irqrestore(&rdev->rd_lock, flags);
	mutex_unlock(&rds_ib_mr_mutex);
	ret = 0;
	goto out_put_dev;

err_put:
	rds_ib_mr_put(rdev, ibmr);
out_put_dev:
	rds_ib_device_put(rdev);
	return ret;
}

/* Starts the end of @ibmr's key: no registration is queued any more, and
 * a live key gets its IB_WR_LOCAL_INV queued where a path can post it.
 * Without one the key stays live for release to deregister.
 */
static void rds_ib_mr_kill(struct rds_ib_mr *ibmr)
{
	struct rds_ib_device *rdev;
	unsigned long flags;

	/* ibmr_dev is only cleared after the device's paths are gone, so
	 * while it is set the device is there to lock.
	 */
	mutex_lock(&rds_ib_mr_mutex);
	rdev = ibmr->ibmr_dev;
	if (rdev) {
		spin_lock_irqsave(&rdev->rd_lock, flags);
		ibmr->ibmr_gone = true;
		if (ibmr->ibmr_state == RDS_IB_MR_REG_QUEUED)
			rds_ib_mr_unqueue(ibmr, RDS_IB_MR_IDLE);
		/* Queued before the kick: a sender already running must see
		 * it, or nobody would post it before the next kick.
		 */
		if (ibmr->ibmr_state == RDS_IB_MR_LIVE) {
			rds_ib_mr_queue(rdev, ibmr, RDS_IB_MR_INV_QUEUED);
			if (!rds_ib_mr_kick(rdev))
				rds_ib_mr_unqueue(ibmr, RDS_IB_MR_LIVE);
		}
		spin_unlock_irqrestore(&rdev->rd_lock, flags);
	}
	mutex_unlock(&rds_ib_mr_mutex);
}

/* An invalidation still queued when no path is up to post it, or after
 * @waited seconds of kicking paths that do not post it (a ring that never
 * drains), is dropped: release deregisters the MR instead.  Paths that are
 * up are kicked again.
 */
static void rds_ib_mr_kill_stalled(struct rds_ib_mr *ibmr, unsigned int waited)
{
	struct rds_ib_device *rdev;
	unsigned long flags;

	mutex_lock(&rds_ib_mr_mutex);
	rdev = ibmr->ibmr_dev;
	if (rdev) {
		spin_lock_irqsave(&rdev->rd_lock, flags);
		if (ibmr->ibmr_state == RDS_IB_MR_INV_QUEUED &&
		    (!rds_ib_mr_kick(rdev) || waited >= RDS_IB_MR_INV_TRIES))
			rds_ib_mr_unqueue(ibmr, RDS_IB_MR_LIVE);
		spin_unlock_irqrestore(&rdev->rd_lock, flags);
	}
	mutex_unlock(&rds_ib_mr_mutex);
}

static bool rds_ib_mr_in_flight(struct rds_ib_mr *ibmr, bool inv)
{
	enum rds_ib_mr_state state = READ_ONCE(ibmr->ibmr_state);

	return state == RDS_IB_MR_REG_POSTED ||
	       (inv && (state == RDS_IB_MR_INV_QUEUED ||
			state == RDS_IB_MR_INV_POSTED));
}

/* Releasing many regions: their invalidations are queued before the
 * first release waits for its own.
 */
void rds_ib_mr_invalidate(struct rds_mr *mr)
{
	rds_ib_mr_kill(mr->r_trans_private);
}

/* Synchronous: with or without @invalidate the key is dead on return. */
void rds_ib_mr_release(struct rds_mr *mr, bool invalidate)
{
	struct rds_ib_mr *ibmr = mr->r_trans_private;
	struct rds_ib_device *rdev;
	unsigned int waited = 0;

	rds_ib_mr_kill(ibmr);
	/* A registration in flight may have made the key live meanwhile. */
	if (rds_ib_mr_in_flight(ibmr, false)) {
		wait_event(rds_ib_mr_wq, !rds_ib_mr_in_flight(ibmr, false));
		rds_ib_mr_kill(ibmr);
	}
	while (!wait_event_timeout(rds_ib_mr_wq, !rds_ib_mr_in_flight(ibmr, true),
				   RDS_IB_MR_INV_WAIT))
		rds_ib_mr_kill_stalled(ibmr, ++waited);

	mutex_lock(&rds_ib_mr_mutex);
	rdev = ibmr->ibmr_dev;
	if (rdev) {
		list_del(&ibmr->ibmr_item);
		rds_ib_mr_unmap(rdev, ibmr);
		ibmr->ibmr_dev = NULL;
		/* Pooled if its key is dead, else deregistered already. */
		if (ibmr->ibmr_mr)
			rds_ib_mr_put(rdev, ibmr);
		else
			kfree(ibmr);
	} else {
		/* Device removal unmapped it and deregistered its MR. */
		kfree(ibmr);
	}
	mutex_unlock(&rds_ib_mr_mutex);
	mr->r_trans_private = NULL;
}

/* RDS_FREE_MR with cookie 0.  Releases are not deferred, so there is
 * nothing to finish; in-tree's RDS/IB answers 0 here, not EINVAL.
 */
void rds_ib_mr_flush(struct net *net)
{
}

/* Device removal, after rd_dying is set and every path on the device is
 * gone, before the PD goes: no region keeps a mapping on the device, and
 * the pools are emptied.  A release waiting for an invalidation that no
 * path will post is woken, to find its region unmapped.
 */
void rds_ib_mr_device_remove(struct rds_ib_device *rdev)
{
	struct rds_ib_mr *ibmr, *next;
	unsigned long flags;
	LIST_HEAD(idle);
	int class;

	mutex_lock(&rds_ib_mr_mutex);
	list_for_each_entry_safe(ibmr, next, &rdev->rd_mrs, ibmr_item) {
		list_del(&ibmr->ibmr_item);
		spin_lock_irqsave(&rdev->rd_lock, flags);
		if (ibmr->ibmr_state == RDS_IB_MR_INV_QUEUED)
			ibmr->ibmr_state = RDS_IB_MR_LIVE;
		spin_unlock_irqrestore(&rdev->rd_lock, flags);
		rds_ib_mr_unmap(rdev, ibmr);
		/* The region's MR goes with the PD; the region stays the
		 * user's, for release to free.
		 */
		if (ibmr->ibmr_mr)
			rds_ib_mr_dereg(ibmr);
		ibmr->ibmr_dev = NULL;
		cond_resched();
	}
	mutex_unlock(&rds_ib_mr_mutex);
	wake_up_all(&rds_ib_mr_wq);

	spin_lock_irqsave(&rdev->rd_lock, flags);
	for (class = 0; class < RDS_IB_MR_CLASSES; class++) {
		list_splice_init(&rdev->rd_mr_pool[class], &idle);
		rdev->rd_mr_pooled[class] = 0;
	}
	spin_unlock_irqrestore(&rdev->rd_lock, flags);
	list_for_each_entry_safe(ibmr, next, &idle, ibmr_item) {
		rds_ib_mr_dereg(ibmr);
		kfree(ibmr);
	}
}
