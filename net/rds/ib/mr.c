// SPDX-License-Identifier: GPL-2.0
/* Memory regions for RDS_GET_MR: a fast-registration MR of the device that
 * serves the socket's bound address, mapped onto the pinned pages.
 *
 * Fast registration takes a work request (IB_WR_REG_MR), and a work
 * request needs a queue pair; RDS_GET_MR may come before any connection
 * exists (in-tree FRWR refuses it then), and a queue pair of our own per
 * device would need rdma_cm to connect it to itself, which rxe cannot do
 * without a second device.  So registering here allocates the MR
 * (ib_alloc_mr), maps the pages into it zero-based as in-tree does
 * (ib_map_mr_sg_zbva: the peer addresses the region from 0, plus the
 * cookie's offset) and picks the key the registration will carry
 * (ib_update_fast_reg_key): the cookie the user gets is the rkey for good.
 * The IB_WR_REG_MR itself belongs on the connection's queue pair ahead of
 * the first RDMA operation that names the region, which is the next step
 * of RDMA support: until then no remote access is possible, and releasing
 * is deregistering (ib_dereg_mr), which leaves the key dead whether or not
 * RDS_RDMA_INVALIDATE asked for it.
 *
 * Regions hold no device reference: a device being removed takes the
 * mappings of all its regions (rds_ib_mr_device_remove()), so that
 * `rdma link del` never waits for a user to free them.  The region itself
 * and its pinned pages stay until the user frees it or closes the socket,
 * which then only frees our bookkeeping.
 */
#include <linux/slab.h>

#include "ib.h"

/* rds_ib_mr_mutex protects every device's rd_mrs and each region's
 * ibmr_dev, so that a release and a device removal agree on which of them
 * undoes a mapping.  No other lock of ours is taken under it; the driver's
 * ib_dereg_mr() is.
 */
static DEFINE_MUTEX(rds_ib_mr_mutex);

/* r_trans_private of an RDS/IB region.
 *
 * Lifetime: from mr_register to mr_release.  ibmr_dev is set while the
 * region is mapped on that device (ibmr_mr allocated, ibmr_sgt DMA-mapped,
 * on its rd_mrs), and cleared by whichever of release and device removal
 * unmaps it.  ibmr_sgt's memory is ours until release.
 */
struct rds_ib_mr {
	struct list_head	ibmr_item;	/* rd_mrs */
	struct rds_ib_device	*ibmr_dev;
	struct ib_mr		*ibmr_mr;
	struct sg_table		ibmr_sgt;
};

/* Undoes rds_ib_mr_map() but for the sg table's memory; under
 * rds_ib_mr_mutex once the region is on rd_mrs.
 */
static void rds_ib_mr_unmap(struct rds_ib_device *rdev, struct rds_ib_mr *ibmr)
{
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
	ib_mr = ib_alloc_mr(rdev->rd_pd, IB_MR_TYPE_MEM_REG, mr->r_npages);
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
	if (mr->r_npages > rdev->rd_dev->attrs.max_fast_reg_page_list_len) {
		ret = -EMSGSIZE;
		goto out_put_dev;
	}
	ibmr = kzalloc(sizeof(*ibmr), GFP_KERNEL);
	if (!ibmr) {
		ret = -ENOMEM;
		goto out_put_dev;
	}
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
	mutex_unlock(&rds_ib_mr_mutex);

	mr->r_key = ibmr->ibmr_mr->rkey;
	mr->r_trans_private = ibmr;
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

/* Device removal, after rd_dying is set and before the PD goes: no region
 * keeps a mapping on the device.
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
