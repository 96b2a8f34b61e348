// SPDX-License-Identifier: GPL-2.0
/* Memory regions for RDS_GET_MR: a fast-registration MR of the domain
 * (device and network namespace, struct rds_ib_domain) that serves the
 * socket's bound address, mapped onto the pinned pages.
 *
 * The MR is in the domain's protection domain, as are the queue pairs of
 * that namespace's connections on the device: a peer connected to another
 * namespace has a queue pair in another PD and reaches none of these
 * regions, whatever key it tries.
 *
 * MRs come from a pool per domain and size class (dom_mr_pool):
 * allocating one (ib_alloc_mr) is a verb that may sleep in the driver for
 * each region, while a pooled one only needs its pages mapped again.  The
 * pool is first in, first out, so that a freed MR is not the next one
 * handed out.
 *
 * Registering maps exactly the bytes the user named: the scatter list
 * starts at the region's offset in its first page and ends with its last
 * byte, and the MR's address of its first byte is that offset, as the
 * cookie says (in-tree's convention: the peer adds the cookie's offset to
 * its own, from 0).  The device checks every access against the MR's
 * start and length, so a peer reaches the user's bytes only, not the rest
 * of the pages they lie in.  The key's low byte (the part an MR may
 * change, ib_update_fast_reg_key) is random for every registration and
 * never the one the MR had: a key a peer kept from an MR's last region,
 * or one it saw for the region before, tells nothing about the next.
 *
 * Registering and invalidating are work requests, IB_WR_REG_MR and
 * IB_WR_LOCAL_INV, posted on the domain's own queue pair (domain.c) and
 * waited for: RDS_GET_MR returns once the key is live, so a message sent
 * afterwards on any queue pair can name it.  Each wait is bounded by
 * RDS_IB_MR_WAIT; a work request that does not complete within it gets
 * its queue pair fenced (error state: flushed), and after another bound
 * destroyed, so that it refers to no region any more.
 *
 * Releasing kills the key before the pages are unpinned, whether or not
 * RDS_RDMA_INVALIDATE asked for it: a key left alive would let a peer
 * write into pages that went back to their owner.  A registered region is
 * invalidated and its MR goes back to the pool; when the invalidation
 * fails or was flushed the MR is deregistered (ib_dereg_mr), which kills
 * the key as surely.  A socket closing with many regions posts every
 * invalidation before it waits for the first (rds_ib_mr_invalidate()).
 *
 * A device being removed takes the mappings of all regions of its
 * domains (rds_ib_mr_domain_remove()), once its paths are gone, so that
 * `rdma link del` never waits for a user to free them.  The region itself
 * and its pinned pages stay until the user frees it or closes the socket,
 * which then only frees our bookkeeping.
 *
 * A device maps at most net.rds.ib.max_mrs_per_device regions at a time,
 * in all its domains (rd_mr_used), and one domain (one netns) at most
 * net.rds.ib.max_mrs_per_netns of them (dom_mr_used), so that one
 * container cannot take a device's every region from the others; one
 * more is EAGAIN, as from in-tree's exhausted pools, and allocates no MR.
 * The idle MRs of the pools come on top, at most RDS_IB_MR_POOL_MAX per
 * size and domain.
 */
#include <linux/random.h>
#include <linux/slab.h>

#include "ib.h"

/* The page lists of the two pooled sizes: 8 KiB and 1 MiB at any offset
 * (3 and 257 pages), with the spare entry rds_ib_mr_map() explains.  A
 * larger region gets an MR of its own, deregistered when it goes.
 */
#define RDS_IB_MR_8K_PAGES	4
#define RDS_IB_MR_1M_PAGES	258
/* Idle MRs a domain keeps per size; more are deregistered. */
#define RDS_IB_MR_POOL_MAX	1024

/* Where a region's MR stands, under its domain's dom_lock.  Only IDLE
 * lets the MR map other pages: its key is dead.
 */
enum rds_ib_mr_state {
	RDS_IB_MR_IDLE,		/* the key reaches nothing */
	RDS_IB_MR_REG_POSTED,
	RDS_IB_MR_LIVE,		/* registered: the key reaches the bytes */
	RDS_IB_MR_INV_POSTED,
	RDS_IB_MR_BROKEN,	/* a work request failed: deregister it */
};

/* r_trans_private of an RDS/IB region, and an idle MR of a pool.
 *
 * Lifetime: from mr_register to mr_release, then in its domain's pool
 * (ibmr_item on dom_mr_pool[], dom_lock) until a registration takes it or
 * the domain gives its device back.  ibmr_dom is the domain for the
 * region's whole life (the generic layer holds the reference, r_dev).
 * ibmr_mapped says the region is on dom_mrs with ibmr_sgt DMA-mapped;
 * whichever of release and device removal unmaps it clears it, under
 * dom_mutex and dom_lock both, then waits for the syncs that saw it set
 * (ibmr_syncing, taken under dom_lock: mr_sync runs outside any lock, as
 * with a bounce buffer it copies the whole region).
 * ibmr_cqe is the completion of the one work request the region may have
 * posted at a time.
 */
struct rds_ib_mr {
	struct list_head	ibmr_item;	/* dom_mrs, or the pool */
	struct ib_cqe		ibmr_cqe;
	enum rds_ib_mr_state	ibmr_state;
	bool			ibmr_mapped;
	atomic_t		ibmr_syncing;	/* mr_syncs under way */
	struct rds_ib_domain	*ibmr_dom;
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

/* An idle MR for @npages from @dom's pool, or a new one.  Under
 * dom_mutex, the domain on its device.
 */
static struct rds_ib_mr *rds_ib_mr_get(struct rds_ib_domain *dom,
				       unsigned int npages)
{
	struct ib_device *dev = dom->dom_rdev->rd_dev;
	unsigned int pages = rds_ib_mr_list_pages(npages);
	struct rds_ib_mr *ibmr = NULL;
	unsigned long flags;
	struct ib_mr *mr;
	int class;

	/* A device with shorter page lists has no pool for this size. */
	if (pages > dev->attrs.max_fast_reg_page_list_len)
		pages = npages + 1;
	class = rds_ib_mr_class(pages);
	if (class >= 0) {
		spin_lock_irqsave(&dom->dom_lock, flags);
		ibmr = list_first_entry_or_null(&dom->dom_mr_pool[class],
						struct rds_ib_mr, ibmr_item);
		if (ibmr) {
			list_del(&ibmr->ibmr_item);
			dom->dom_mr_pooled[class]--;
		}
		spin_unlock_irqrestore(&dom->dom_lock, flags);
	}
	if (ibmr) {
		rds_ib_mr_count(ibmr, RDS_IB_STAT_RDMA_MR_8K_REUSED,
				RDS_IB_STAT_RDMA_MR_1M_REUSED);
		return ibmr;
	}

	ibmr = kzalloc(sizeof(*ibmr), GFP_KERNEL);
	if (!ibmr)
		return ERR_PTR(-ENOMEM);
	mr = ib_alloc_mr(dom->dom_pd, IB_MR_TYPE_MEM_REG, pages);
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

/* Deregistering kills the key, whatever state the MR is in.  Nothing of
 * it may be posted.
 */
static void rds_ib_mr_dereg(struct rds_ib_mr *ibmr)
{
	if (!ibmr->ibmr_mr)
		return;
	ib_dereg_mr(ibmr->ibmr_mr);
	ibmr->ibmr_mr = NULL;
	rds_ib_mr_count(ibmr, RDS_IB_STAT_RDMA_MR_8K_FREE,
			RDS_IB_STAT_RDMA_MR_1M_FREE);
}

/* An unmapped region back to @dom's pool if its key is dead, else
 * destroyed.  Under dom_mutex.
 */
static void rds_ib_mr_put(struct rds_ib_domain *dom, struct rds_ib_mr *ibmr)
{
	int class = rds_ib_mr_class(ibmr->ibmr_max_pages);
	unsigned long flags;
	bool pooled = false;

	if (class >= 0 && ibmr->ibmr_mr && dom->dom_rdev &&
	    ibmr->ibmr_state == RDS_IB_MR_IDLE) {
		spin_lock_irqsave(&dom->dom_lock, flags);
		if (dom->dom_mr_pooled[class] < RDS_IB_MR_POOL_MAX) {
			list_add_tail(&ibmr->ibmr_item,
				      &dom->dom_mr_pool[class]);
			dom->dom_mr_pooled[class]++;
			pooled = true;
		}
		spin_unlock_irqrestore(&dom->dom_lock, flags);
	}
	if (!pooled) {
		rds_ib_mr_dereg(ibmr);
		kfree(ibmr);
	}
}

/* Undoes rds_ib_mr_map() and takes the region off dom_mrs; a key still
 * alive is killed first.  Under dom_mutex, nothing of it posted.
 */
static void rds_ib_mr_unmap(struct rds_ib_domain *dom, struct rds_ib_mr *ibmr)
{
	struct ib_device *dev = dom->dom_rdev->rd_dev;
	unsigned long flags;

	list_del(&ibmr->ibmr_item);
	dom->dom_mr_used--;
	atomic_dec(&dom->dom_rdev->rd_mr_used);
	spin_lock_irqsave(&dom->dom_lock, flags);
	ibmr->ibmr_mapped = false;
	if (ibmr->ibmr_state != RDS_IB_MR_IDLE)
		ibmr->ibmr_state = RDS_IB_MR_BROKEN;
	spin_unlock_irqrestore(&dom->dom_lock, flags);
	if (ibmr->ibmr_state != RDS_IB_MR_IDLE)
		rds_ib_mr_dereg(ibmr);
	/* A sync under way ends in the time one copy of the region takes. */
	wait_event(dom->dom_wq, !atomic_read(&ibmr->ibmr_syncing));
	ib_dma_unmap_sgtable_attrs(dev, &ibmr->ibmr_sgt, DMA_BIDIRECTIONAL, 0);
	sg_free_table(&ibmr->ibmr_sgt);
}

/* Maps the bytes @mr names into @ibmr's MR and picks its key. */
static int rds_ib_mr_map(struct rds_ib_domain *dom, struct rds_ib_mr *ibmr,
			 struct rds_mr *mr)
{
	struct ib_device *dev = dom->dom_rdev->rd_dev;
	struct ib_mr *ib_mr = ibmr->ibmr_mr;
	u8 key;
	int ret, n;

	ret = sg_alloc_table_from_pages(&ibmr->ibmr_sgt, mr->r_pages,
					mr->r_npages, mr->r_offset,
					mr->r_bytes, GFP_KERNEL);
	if (ret)
		return ret;
	ret = ib_dma_map_sgtable_attrs(dev, &ibmr->ibmr_sgt,
				       DMA_BIDIRECTIONAL, 0);
	if (ret)
		goto err_free_sgt;
	/* The page list has one entry to spare (rds_ib_mr_list_pages()):
	 * 6.1's rxe reads the map after the last when a copy ends on a
	 * multiple of 256 pages (KASAN says slab-out-of-bounds in
	 * rxe_mr_copy()), and allocates that map only for an MR at least one
	 * page longer than the region.
	 */
	n = ib_map_mr_sg(ib_mr, ibmr->ibmr_sgt.sgl, ibmr->ibmr_sgt.nents,
			 NULL, PAGE_SIZE);
	if (n != ibmr->ibmr_sgt.nents) {
		ret = n < 0 ? n : -EINVAL;
		goto err_unmap;
	}
	/* The first byte at its offset in the page: the cookie's. */
	ib_mr->iova = mr->r_offset;
	do {
		key = get_random_u32() & 0xff;
	} while (key == (ib_mr->rkey & 0xff));
	ib_update_fast_reg_key(ib_mr, key);
	return 0;

err_unmap:
	ib_dma_unmap_sgtable_attrs(dev, &ibmr->ibmr_sgt, DMA_BIDIRECTIONAL, 0);
err_free_sgt:
	sg_free_table(&ibmr->ibmr_sgt);
	return ret;
}

/* The completion of a region's work request, in softirq.  Another error
 * than a flush leaves the MR unusable; a flush too, as nothing retries
 * it: release deregisters it.
 */
static void rds_ib_mr_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rds_ib_mr *ibmr = container_of(wc->wr_cqe, struct rds_ib_mr,
					      ibmr_cqe);
	struct rds_ib_domain *dom = cq->cq_context;
	unsigned long flags;

	spin_lock_irqsave(&dom->dom_lock, flags);
	if (wc->status != IB_WC_SUCCESS) {
		ibmr->ibmr_state = RDS_IB_MR_BROKEN;
	} else if (ibmr->ibmr_state == RDS_IB_MR_REG_POSTED) {
		ibmr->ibmr_state = RDS_IB_MR_LIVE;
	} else {
		ibmr->ibmr_state = RDS_IB_MR_IDLE;
		rds_ib_stats_inc(RDS_IB_STAT_RDMA_MR_INVALIDATE);
	}
	spin_unlock_irqrestore(&dom->dom_lock, flags);
	rds_ib_domain_done(dom);
}

/* Posts @ibmr's registration, or invalidation of its live key.  Under
 * dom_mutex.
 */
static int rds_ib_mr_post(struct rds_ib_domain *dom, struct rds_ib_mr *ibmr,
			  bool reg)
{
	enum rds_ib_mr_state old = ibmr->ibmr_state;
	struct ib_reg_wr rwr = {};
	struct ib_send_wr *wr;
	unsigned long flags;
	int ret;

	wr = &rwr.wr;
	if (reg) {
		wr->opcode = IB_WR_REG_MR;
		rwr.mr = ibmr->ibmr_mr;
		rwr.key = ibmr->ibmr_mr->rkey;
		rwr.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			     IB_ACCESS_REMOTE_WRITE;
		/* The peer's atomics too, where the device has any. */
		if (dom->dom_rdev->rd_dev->attrs.atomic_cap != IB_ATOMIC_NONE)
			rwr.access |= IB_ACCESS_REMOTE_ATOMIC;
	} else {
		wr->opcode = IB_WR_LOCAL_INV;
		wr->ex.invalidate_rkey = ibmr->ibmr_mr->rkey;
	}
	ibmr->ibmr_cqe.done = rds_ib_mr_done;
	wr->wr_cqe = &ibmr->ibmr_cqe;
	spin_lock_irqsave(&dom->dom_lock, flags);
	ibmr->ibmr_state = reg ? RDS_IB_MR_REG_POSTED : RDS_IB_MR_INV_POSTED;
	spin_unlock_irqrestore(&dom->dom_lock, flags);
	ret = rds_ib_domain_post(dom, wr);
	if (ret) {
		spin_lock_irqsave(&dom->dom_lock, flags);
		ibmr->ibmr_state = old;
		spin_unlock_irqrestore(&dom->dom_lock, flags);
	}
	return ret;
}

static bool rds_ib_mr_posted(struct rds_ib_mr *ibmr)
{
	enum rds_ib_mr_state state = READ_ONCE(ibmr->ibmr_state);

	return state == RDS_IB_MR_REG_POSTED || state == RDS_IB_MR_INV_POSTED;
}

/* Waits, for a bounded time, until @ibmr has nothing posted: past
 * RDS_IB_MR_WAIT the domain's queue pair is fenced, and past another it
 * is destroyed, with every region that had a work request on it marked
 * broken (its key is killed by deregistering).
 */
static void rds_ib_mr_settle(struct rds_ib_domain *dom, struct rds_ib_mr *ibmr)
{
	struct rds_ib_mr *pos;
	unsigned long flags;

	if (wait_event_timeout(dom->dom_wq, !rds_ib_mr_posted(ibmr),
			       RDS_IB_MR_WAIT))
		return;
	mutex_lock(&dom->dom_mutex);
	rds_ib_domain_fence(dom);
	mutex_unlock(&dom->dom_mutex);
	if (wait_event_timeout(dom->dom_wq, !rds_ib_mr_posted(ibmr),
			       RDS_IB_MR_WAIT))
		return;
	mutex_lock(&dom->dom_mutex);
	if (rds_ib_mr_posted(ibmr) && rds_ib_domain_kill_qp(dom)) {
		spin_lock_irqsave(&dom->dom_lock, flags);
		list_for_each_entry(pos, &dom->dom_mrs, ibmr_item)
			if (rds_ib_mr_posted(pos))
				pos->ibmr_state = RDS_IB_MR_BROKEN;
		spin_unlock_irqrestore(&dom->dom_lock, flags);
	}
	mutex_unlock(&dom->dom_mutex);
	wake_up_all(&dom->dom_wq);
}

/* The end of @ibmr: its key dead (invalidated, or deregistered), its
 * pages unmapped, its MR pooled or destroyed.
 */
static void rds_ib_mr_finish(struct rds_ib_domain *dom, struct rds_ib_mr *ibmr)
{
	rds_ib_mr_settle(dom, ibmr);
	mutex_lock(&dom->dom_mutex);
	if (ibmr->ibmr_mapped) {
		rds_ib_mr_unmap(dom, ibmr);
		rds_ib_mr_put(dom, ibmr);
	} else {
		/* Device removal unmapped it and deregistered its MR. */
		rds_ib_mr_dereg(ibmr);
		kfree(ibmr);
	}
	mutex_unlock(&dom->dom_mutex);
}

int rds_ib_mr_register(struct rds_device *dev, struct rds_mr *mr)
{
	struct rds_ib_domain *dom = rds_ib_dom(dev);
	struct rds_ib_device *rdev;
	struct rds_ib_mr *ibmr;
	u32 rkey;
	int ret;

	mutex_lock(&dom->dom_mutex);
	rdev = dom->dom_rdev;
	if (!rdev) {
		ret = -ENODEV;
		goto out_unlock;
	}
	if (mr->r_npages + 1 > rdev->rd_dev->attrs.max_fast_reg_page_list_len) {
		ret = -EMSGSIZE;
		goto out_unlock;
	}
	if (dom->dom_mr_used >= READ_ONCE(rds_ib_sysctl_max_mrs_per_netns)) {
		ret = -EAGAIN;
		goto out_unlock;
	}
	/* The region's place on the device, before an MR is allocated: it
	 * goes with the region's leaving dom_mrs, or below on failure.
	 */
	if (atomic_inc_return(&rdev->rd_mr_used) >
	    READ_ONCE(rds_ib_sysctl_max_mrs_per_device)) {
		ret = -EAGAIN;
		goto out_unreserve;
	}
	ibmr = rds_ib_mr_get(dom, mr->r_npages);
	if (IS_ERR(ibmr)) {
		ret = PTR_ERR(ibmr);
		goto out_unreserve;
	}
	ibmr->ibmr_dom = dom;
	ibmr->ibmr_state = RDS_IB_MR_IDLE;
	ret = rds_ib_mr_map(dom, ibmr, mr);
	if (ret) {
		rds_ib_mr_put(dom, ibmr);
		goto out_unreserve;
	}
	list_add_tail(&ibmr->ibmr_item, &dom->dom_mrs);
	dom->dom_mr_used++;
	ibmr->ibmr_mapped = true;
	/* Read while the MR is sure to be there: once dom_mutex is dropped
	 * device removal may deregister it.
	 */
	rkey = ibmr->ibmr_mr->rkey;
	ret = rds_ib_mr_post(dom, ibmr, true);
	mutex_unlock(&dom->dom_mutex);

	if (!ret) {
		rds_ib_mr_settle(dom, ibmr);
		if (READ_ONCE(ibmr->ibmr_state) == RDS_IB_MR_LIVE &&
		    READ_ONCE(ibmr->ibmr_mapped)) {
			mr->r_key = rkey;
			mr->r_trans_private = ibmr;
			return 0;
		}
		ret = READ_ONCE(ibmr->ibmr_mapped) ? -EIO : -ENODEV;
	}
	rds_ib_mr_finish(dom, ibmr);
	return ret;

out_unreserve:
	atomic_dec(&rdev->rd_mr_used);
out_unlock:
	mutex_unlock(&dom->dom_mutex);
	return ret;
}

/* Starts the end of @ibmr's key: a live key gets its IB_WR_LOCAL_INV
 * posted.  Without room for it, or with the queue pair fenced, the key
 * stays live for release to deregister.
 */
static void rds_ib_mr_kill(struct rds_ib_mr *ibmr)
{
	struct rds_ib_domain *dom = ibmr->ibmr_dom;

	mutex_lock(&dom->dom_mutex);
	if (ibmr->ibmr_mapped && dom->dom_rdev &&
	    READ_ONCE(ibmr->ibmr_state) == RDS_IB_MR_LIVE)
		rds_ib_mr_post(dom, ibmr, false);
	mutex_unlock(&dom->dom_mutex);
}

/* Releasing many regions: their invalidations are posted before the
 * first release waits for its own.
 */
void rds_ib_mr_invalidate(struct rds_mr *mr)
{
	rds_ib_mr_kill(mr->r_trans_private);
}

/* With or without @invalidate the key is dead on return, within about
 * 2 * RDS_IB_MR_WAIT whatever a peer or the device does.
 */
void rds_ib_mr_release(struct rds_mr *mr, bool invalidate)
{
	struct rds_ib_mr *ibmr = mr->r_trans_private;

	rds_ib_mr_kill(ibmr);
	rds_ib_mr_finish(ibmr->ibmr_dom, ibmr);
	mr->r_trans_private = NULL;
}

/* DMA_FROM_DEVICE: a peer's RDMA into the region is done, what it wrote
 * is the CPU's to read; DMA_TO_DEVICE: the region goes to a peer, what
 * the CPU wrote is the device's to read.  Any context with IRQs on: with
 * a bounce buffer (swiotlb) each is a copy of the whole region.
 */
void rds_ib_mr_sync(struct rds_mr *mr, enum dma_data_direction dir)
{
	struct rds_ib_mr *ibmr = mr->r_trans_private;
	struct rds_ib_domain *dom = ibmr->ibmr_dom;
	struct ib_device *dev = NULL;
	unsigned long flags;

	spin_lock_irqsave(&dom->dom_lock, flags);
	if (ibmr->ibmr_mapped) {
		dev = dom->dom_rdev->rd_dev;
		atomic_inc(&ibmr->ibmr_syncing);
	}
	spin_unlock_irqrestore(&dom->dom_lock, flags);
	if (!dev)
		return;
	if (ib_uses_virt_dma(dev))
		;	/* no DMA: the device reads and writes the pages */
	else if (dir == DMA_TO_DEVICE)
		dma_sync_sgtable_for_device(dev->dma_device, &ibmr->ibmr_sgt,
					    DMA_BIDIRECTIONAL);
	else
		dma_sync_sgtable_for_cpu(dev->dma_device, &ibmr->ibmr_sgt,
					 DMA_BIDIRECTIONAL);
	if (atomic_dec_and_test(&ibmr->ibmr_syncing))
		wake_up_all(&dom->dom_wq);
}

/* @dom gives its device back (device removal, or its last reference),
 * its queue pair gone: no region keeps a mapping on the device, and the
 * pool is emptied.  A registration or release waiting is woken, to find
 * its region unmapped.  Under dom_mutex.
 */
void rds_ib_mr_domain_remove(struct rds_ib_domain *dom)
{
	struct rds_ib_mr *ibmr, *next;
	unsigned long flags;
	LIST_HEAD(idle);
	int class;

	list_for_each_entry_safe(ibmr, next, &dom->dom_mrs, ibmr_item) {
		rds_ib_mr_unmap(dom, ibmr);
		/* The region's MR goes with the PD; the region stays the
		 * user's, for release to free.
		 */
		rds_ib_mr_dereg(ibmr);
		cond_resched();
	}
	wake_up_all(&dom->dom_wq);

	spin_lock_irqsave(&dom->dom_lock, flags);
	for (class = 0; class < RDS_IB_MR_CLASSES; class++) {
		list_splice_init(&dom->dom_mr_pool[class], &idle);
		dom->dom_mr_pooled[class] = 0;
	}
	spin_unlock_irqrestore(&dom->dom_lock, flags);
	list_for_each_entry_safe(ibmr, next, &idle, ibmr_item) {
		rds_ib_mr_dereg(ibmr);
		kfree(ibmr);
	}
}
