// SPDX-License-Identifier: GPL-2.0
/* The RDMA devices we use: an ib_client that keeps each InfiniBand-type
 * device (IB HCAs, RoCE, rxe) while it is registered, and takes every RDS
 * path and every domain (domain.c) on it down before it goes.
 */
#include <linux/slab.h>

#include "ib.h"

/* rds_ib_devices_mutex protects the list; a device on it is alive. */
static DEFINE_MUTEX(rds_ib_devices_mutex);
static LIST_HEAD(rds_ib_devices);

static int rds_ib_add_one(struct ib_device *dev)
{
	struct rds_ib_device *rdev;

	if (dev->node_type != RDMA_NODE_IB_CA)
		return -EOPNOTSUPP;

	rdev = kzalloc(sizeof(*rdev), GFP_KERNEL);
	if (!rdev)
		return -ENOMEM;
	rdev->rd_dev = dev;
	refcount_set(&rdev->rd_ref, 1);
	init_completion(&rdev->rd_released);
	spin_lock_init(&rdev->rd_lock);
	INIT_LIST_HEAD(&rdev->rd_conns);
	INIT_LIST_HEAD(&rdev->rd_domains);
	rdev->rd_max_sge = dev->attrs.max_send_sge;
	rdev->rd_max_sge_rd = dev->attrs.max_sge_rd;
	rdev->rd_max_wr = dev->attrs.max_qp_wr;
	rdev->rd_max_srq_wr = dev->attrs.max_srq ? dev->attrs.max_srq_wr : 0;

	mutex_lock(&rds_ib_devices_mutex);
	list_add_tail(&rdev->rd_item, &rds_ib_devices);
	mutex_unlock(&rds_ib_devices_mutex);
	ib_set_client_data(dev, &rds_ib_client, rdev);
	return 0;
}

/* Called by ib_core before the device goes (rdma link del, driver unload)
 * and for every device when we unregister.  rdma_cm's own removal runs
 * after ours (clients leave in reverse order), so our ids on the device
 * are destroyed by the path shutdowns we wait for here.
 */
static void rds_ib_remove_one(struct ib_device *dev, void *client_data)
{
	struct rds_ib_device *rdev = client_data;
	struct rds_ib_connection *ic;
	unsigned long flags;

	mutex_lock(&rds_ib_devices_mutex);
	list_del(&rdev->rd_item);
	mutex_unlock(&rds_ib_devices_mutex);

	spin_lock_irqsave(&rdev->rd_lock, flags);
	WRITE_ONCE(rdev->rd_dying, true);
	list_for_each_entry(ic, &rdev->rd_conns, i_dev_item)
		rds_conn_path_error(ic->i_cp, "RDMA device removed");
	spin_unlock_irqrestore(&rdev->rd_lock, flags);

	rds_ib_device_put(rdev);
	wait_for_completion(&rdev->rd_released);
	/* Only now: no connection's queue pair is left with an RDMA
	 * operation into a region.
	 */
	rds_ib_domain_remove(rdev);
	kfree(rdev);
}

struct ib_client rds_ib_client = {
	.name	= "rds_ib",
	.add	= rds_ib_add_one,
	.remove	= rds_ib_remove_one,
};

/* The device behind an rdma_cm id, with a reference, unless it is leaving. */
struct rds_ib_device *rds_ib_device_get(struct ib_device *dev)
{
	struct rds_ib_device *rdev, *found = NULL;

	mutex_lock(&rds_ib_devices_mutex);
	list_for_each_entry(rdev, &rds_ib_devices, rd_item) {
		if (rdev->rd_dev == dev) {
			refcount_inc(&rdev->rd_ref);
			found = rdev;
			break;
		}
	}
	mutex_unlock(&rds_ib_devices_mutex);
	return found;
}

void rds_ib_device_put(struct rds_ib_device *rdev)
{
	if (refcount_dec_and_test(&rdev->rd_ref))
		complete(&rdev->rd_released);
}

/* A path that got its reference just before remove started must not slip
 * past remove's walk of rd_conns: it is refused instead, and fails.
 */
bool rds_ib_device_add_conn(struct rds_ib_device *rdev,
			    struct rds_ib_connection *ic)
{
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&rdev->rd_lock, flags);
	ok = !rdev->rd_dying;
	if (ok)
		list_add_tail(&ic->i_dev_item, &rdev->rd_conns);
	spin_unlock_irqrestore(&rdev->rd_lock, flags);
	return ok;
}

void rds_ib_device_del_conn(struct rds_ib_device *rdev,
			    struct rds_ib_connection *ic)
{
	unsigned long flags;

	spin_lock_irqsave(&rdev->rd_lock, flags);
	list_del_init(&ic->i_dev_item);
	spin_unlock_irqrestore(&rdev->rd_lock, flags);
}

int rds_ib_device_init(void)
{
	return ib_register_client(&rds_ib_client);
}

void rds_ib_device_exit(void)
{
	ib_unregister_client(&rds_ib_client);
}
