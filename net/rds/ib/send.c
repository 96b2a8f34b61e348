// SPDX-License-Identifier: GPL-2.0
/* The send side: messages cut into fragments and copied into the send
 * ring, the acknowledgment that goes out alone, and flow control.
 *
 * Each fragment is a copy of the message header (with our latest ack in
 * h_ack, and credits in h_credit, see below) followed by up to RDS_FRAG_SIZE bytes
 * of the payload, copied into the slot's own buffer: a message is done with
 * as soon as its last fragment is posted, and its place in cp_retrans is
 * the generic layer's business alone.  Only every i_max_unsignaled-th send
 * asks for a completion, which then frees every slot up to it.
 */
#include <linux/scatterlist.h>

#include "ib.h"

void rds_ib_send_ring_init(struct rds_ib_connection *ic)
{
	u32 lkey = ic->i_dev->rd_pd->local_dma_lkey;
	u32 i;

	ic->i_send_head = 0;
	ic->i_send_tail = 0;
	atomic_set(&ic->i_send_free, ic->i_send_nr);
	ic->i_unsignaled = 0;
	WRITE_ONCE(ic->i_send_full, false);
	for (i = 0; i < ic->i_send_nr; i++) {
		struct rds_ib_send_slot *s = &ic->i_sends[i];

		s->s_cqe.done = rds_ib_send_done;
		s->s_wr.wr_cqe = &s->s_cqe;
		s->s_wr.sg_list = s->s_sge;
		s->s_wr.opcode = IB_WR_SEND;
		s->s_sge[0].addr = s->s_hdr_dma;
		s->s_sge[0].length = sizeof(struct rds_header);
		s->s_sge[0].lkey = lkey;
		s->s_sge[1].addr = s->s_data_dma;
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
	clear_bit(RDS_IB_ACK_REQUESTED, &ic->i_ack_flags);
	return atomic64_read(&ic->i_ack_next);
}

/* Send completion: every slot up to this one is free again. */
void rds_ib_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rds_ib_connection *ic = cq->cq_context;
	struct rds_ib_send_slot *s = container_of(wc->wr_cqe,
						  struct rds_ib_send_slot,
						  s_cqe);
	u32 n;

	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR)
		rds_conn_path_error(ic->i_cp, "send completion error");

	n = (s->s_index + ic->i_send_nr - ic->i_send_tail) % ic->i_send_nr + 1;
	ic->i_send_tail = (s->s_index + 1) % ic->i_send_nr;
	atomic_add(n, &ic->i_send_free);
	rds_ib_send_kick(ic);
}

static int rds_ib_post_frag(struct rds_ib_connection *ic,
			    struct rds_message *rm, unsigned int off,
			    unsigned int len, u32 adv)
{
	struct rds_ib_send_slot *s = &ic->i_sends[ic->i_send_head];
	struct ib_device *dev = ic->i_dev->rd_dev;
	struct rds_header *hdr = s->s_hdr;
	int ret;

	*hdr = rm->m_inc.i_hdr;
	if (test_bit(RDS_IB_ACK_REQUESTED, &ic->i_ack_flags))
		rds_ib_stats_inc(RDS_IB_STAT_ACK_SEND_PIGGYBACKED);
	hdr->h_ack = cpu_to_be64(rds_ib_piggyback_ack(ic));
	hdr->h_credit = adv;
	hdr->h_csum = rds_header_csum(hdr);
	if (len && sg_pcopy_to_buffer(rm->m_sg, rm->m_nents, s->s_data, len,
				      off) != len)
		return -EINVAL;
	ib_dma_sync_single_for_device(dev, s->s_hdr_dma, sizeof(*hdr),
				      DMA_TO_DEVICE);
	ib_dma_sync_single_for_device(dev, s->s_data_dma, len, DMA_TO_DEVICE);

	s->s_sge[1].length = len;
	s->s_wr.num_sge = len ? 2 : 1;
	s->s_wr.next = NULL;
	/* In-tree arms its receive CQ for solicited completions only: the
	 * end of a message must wake it, or what came sits in its CQ.
	 */
	s->s_wr.send_flags = off + len == rm->m_len ? IB_SEND_SOLICITED : 0;
	if (++ic->i_unsignaled >= ic->i_max_unsignaled) {
		ic->i_unsignaled = 0;
		s->s_wr.send_flags |= IB_SEND_SIGNALED;
	}

	atomic_dec(&ic->i_send_free);
	ret = ib_post_send(ic->i_qp, &s->s_wr, NULL);
	if (ret) {
		atomic_inc(&ic->i_send_free);
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
	return false;
}

/* *pos counts the wire image: the header, then the payload.  A fragment
 * sent moves it past its payload bytes (past the header for the first),
 * so a message interrupted by a full ring goes on where it stopped.
 */
int rds_ib_xmit(struct rds_conn_path *cp, struct rds_message *rm,
		unsigned int *pos)
{
	struct rds_ib_connection *ic = cp->cp_transport_data;
	const unsigned int hlen = sizeof(struct rds_header);
	unsigned int off = *pos ? *pos - hlen : 0;
	int ret;

	if (!ic->i_qp)
		return -ENOTCONN;
	do {
		unsigned int len = min(rm->m_len - off, RDS_FRAG_SIZE);
		u32 adv;

		if (rds_ib_send_ring_full(ic) || !rds_ib_send_wait(ic, &adv))
			return -EAGAIN;
		ret = rds_ib_post_frag(ic, rm, off, len, adv);
		if (ret)
			return ret;
		off += len;
		*pos = hlen + off;
	} while (off < rm->m_len);
	return 0;
}

/* An ack asked for and not piggybacked on this batch goes out alone. */
void rds_ib_xmit_path_complete(struct rds_conn_path *cp)
{
	struct rds_ib_connection *ic = cp->cp_transport_data;

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
	hdr->h_ack = cpu_to_be64(atomic64_read(&ic->i_ack_next));
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
