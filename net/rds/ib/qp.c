// SPDX-License-Identifier: GPL-2.0
/* A path's queue pair and everything sized with it: the two completion
 * queues, the send ring with its copy buffers, the receive ring with its
 * header buffers.  Built when an rdma_cm id has a route (active side) or a
 * request (passive side), torn down by shutdown once the QP is drained.
 */
#include <linux/slab.h>

#include "ib.h"

static void rds_ib_qp_event(struct ib_event *event, void *context)
{
	struct rds_ib_connection *ic = context;

	switch (event->event) {
	case IB_EVENT_COMM_EST: {
		struct rdma_cm_id *id = READ_ONCE(ic->i_cm_id);

		/* Data before the RTU: tell rdma_cm the connection is up. */
		if (id)
			rdma_notify(id, IB_EVENT_COMM_EST);
		break;
	}
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
	case IB_EVENT_PATH_MIG_ERR:
		rds_conn_path_error(ic->i_cp, "QP error event");
		break;
	default:
		break;
	}
}

static void rds_ib_send_bufs_free(struct rds_ib_connection *ic,
				  struct ib_device *dev)
{
	u32 i;

	if (!ic->i_sends)
		return;
	/* The queue pair is drained: no work request reads a message. */
	rds_ib_zc_release(ic, dev);
	for (i = 0; i < ic->i_send_nr; i++) {
		struct rds_ib_send_slot *s = &ic->i_sends[i];

		if (s->s_zc_rm)
			rds_ib_zc_unmap(dev, &s->s_zc_rm);
		if (s->s_data) {
			ib_dma_unmap_single(dev, s->s_data_dma, RDS_FRAG_SIZE,
					    DMA_TO_DEVICE);
			kfree(s->s_data);
		}
		if (!s->s_hdr)
			continue;
		ib_dma_unmap_single(dev, s->s_hdr_dma, sizeof(*s->s_hdr),
				    DMA_TO_DEVICE);
		kfree(s->s_hdr);
	}
	kvfree(ic->i_sends);
	ic->i_sends = NULL;
}

/* The slots with their header buffers; a slot's data buffer comes with
 * its first fragment (rds_ib_send_data_buf()), so that an idle connection
 * pins headers, not a megabyte of copies it never made.
 */
static int rds_ib_send_bufs_alloc(struct rds_ib_connection *ic,
				  struct ib_device *dev)
{
	u32 i;

	ic->i_sends = kvcalloc(ic->i_send_nr, sizeof(*ic->i_sends),
			       GFP_KERNEL);
	if (!ic->i_sends)
		return -ENOMEM;
	for (i = 0; i < ic->i_send_nr; i++) {
		struct rds_ib_send_slot *s = &ic->i_sends[i];

		s->s_index = i;
		s->s_hdr = kzalloc(sizeof(*s->s_hdr), GFP_KERNEL);
		if (!s->s_hdr)
			goto err;
		if (rds_ib_map(dev, s->s_hdr, sizeof(*s->s_hdr), DMA_TO_DEVICE,
			       &s->s_hdr_dma)) {
			kfree(s->s_hdr);
			s->s_hdr = NULL;
			goto err;
		}
	}
	return 0;

err:
	rds_ib_send_bufs_free(ic, dev);
	return -ENOMEM;
}

static void rds_ib_recv_bufs_free(struct rds_ib_connection *ic,
				  struct ib_device *dev)
{
	rds_ib_recv_slots_free(dev, ic->i_recvs, ic->i_recv_nr);
	ic->i_recvs = NULL;
	init_llist_head(&ic->i_recv_free);
	atomic_set(&ic->i_recv_unposted, 0);
}

/* A connection on an SRQ (i_recv_nr 0) has no ring of its own. */
static int rds_ib_recv_bufs_alloc(struct rds_ib_connection *ic,
				  struct ib_device *dev)
{
	init_llist_head(&ic->i_recv_free);
	if (!ic->i_recv_nr)
		return 0;
	ic->i_recvs = rds_ib_recv_slots_alloc(dev, ic->i_recv_nr,
					      &ic->i_recv_free);
	if (!ic->i_recvs)
		return -ENOMEM;
	atomic_set(&ic->i_recv_unposted, ic->i_recv_nr);
	return 0;
}

static int rds_ib_ack_buf_alloc(struct rds_ib_connection *ic,
				struct ib_device *dev)
{
	ic->i_ack_hdr = kzalloc(sizeof(*ic->i_ack_hdr), GFP_KERNEL);
	if (!ic->i_ack_hdr)
		return -ENOMEM;
	if (rds_ib_map(dev, ic->i_ack_hdr, sizeof(*ic->i_ack_hdr),
		       DMA_TO_DEVICE, &ic->i_ack_hdr_dma)) {
		kfree(ic->i_ack_hdr);
		ic->i_ack_hdr = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void rds_ib_ack_buf_free(struct rds_ib_connection *ic,
				struct ib_device *dev)
{
	if (!ic->i_ack_hdr)
		return;
	ib_dma_unmap_single(dev, ic->i_ack_hdr_dma, sizeof(*ic->i_ack_hdr),
			    DMA_TO_DEVICE);
	kfree(ic->i_ack_hdr);
	ic->i_ack_hdr = NULL;
}

static void rds_ib_bufs_free(struct rds_ib_connection *ic,
			     struct ib_device *dev)
{
	rds_ib_ack_buf_free(ic, dev);
	rds_ib_recv_bufs_free(ic, dev);
	rds_ib_send_bufs_free(ic, dev);
}

static int rds_ib_bufs_alloc(struct rds_ib_connection *ic,
			     struct ib_device *dev)
{
	int ret;

	ret = rds_ib_send_bufs_alloc(ic, dev);
	if (ret)
		return ret;
	ret = rds_ib_recv_bufs_alloc(ic, dev);
	if (ret)
		goto err_send;
	ret = rds_ib_ack_buf_alloc(ic, dev);
	if (ret)
		goto err_recv;
	return 0;

err_recv:
	rds_ib_recv_bufs_free(ic, dev);
err_send:
	rds_ib_send_bufs_free(ic, dev);
	return ret;
}

/* Ring sizes from the sysctls, within what the device can queue (one send
 * entry is the ack's, and each queue keeps one for ib_drain_qp(), which
 * posts a request of its own to learn that all before it completed: on a
 * full queue that post fails, and the drain with it), and within the
 * memory the host and the netns have left for rings (mem.c): -ENOBUFS
 * when not even the smallest rings fit.
 */
static int rds_ib_size_rings(struct rds_ib_connection *ic,
			     struct rds_ib_device *rdev)
{
	struct rds_ib_net *rin = rds_ib_net(rds_conn_net(rds_ib_conn(ic)));
	u32 max = max_t(u32, rdev->rd_max_wr, 4) - 2;
	int ret;

	ic->i_send_nr = clamp_t(unsigned long,
				READ_ONCE(rds_ib_sysctl_max_send_wr), 2, max);
	/* Flow control counts posted receives in 15 bits.  On an SRQ the
	 * QP has no receive queue.
	 */
	ic->i_recv_nr = ic->i_srq ? 0 :
			clamp_t(unsigned long,
				READ_ONCE(rds_ib_sysctl_max_recv_wr), 2,
				min_t(u32, max, 0x7fff));
	ret = rds_ib_mem_admit(ic, rin, &ic->i_send_nr, &ic->i_recv_nr);
	if (ret)
		return ret;
	ic->i_credit_batch = clamp_t(u32, ic->i_recv_nr / 4, 1,
				     RDS_IB_CREDIT_UPDATE);
	/* Two for a fragment, as many as may be for an RDMA operation. */
	ic->i_max_send_sge = clamp_t(u32, rdev->rd_max_sge, 2, RDS_IB_MAX_SGE);
	/* A READ may scatter to fewer entries than a WRITE gathers from
	 * (max_sge_rd: 1 on some iWARP devices); a device that leaves it
	 * unset still reads into one.
	 */
	ic->i_max_read_sge = clamp_t(u32, rdev->rd_max_sge_rd, 1,
				     ic->i_max_send_sge);
	/* A run of unsignaled sends must end before the ring does, or a
	 * full ring could wait for a completion nobody asked for.
	 */
	ic->i_max_unsignaled = clamp_t(unsigned long,
				       READ_ONCE(rds_ib_sysctl_max_unsig_wrs),
				       1, ic->i_send_nr / 2);
	ic->i_send_zc = READ_ONCE(rds_ib_sysctl_send_zerocopy);
	return 0;
}

static int rds_ib_create_qp(struct rds_ib_connection *ic,
			    struct rdma_cm_id *cm_id)
{
	struct ib_qp_init_attr attr = {
		.event_handler	= rds_ib_qp_event,
		.qp_context	= ic,
		.send_cq	= ic->i_send_cq,
		.recv_cq	= ic->i_recv_cq,
		.cap.max_send_wr	= ic->i_send_nr + 2,
		.cap.max_recv_wr	= ic->i_recv_nr + 1,
		.cap.max_send_sge	= ic->i_max_send_sge,
		.cap.max_recv_sge	= RDS_IB_RECV_SGE,
		.sq_sig_type	= IB_SIGNAL_REQ_WR,
		.qp_type	= IB_QPT_RC,
	};
	int ret;

	if (ic->i_srq)
		return rds_ib_srq_create_qp(ic->i_srq, ic, cm_id, &attr);
	/* The PD of the connection's netns on the device: its peer reaches
	 * the regions of this netns only.
	 */
	ret = rdma_create_qp(cm_id, ic->i_dom->dom_pd, &attr);
	if (ret)
		return ret;
	ic->i_qp = cm_id->qp;
	return 0;
}

/* Give @ic a QP on @cm_id's device with its rings, receives posted.  Called
 * from the rdma_cm handler of @cm_id with i_mutex held, before @cm_id is
 * attached; on failure nothing is left behind.
 */
int rds_ib_qp_setup(struct rds_ib_connection *ic, struct rdma_cm_id *cm_id)
{
	static atomic_t rds_ib_next_vector = ATOMIC_INIT(0);
	struct rds_ib_device *rdev;
	struct ib_device *dev = cm_id->device;
	u32 vector;
	int ret;

	rdev = rds_ib_device_get(dev);
	if (!rdev)
		return -ENODEV;
	ic->i_dom = rds_ib_domain_get(rdev, rds_conn_net(rds_ib_conn(ic)));
	if (IS_ERR(ic->i_dom)) {
		ret = PTR_ERR(ic->i_dom);
		ic->i_dom = NULL;
		goto err_dev;
	}
	ic->i_srq = rds_ib_srq_get(ic->i_dom, rdev);
	/* No receive of an SRQ's is this connection's to promise. */
	if (ic->i_srq)
		rds_ib_credits_init(ic, false);
	ret = rds_ib_size_rings(ic, rdev);
	if (ret)
		goto err_srq;
	ret = rds_ib_bufs_alloc(ic, dev);
	if (ret)
		goto err_mem;
	/* Connections take the device's completion vectors in turn, so
	 * that their interrupts and polling spread over its CPUs rather
	 * than all landing on vector 0's.
	 */
	vector = (u32)atomic_inc_return(&rds_ib_next_vector) %
		 max(dev->num_comp_vectors, 1);
	ic->i_send_cq = ib_alloc_cq(dev, ic, ic->i_send_nr + 2, vector,
				    IB_POLL_SOFTIRQ);
	if (IS_ERR(ic->i_send_cq)) {
		ret = PTR_ERR(ic->i_send_cq);
		goto err_bufs;
	}
	if (!ic->i_srq) {
		ret = rds_ib_recv_cq_create(ic, dev, vector);
		if (ret)
			goto err_send_cq;
	}
	ret = rds_ib_create_qp(ic, cm_id);
	if (ret)
		goto err_recv_cq;
	if (!rds_ib_device_add_conn(rdev, ic)) {
		ret = -ENODEV;
		goto err_qp;
	}
	ic->i_dev = rdev;
	rds_ib_send_ring_init(ic);
	if (!ic->i_srq) {
		ret = rds_ib_recv_refill(ic, GFP_KERNEL, UINT_MAX);
		if (ret)
			goto err_conn;
	}
	return 0;

err_conn:
	rds_ib_device_del_conn(rdev, ic);
err_qp:
	if (ic->i_srq) {
		rds_ib_srq_destroy_qp(ic->i_srq, ic, cm_id);
	} else {
		/* Receives may be posted: flush them before the buffers go. */
		ib_drain_rq(ic->i_qp);
		rdma_destroy_qp(cm_id);
		ic->i_qp = NULL;
	}
err_recv_cq:
	if (!ic->i_srq)
		rds_ib_recv_cq_destroy(ic);
	else
		rds_ib_cq_quiesce();
err_send_cq:
	ib_free_cq(ic->i_send_cq);
	ic->i_send_cq = NULL;
err_bufs:
	rds_ib_bufs_free(ic, dev);
err_mem:
	rds_ib_mem_release(ic);
err_srq:
	if (ic->i_srq) {
		rds_ib_srq_put(ic->i_srq);
		ic->i_srq = NULL;
	}
	rds_ib_domain_put(ic->i_dom);
	ic->i_dom = NULL;
err_dev:
	ic->i_dev = NULL;
	rds_ib_device_put(rdev);
	return ret;
}

/* Undo rds_ib_qp_setup() for a path detached from @cm_id: nothing of ours
 * runs on the QP afterwards.  Called by shutdown, after rdma_disconnect().
 */
void rds_ib_qp_teardown(struct rds_ib_connection *ic, struct rdma_cm_id *cm_id)
{
	struct rds_ib_device *rdev = ic->i_dev;

	if (!ic->i_qp)
		return;
	/* Every posted request completes (flushed) before this returns: a
	 * ring's receives too, an SRQ's when its QP goes.  Not
	 * ib_drain_qp() on an SRQ's QP: from 6.10 on it drains the SRQ
	 * too, polling the receive CQ itself and calling each completion's
	 * done() (an SRQ's CQ is every QP's of the domain, and ours), and
	 * waits up to a minute for the device's LAST_WQE_REACHED.
	 */
	if (ic->i_srq) {
		ib_drain_sq(ic->i_qp);
		rds_ib_srq_destroy_qp(ic->i_srq, ic, cm_id);
		rds_ib_cq_quiesce();	/* the send CQ's poller */
	} else {
		ib_drain_qp(ic->i_qp);
		rdma_destroy_qp(cm_id);
		ic->i_qp = NULL;
		rds_ib_recv_cq_destroy(ic);	/* quiesces both CQs' */
	}
	ib_free_cq(ic->i_send_cq);
	ic->i_send_cq = NULL;
	rds_ib_recv_reset(ic);
	rds_ib_bufs_free(ic, rdev->rd_dev);
	rds_ib_mem_release(ic);
	if (ic->i_srq) {
		rds_ib_srq_put(ic->i_srq);
		ic->i_srq = NULL;
	}
	ic->i_dev = NULL;
	rds_ib_domain_put(ic->i_dom);
	ic->i_dom = NULL;
	rds_ib_device_del_conn(rdev, ic);
	rds_ib_device_put(rdev);
}
