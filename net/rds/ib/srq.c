// SPDX-License-Identifier: GPL-2.0
/* The shared receive queue (SRQ) of a domain (device, netns).
 *
 * A ring per connection pins its receive pages whether the connection is
 * busy or idle: a thousand pages each at the default size, so a hundred
 * idle connections hold 400 MiB at either end.  With an SRQ, every
 * connection of the domain receives into one pool (srq_max_wr slots), so
 * memory follows traffic, not the number of peers.  The pool is refilled
 * from process context, as a ring is, once s_refill_batch slots wait: the
 * posted count is kept between 7/8 of the pool and all of it while pages
 * are to be had.
 *
 * Flow control is off on an SRQ's connections: no receive belongs to one
 * connection, so none can be promised as a credit.  A peer that finds the
 * pool empty is told to wait by the device (an RNR NAK) and retries
 * without end (rnr_retry_count 7, as both stacks set it): it can be slowed
 * but never overrun us, whichever stack it runs.
 *
 * The receive completions of all the domain's QPs go to one CQ, polled as
 * a ring's is (recv.c): a run delivers what came, then wakes each reader
 * once.  A connection's fragments still complete in order, on its QP, and
 * its reassembly state is its own.
 */
#include <linux/slab.h>

#include "ib.h"

/* A completed slot goes back to the pool; a batch of them wakes the
 * refill.
 */
static void rds_ib_srq_slot_back(struct rds_ib_srq *srq,
				 struct rds_ib_recv_slot *slot)
{
	llist_add(&slot->r_free, &srq->s_free);
	if (atomic_inc_return(&srq->s_unposted) >= (int)srq->s_refill_batch)
		queue_delayed_work(rds_ib_refill_wq, &srq->s_refill_w, 0);
}

/* Only our poller takes the SRQ's completions (rds_ib_srq_poll_cq()), one
 * run at a time.  Anything else that polls the CQ and calls done() (6.10's
 * ib_drain_qp() does, which we never call on an SRQ's QP) would race it:
 * say so, and give the slot back untouched.
 */
static void rds_ib_srq_cqe_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rds_ib_srq *srq = cq->cq_context;
	struct rds_ib_recv_slot *slot = container_of(wc->wr_cqe,
						     struct rds_ib_recv_slot,
						     r_cqe);

	WARN_ON_ONCE(1);
	rds_ib_srq_slot_back(srq, slot);
}

/* Slots one run of the refill work posts at most, the rest in the next
 * run, queued behind whatever else waits: the work never sleeps while
 * pages are to be had, and a whole queue's worth at once (2048 pages and
 * posts) is long on a slow kernel (see rds_ib_refill_wq).
 */
#define RDS_IB_SRQ_REFILL_RUN	128

/* Posts up to @max of the slots waiting on s_free; under s_mutex.  0, or
 * the first error: the slots not posted wait for the next try.
 */
static int rds_ib_srq_refill(struct rds_ib_srq *srq, gfp_t gfp,
			     unsigned int max)
{
	u32 lkey = srq->s_dom->dom_pd->local_dma_lkey;
	struct rds_ib_recv_slot *slot, *tmp;
	struct llist_node *list;
	unsigned int posted = 0;
	int ret = 0;

	list = llist_del_all(&srq->s_free);
	llist_for_each_entry_safe(slot, tmp, list, r_free) {
		if (!ret && posted == max)
			ret = -EAGAIN;
		if (!ret)
			ret = rds_ib_recv_slot_fill(srq->s_dev, slot, gfp);
		if (!ret) {
			rds_ib_recv_wr_prep(srq->s_dev, lkey, slot);
			ret = ib_post_srq_recv(srq->s_srq, &slot->r_wr, NULL);
		}
		if (ret)
			llist_add(&slot->r_free, &srq->s_free);
		else
			posted++;
	}
	atomic_sub(posted, &srq->s_unposted);
	return ret;
}

static void rds_ib_srq_refill_work(struct work_struct *work)
{
	struct rds_ib_srq *srq = container_of(to_delayed_work(work),
					      struct rds_ib_srq, s_refill_w);
	int ret;

	mutex_lock(&srq->s_mutex);
	if (srq->s_dead) {
		mutex_unlock(&srq->s_mutex);
		return;
	}
	ret = rds_ib_srq_refill(srq, GFP_KERNEL, RDS_IB_SRQ_REFILL_RUN);
	mutex_unlock(&srq->s_mutex);
	if (ret == -EAGAIN) {
		queue_delayed_work(rds_ib_refill_wq, &srq->s_refill_w, 0);
		return;
	}
	/* Out of pages under the bounds (unread messages hold them): the
	 * slots wait, and so may peers, in RNR retries, until readers
	 * free some.  Nothing else says when that is: look again soon.
	 */
	if (ret) {
		rds_ib_stats_inc(RDS_IB_STAT_SRQ_REFILL_SHORT);
		queue_delayed_work(rds_ib_refill_wq, &srq->s_refill_w,
				   msecs_to_jiffies(10));
	}
}

static struct rds_ib_connection *rds_ib_srq_find(struct rds_ib_srq *srq,
						 struct ib_qp *qp)
{
	struct rds_ib_connection *ic;

	hash_for_each_possible_rcu(srq->s_qps, ic, i_srq_node,
				   (unsigned long)qp)
		if (ic->i_qp == qp)
			return ic;
	return NULL;
}

/* One receive completion: the fragment goes to its connection, the slot
 * back to the pool.  Softirq, or process context with BHs off.
 */
static void rds_ib_srq_recv_one(struct rds_ib_srq *srq, struct ib_wc *wc)
{
	struct rds_ib_recv_slot *slot = container_of(wc->wr_cqe,
						     struct rds_ib_recv_slot,
						     r_cqe);
	struct rds_ib_connection *ic = rds_ib_srq_find(srq, wc->qp);
	const char *bad = NULL;

	if (!ic)
		WARN_ON_ONCE(wc->status == IB_WC_SUCCESS);
	else if (wc->status == IB_WC_SUCCESS)
		bad = rds_ib_recv_frag(ic, slot, wc->byte_len, &srq->s_batch);
	else if (wc->status != IB_WC_WR_FLUSH_ERR)
		bad = "receive completion error";

	rds_ib_srq_slot_back(srq, slot);
	if (bad)
		rds_conn_path_error(ic->i_cp, bad);
}

static int rds_ib_srq_poll_cq(struct rds_ib_srq *srq, int budget)
{
	int done = 0, n, i;

	rcu_read_lock();
	while (done < budget) {
		n = ib_poll_cq(srq->s_cq, min(budget - done, RDS_IB_RECV_BATCH),
			       srq->s_wc);
		if (n <= 0)
			break;
		for (i = 0; i < n; i++)
			rds_ib_srq_recv_one(srq, &srq->s_wc[i]);
		done += n;
	}
	rcu_read_unlock();
	rds_recv_batch_end(&srq->s_batch);
	return done;
}

static int rds_ib_srq_poll(struct irq_poll *iop, int budget)
{
	struct rds_ib_srq *srq = container_of(iop, struct rds_ib_srq, s_iop);
	int done = rds_ib_srq_poll_cq(srq, budget);

	if (done < budget) {
		irq_poll_complete(iop);
		if (ib_req_notify_cq(srq->s_cq, RDS_IB_RECV_ARM) > 0)
			irq_poll_sched(iop);
	}
	return done;
}

static void rds_ib_srq_cq_event(struct ib_cq *cq, void *ctx)
{
	struct rds_ib_srq *srq = ctx;

	irq_poll_sched(&srq->s_iop);
}

/* Takes every completion the CQ holds with the poller stopped, then
 * forgets @ic, whose QP is destroyed: it has none left afterwards, and
 * no reader of s_qps runs meanwhile, so the entry may be used again at
 * once.  Under s_mutex.
 */
static void rds_ib_srq_poll_dry(struct rds_ib_srq *srq,
				struct rds_ib_connection *ic)
{
	irq_poll_disable(&srq->s_iop);
	local_bh_disable();
	while (rds_ib_srq_poll_cq(srq, RDS_IB_RECV_BUDGET) > 0)
		;
	local_bh_enable();
	hash_del_rcu(&ic->i_srq_node);
	irq_poll_enable(&srq->s_iop);
	/* An event that came while the poller was stopped was dropped. */
	if (ib_req_notify_cq(srq->s_cq, RDS_IB_RECV_ARM) > 0)
		irq_poll_sched(&srq->s_iop);
}

static void rds_ib_srq_free(struct rds_ib_srq *srq)
{
	if (srq->s_srq)
		ib_destroy_srq(srq->s_srq);
	if (srq->s_cq) {
		irq_poll_disable(&srq->s_iop);
		rds_ib_cq_quiesce();
		ib_destroy_cq(srq->s_cq);
	}
	/* The device holds none of the slots now, posted or not. */
	rds_ib_recv_slots_free(srq->s_dev, srq->s_slots, srq->s_nr);
	if (!srq->s_budget)	/* it gives the host's share back itself */
		rds_ib_mem_put(srq->s_mem);
	rds_ib_mem_release_srq(srq->s_rin, srq->s_mem);
	kfree(srq);
}

static struct rds_ib_srq *rds_ib_srq_create(struct rds_ib_domain *dom,
					    struct rds_ib_device *rdev)
{
	struct rds_ib_net *rin = rds_ib_net(dom->dom_dev.d_net);
	struct ib_srq_init_attr sattr = {
		.srq_type	= IB_SRQT_BASIC,
		.attr.max_sge	= RDS_IB_RECV_SGE,
	};
	struct ib_cq_init_attr cattr = { };
	struct rds_ib_srq *srq;
	struct ib_srq *ibsrq;
	struct ib_cq *cq;
	u32 nr, i;
	int ret;

	nr = clamp_t(unsigned long, READ_ONCE(rds_ib_sysctl_srq_max_wr),
		     RDS_IB_MIN_RECV_WR, rdev->rd_max_srq_wr);
	ret = rds_ib_mem_admit_srq(rin, &nr);
	if (ret)
		return ERR_PTR(ret);
	srq = kzalloc(sizeof(*srq), GFP_KERNEL);
	if (!srq) {
		rds_ib_mem_put(nr);
		rds_ib_mem_release_srq(rin, nr);
		return ERR_PTR(-ENOMEM);
	}
	srq->s_dom = dom;
	srq->s_dev = rdev->rd_dev;
	srq->s_rin = rin;
	srq->s_mem = nr;
	srq->s_nr = nr;
	srq->s_refill_batch = clamp_t(u32, nr / 8, 1, 64);
	mutex_init(&srq->s_mutex);
	hash_init(srq->s_qps);
	init_llist_head(&srq->s_free);
	INIT_DELAYED_WORK(&srq->s_refill_w, rds_ib_srq_refill_work);

	srq->s_slots = rds_ib_recv_slots_alloc(srq->s_dev, nr, &srq->s_free);
	if (!srq->s_slots)
		goto err_nomem;
	atomic_set(&srq->s_unposted, nr);
	srq->s_budget = rds_ib_recv_budget_new(nr, nr, GFP_KERNEL);
	if (!srq->s_budget)
		goto err_nomem;
	for (i = 0; i < nr; i++) {
		srq->s_slots[i].r_budget = srq->s_budget;
		srq->s_slots[i].r_cqe.done = rds_ib_srq_cqe_done;
	}

	/* Room for a completion of every slot: nothing else completes here
	 * (ib_drain_qp() leaves an SRQ's receives alone).
	 */
	cattr.cqe = nr + 1;
	cq = ib_create_cq(srq->s_dev, rds_ib_srq_cq_event, NULL, srq, &cattr);
	if (IS_ERR(cq)) {
		ret = PTR_ERR(cq);
		goto err;
	}
	srq->s_cq = cq;
	irq_poll_init(&srq->s_iop, RDS_IB_RECV_BUDGET, rds_ib_srq_poll);
	ret = ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
	if (ret)
		goto err;

	sattr.attr.max_wr = nr;
	ibsrq = ib_create_srq(dom->dom_pd, &sattr);
	if (IS_ERR(ibsrq)) {
		ret = PTR_ERR(ibsrq);
		goto err;
	}
	srq->s_srq = ibsrq;
	mutex_lock(&srq->s_mutex);
	ret = rds_ib_srq_refill(srq, GFP_KERNEL, UINT_MAX);
	mutex_unlock(&srq->s_mutex);
	if (ret)
		goto err;
	rds_ib_stats_inc(RDS_IB_STAT_SRQ_CREATED);
	return srq;

err_nomem:
	ret = -ENOMEM;
err:
	rds_ib_srq_free(srq);
	return ERR_PTR(ret);
}

/* The SRQ a new queue pair of @dom receives on, made if need be, with a
 * use counted; NULL when the connection is to have a ring: SRQs are off
 * (the srq sysctl), the device has none, or making one failed.  Called
 * under i_mutex.
 */
struct rds_ib_srq *rds_ib_srq_get(struct rds_ib_domain *dom,
				  struct rds_ib_device *rdev)
{
	struct rds_ib_srq *srq;

	if (!READ_ONCE(rds_ib_sysctl_srq) ||
	    rdev->rd_max_srq_wr < RDS_IB_MIN_RECV_WR)
		return NULL;
	mutex_lock(&dom->dom_mutex);
	srq = dom->dom_srq;
	if (!srq) {
		srq = rds_ib_srq_create(dom, rdev);
		if (IS_ERR(srq)) {
			mutex_unlock(&dom->dom_mutex);
			return NULL;
		}
		dom->dom_srq = srq;
	}
	srq->s_users++;
	mutex_unlock(&dom->dom_mutex);
	return srq;
}

/* A queue pair of the SRQ's is gone (rds_ib_srq_destroy_qp()), or was
 * never made: the last use destroys the SRQ.
 */
void rds_ib_srq_put(struct rds_ib_srq *srq)
{
	struct rds_ib_domain *dom = srq->s_dom;
	bool last;

	mutex_lock(&dom->dom_mutex);
	last = !--srq->s_users;
	if (last)
		dom->dom_srq = NULL;
	mutex_unlock(&dom->dom_mutex);
	if (!last)
		return;
	/* No QP is left, so no completion: only a refill may still run. */
	mutex_lock(&srq->s_mutex);
	srq->s_dead = true;
	mutex_unlock(&srq->s_mutex);
	cancel_delayed_work_sync(&srq->s_refill_w);
	rds_ib_srq_free(srq);
}

/* @ic's queue pair on @cm_id, receiving on @srq: entered in s_qps before
 * it can receive anything.
 */
int rds_ib_srq_create_qp(struct rds_ib_srq *srq, struct rds_ib_connection *ic,
			 struct rdma_cm_id *cm_id, struct ib_qp_init_attr *attr)
{
	int ret;

	attr->srq = srq->s_srq;
	attr->recv_cq = srq->s_cq;
	attr->cap.max_recv_wr = 0;
	attr->cap.max_recv_sge = 0;
	mutex_lock(&srq->s_mutex);
	ret = rdma_create_qp(cm_id, srq->s_dom->dom_pd, attr);
	if (!ret) {
		ic->i_qp = cm_id->qp;
		hash_add_rcu(srq->s_qps, &ic->i_srq_node,
			     (unsigned long)ic->i_qp);
		rds_ib_stats_inc(RDS_IB_STAT_SRQ_QP);
	}
	mutex_unlock(&srq->s_mutex);
	return ret;
}

/* Destroys @ic's queue pair, its send queue drained, then takes every
 * receive completion of it from the shared CQ (what came before the QP
 * died, and the flush of the receive it was filling) before forgetting
 * it: afterwards nothing of @ic's is left in the SRQ.
 */
void rds_ib_srq_destroy_qp(struct rds_ib_srq *srq,
			   struct rds_ib_connection *ic,
			   struct rdma_cm_id *cm_id)
{
	mutex_lock(&srq->s_mutex);
	rdma_destroy_qp(cm_id);
	rds_ib_srq_poll_dry(srq, ic);
	mutex_unlock(&srq->s_mutex);
	ic->i_qp = NULL;
}
