// SPDX-License-Identifier: GPL-2.0
/* Memory regions for RDS_GET_MR: a fast-registration MR of the device that
 * serves the socket's bound address, mapped onto the pinned pages.
 *
 * Registering here allocates the MR (ib_alloc_mr), maps the pages into it
 * zero-based as in-tree does (ib_map_mr_sg_zbva: the peer addresses the
 * region from 0, plus the cookie's offset) and picks the key the
 * registration will carry (ib_update_fast_reg_key): the cookie the user
 * gets is the rkey for good.  The registration itself is a work request,
 * IB_WR_REG_MR, and a work request needs a queue pair, which RDS_GET_MR
 * may come before (a queue pair of our own per device would need rdma_cm
 * to connect it to itself, which rxe cannot do without a second device).
 * So the region waits on its device's rd_mr_pending, and the next sender
 * on any path of the device posts its IB_WR_REG_MR ahead of whatever it
 * sends: RDS_GET_MR kicks every path up on the device, a path that comes
 * up sends first thing, and every message sent after RDS_GET_MR returned
 * follows the registration on its queue pair.  A registration flushed by
 * a connection that went waits for the next one.
 *
 * Releasing is deregistering (ib_dereg_mr), which kills the key whether or
 * not RDS_RDMA_INVALIDATE asked for it: an IB_WR_LOCAL_INV would only be
 * needed to reuse the MR for another region, and we never do.  A release
 * waits for the completion of a registration in flight (the work request
 * points at the MR), and the pages stay pinned until the release is done.
 *
 * Regions hold no device reference: a device being removed takes the
 * mappings of all its regions (rds_ib_mr_device_remove()), once its paths
 * are gone, so that `rdma link del` never waits for a user to free them.
 * The region itself and its pinned pages stay until the user frees it or
 * closes the socket, which then only frees our bookkeeping.
 */
#include <linux/slab.h>

#include "ib.h"

/* rds_ib_mr_mutex protects every device's rd_mrs and each region's
 * ibmr_dev, so that a release and a device removal agree on which of them
 * undoes a mapping.  No other lock of ours is taken under it; the driver's
 * ib_dereg_mr() is.
 */
static DEFINE_MUTEX(rds_ib_mr_mutex);
/* Releases waiting for a registration in flight (ibmr_posted). */
static DECLARE_WAIT_QUEUE_HEAD(rds_ib_mr_wq);

/* r_trans_private of an RDS/IB region.
 *
 * Lifetime: from mr_register to mr_release.  ibmr_dev is set while the
 * region is mapped on that device (ibmr_mr allocated, ibmr_sgt DMA-mapped,
 * on its rd_mrs), and cleared by whichever of release and device removal
 * unmaps it.  ibmr_sgt's memory is ours until release.  ibmr_pending
 * (under the device's rd_lock) is on rd_mr_pending while the region waits
 * for its IB_WR_REG_MR to be posted; ibmr_posted (rd_lock) is set from
 * the post to its completion, and ibmr_gone (rd_lock) once release began:
 * nothing queues the region again.  Release and device removal take it
 * off rd_mr_pending, and release waits for !ibmr_posted (rds_ib_mr_wq),
 * before they unmap.
 */
struct rds_ib_mr {
	struct list_head	ibmr_item;	/* rd_mrs */
	struct list_head	ibmr_pending;	/* rd_mr_pending, rd_lock */
	bool			ibmr_posted;
	bool			ibmr_gone;
	struct rds_ib_device	*ibmr_dev;
	struct ib_mr		*ibmr_mr;
	struct sg_table		ibmr_sgt;
};

/* Undoes rds_ib_mr_map() but for the sg table's memory; under
 * rds_ib_mr_mutex once the region is on rd_mrs.
 */
static void rds_ib_mr_unmap(struct rds_ib_device *rdev, struct rds_ib_mr *ibmr)
{
	unsigned long flags;

	spin_lock_irqsave(&rdev->rd_lock, flags);
	list_del_init(&ibmr->ibmr_pending);
	spin_unlock_irqrestore(&rdev->rd_lock, flags);
	ib_dereg_mr(ibmr->ibmr_mr);
	ibmr->ibmr_mr = NULL;
	ib_dma_unmap_sgtable_attrs(rdev->rd_dev, &ibmr->ibmr_sgt,
				   DMA_BIDIRECTIONAL, 0);
}

/* Maps the pages into a fresh MR of @rdev and picks its key. */
static int rds_ib_mr_map(struct rds_ib_device *rdev, struct rds_ib_mr *ibmr,
			 struct rds_mr *mr)
{
	struct ib_mr *ib_mr;
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
	/* One page-list entry to spare: 6.1's rxe reads the map after the
	 * last when a copy ends on a multiple of 256 pages (KASAN says
	 * slab-out-of-bounds in rxe_mr_copy()), and allocates that map only
	 * for a region at least one page longer.
	 */
	ib_mr = ib_alloc_mr(rdev->rd_pd, IB_MR_TYPE_MEM_REG,
			    mr->r_npages + 1);
	if (IS_ERR(ib_mr)) {
		ret = PTR_ERR(ib_mr);
		goto err_unmap;
	}
	n = ib_map_mr_sg_zbva(ib_mr, ibmr->ibmr_sgt.sgl, ibmr->ibmr_sgt.nents,
			      NULL, PAGE_SIZE);
	if (n != ibmr->ibmr_sgt.nents) {
		ret = n < 0 ? n : -EINVAL;
		goto err_dereg;
	}
	/* A key other than the last one registered with this MR's index,
	 * as a REG_MR wants: a peer's stale key cannot reach the new region.
	 */
	ib_update_fast_reg_key(ib_mr, ib_inc_rkey(ib_mr->rkey));
	ibmr->ibmr_mr = ib_mr;
	return 0;

err_dereg:
	ib_dereg_mr(ib_mr);
err_unmap:
	ib_dma_unmap_sgtable_attrs(rdev->rd_dev, &ibmr->ibmr_sgt,
				   DMA_BIDIRECTIONAL, 0);
err_free_sgt:
	sg_free_table(&ibmr->ibmr_sgt);
	return ret;
}

/* The region waits for a sender on the device: kick every path up there.
 * The device is not dying (rd_lock).
 */
static void rds_ib_mr_queue_reg(struct rds_ib_device *rdev,
				struct rds_ib_mr *ibmr)
{
	struct rds_ib_connection *ic;
	unsigned long flags;

	spin_lock_irqsave(&rdev->rd_lock, flags);
	if (!rdev->rd_dying) {
		list_add_tail(&ibmr->ibmr_pending, &rdev->rd_mr_pending);
		list_for_each_entry(ic, &rdev->rd_conns, i_dev_item)
			if (rds_conn_path_up(ic->i_cp))
				rds_path_queue_send(ic->i_cp, 0);
	}
	spin_unlock_irqrestore(&rdev->rd_lock, flags);
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
		ibmr->ibmr_posted = true;
	}
	spin_unlock_irqrestore(&rdev->rd_lock, flags);
	return ibmr;
}

/* The registration is no longer in flight: queued again if @again. */
static void rds_ib_mr_unpost(struct rds_ib_device *rdev,
			     struct rds_ib_mr *ibmr, bool again)
{
	unsigned long flags;

	spin_lock_irqsave(&rdev->rd_lock, flags);
	if (again && !rdev->rd_dying && !ibmr->ibmr_gone)
		list_add_tail(&ibmr->ibmr_pending, &rdev->rd_mr_pending);
	ibmr->ibmr_posted = false;
	spin_unlock_irqrestore(&rdev->rd_lock, flags);
	wake_up_all(&rds_ib_mr_wq);
}

/* Posts the IB_WR_REG_MR of every region waiting on the path's device,
 * ahead of anything else the sender (RDS_IN_XMIT) posts.  -EAGAIN when the
 * ring is full: the completion kicks us.  The region's MR stays mapped
 * while we post: its release waits for ibmr_posted to clear, and device
 * removal for this path to go.
 */
int rds_ib_mr_post_regs(struct rds_ib_connection *ic)
{
	struct rds_ib_device *rdev = ic->i_dev;
	struct rds_ib_send_slot *s;
	struct rds_ib_mr *ibmr;
	int ret;

	while (!list_empty_careful(&rdev->rd_mr_pending)) {
		if (!rds_ib_send_room(ic, 1))
			return -EAGAIN;
		ibmr = rds_ib_mr_next_pending(rdev);
		if (!ibmr)
			break;
		s = &ic->i_sends[ic->i_send_head];
		memset(&s->s_reg_wr, 0, sizeof(s->s_reg_wr));
		s->s_reg_wr.wr.wr_cqe = &s->s_cqe;
		s->s_reg_wr.wr.opcode = IB_WR_REG_MR;
		s->s_reg_wr.wr.send_flags = IB_SEND_SIGNALED;
		s->s_reg_wr.mr = ibmr->ibmr_mr;
		s->s_reg_wr.key = ibmr->ibmr_mr->rkey;
		s->s_reg_wr.access = IB_ACCESS_LOCAL_WRITE |
				     IB_ACCESS_REMOTE_READ |
				     IB_ACCESS_REMOTE_WRITE;
		/* The peer's atomics too, where the device has any. */
		if (rdev->rd_dev->attrs.atomic_cap != IB_ATOMIC_NONE)
			s->s_reg_wr.access |= IB_ACCESS_REMOTE_ATOMIC;
		s->s_ibmr = ibmr;
		atomic_dec(&ic->i_send_free);
		ret = ib_post_send(ic->i_qp, &s->s_reg_wr.wr, NULL);
		if (ret) {
			atomic_inc(&ic->i_send_free);
			s->s_ibmr = NULL;
			rds_ib_mr_unpost(rdev, ibmr, true);
			return ret;
		}
		ic->i_send_head = (ic->i_send_head + 1) % ic->i_send_nr;
	}
	return 0;
}

/* The completion of a region's IB_WR_REG_MR, any context.  Flushed: it
 * never ran, the next connection on the device posts it again.  Another
 * error leaves the key unusable, which the peer learns as a remote access
 * error; the region stays the user's to free.
 */
void rds_ib_mr_reg_done(struct rds_ib_connection *ic, struct rds_ib_mr *ibmr,
			enum ib_wc_status status)
{
	rds_ib_mr_unpost(ic->i_dev, ibmr, status == IB_WC_WR_FLUSH_ERR);
}

int rds_ib_mr_register(struct net *net, const struct in6_addr *laddr,
		       u32 scope_id, struct rds_mr *mr)
{
	struct rds_ib_device *rdev;
	struct rds_ib_mr *ibmr;
	int ret;

	/* Held until the region is on rd_mrs: the PD stays till then. */
	rdev = rds_ib_addr_device(net, laddr, scope_id);
	if (!rdev)
		return -ENODEV;
	if (mr->r_npages + 1 > rdev->rd_dev->attrs.max_fast_reg_page_list_len) {
		ret = -EMSGSIZE;
		goto out_put_dev;
	}
	ibmr = kzalloc(sizeof(*ibmr), GFP_KERNEL);
	if (!ibmr) {
		ret = -ENOMEM;
		goto out_put_dev;
	}
	INIT_LIST_HEAD(&ibmr->ibmr_pending);
	ret = rds_ib_mr_map(rdev, ibmr, mr);
	if (ret)
		goto err_free;

	/* Removal sets rd_dying before it takes the mutex to unmap rd_mrs:
	 * either it finds this region there, or we see rd_dying here.
	 */
	mutex_lock(&rds_ib_mr_mutex);
	if (READ_ONCE(rdev->rd_dying)) {
		mutex_unlock(&rds_ib_mr_mutex);
		ret = -ENODEV;
		goto err_unmap;
	}
	ibmr->ibmr_dev = rdev;
	list_add_tail(&ibmr->ibmr_item, &rdev->rd_mrs);
	mr->r_key = ibmr->ibmr_mr->rkey;
	mr->r_trans_private = ibmr;
	rds_ib_mr_queue_reg(rdev, ibmr);
	mutex_unlock(&rds_ib_mr_mutex);
	ret = 0;
	goto out_put_dev;

err_unmap:
	rds_ib_mr_unmap(rdev, ibmr);
	sg_free_table(&ibmr->ibmr_sgt);
err_free:
	kfree(ibmr);
out_put_dev:
	rds_ib_device_put(rdev);
	return ret;
}

/* Synchronous: with or without @invalidate the key is dead on return. */
void rds_ib_mr_release(struct rds_mr *mr, bool invalidate)
{
	struct rds_ib_mr *ibmr = mr->r_trans_private;
	struct rds_ib_device *rdev;
	unsigned long flags;

	/* No sender queues or posts it any more; one that did is waited for.
	 * ibmr_dev is only cleared after the device's paths are gone, so
	 * while it is set the device is there to lock.
	 */
	mutex_lock(&rds_ib_mr_mutex);
	rdev = ibmr->ibmr_dev;
	if (rdev) {
		spin_lock_irqsave(&rdev->rd_lock, flags);
		ibmr->ibmr_gone = true;
		list_del_init(&ibmr->ibmr_pending);
		spin_unlock_irqrestore(&rdev->rd_lock, flags);
	}
	mutex_unlock(&rds_ib_mr_mutex);
	wait_event(rds_ib_mr_wq, !READ_ONCE(ibmr->ibmr_posted));

	mutex_lock(&rds_ib_mr_mutex);
	if (ibmr->ibmr_dev) {
		list_del(&ibmr->ibmr_item);
		rds_ib_mr_unmap(ibmr->ibmr_dev, ibmr);
		ibmr->ibmr_dev = NULL;
	}
	mutex_unlock(&rds_ib_mr_mutex);
	sg_free_table(&ibmr->ibmr_sgt);
	kfree(ibmr);
	mr->r_trans_private = NULL;
}

/* RDS_FREE_MR with cookie 0.  Releases are not deferred, so there is
 * nothing to finish; in-tree's RDS/IB answers 0 here, not EINVAL.
 */
void rds_ib_mr_flush(struct net *net)
{
}

/* Device removal, after rd_dying is set and every path on the device is
 * gone, before the PD goes: no region keeps a mapping on the device.
 */
void rds_ib_mr_device_remove(struct rds_ib_device *rdev)
{
	struct rds_ib_mr *ibmr, *next;

	mutex_lock(&rds_ib_mr_mutex);
	list_for_each_entry_safe(ibmr, next, &rdev->rd_mrs, ibmr_item) {
		list_del(&ibmr->ibmr_item);
		rds_ib_mr_unmap(rdev, ibmr);
		ibmr->ibmr_dev = NULL;
		cond_resched();
	}
	mutex_unlock(&rds_ib_mr_mutex);
}
