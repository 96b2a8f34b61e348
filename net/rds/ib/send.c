// SPDX-License-Identifier: GPL-2.0
/* The send side: messages cut into fragments and copied into the send
 * ring, the acknowledgment that goes out alone, and flow control.
 *
 * Each fragment is a copy of the message header (with our latest ack in
 * h_ack, and credits in h_credit, see below) followed by up to RDS_FRAG_SIZE bytes
 * of the payload, copied into the slot's own buffer: a message is done with
 * as soon as its last fragment is posted, and its place in cp_retrans is
 * the generic layer's business alone.  A slot gets its buffer when it
 * first carries data, and keeps it until the ring is freed: an idle
 * connection holds none of the copies a busy one does.  Only every i_max_unsignaled-th send
 * asks for a completion, which then frees every slot up to it.
 */
#include <linux/scatterlist.h>

#include "ib.h"
#include "trace.h"

void rds_ib_send_ring_init(struct rds_ib_connection *ic)
{
	u32 lkey = ic->i_dom->dom_pd->local_dma_lkey;
	u32 i;

	ic->i_send_head = 0;
	ic->i_send_tail = 0;
	atomic_set(&ic->i_send_free, ic->i_send_nr);
	ic->i_unsignaled = 0;
	WRITE_ONCE(ic->i_send_full, false);
	ic->i_send_error = 0;
	for (i = 0; i < ic->i_send_nr; i++) {
		struct rds_ib_send_slot *s = &ic->i_sends[i];

		s->s_cqe.done = rds_ib_send_done;
		s->s_wr.wr_cqe = &s->s_cqe;
		s->s_wr.sg_list = s->s_sge;
		s->s_wr.opcode = IB_WR_SEND;
		s->s_sge[0].addr = s->s_hdr_dma;
		s->s_sge[0].length = sizeof(struct rds_header);
		s->s_sge[0].lkey = lkey;
		s->s_sge[1].lkey = lkey;
	}

	ic->i_ack_cqe.done = rds_ib_ack_done;
	ic->i_ack_wr.wr_cqe = &ic->i_ack_cqe;
	ic->i_ack_wr.sg_list = &ic->i_ack_sge;
	ic->i_ack_wr.num_sge = 1;
	ic->i_ack_wr.opcode = IB_WR_SEND;
	ic->i_ack_wr.send_flags = IB_SEND_SIGNALED | IB_SEND_SOLICITED;
	ic->i_ack_sge.addr = ic->i_ack_hdr_dma;
	ic->i_ack_sge.length = sizeof(struct rds_header);
	ic->i_ack_sge.lkey = lkey;
	ic->i_ack_flags = 0;
}

/* ---- Flow control -------------------------------------------------------
 *
 * As in-tree, and only when both sides asked for it (sysctl flow_control):
 * every fragment fills one receive the peer posted, so we send only while
 * we hold credits from it: its count of posted receives in the private
 * data, then h_credit of any fragment it sends.  We give ours the same way:
 * receives posted since the last update ride in h_credit of the next
 * fragment, or go in an ack-only fragment once there are i_credit_batch of
 * them, or as soon as there are any when the peer's data ran it low (our
 * view, i_peer_credits; acks do not count, or two peers could trade
 * updates for ever).  The last credit goes only with an update, so two
 * peers out of credits can still tell each other of the receives they
 * posted since.
 */
#define RDS_IB_SEND_CREDITS(v)	((u32)(v) & 0xffff)
#define RDS_IB_POSTED(v)	((u32)(v) >> 16)

void rds_ib_credits_init(struct rds_ib_connection *ic, bool flowctl)
{
	ic->i_flowctl = flowctl;
	atomic_set(&ic->i_credits, 0);
	atomic_set(&ic->i_peer_credits, 0);
	clear_bit(RDS_IB_PEER_LOW, &ic->i_ack_flags);
}

/* Takes one send credit, and the posted receives to advertise with it. */
static bool rds_ib_credits_grab(struct rds_ib_connection *ic, u32 *adv)
{
	int old = atomic_read(&ic->i_credits);
	u32 avail, posted;

	*adv = 0;
	if (!ic->i_flowctl)
		return true;
	do {
		avail = RDS_IB_SEND_CREDITS(old);
		posted = RDS_IB_POSTED(old);
		if (!avail || (avail == 1 && !posted))
			return false;
		*adv = min_t(u32, posted, RDS_IB_MAX_ADV_CREDIT);
	} while (!atomic_try_cmpxchg(&ic->i_credits, &old,
				     old - 1 - (int)(*adv << 16)));
	if (*adv) {
		atomic_add(*adv, &ic->i_peer_credits);
		rds_ib_stats_inc(RDS_IB_STAT_TX_CREDIT_UPDATES);
	}
	return true;
}

/* Every receive posted so far, for the private data: the first update. */
u32 rds_ib_credits_advertise_all(struct rds_ib_connection *ic)
{
	u32 posted;

	if (!ic->i_flowctl)
		return 0;
	posted = RDS_IB_POSTED(atomic_fetch_and(0xffff, &ic->i_credits));
	atomic_add(posted, &ic->i_peer_credits);
	return posted;
}

/* A sender that waits for room or credits is kicked. */
static void rds_ib_send_kick(struct rds_ib_connection *ic)
{
	/* Pairs with rds_ib_send_ring_full() and rds_ib_send_wait(). */
	smp_mb__after_atomic();
	if (READ_ONCE(ic->i_send_full)) {
		WRITE_ONCE(ic->i_send_full, false);
		rds_path_queue_send(ic->i_cp, 0);
	}
}

/* Credits from the peer.  Its counts are its own business: a peer that
 * gives more than the 16 bits hold is capped, not let into "posted".
 */
void rds_ib_credits_add(struct rds_ib_connection *ic, unsigned int credits)
{
	int old = atomic_read(&ic->i_credits);
	u32 avail;

	if (!ic->i_flowctl || !credits)
		return;
	do {
		avail = min_t(u32, RDS_IB_SEND_CREDITS(old) + credits, 0xffff);
	} while (!atomic_try_cmpxchg(&ic->i_credits, &old,
				     (old & ~0xffff) | avail));
	rds_ib_stats_inc(RDS_IB_STAT_RX_CREDIT_UPDATES);
	rds_ib_send_kick(ic);
	/* An update that waited for a credit may go now. */
	if (rds_conn_path_up(ic->i_cp))
		rds_ib_attempt_ack(ic);
}

/* Receives posted again (process context).  The posted count also makes a
 * reserved last credit usable: kick a sender waiting for it.
 */
void rds_ib_credits_posted(struct rds_ib_connection *ic, unsigned int posted)
{
	u32 now;

	if (!ic->i_flowctl || !posted)
		return;
	now = RDS_IB_POSTED(atomic_add_return(posted << 16, &ic->i_credits));
	rds_ib_send_kick(ic);
	if (!rds_conn_path_up(ic->i_cp))
		return;		/* the private data carries them */
	if (now >= ic->i_credit_batch ||
	    test_and_clear_bit(RDS_IB_PEER_LOW, &ic->i_ack_flags)) {
		set_bit(RDS_IB_ACK_REQUESTED, &ic->i_ack_flags);
		rds_ib_attempt_ack(ic);
	}
}

/* The ack we send with anything: it answers a pending request too. */
static u64 rds_ib_piggyback_ack(struct rds_ib_connection *ic)
{
	u64 ack = atomic64_read(&ic->i_ack_next);

	clear_bit(RDS_IB_ACK_REQUESTED, &ic->i_ack_flags);
	atomic64_set(&ic->i_ack_told, ack);
	WRITE_ONCE(ic->i_ack_told_at, jiffies);
	return ack;
}

/* ---- RDMA READ and WRITE -----------------------------------------------
 *
 * An operation goes out as one or more work requests of up to
 * rds_ib_rdma_sge() local pages each, in ring slots, every one signaled and
 * holding a message reference.  struct rds_ib_rdma (op_trans_private)
 * lives from the post to the last of their completions: it holds the DMA
 * mapping of the operation's pages and the first error, and is small
 * whatever the operation's size (the gather lists are built on the stack
 * as each work request is posted: the device copies them), so that its
 * GFP_NOWAIT allocation, softirq's too, does not fail on a fragmented
 * host and stall the connection.  rr_pending counts
 * the work requests not yet completed, plus one the poster holds while it
 * posts, so that a partly failed post still ends in one report.
 */
struct rds_ib_rdma {
	struct ib_device	*rr_dev;
	struct rds_ib_connection *rr_ic;
	atomic_t		rr_pending;
	bool			rr_done;	/* a request was carried out */
	/* RDS_RDMA_*: the first error, or RDS_IB_RDMA_FLUSHED */
	int			rr_status;
};

/* The connection went before the operation was done: no status now, the
 * message's drop at the reconnect gives it (RDS_RDMA_DROPPED).
 */
#define RDS_IB_RDMA_FLUSHED	(-1)

/* In-tree's statuses: only a remote access error is the peer's. */
static int rds_ib_rdma_status(enum ib_wc_status status)
{
	switch (status) {
	case IB_WC_SUCCESS:
		return RDS_RDMA_SUCCESS;
	case IB_WC_WR_FLUSH_ERR:
		return RDS_IB_RDMA_FLUSHED;
	case IB_WC_REM_ACCESS_ERR:
		return RDS_RDMA_REMOTE_ERROR;
	default:
		return RDS_RDMA_OTHER_ERROR;
	}
}

/* Local pages per work request: a READ's are limited by max_sge_rd. */
static u32 rds_ib_rdma_sge(const struct rds_ib_connection *ic,
			   const struct rds_rdma_op *op)
{
	return op->op_write ? ic->i_max_send_sge : ic->i_max_read_sge;
}

static enum dma_data_direction rds_ib_rdma_dir(const struct rds_rdma_op *op)
{
	return op->op_write ? DMA_TO_DEVICE : DMA_FROM_DEVICE;
}

/* A READ or WRITE all of whose work requests were flushed, behind a
 * request the peer refused (a NAK: remote access, invalid request or
 * operation error), was not carried out: the responder stops at what it
 * refused, and the flush spared all that followed.  It goes again on the
 * next connection rather than be lost for another socket's bad key.
 * After any other failure (retries exceeded, a local error) requests may
 * have been carried out whose acknowledgments never came, and repeating
 * one could write memory its owner already reused: those are dropped,
 * as in-tree.  Atomics are never repeated.
 */
static bool rds_ib_rdma_unsent(const struct rds_ib_rdma *rr,
			       const struct rds_rdma_op *op, int status)
{
	switch (READ_ONCE(rr->rr_ic->i_send_error) - 1) {
	case IB_WC_REM_ACCESS_ERR:
	case IB_WC_REM_INV_REQ_ERR:
	case IB_WC_REM_OP_ERR:
		return status == RDS_IB_RDMA_FLUSHED && !rr->rr_done &&
		       !op->op_atomic;
	default:
		return false;
	}
}

/* The last work request is done: the pages are the CPU's again. */
static void rds_ib_rdma_put(struct rds_message *rm)
{
	struct rds_rdma_op *op = rm->m_rdma;
	struct rds_ib_rdma *rr = op->op_trans_private;
	int status;

	if (!atomic_dec_and_test(&rr->rr_pending))
		return;
	ib_dma_unmap_sg(rr->rr_dev, op->op_sg, op->op_nents,
			rds_ib_rdma_dir(op));
	status = READ_ONCE(rr->rr_status);
	WRITE_ONCE(op->op_unsent, rds_ib_rdma_unsent(rr, op, status));
	op->op_trans_private = NULL;
	kfree(rr);
	if (status != RDS_IB_RDMA_FLUSHED)
		rds_rdma_op_done(rm, status);
}

static void rds_ib_rdma_done(struct rds_ib_send_slot *s, struct ib_wc *wc)
{
	struct rds_message *rm = s->s_rm;
	struct rds_ib_rdma *rr = rm->m_rdma->op_trans_private;

	s->s_rm = NULL;
	if (wc->status != IB_WC_WR_FLUSH_ERR)
		rr->rr_done = true;
	if (wc->status != IB_WC_SUCCESS)
		cmpxchg(&rr->rr_status, RDS_RDMA_SUCCESS,
			rds_ib_rdma_status(wc->status));
	rds_ib_rdma_put(rm);
	rds_message_put(rm);
}

/* The ring has @nr free slots; else the completion kicks us.  A run of
 * unsignaled sends is at most half the ring, so up to half of it always
 * frees up without anybody else posting.
 */
bool rds_ib_send_room(struct rds_ib_connection *ic, u32 nr)
{
	if (atomic_read(&ic->i_send_free) >= nr)
		return true;
	WRITE_ONCE(ic->i_send_full, true);
	/* Pairs with rds_ib_send_done(). */
	smp_mb();
	if (atomic_read(&ic->i_send_free) >= nr)
		return true;
	rds_ib_stats_inc(RDS_IB_STAT_TX_RING_FULL);
	return false;
}

/* The RDMA work request of @s for @cnt pieces from @sge, @remote on. */
static struct ib_send_wr *rds_ib_rdma_wr(struct rds_ib_send_slot *s,
					 const struct rds_rdma_op *op,
					 struct ib_sge *sge, unsigned int cnt,
					 u64 remote)
{
	struct ib_rdma_wr *wr = &s->s_rdma_wr;

	memset(wr, 0, sizeof(*wr));
	wr->wr.opcode = op->op_write ? IB_WR_RDMA_WRITE : IB_WR_RDMA_READ;
	wr->wr.sg_list = sge;
	wr->wr.num_sge = cnt;
	wr->remote_addr = remote;
	wr->rkey = op->op_rkey;
	return &wr->wr;
}

/* The atomic work request of @s: the old value goes to @sge. */
static struct ib_send_wr *rds_ib_atomic_wr(struct rds_ib_send_slot *s,
					   const struct rds_rdma_op *op,
					   struct ib_sge *sge)
{
	struct ib_atomic_wr *wr = &s->s_atomic_wr;

	memset(wr, 0, sizeof(*wr));
	switch (op->op_atomic) {
	case RDS_CMSG_ATOMIC_CSWP:
		wr->wr.opcode = IB_WR_ATOMIC_CMP_AND_SWP;
		break;
	case RDS_CMSG_ATOMIC_FADD:
		wr->wr.opcode = IB_WR_ATOMIC_FETCH_AND_ADD;
		break;
	case RDS_CMSG_MASKED_ATOMIC_CSWP:
		wr->wr.opcode = IB_WR_MASKED_ATOMIC_CMP_AND_SWP;
		break;
	default:
		wr->wr.opcode = IB_WR_MASKED_ATOMIC_FETCH_AND_ADD;
		break;
	}
	wr->wr.sg_list = sge;
	wr->wr.num_sge = 1;
	wr->remote_addr = op->op_remote_addr;
	wr->rkey = op->op_rkey;
	wr->compare_add = op->op_compare_add;
	wr->swap = op->op_swap;
	wr->compare_add_mask = op->op_compare_add_mask;
	wr->swap_mask = op->op_swap_mask;
	return &wr->wr;
}

/* Posts what it can of the operation; a failed post brings the path down
 * and fails the operation (RDS_RDMA_OTHER_ERROR), which is still taken:
 * it must not go out twice.  An atomic one is one work request.
 */
static void rds_ib_rdma_post(struct rds_ib_connection *ic,
			     struct rds_message *rm, unsigned int nents)
{
	struct rds_rdma_op *op = rm->m_rdma;
	struct rds_ib_rdma *rr = op->op_trans_private;
	u32 lkey = ic->i_dom->dom_pd->local_dma_lkey;
	u32 max_sge = rds_ib_rdma_sge(ic, op);
	struct scatterlist *sg = op->op_sg;
	u64 remote = op->op_remote_addr;
	struct ib_sge sge[RDS_IB_MAX_SGE];
	unsigned int first, cnt, j;

	for (first = 0; first < nents; first += cnt) {
		struct rds_ib_send_slot *s = &ic->i_sends[ic->i_send_head];
		struct ib_send_wr *wr;
		u32 len = 0;

		cnt = min(nents - first, max_sge);
		for (j = 0; j < cnt; j++, sg = sg_next(sg)) {
			sge[j].addr = sg_dma_address(sg);
			sge[j].length = sg_dma_len(sg);
			sge[j].lkey = lkey;
			len += sge[j].length;
		}
		if (op->op_atomic)
			wr = rds_ib_atomic_wr(s, op, sge);
		else
			wr = rds_ib_rdma_wr(s, op, sge, cnt, remote);
		wr->wr_cqe = &s->s_cqe;
		wr->send_flags = IB_SEND_SIGNALED;
		/* RDS_RDMA_FENCE: after the READs before it are done. */
		if (!first && op->op_fence)
			wr->send_flags |= IB_SEND_FENCE;
		remote += len;

		rds_message_addref(rm);
		s->s_rm = rm;
		atomic_inc(&rr->rr_pending);
		atomic_dec(&ic->i_send_free);
		if (ib_post_send(ic->i_qp, wr, NULL)) {
			atomic_inc(&ic->i_send_free);
			s->s_rm = NULL;
			atomic_dec(&rr->rr_pending);
			rds_message_put(rm);	/* the sender holds one */
			cmpxchg(&rr->rr_status, RDS_RDMA_SUCCESS,
				RDS_RDMA_OTHER_ERROR);
			/* What was posted may run, the rest never will: the
			 * peer must not take the operation for done.
			 */
			rds_message_del_extension(&rm->m_inc.i_hdr,
						  RDS_EXTHDR_RDMA);
			rds_conn_path_error(ic->i_cp, "RDMA post failed");
			return;
		}
		ic->i_send_head = (ic->i_send_head + 1) % ic->i_send_nr;
	}
}

/* What the device cannot do fails at once (RDS_RDMA_OTHER_ERROR), as a
 * post it refused would, without taking the path down: rxe, for one, has
 * no masked atomics.
 */
static bool rds_ib_op_supported(struct ib_device *dev,
				const struct rds_rdma_op *op)
{
	switch (op->op_atomic) {
	case 0:
		return true;
	case RDS_CMSG_ATOMIC_CSWP:
	case RDS_CMSG_ATOMIC_FADD:
		return dev->attrs.atomic_cap != IB_ATOMIC_NONE;
	default:
		return dev->attrs.masked_atomic_cap != IB_ATOMIC_NONE;
	}
}

int rds_ib_xmit_rdma(struct rds_conn_path *cp, struct rds_message *rm)
{
	struct rds_ib_connection *ic = cp->cp_carrier->ca_data;
	struct rds_rdma_op *op = rm->m_rdma;
	struct ib_device *dev;
	struct rds_ib_rdma *rr;
	unsigned int nr_wr;
	int n;

	if (!ic->i_qp)
		return -ENOTCONN;
	/* Its work requests and the header's first fragment. */
	nr_wr = DIV_ROUND_UP(op->op_nents, rds_ib_rdma_sge(ic, op)) + 1;
	if (nr_wr > ic->i_send_nr / 2 ||
	    !rds_ib_op_supported(ic->i_dev->rd_dev, op)) {
		/* It would never fit the ring (sysctl max_send_wr), or the
		 * device cannot do it at all: the message goes without it,
		 * not announcing it.
		 */
		rds_message_del_extension(&rm->m_inc.i_hdr, RDS_EXTHDR_RDMA);
		rds_rdma_op_done(rm, RDS_RDMA_OTHER_ERROR);
		return 0;
	}
	if (!rds_ib_send_room(ic, nr_wr))
		return -EAGAIN;

	dev = ic->i_dev->rd_dev;
	rr = kzalloc(sizeof(*rr), GFP_NOWAIT);
	if (!rr)
		return -ENOMEM;
	n = ib_dma_map_sg(dev, op->op_sg, op->op_nents, rds_ib_rdma_dir(op));
	if (!n) {
		kfree(rr);
		return -ENOMEM;
	}
	rr->rr_dev = dev;
	rr->rr_ic = ic;
	atomic_set(&rr->rr_pending, 1);
	op->op_trans_private = rr;
	rds_ib_rdma_post(ic, rm, n);
	rds_ib_rdma_put(rm);
	return 0;
}

/* ---- Zero-copy send -----------------------------------------------------
 *
 * With net.rds.ib.send_zerocopy (the default), the fragments of a message
 * of RDS_IB_ZC_MIN_BYTES or more gather their payload from the message's
 * own pages rather than copy it into the slot: the message's
 * scatterlist is mapped for the device at its first fragment, with a
 * reference, and stays so until the completion that covers its last: that
 * fragment's slot takes the message over (s_zc_rm), and a completion frees
 * every slot up to its own, letting go of what each holds.  The fragment
 * goes unsignaled, in the run of max_unsignaled_wr sends as any other
 * (a completion a message cost as much CPU as the copy saved), unless the
 * message is RDS_IB_ZC_SIGNAL_BYTES or more: a run then holds at most
 * max_unsignaled_wr such messages past their last send, 256 KiB at the
 * default of 16, on a connection that goes quiet before the next
 * completion; bigger ones end runs of their own anyway.  A message cut
 * short by a full ring keeps its
 * mapping in i_zc_rm until the rest goes, or until shutdown lets it go
 * after the drain; the generic layer only ever goes on with the message
 * it left (cp_xmit_rm), or resets the path.  A fragment whose pieces need
 * more entries than the work request has (pages pinned by MSG_ZEROCOPY
 * at odd offsets) is copied, as without the sysctl.
 */

/* Payload entries of one fragment's send, the header's aside. */
#define RDS_IB_ZC_SGE		3
/* Smaller messages are copied: for one short fragment the copy costs less
 * than the mapping and the completion that must be asked for each message
 * (make bench's ib-64B-d32 lost 6 % with zero-copy, variants-1).
 */
#define RDS_IB_ZC_MIN_BYTES	RDS_FRAG_SIZE
#define RDS_IB_ZC_SIGNAL_BYTES	(4 * RDS_FRAG_SIZE)

void rds_ib_zc_unmap(struct ib_device *dev, struct rds_message **rm)
{
	ib_dma_unmap_sg(dev, (*rm)->m_sg, (*rm)->m_nents, DMA_TO_DEVICE);
	rds_message_put(*rm);
	*rm = NULL;
}

void rds_ib_zc_release(struct rds_ib_connection *ic, struct ib_device *dev)
{
	if (ic->i_zc_rm)
		rds_ib_zc_unmap(dev, &ic->i_zc_rm);
}

/* @rm mapped for the device from its first fragment on; false if it cannot
 * be (the fragment is then copied).
 */
static bool rds_ib_zc_map(struct rds_ib_connection *ic,
			  struct rds_message *rm)
{
	int n;

	if (ic->i_zc_rm == rm)
		return true;
	/* Another message's fragments may still be on the wire. */
	if (WARN_ON_ONCE(ic->i_zc_rm))
		return false;
	n = ib_dma_map_sg(ic->i_dev->rd_dev, rm->m_sg, rm->m_nents,
			  DMA_TO_DEVICE);
	if (n <= 0)
		return false;
	rds_message_addref(rm);
	ic->i_zc_rm = rm;
	ic->i_zc = (struct rds_ib_zc_cursor){ .sg = rm->m_sg, .left = n };
	return true;
}

/* The next @len payload bytes of the mapped message: their entries into
 * @sge (at most @max of them), and in @end the cursor past them, which the
 * caller keeps once the fragment went, from these entries or copied.
 * Returns how many entries the bytes take (more than @max: copy them), or
 * 0 when the mapping ends before them.
 */
static unsigned int rds_ib_zc_walk(struct rds_ib_connection *ic,
				   unsigned int len, struct ib_sge *sge,
				   unsigned int max,
				   struct rds_ib_zc_cursor *end)
{
	u32 lkey = ic->i_dom->dom_pd->local_dma_lkey;
	struct rds_ib_zc_cursor c = ic->i_zc;
	unsigned int n = 0;

	while (len && c.left) {
		unsigned int take = min(sg_dma_len(c.sg) - c.sg_off, len);

		if (n < max) {
			sge[n].addr = sg_dma_address(c.sg) + c.sg_off;
			sge[n].length = take;
			sge[n].lkey = lkey;
		}
		n++;
		len -= take;
		c.pos += take;
		c.sg_off += take;
		if (c.sg_off == sg_dma_len(c.sg)) {
			c.sg = sg_next(c.sg);
			c.sg_off = 0;
			c.left--;
		}
	}
	*end = c;
	return len ? 0 : n;
}

/* The messages of slots i_send_tail..@last, which a completion for @last
 * frees: every send before a signaled one is done when it is, so the
 * unsignaled last fragments of zero-copy messages go here.  An RDMA
 * operation's slot is always signaled, and was looked at by its own
 * completion.
 */
static void rds_ib_zc_done(struct rds_ib_connection *ic, u32 last)
{
	u32 i;

	for (i = ic->i_send_tail;; i = (i + 1) % ic->i_send_nr) {
		struct rds_ib_send_slot *t = &ic->i_sends[i];

		if (t->s_zc_rm)
			rds_ib_zc_unmap(ic->i_dev->rd_dev, &t->s_zc_rm);
		if (i == last)
			return;
	}
}

/* Send completion: every slot up to this one is free again, once the
 * slot let go of what its work request held.
 */
void rds_ib_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rds_ib_connection *ic = cq->cq_context;
	struct rds_ib_send_slot *s = container_of(wc->wr_cqe,
						  struct rds_ib_send_slot,
						  s_cqe);
	u32 n;

	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR) {
		/* Send completions come in posting order, one CQ, one
		 * softirq context at a time: the flushes behind this come
		 * after it.
		 */
		if (!ic->i_send_error)
			WRITE_ONCE(ic->i_send_error, wc->status + 1);
		rds_conn_path_error(ic->i_cp, "send completion error");
	}
	if (s->s_rm)
		rds_ib_rdma_done(s, wc);
	/* Only a zero-copy queue pair's slots hold messages. */
	if (ic->i_send_zc)
		rds_ib_zc_done(ic, s->s_index);

	n = (s->s_index + ic->i_send_nr - ic->i_send_tail) % ic->i_send_nr + 1;
	ic->i_send_tail = (s->s_index + 1) % ic->i_send_nr;
	atomic_add(n, &ic->i_send_free);
	rds_ib_send_kick(ic);
}

/* @s's data buffer, made and mapped at its first use.  The sender may run
 * in softirq: no sleep, and -ENOMEM has the generic layer try again soon.
 */
static int rds_ib_send_data_buf(struct ib_device *dev,
				struct rds_ib_send_slot *s)
{
	void *buf;

	if (s->s_data)
		return 0;
	buf = kmalloc(RDS_FRAG_SIZE, GFP_NOWAIT | __GFP_NOWARN);
	if (!buf)
		return -ENOMEM;
	if (rds_ib_map(dev, buf, RDS_FRAG_SIZE, DMA_TO_DEVICE,
		       &s->s_data_dma)) {
		kfree(buf);
		return -ENOMEM;
	}
	s->s_data = buf;
	s->s_sge[1].addr = s->s_data_dma;
	return 0;
}

/* Posts one fragment: the header, then @len payload bytes from @off, from
 * the message's pages when @nzc entries of @zc say where (zero-copy), else
 * copied into the slot's buffer.  The post copies the entries, so @zc may
 * live on the caller's stack.
 */
static int rds_ib_post_frag(struct rds_ib_connection *ic,
			    struct rds_message *rm, unsigned int off,
			    unsigned int len, u32 adv,
			    const struct ib_sge *zc, unsigned int nzc)
{
	struct rds_ib_send_slot *s = &ic->i_sends[ic->i_send_head];
	struct ib_sge sge[1 + RDS_IB_ZC_SGE];
	struct ib_device *dev = ic->i_dev->rd_dev;
	struct rds_header *hdr = s->s_hdr;
	bool last = off + len == rm->m_len;
	int ret;

	*hdr = rm->m_inc.i_hdr;
	if (test_bit(RDS_IB_ACK_REQUESTED, &ic->i_ack_flags))
		rds_ib_stats_inc(RDS_IB_STAT_ACK_SEND_PIGGYBACKED);
	hdr->h_ack = cpu_to_be64(rds_ib_piggyback_ack(ic));
	hdr->h_credit = adv;
	hdr->h_csum = rds_header_csum(hdr);
	if (len && !nzc &&
	    sg_pcopy_to_buffer(rm->m_sg, rm->m_nents, s->s_data, len,
			       off) != len)
		return -EINVAL;
	ib_dma_sync_single_for_device(dev, s->s_hdr_dma, sizeof(*hdr),
				      DMA_TO_DEVICE);
	if (len && !nzc)
		ib_dma_sync_single_for_device(dev, s->s_data_dma, len,
					      DMA_TO_DEVICE);

	/* The slot may have carried another work request last time. */
	s->s_wr.wr_cqe = &s->s_cqe;
	s->s_wr.opcode = IB_WR_SEND;
	if (nzc) {
		sge[0] = s->s_sge[0];
		memcpy(&sge[1], zc, nzc * sizeof(*zc));
		s->s_wr.sg_list = sge;
		s->s_wr.num_sge = 1 + nzc;
	} else {
		s->s_sge[1].length = len;
		s->s_wr.sg_list = s->s_sge;
		s->s_wr.num_sge = len ? 2 : 1;
	}
	s->s_wr.next = NULL;
	/* In-tree arms its receive CQ for solicited completions only: the
	 * end of a message must wake it, or what came sits in its CQ.
	 */
	s->s_wr.send_flags = last ? IB_SEND_SOLICITED : 0;
	/* A READ's data is here before the peer hears of it (and may let
	 * its region go).
	 */
	if (!off && rm->m_rdma && !rm->m_rdma->op_write)
		s->s_wr.send_flags |= IB_SEND_FENCE;
	/* Before the post: its completion may run before we return. */
	if (last && ic->i_zc_rm) {
		s->s_zc_rm = ic->i_zc_rm;
		ic->i_zc_rm = NULL;
		if (rm->m_len >= RDS_IB_ZC_SIGNAL_BYTES)
			ic->i_unsignaled = ic->i_max_unsignaled;
	}
	if (++ic->i_unsignaled >= ic->i_max_unsignaled) {
		ic->i_unsignaled = 0;
		s->s_wr.send_flags |= IB_SEND_SIGNALED;
	}

	atomic_dec(&ic->i_send_free);
	ret = ib_post_send(ic->i_qp, &s->s_wr, NULL);
	if (ret) {
		atomic_inc(&ic->i_send_free);
		if (s->s_zc_rm) {
			ic->i_zc_rm = s->s_zc_rm;
			s->s_zc_rm = NULL;
		}
		return ret;
	}
	ic->i_send_head = (ic->i_send_head + 1) % ic->i_send_nr;
	return 0;
}

/* True when the ring has no free slot; asks the completion to kick us. */
static bool rds_ib_send_ring_full(struct rds_ib_connection *ic)
{
	if (atomic_read(&ic->i_send_free))
		return false;
	WRITE_ONCE(ic->i_send_full, true);
	/* Pairs with rds_ib_send_done(). */
	smp_mb();
	if (atomic_read(&ic->i_send_free))
		return false;
	rds_ib_stats_inc(RDS_IB_STAT_TX_RING_FULL);
	return true;
}

/* A send credit, or false and a kick from whoever brings one. */
static bool rds_ib_send_wait(struct rds_ib_connection *ic, u32 *adv)
{
	if (rds_ib_credits_grab(ic, adv))
		return true;
	WRITE_ONCE(ic->i_send_full, true);
	/* Pairs with rds_ib_send_kick(). */
	smp_mb();
	if (rds_ib_credits_grab(ic, adv))
		return true;
	rds_ib_stats_inc(RDS_IB_STAT_TX_THROTTLE);
	trace_rds_ib_credit_stall(ic->i_cp,
				  RDS_IB_POSTED(atomic_read(&ic->i_credits)));
	return false;
}

/* *pos counts the wire image: the header, then the payload.  A fragment
 * sent moves it past its payload bytes (past the header for the first),
 * so a message interrupted by a full ring goes on where it stopped.
 */
int rds_ib_xmit(struct rds_conn_path *cp, struct rds_message *rm,
		unsigned int *pos)
{
	struct rds_ib_connection *ic = cp->cp_carrier->ca_data;
	const unsigned int hlen = sizeof(struct rds_header);
	unsigned int off = *pos ? *pos - hlen : 0;
	unsigned int zc_max;
	bool use_zc;
	int ret;

	if (!ic->i_qp)
		return -ENOTCONN;
	use_zc = ic->i_send_zc && rm->m_len >= RDS_IB_ZC_MIN_BYTES;
	/* Payload entries of a work request: the header takes one. */
	zc_max = min_t(u32, RDS_IB_ZC_SGE, ic->i_max_send_sge - 1);
	do {
		unsigned int len = min(rm->m_len - off, RDS_FRAG_SIZE);
		struct ib_sge zc[RDS_IB_ZC_SGE];
		struct rds_ib_zc_cursor end;
		bool walked = false;
		unsigned int nzc = 0;
		u32 adv;

		if (rds_ib_send_ring_full(ic))
			return -EAGAIN;
		/* Fragments go in order: a resend starts a new mapping. */
		if (len && use_zc && rds_ib_zc_map(ic, rm) && off == ic->i_zc.pos) {
			nzc = rds_ib_zc_walk(ic, len, zc, zc_max, &end);
			walked = true;
			if (nzc > zc_max)
				nzc = 0;
		}
		/* Before a credit is taken: it would be lost with the try. */
		if (len && !nzc) {
			ret = rds_ib_send_data_buf(ic->i_dev->rd_dev,
						   &ic->i_sends[ic->i_send_head]);
			if (ret)
				return ret;
		}
		if (!rds_ib_send_wait(ic, &adv))
			return -EAGAIN;
		ret = rds_ib_post_frag(ic, rm, off, len, adv, zc, nzc);
		if (ret)
			return ret;
		if (use_zc && len)
			rds_ib_stats_inc(nzc ? RDS_IB_STAT_TX_ZEROCOPY :
					 RDS_IB_STAT_TX_ZEROCOPY_COPIED);
		if (walked)
			ic->i_zc = end;
		off += len;
		*pos = hlen + off;
	} while (off < rm->m_len);
	return 0;
}

/* An ack asked for and not piggybacked on this batch goes out alone. */
void rds_ib_xmit_path_complete(struct rds_conn_path *cp)
{
	struct rds_ib_connection *ic = cp->cp_carrier->ca_data;

	if (ic->i_qp)
		rds_ib_attempt_ack(ic);
}

/* Sends the ack-only fragment if the peer asked for an ack (or credits are
 * due) and none is in flight.  Any context in which the QP lives: a
 * completion, the sender, the receive work.  Without a credit it waits for
 * one: rds_ib_credits_add() calls again.
 */
void rds_ib_attempt_ack(struct rds_ib_connection *ic)
{
	struct rds_header *hdr = ic->i_ack_hdr;
	u32 adv;

	if (!test_bit(RDS_IB_ACK_REQUESTED, &ic->i_ack_flags))
		return;
	if (test_and_set_bit(RDS_IB_ACK_IN_FLIGHT, &ic->i_ack_flags))
		return;
	if (!test_and_clear_bit(RDS_IB_ACK_REQUESTED, &ic->i_ack_flags)) {
		clear_bit(RDS_IB_ACK_IN_FLIGHT, &ic->i_ack_flags);
		return;
	}
	if (!rds_ib_credits_grab(ic, &adv)) {
		rds_ib_stats_inc(RDS_IB_STAT_TX_THROTTLE);
		set_bit(RDS_IB_ACK_REQUESTED, &ic->i_ack_flags);
		clear_bit(RDS_IB_ACK_IN_FLIGHT, &ic->i_ack_flags);
		return;
	}

	memset(hdr, 0, sizeof(*hdr));
	hdr->h_ack = cpu_to_be64(rds_ib_piggyback_ack(ic));
	hdr->h_credit = adv;
	hdr->h_csum = rds_header_csum(hdr);
	ib_dma_sync_single_for_device(ic->i_dev->rd_dev, ic->i_ack_hdr_dma,
				      sizeof(*hdr), DMA_TO_DEVICE);
	if (ib_post_send(ic->i_qp, &ic->i_ack_wr, NULL)) {
		rds_ib_stats_inc(RDS_IB_STAT_ACK_SEND_FAILURE);
		clear_bit(RDS_IB_ACK_IN_FLIGHT, &ic->i_ack_flags);
		set_bit(RDS_IB_ACK_REQUESTED, &ic->i_ack_flags);
		return;
	}
	rds_ib_stats_inc(RDS_IB_STAT_ACK_SENT);
}

void rds_ib_ack_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rds_ib_connection *ic = cq->cq_context;

	clear_bit(RDS_IB_ACK_IN_FLIGHT, &ic->i_ack_flags);
	if (wc->status == IB_WC_SUCCESS)
		rds_ib_attempt_ack(ic);
	else if (wc->status != IB_WC_WR_FLUSH_ERR)
		rds_conn_path_error(ic->i_cp, "ack completion error");
}
