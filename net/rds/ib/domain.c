// SPDX-License-Identifier: GPL-2.0
/* Domains: a device as one network namespace sees it (see struct
 * rds_ib_domain in ib.h), and the queue pair each has for the work
 * requests of its memory regions.
 *
 * That queue pair is connected to itself (RESET to RTS with its own
 * address and QP number), which needs no rdma_cm and no peer: it only
 * ever carries IB_WR_REG_MR and IB_WR_LOCAL_INV, which the device
 * executes locally, so nothing a peer does can hold them up.  In-tree
 * posts them on the connection of the socket instead, where a peer that
 * stops reading stalls them behind its sends.
 *
 * Should one of them not complete anyway (a device gone wrong), the
 * waiter fences the queue pair: it is put in the error state, which
 * flushes what was posted, and destroyed once that is done or the wait
 * for it timed out too; the next registration makes a new one.
 */
#include <linux/etherdevice.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>

#include "ib.h"

/* rds_ib_domains_mutex protects every device's rd_domains and
 * rd_domains_leaving, and each domain's dom_item and dom_rdev against the
 * device's removal; a domain is made, found and taken off under it.  It
 * is never held across a wait for the device or across deregistrations:
 * every namespace's connection setup and registration takes it.
 */
static DEFINE_MUTEX(rds_ib_domains_mutex);
/* A leaving domain is done with its device (rd_domains_leaving). */
static DECLARE_WAIT_QUEUE_HEAD(rds_ib_domains_wq);

/* ---- The domain's own queue pair --------------------------------------- */

/* The address of port @port itself, for a queue pair connected to
 * itself: on RoCE its GID 0 and the MAC of the netdev behind it, on IB
 * its LID.  -ENODEV when the port has none (down, no GID yet).
 */
static int rds_ib_self_av(struct ib_device *dev, u32 port,
			  struct rdma_ah_attr *ah)
{
	const struct ib_gid_attr *gid_attr;
	struct net_device *ndev;
	struct ib_port_attr pattr;
	int ret = 0;

	memset(ah, 0, sizeof(*ah));
	ah->type = rdma_ah_find_type(dev, port);
	rdma_ah_set_port_num(ah, port);
	if (!rdma_protocol_roce(dev, port)) {
		if (ib_query_port(dev, port, &pattr) ||
		    pattr.state != IB_PORT_ACTIVE)
			return -ENODEV;
		rdma_ah_set_dlid(ah, pattr.lid);
		return 0;
	}
	gid_attr = rdma_get_gid_attr(dev, port, 0);
	if (IS_ERR(gid_attr))
		return -ENODEV;
	rdma_ah_set_grh(ah, NULL, 0, gid_attr->index, 1, 0);
	rdma_ah_retrieve_grh(ah)->dgid = gid_attr->gid;
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(gid_attr);
	if (IS_ERR(ndev))
		ret = -ENODEV;
	else
		ether_addr_copy(ah->roce.dmac, ndev->dev_addr);
	rcu_read_unlock();
	rdma_put_gid_attr(gid_attr);
	return ret;
}

/* RESET -> INIT -> RTR -> RTS, with the queue pair as its own peer. */
static int rds_ib_self_connect(struct ib_qp *qp, u32 port)
{
	struct ib_qp_attr attr = {
		.qp_state	= IB_QPS_INIT,
		.port_num	= port,
	};
	int ret;

	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;

	memset(&attr, 0, sizeof(attr));
	ret = rds_ib_self_av(qp->device, port, &attr.ah_attr);
	if (ret)
		return ret;
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = IB_MTU_256;
	attr.dest_qp_num = qp->qp_num;
	attr.min_rnr_timer = 12;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_AV |
			   IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN |
			    IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
			    IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC);
}

static void rds_ib_domain_qp_event(struct ib_event *ev, void *ctx)
{
	pr_debug("rds_rdma: domain queue pair event %d\n", ev->event);
}

/* Under dom_mutex, with nothing posted. */
static void rds_ib_domain_qp_destroy(struct rds_ib_domain *dom)
{
	if (dom->dom_qp) {
		ib_destroy_qp(dom->dom_qp);
		dom->dom_qp = NULL;
	}
	if (dom->dom_cq) {
		rds_ib_cq_quiesce();
		ib_free_cq(dom->dom_cq);
		dom->dom_cq = NULL;
	}
	dom->dom_qp_broken = false;
	dom->dom_sq_free = RDS_IB_DOMAIN_WRS;
}

/* A queue pair on the first port that has an address.  Under dom_mutex. */
static int rds_ib_domain_qp_create(struct rds_ib_domain *dom)
{
	struct ib_device *dev = dom->dom_rdev->rd_dev;
	struct ib_qp_init_attr attr = {
		.event_handler	= rds_ib_domain_qp_event,
		.qp_context	= dom,
		.cap.max_send_wr	= RDS_IB_DOMAIN_WRS,
		.cap.max_recv_wr	= 1,
		.cap.max_send_sge	= 1,
		.cap.max_recv_sge	= 1,
		.sq_sig_type	= IB_SIGNAL_REQ_WR,
		.qp_type	= IB_QPT_RC,
	};
	int ret = -ENODEV;
	u32 port;

	dom->dom_cq = ib_alloc_cq(dev, dom, RDS_IB_DOMAIN_WRS + 1, 0,
				  IB_POLL_SOFTIRQ);
	if (IS_ERR(dom->dom_cq)) {
		ret = PTR_ERR(dom->dom_cq);
		dom->dom_cq = NULL;
		return ret;
	}
	attr.send_cq = dom->dom_cq;
	attr.recv_cq = dom->dom_cq;
	rdma_for_each_port(dev, port) {
		dom->dom_qp = ib_create_qp(dom->dom_pd, &attr);
		if (IS_ERR(dom->dom_qp)) {
			ret = PTR_ERR(dom->dom_qp);
			dom->dom_qp = NULL;
			break;
		}
		ret = rds_ib_self_connect(dom->dom_qp, port);
		if (!ret)
			return 0;
		ib_destroy_qp(dom->dom_qp);
		dom->dom_qp = NULL;
	}
	rds_ib_domain_qp_destroy(dom);
	return ret;
}

/* Every work request posted on the queue pair has completed. */
static bool rds_ib_domain_idle(struct rds_ib_domain *dom)
{
	unsigned long flags;
	bool idle;

	spin_lock_irqsave(&dom->dom_lock, flags);
	idle = dom->dom_sq_free == RDS_IB_DOMAIN_WRS;
	spin_unlock_irqrestore(&dom->dom_lock, flags);
	return idle;
}

/* Room for one more work request, the queue pair being up: taken. */
static bool rds_ib_domain_slot(struct rds_ib_domain *dom)
{
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&dom->dom_lock, flags);
	ok = dom->dom_sq_free > 0 && !dom->dom_qp_broken;
	if (ok)
		dom->dom_sq_free--;
	spin_unlock_irqrestore(&dom->dom_lock, flags);
	return ok;
}

/* Posts @wr (signaled, its wr_cqe set) on @dom's queue pair, made or
 * remade first if need be; waits at most RDS_IB_MR_WAIT for room.
 * Under dom_mutex.  The completion handler of wr_cqe must call
 * rds_ib_domain_done().
 */
int rds_ib_domain_post(struct rds_ib_domain *dom, struct ib_send_wr *wr)
{
	int ret;

	if (!dom->dom_rdev)
		return -ENODEV;
	if (dom->dom_qp && dom->dom_qp_broken) {
		/* A fenced queue pair goes once its flushes are in. */
		if (!wait_event_timeout(dom->dom_wq, rds_ib_domain_idle(dom),
					RDS_IB_MR_WAIT))
			return -EAGAIN;
		rds_ib_domain_qp_destroy(dom);
	}
	if (!dom->dom_qp) {
		ret = rds_ib_domain_qp_create(dom);
		if (ret)
			return ret;
	}
	if (!wait_event_timeout(dom->dom_wq, rds_ib_domain_slot(dom),
				RDS_IB_MR_WAIT))
		return -EAGAIN;
	wr->send_flags = IB_SEND_SIGNALED;
	wr->next = NULL;
	ret = ib_post_send(dom->dom_qp, wr, NULL);
	if (ret)
		rds_ib_domain_done(dom);
	return ret;
}

/* A work request of @dom's is no longer in flight. */
void rds_ib_domain_done(struct rds_ib_domain *dom)
{
	unsigned long flags;

	spin_lock_irqsave(&dom->dom_lock, flags);
	dom->dom_sq_free++;
	spin_unlock_irqrestore(&dom->dom_lock, flags);
	wake_up_all(&dom->dom_wq);
}

/* A work request did not complete in time: the queue pair goes to the
 * error state, which completes everything on it as flushed.  Under
 * dom_mutex.
 */
void rds_ib_domain_fence(struct rds_ib_domain *dom)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	if (!dom->dom_qp || dom->dom_qp_broken)
		return;
	dom->dom_qp_broken = true;
	if (ib_modify_qp(dom->dom_qp, &attr, IB_QP_STATE))
		pr_warn_ratelimited("rds_rdma: cannot fence a domain's queue pair\n");
	wake_up_all(&dom->dom_wq);
}

/* Fenced, and its flushes not in after RDS_IB_MR_WAIT: destroyed, so that
 * nothing of it refers to a region any more (what it had posted never
 * completes now: the caller deals with the regions).  Under dom_mutex.
 */
bool rds_ib_domain_kill_qp(struct rds_ib_domain *dom)
{
	if (!dom->dom_qp)
		return false;
	rds_ib_domain_fence(dom);
	if (!wait_event_timeout(dom->dom_wq, rds_ib_domain_idle(dom),
				RDS_IB_MR_WAIT))
		pr_warn_ratelimited("rds_rdma: a domain's queue pair did not flush\n");
	rds_ib_domain_qp_destroy(dom);
	return true;
}

/* ---- Lifetime ---------------------------------------------------------- */

static struct rds_ib_domain *rds_ib_domain_find(struct rds_ib_device *rdev,
						struct net *net)
{
	struct rds_ib_domain *dom;

	list_for_each_entry(dom, &rdev->rd_domains, dom_item)
		if (net_eq(dom->dom_dev.d_net, net) &&
		    refcount_inc_not_zero(&dom->dom_ref))
			return dom;
	return NULL;
}

/* The domain of @net on @rdev, with a reference: found or made. */
struct rds_ib_domain *rds_ib_domain_get(struct rds_ib_device *rdev,
					struct net *net)
{
	struct rds_ib_domain *dom;
	int i, ret;

	mutex_lock(&rds_ib_domains_mutex);
	dom = rds_ib_domain_find(rdev, net);
	if (dom)
		goto out;
	ret = -ENODEV;
	if (READ_ONCE(rdev->rd_dying))
		goto err;
	ret = -ENOMEM;
	dom = kzalloc(sizeof(*dom), GFP_KERNEL);
	if (!dom)
		goto err;
	dom->dom_pd = ib_alloc_pd(rdev->rd_dev, 0);
	if (IS_ERR(dom->dom_pd)) {
		ret = PTR_ERR(dom->dom_pd);
		kfree(dom);
		goto err;
	}
	dom->dom_dev.d_trans = &rds_ib_transport;
	dom->dom_dev.d_net = get_net(net);
	refcount_set(&dom->dom_ref, 1);
	dom->dom_rdev = rdev;
	mutex_init(&dom->dom_mutex);
	spin_lock_init(&dom->dom_lock);
	INIT_LIST_HEAD(&dom->dom_mrs);
	for (i = 0; i < RDS_IB_MR_CLASSES; i++)
		INIT_LIST_HEAD(&dom->dom_mr_pool[i]);
	dom->dom_sq_free = RDS_IB_DOMAIN_WRS;
	init_waitqueue_head(&dom->dom_wq);
	list_add_tail(&dom->dom_item, &rdev->rd_domains);
out:
	mutex_unlock(&rds_ib_domains_mutex);
	return dom;
err:
	mutex_unlock(&rds_ib_domains_mutex);
	return ERR_PTR(ret);
}

/* What @dom has on its device: nothing of it is in use (no path, no
 * region mapped).  Under dom_mutex, @dom off rd_domains.
 */
static void rds_ib_domain_release(struct rds_ib_domain *dom)
{
	if (!dom->dom_rdev)
		return;
	if (dom->dom_qp && !rds_ib_domain_idle(dom))
		rds_ib_domain_kill_qp(dom);
	rds_ib_domain_qp_destroy(dom);
	rds_ib_mr_domain_remove(dom);
	ib_dealloc_pd(dom->dom_pd);
	dom->dom_pd = NULL;
	dom->dom_rdev = NULL;
}

void rds_ib_domain_put(struct rds_ib_domain *dom)
{
	struct rds_ib_device *rdev;

	if (!refcount_dec_and_mutex_lock(&dom->dom_ref, &rds_ib_domains_mutex))
		return;
	/* Off the list, so that no namespace finds it any more, and counted
	 * as leaving its device, which device removal waits for: what it
	 * gives back (up to RDS_IB_MR_WAIT for its queue pair, then every
	 * region's MR) it gives under its own mutex only.
	 */
	list_del_init(&dom->dom_item);
	rdev = dom->dom_rdev;
	if (rdev)
		WRITE_ONCE(rdev->rd_domains_leaving,
			   rdev->rd_domains_leaving + 1);
	mutex_unlock(&rds_ib_domains_mutex);

	mutex_lock(&dom->dom_mutex);
	rds_ib_domain_release(dom);
	mutex_unlock(&dom->dom_mutex);
	if (rdev) {
		/* Removal may free @rdev as soon as the count is down. */
		mutex_lock(&rds_ib_domains_mutex);
		WRITE_ONCE(rdev->rd_domains_leaving,
			   rdev->rd_domains_leaving - 1);
		mutex_unlock(&rds_ib_domains_mutex);
		wake_up_all(&rds_ib_domains_wq);
	}
	put_net(dom->dom_dev.d_net);
	mutex_destroy(&dom->dom_mutex);
	kfree(dom);
}

/* Device removal, once every path on @rdev is gone: each domain gives
 * back all it has on the device, regions' mappings included; the domains
 * themselves stay for as long as regions point at them.
 */
void rds_ib_domain_remove(struct rds_ib_device *rdev)
{
	struct rds_ib_domain *dom, *next;

	mutex_lock(&rds_ib_domains_mutex);
	list_for_each_entry_safe(dom, next, &rdev->rd_domains, dom_item) {
		list_del_init(&dom->dom_item);
		mutex_lock(&dom->dom_mutex);
		rds_ib_domain_release(dom);
		mutex_unlock(&dom->dom_mutex);
		wake_up_all(&dom->dom_wq);
	}
	mutex_unlock(&rds_ib_domains_mutex);
	/* A domain whose last reference went meanwhile gives back the rest
	 * on its own (rds_ib_domain_put()).
	 */
	wait_event(rds_ib_domains_wq, !READ_ONCE(rdev->rd_domains_leaving));
}

/* ---- The transport API ------------------------------------------------- */

struct rds_device *rds_ib_device_get_api(struct net *net,
					 const struct in6_addr *laddr,
					 u32 scope_id)
{
	struct rds_ib_device *rdev;
	struct rds_ib_domain *dom;

	rdev = rds_ib_addr_device(net, laddr, scope_id);
	if (!rdev)
		return ERR_PTR(-ENODEV);
	dom = rds_ib_domain_get(rdev, net);
	rds_ib_device_put(rdev);
	return IS_ERR(dom) ? ERR_CAST(dom) : &dom->dom_dev;
}

void rds_ib_device_put_api(struct rds_device *dev)
{
	rds_ib_domain_put(rds_ib_dom(dev));
}
