// SPDX-License-Identifier: GPL-2.0
/* The send side: messages cut into fragments and copied into the send
 * ring, and the acknowledgment that goes out alone.
 *
 * Each fragment is a copy of the message header (with our latest ack in
 * h_ack, h_credit 0: no flow control) followed by up to RDS_FRAG_SIZE bytes
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
	ic->i_ack_wr.send_flags = IB_SEND_SIGNALED;
	ic->i_ack_sge.addr = ic->i_ack_hdr_dma;
	ic->i_ack_sge.length = sizeof(struct rds_header);
	ic->i_ack_sge.lkey = lkey;
	ic->i_ack_flags = 0;
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
	/* Pairs with rds_ib_xmit(): it sees the room or we see it wait. */
	smp_mb__after_atomic();
	if (READ_ONCE(ic->i_send_full)) {
		WRITE_ONCE(ic->i_send_full, false);
		rds_path_queue_send(ic->i_cp, 0);
	}
}

static int rds_ib_post_frag(struct rds_ib_connection *ic,
			    struct rds_message *rm, unsigned int off,
			    unsigned int len)
{
	struct rds_ib_send_slot *s = &ic->i_sends[ic->i_send_head];
	struct ib_device *dev = ic->i_dev->rd_dev;
	struct rds_header *hdr = s->s_hdr;
	int ret;

	*hdr = rm->m_inc.i_hdr;
	hdr->h_ack = cpu_to_be64(rds_ib_piggyback_ack(ic));
	hdr->h_credit = 0;
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
	s->s_wr.send_flags = 0;
	if (++ic->i_unsignaled >= ic->i_max_unsignaled) {
		ic->i_unsignaled = 0;
		s->s_wr.send_flags = IB_SEND_SIGNALED;
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
	return !atomic_read(&ic->i_send_free);
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

		if (rds_ib_send_ring_full(ic))
			return -EAGAIN;
		ret = rds_ib_post_frag(ic, rm, off, len);
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

/* Sends the ack-only fragment if the peer asked for an ack and none is in
 * flight.  Any context in which the QP lives: a completion, or the sender.
 */
void rds_ib_attempt_ack(struct rds_ib_connection *ic)
{
	struct rds_header *hdr = ic->i_ack_hdr;

	if (!test_bit(RDS_IB_ACK_REQUESTED, &ic->i_ack_flags))
		return;
	if (test_and_set_bit(RDS_IB_ACK_IN_FLIGHT, &ic->i_ack_flags))
		return;
	if (!test_and_clear_bit(RDS_IB_ACK_REQUESTED, &ic->i_ack_flags)) {
		clear_bit(RDS_IB_ACK_IN_FLIGHT, &ic->i_ack_flags);
		return;
	}

	memset(hdr, 0, sizeof(*hdr));
	hdr->h_ack = cpu_to_be64(atomic64_read(&ic->i_ack_next));
	hdr->h_csum = rds_header_csum(hdr);
	ib_dma_sync_single_for_device(ic->i_dev->rd_dev, ic->i_ack_hdr_dma,
				      sizeof(*hdr), DMA_TO_DEVICE);
	if (ib_post_send(ic->i_qp, &ic->i_ack_wr, NULL)) {
		clear_bit(RDS_IB_ACK_IN_FLIGHT, &ic->i_ack_flags);
		set_bit(RDS_IB_ACK_REQUESTED, &ic->i_ack_flags);
	}
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
