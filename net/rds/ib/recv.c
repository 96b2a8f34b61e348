// SPDX-License-Identifier: GPL-2.0
/* The receive side: a ring of posted receives, each a header buffer and a
 * page, and the reassembly of fragments into messages.
 *
 * Completions run in softirq (our poller, below, from irq_poll) and never
 * allocate: a fragment's page moves into its message, and the slot waits
 * on i_recv_free until the receive work, in process context, gives it a new
 * page and posts it again.  RC completions arrive in posting order, so one
 * message's fragments arrive back to back.
 *
 * The work refills in batches: a completion queues it once i_credit_batch
 * slots wait (i_recv_unposted counts them), or at once when the peer's
 * send credits run low.  Queued for every completion, it was a wakeup and
 * a context switch a message, in the way of the reader on a busy CPU.  The
 * slots that wait are few next to the ring (a quarter of it at most), so
 * the peer does not run out of receives or credits meanwhile.
 */
#include <linux/highmem.h>
#include <linux/ptr_ring.h>
#include <linux/slab.h>

#include "ib.h"

struct kmem_cache *rds_ib_incoming_slab;

static void rds_ib_recv_done(struct ib_cq *cq, struct ib_wc *wc);

/* Receive pages held by all rings together: in their slots, or in
 * messages not yet freed.  Each ring may always hold pages up to its own
 * size, which its admission counted against max_ring_memory (mem.c); what
 * it takes beyond that (struct rds_ib_recv_budget) counts there too, and
 * is taken only under that bound and under max_recv_allocation, in-tree's
 * cap on all receive pages: one cap for all, with no reserve, let a socket
 * that never reads hold every page under it, and then no other ring was
 * refilled once used, and their peers stalled in RNR retries.
 */
static atomic_t rds_ib_recv_pages = ATOMIC_INIT(0);

/* The budget of @ic's ring, made by its first refill: each slot holds a
 * reference until the ring is freed, and its admitted receive pages go
 * back to the bound when the last reference does.  Under i_mutex, or
 * before the ring is published.
 */
static struct rds_ib_recv_budget *
rds_ib_recv_budget(struct rds_ib_connection *ic, gfp_t gfp)
{
	struct rds_ib_recv_budget *rb = ic->i_recvs[0].r_budget;
	u32 i;

	if (rb)
		return rb;
	rb = rds_ib_recv_budget_new(ic->i_recv_nr, 0, gfp);
	if (!rb)
		return NULL;
	rb->rb_mem = rds_ib_mem_recv_take(ic);
	for (i = 0; i < ic->i_recv_nr; i++)
		ic->i_recvs[i].r_budget = rb;
	return rb;
}

/* A budget for @nr slots (each takes one of its references) that gives
 * @mem pages back to the bound when its last reference goes.
 */
struct rds_ib_recv_budget *rds_ib_recv_budget_new(u32 nr, u32 mem, gfp_t gfp)
{
	struct rds_ib_recv_budget *rb = kzalloc(sizeof(*rb), gfp);

	if (!rb)
		return NULL;
	refcount_set(&rb->rb_ref, nr);
	rb->rb_reserve = nr;
	rb->rb_mem = mem;
	return rb;
}

static void rds_ib_recv_budget_put(struct rds_ib_recv_budget *rb)
{
	if (refcount_dec_and_test(&rb->rb_ref)) {
		rds_ib_mem_put(rb->rb_mem);
		kfree(rb);
	}
}

/* A page for @rb's ring: always within the ring's size, beyond it only
 * under the caps.  Only the ring's refill charges @rb (under i_mutex, or
 * an SRQ's s_mutex), so rb_held cannot grow between the look and the
 * increment; it may shrink, which errs on the safe side.
 */
static bool rds_ib_recv_page_charge(struct rds_ib_recv_budget *rb)
{
	unsigned long max = min_t(unsigned long,
				  READ_ONCE(rds_ib_sysctl_max_recv_allocation),
				  INT_MAX);
	int old;

	if ((u32)atomic_read(&rb->rb_held) < rb->rb_reserve) {
		if (atomic_inc_return(&rds_ib_recv_pages) > max)
			rds_ib_stats_inc(RDS_IB_STAT_RX_ALLOC_RESERVE);
		atomic_inc(&rb->rb_held);
		return true;
	}
	old = atomic_read(&rds_ib_recv_pages);
	do {
		if (old >= max)
			goto limit;
	} while (!atomic_try_cmpxchg(&rds_ib_recv_pages, &old, old + 1));
	if (!rds_ib_mem_get_extra()) {
		atomic_dec(&rds_ib_recv_pages);
		goto limit;
	}
	atomic_inc(&rb->rb_extra);
	return true;

limit:
	rds_ib_stats_inc(RDS_IB_STAT_RX_ALLOC_LIMIT);
	return false;
}

/* Pages are alike: one beyond the ring's size goes back first. */
static void rds_ib_recv_page_uncharge(struct rds_ib_recv_budget *rb)
{
	if (atomic_dec_if_positive(&rb->rb_extra) >= 0)
		rds_ib_mem_put(1);
	else
		atomic_dec(&rb->rb_held);
	atomic_dec(&rds_ib_recv_pages);
}

/* Receive pages freed by readers, kept for the next refill (with
 * net.rds.ib.recv_page_cache): a page from the page allocator is zeroed
 * first (init_on_alloc, Debian's default), which with its allocation was
 * a tenth of a busy receiver's time.  One ring for all connections:
 * readers free on their CPUs and the refill work runs on any, so per-CPU
 * caches would rarely meet.  Pages in it are no ring's (uncharged), at
 * most RDS_IB_RECV_CACHE_PAGES of them; a page's old bytes never reach a
 * reader, who gets only what the device wrote (rds_ib_inc_copy_to_user).
 * Any context: the ring's locks are taken with interrupts off.
 */
#define RDS_IB_RECV_CACHE_PAGES	512

static struct ptr_ring rds_ib_recv_cache;

static void rds_ib_recv_page_free(struct rds_ib_recv_budget *rb,
				  struct page *page)
{
	rds_ib_recv_page_uncharge(rb);
	if (READ_ONCE(rds_ib_sysctl_recv_page_cache) &&
	    page_ref_count(page) == 1 && page_to_nid(page) == numa_mem_id() &&
	    !ptr_ring_produce_any(&rds_ib_recv_cache, page))
		return;
	__free_page(page);
}

/* A page for a receive: a cached one, or a new one.  The cache is
 * emptied even with the sysctl off, so that turning it off frees it.  An
 * empty ring (always, with the sysctl off from the start) costs no lock:
 * the ring is never resized, so the lockless look is safe, and a page
 * it misses waits for the next refill.
 */
static struct page *rds_ib_recv_page_alloc(gfp_t gfp)
{
	struct page *page = NULL;

	if (!__ptr_ring_empty(&rds_ib_recv_cache))
		page = ptr_ring_consume_any(&rds_ib_recv_cache);
	if (page) {
		rds_ib_stats_inc(RDS_IB_STAT_RX_PAGE_RECYCLED);
		return page;
	}
	return alloc_page(gfp);
}

int rds_ib_recv_cache_init(void)
{
	return ptr_ring_init(&rds_ib_recv_cache, RDS_IB_RECV_CACHE_PAGES,
			     GFP_KERNEL);
}

static void rds_ib_recv_cache_page_free(void *page)
{
	__free_page(page);
}

/* Module exit: incoming messages pin the module, so none frees a page
 * into the ring any more.
 */
void rds_ib_recv_cache_exit(void)
{
	ptr_ring_cleanup(&rds_ib_recv_cache, rds_ib_recv_cache_page_free);
}

/* Frees what a slot holds for the next fragment, and its reference to the
 * ring's budget: the ring is being freed.  The slot is not posted.
 */
void rds_ib_recv_slot_release(struct ib_device *dev,
			      struct rds_ib_recv_slot *slot)
{
	if (slot->r_page) {
		ib_dma_unmap_page(dev, slot->r_page_dma,
				  RDS_FRAG_SIZE, DMA_FROM_DEVICE);
		rds_ib_recv_page_free(slot->r_budget, slot->r_page);
		slot->r_page = NULL;
	}
	if (slot->r_ibinc) {
		kmem_cache_free(rds_ib_incoming_slab, slot->r_ibinc);
		slot->r_ibinc = NULL;
	}
	if (slot->r_budget) {
		rds_ib_recv_budget_put(slot->r_budget);
		slot->r_budget = NULL;
	}
}

/* Frees @nr slots: what each holds, its header buffer, then the array. */
void rds_ib_recv_slots_free(struct ib_device *dev,
			    struct rds_ib_recv_slot *slots, u32 nr)
{
	u32 i;

	if (!slots)
		return;
	for (i = 0; i < nr; i++) {
		struct rds_ib_recv_slot *r = &slots[i];

		rds_ib_recv_slot_release(dev, r);
		if (!r->r_hdr)
			continue;
		ib_dma_unmap_single(dev, r->r_hdr_dma, sizeof(*r->r_hdr),
				    DMA_FROM_DEVICE);
		kfree(r->r_hdr);
	}
	kvfree(slots);
}

/* @nr slots with their header buffers mapped, each on @free; no page
 * yet (the first refill gives them one).  NULL: out of memory.
 */
struct rds_ib_recv_slot *rds_ib_recv_slots_alloc(struct ib_device *dev,
						 u32 nr,
						 struct llist_head *free)
{
	struct rds_ib_recv_slot *slots;
	u32 i;

	slots = kvcalloc(nr, sizeof(*slots), GFP_KERNEL);
	if (!slots)
		return NULL;
	for (i = 0; i < nr; i++) {
		struct rds_ib_recv_slot *r = &slots[i];

		r->r_hdr = kzalloc(sizeof(*r->r_hdr), GFP_KERNEL);
		if (!r->r_hdr)
			goto err;
		if (rds_ib_map(dev, r->r_hdr, sizeof(*r->r_hdr),
			       DMA_FROM_DEVICE, &r->r_hdr_dma)) {
			kfree(r->r_hdr);
			r->r_hdr = NULL;
			goto err;
		}
	}
	for (i = 0; i < nr; i++)
		llist_add(&slots[i].r_free, free);
	return slots;

err:
	rds_ib_recv_slots_free(dev, slots, nr);
	return NULL;
}

int rds_ib_recv_slot_fill(struct ib_device *dev, struct rds_ib_recv_slot *slot,
			  gfp_t gfp)
{
	if (!slot->r_ibinc) {
		slot->r_ibinc = kmem_cache_alloc(rds_ib_incoming_slab, gfp);
		if (!slot->r_ibinc)
			return -ENOMEM;
	}
	if (!slot->r_page) {
		if (!rds_ib_recv_page_charge(slot->r_budget))
			return -ENOMEM;
		slot->r_page = rds_ib_recv_page_alloc(gfp);
		if (!slot->r_page) {
			rds_ib_recv_page_uncharge(slot->r_budget);
			return -ENOMEM;
		}
		slot->r_page_dma = ib_dma_map_page(dev, slot->r_page, 0,
						   RDS_FRAG_SIZE,
						   DMA_FROM_DEVICE);
		if (ib_dma_mapping_error(dev, slot->r_page_dma)) {
			rds_ib_recv_page_free(slot->r_budget, slot->r_page);
			slot->r_page = NULL;
			return -ENOMEM;
		}
	}
	return 0;
}

/* Makes @slot's work request, for a ring's QP or an SRQ alike. */
void rds_ib_recv_wr_prep(struct ib_device *dev, u32 lkey,
			 struct rds_ib_recv_slot *slot)
{
	slot->r_sge[0].addr = slot->r_hdr_dma;
	slot->r_sge[0].length = sizeof(struct rds_header);
	slot->r_sge[0].lkey = lkey;
	slot->r_sge[1].addr = slot->r_page_dma;
	slot->r_sge[1].length = RDS_FRAG_SIZE;
	slot->r_sge[1].lkey = lkey;
	slot->r_wr.wr_cqe = &slot->r_cqe;
	slot->r_wr.sg_list = slot->r_sge;
	slot->r_wr.num_sge = RDS_IB_RECV_SGE;
	slot->r_wr.next = NULL;
	ib_dma_sync_single_for_device(dev, slot->r_hdr_dma,
				      sizeof(struct rds_header),
				      DMA_FROM_DEVICE);
}

static int rds_ib_recv_post(struct rds_ib_connection *ic,
			    struct rds_ib_recv_slot *slot)
{
	slot->r_cqe.done = rds_ib_recv_done;
	rds_ib_recv_wr_prep(ic->i_dev->rd_dev,
			    ic->i_dom->dom_pd->local_dma_lkey, slot);
	return ib_post_recv(ic->i_qp, &slot->r_wr, NULL);
}

/* Slots one run of the receive work posts at most, as for an SRQ's
 * refill (srq.c, RDS_IB_SRQ_REFILL_RUN): the work shares its CPU's pool
 * with the rest of rds_wq.  The rest goes in the next run (EAGAIN, which
 * the generic layer takes for "again at once", recv_immediate_retry).
 */
#define RDS_IB_RECV_REFILL_RUN	128

/* Posts up to @max of the slots waiting on i_recv_free, -EAGAIN when more
 * wait.  Process context, with the QP attached and its attachment held
 * (i_mutex, or before it is published).  Slots it could not fill go back
 * on the list for the next call.  What it posted is credit for the peer.
 */
int rds_ib_recv_refill(struct rds_ib_connection *ic, gfp_t gfp,
		       unsigned int max)
{
	struct rds_ib_recv_slot *slot, *tmp;
	struct llist_node *list;
	unsigned int posted = 0;
	int ret = 0;

	if (!rds_ib_recv_budget(ic, gfp))
		return -ENOMEM;
	list = llist_del_all(&ic->i_recv_free);
	llist_for_each_entry_safe(slot, tmp, list, r_free) {
		if (!ret && posted == max)
			ret = -EAGAIN;
		if (!ret)
			ret = rds_ib_recv_slot_fill(ic->i_dev->rd_dev, slot,
						    gfp);
		if (!ret)
			ret = rds_ib_recv_post(ic, slot);
		if (ret)
			llist_add(&slot->r_free, &ic->i_recv_free);
		else
			posted++;
	}
	atomic_sub(posted, &ic->i_recv_unposted);
	rds_ib_credits_posted(ic, posted);
	return ret;
}

/* The receive work: refill the ring.  Shutdown detaches under i_mutex. */
int rds_ib_recv_path(struct rds_conn_path *cp)
{
	struct rds_ib_connection *ic = cp->cp_carrier->ca_data;
	int ret = 0;

	mutex_lock(&ic->i_mutex);
	/* An SRQ's connections have no ring: its own work refills it. */
	if (ic->i_cm_id && ic->i_qp && !ic->i_srq)
		ret = rds_ib_recv_refill(ic, GFP_KERNEL, RDS_IB_RECV_REFILL_RUN);
	mutex_unlock(&ic->i_mutex);
	return ret;
}

/* A partly reassembled message dies with the QP it came on. */
void rds_ib_recv_reset(struct rds_ib_connection *ic)
{
	if (ic->i_ibinc) {
		rds_inc_put(&ic->i_ibinc->ii_inc);
		ic->i_ibinc = NULL;
	}
	ic->i_recv_rem = 0;
}

static bool rds_ib_same_message(const struct rds_header *a,
				const struct rds_header *b)
{
	/* Fragments of one message may carry different acks. */
	return a->h_sequence == b->h_sequence && a->h_len == b->h_len &&
	       a->h_sport == b->h_sport && a->h_dport == b->h_dport;
}

/* The first fragment of a message: it gets the slot's spare incoming. */
static struct rds_ib_incoming *rds_ib_recv_start(struct rds_ib_connection *ic,
						 struct rds_ib_recv_slot *slot,
						 const struct rds_header *hdr)
{
	struct rds_ib_incoming *ibinc = slot->r_ibinc;
	struct rds_conn_path *cp = ic->i_cp;

	if (be32_to_cpu(hdr->h_len) > RDS_MAX_MSG_SIZE)
		return NULL;
	slot->r_ibinc = NULL;
	INIT_LIST_HEAD(&ibinc->ii_pages);
	/* Its pages stay charged to this ring until it is freed. */
	ibinc->ii_budget = slot->r_budget;
	refcount_inc(&ibinc->ii_budget->rb_ref);
	rds_inc_init(&ibinc->ii_inc, cp, &cp->cp_conn->c_faddr);
	ibinc->ii_inc.i_hdr = *hdr;
	ic->i_recv_rem = be32_to_cpu(hdr->h_len);
	ic->i_ibinc = ibinc;
	return ibinc;
}

/* A whole message: deliver it, remember to acknowledge it. */
static void rds_ib_recv_deliver(struct rds_ib_connection *ic,
				struct rds_ib_incoming *ibinc,
				struct rds_recv_batch *batch)
{
	struct rds_conn_path *cp = ic->i_cp;
	struct rds_connection *conn = cp->cp_conn;
	const struct rds_header *hdr = &ibinc->ii_inc.i_hdr;

	ic->i_ibinc = NULL;
	rds_ib_stats_inc(RDS_IB_STAT_RX_TOTAL_INCS);
	/* A peer address of our own netns has one congestion map, which its
	 * sockets keep exact: an update in flight would only make it stale.
	 */
	if (hdr->h_flags != RDS_FLAG_CONG_BITMAP || !ic->i_peer_local)
		rds_recv_incoming(cp, &conn->c_faddr, &conn->c_laddr,
				  &ibinc->ii_inc, GFP_ATOMIC, batch);
	/* Map updates have no sequence number of their own. */
	if (hdr->h_flags != RDS_FLAG_CONG_BITMAP)
		atomic64_set(&ic->i_ack_next, be64_to_cpu(hdr->h_sequence));
	if (hdr->h_flags & RDS_FLAG_ACK_REQUIRED) {
		set_bit(RDS_IB_ACK_REQUESTED, &ic->i_ack_flags);
		rds_ib_attempt_ack(ic);
	} else if (hdr->h_flags != RDS_FLAG_CONG_BITMAP &&
		   !delayed_work_pending(&ic->i_ack_quiet_w)) {
		queue_delayed_work(rds_wq, &ic->i_ack_quiet_w,
				   msecs_to_jiffies(RDS_IB_QUIET_ACK_MS));
	}
	rds_inc_put(&ibinc->ii_inc);
}

/* The quiet path's ack.  A sender asks for an ack only every so many
 * messages (rds_send_prepare_header()), and over IB nothing else
 * acknowledges: the last messages of a burst, a heartbeat's ping and its
 * pong stayed on the sender's retransmit queue, holding its send buffer,
 * until the path carried something that asked (in-tree's do so too).
 * So what we received and have not acknowledged is acknowledged alone,
 * from the send path (which RDS_IN_XMIT keeps off a QP being torn down),
 * once no ack has gone out for RDS_IB_QUIET_ACK_MS.  While acks still go
 * out the path is live: the sender's next asking message, or our next
 * message, acknowledges the rest, so the work waits for a quiet interval
 * instead.  Acking 100 ms after the first unasked message, busy or not,
 * added ten ack fragments a second to each end of every busy path.
 */
void rds_ib_ack_quiet(struct work_struct *work)
{
	struct rds_ib_connection *ic = container_of(to_delayed_work(work),
						    struct rds_ib_connection,
						    i_ack_quiet_w);
	unsigned long due = READ_ONCE(ic->i_ack_told_at) +
			    msecs_to_jiffies(RDS_IB_QUIET_ACK_MS);

	if (atomic64_read(&ic->i_ack_told) == atomic64_read(&ic->i_ack_next))
		return;
	if (time_before(jiffies, due)) {
		queue_delayed_work(rds_wq, &ic->i_ack_quiet_w, due - jiffies);
		return;
	}
	rds_ib_stats_inc(RDS_IB_STAT_ACK_QUIET);
	set_bit(RDS_IB_ACK_REQUESTED, &ic->i_ack_flags);
	rds_path_queue_send(ic->i_cp, 0);
}

/* A fragment of @ic's in @slot: NULL, or why the connection must reset.
 * Delivered messages' readers are woken at @batch's end.
 */
const char *rds_ib_recv_frag(struct rds_ib_connection *ic,
			     struct rds_ib_recv_slot *slot, u32 len,
			     struct rds_recv_batch *batch)
{
	const struct rds_header *hdr = slot->r_hdr;
	struct rds_ib_incoming *ibinc;
	u32 data_len, frag_len;
	u64 ack;

	ib_dma_sync_single_for_cpu(ic->i_dev->rd_dev, slot->r_hdr_dma,
				   sizeof(*hdr), DMA_FROM_DEVICE);
	if (len < sizeof(*hdr))
		return "fragment shorter than a header";
	if (!rds_header_csum_ok(hdr))
		return "header checksum";
	data_len = len - sizeof(*hdr);
	rds_ib_stats_inc(RDS_IB_STAT_RX_TOTAL_FRAGS);

	/* A repeated ack has nothing left to take, even across a reset:
	 * when first seen it took everything up to it, from the send queue
	 * too (rds_send_path_drop_acked()), and a reset puts back only what
	 * is newer.  Skipping it keeps cp_lock off most fragments.
	 */
	ack = be64_to_cpu(hdr->h_ack);
	if (ack != ic->i_ack_recv) {
		ic->i_ack_recv = ack;
		rds_send_path_drop_acked(ic->i_cp, ack, NULL);
	}
	if (ic->i_flowctl) {
		atomic_dec(&ic->i_peer_credits);
		rds_ib_credits_add(ic, hdr->h_credit);
	}
	/* An ack alone: ports 0, no data. */
	if (!hdr->h_sport && !hdr->h_dport && !data_len) {
		rds_ib_stats_inc(RDS_IB_STAT_ACK_RECEIVED);
		return NULL;
	}
	/* Its data ran the peer low: tell it of our next receives at once. */
	if (ic->i_flowctl &&
	    atomic_read(&ic->i_peer_credits) < (int)ic->i_credit_batch)
		set_bit(RDS_IB_PEER_LOW, &ic->i_ack_flags);

	ibinc = ic->i_ibinc;
	if (!ibinc) {
		ibinc = rds_ib_recv_start(ic, slot, hdr);
		if (!ibinc)
			return "message too long";
	} else if (!rds_ib_same_message(&ibinc->ii_inc.i_hdr, hdr)) {
		return "fragment of another message";
	}

	/* Both stacks send each fragment with exactly its share of the
	 * message, never more.  A longer one is a device that placed a
	 * packet twice: rxe (6.1, two CPUs, under loss) wrote a retransmitted
	 * middle packet of a SEND after its first copy, the last packet
	 * after both, and the message it delivered had a packet's payload
	 * where the next one's belonged.  Taken as it was, the reader got
	 * that; refused, the connection resets and the message comes again.
	 */
	frag_len = min(ic->i_recv_rem, RDS_FRAG_SIZE);
	if (data_len != frag_len) {
		rds_ib_stats_inc(RDS_IB_STAT_RX_BAD_FRAG_LEN);
		return data_len < frag_len ?
		       "fragment shorter than its message says" :
		       "fragment longer than its message says";
	}
	if (frag_len) {
		ib_dma_unmap_page(ic->i_dev->rd_dev, slot->r_page_dma,
				  RDS_FRAG_SIZE, DMA_FROM_DEVICE);
		list_add_tail(&slot->r_page->lru, &ibinc->ii_pages);
		slot->r_page = NULL;
		ic->i_recv_rem -= frag_len;
	}
	if (!ic->i_recv_rem)
		rds_ib_recv_deliver(ic, ibinc, batch);
	return NULL;
}

static void rds_ib_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rds_ib_connection *ic = cq->cq_context;
	struct rds_ib_recv_slot *slot = container_of(wc->wr_cqe,
						     struct rds_ib_recv_slot,
						     r_cqe);
	const char *bad = NULL;
	int unposted;

	if (wc->status == IB_WC_SUCCESS)
		bad = rds_ib_recv_frag(ic, slot, wc->byte_len,
				       &ic->i_recv_batch);
	else if (wc->status != IB_WC_WR_FLUSH_ERR)
		bad = "receive completion error";

	llist_add(&slot->r_free, &ic->i_recv_free);
	unposted = atomic_inc_return(&ic->i_recv_unposted);
	if (bad) {
		rds_conn_path_error(ic->i_cp, bad);
		return;
	}
	if (wc->status == IB_WC_SUCCESS &&
	    (unposted >= (int)ic->i_credit_batch ||
	     test_bit(RDS_IB_PEER_LOW, &ic->i_ack_flags)))
		rds_path_queue_recv(ic->i_cp, 0);
}

/* The receive CQ is polled by our own irq_poll, not by ib_cq's: ib_cq
 * hands its consumer one completion at a time and never says when a run
 * ends, and the end of a run is where the readers of what it delivered
 * are woken, once each (struct rds_recv_batch; no reader waits longer
 * than one run).  The rest is what ib_cq's IB_POLL_SOFTIRQ does: the
 * completion event schedules the poller, which takes up to
 * RDS_IB_RECV_BUDGET completions, RDS_IB_RECV_BATCH at a time, and
 * re-arms the CQ when it found fewer, asking for the events it missed
 * meanwhile.  Every completion still goes to its wr_cqe's handler, so
 * ib_drain_rq()'s own works as with ib_cq.  An SRQ's shared CQ has a
 * poller of the same kind (srq.c).
 */

static int rds_ib_recv_poll(struct irq_poll *iop, int budget)
{
	struct rds_ib_connection *ic = container_of(iop, struct rds_ib_connection,
						    i_recv_iop);
	struct ib_cq *cq = ic->i_recv_cq;
	int done = 0, n, i;

	while (done < budget) {
		n = ib_poll_cq(cq, min(budget - done, RDS_IB_RECV_BATCH),
			       ic->i_recv_wc);
		if (n <= 0)
			break;
		for (i = 0; i < n; i++) {
			struct ib_wc *wc = &ic->i_recv_wc[i];

			if (wc->wr_cqe)
				wc->wr_cqe->done(cq, wc);
			else
				WARN_ON_ONCE(wc->status == IB_WC_SUCCESS);
		}
		done += n;
	}
	rds_recv_batch_end(&ic->i_recv_batch);
	if (done < budget) {
		irq_poll_complete(iop);
		if (ib_req_notify_cq(cq, RDS_IB_RECV_ARM) > 0)
			irq_poll_sched(iop);
	}
	return done;
}

static void rds_ib_recv_cq_event(struct ib_cq *cq, void *ctx)
{
	struct rds_ib_connection *ic = ctx;

	irq_poll_sched(&ic->i_recv_iop);
}

/* ic->i_recv_cq, for a ring of i_recv_nr receives (and the drain's). */
int rds_ib_recv_cq_create(struct rds_ib_connection *ic, struct ib_device *dev,
			  u32 vector)
{
	struct ib_cq_init_attr attr = {
		.cqe		= ic->i_recv_nr + 1,
		.comp_vector	= vector,
	};
	struct ib_cq *cq;
	int ret;

	ic->i_recv_wc = kcalloc(RDS_IB_RECV_BATCH, sizeof(*ic->i_recv_wc),
				GFP_KERNEL);
	if (!ic->i_recv_wc)
		return -ENOMEM;
	cq = ib_create_cq(dev, rds_ib_recv_cq_event, NULL, ic, &attr);
	if (IS_ERR(cq)) {
		kfree(ic->i_recv_wc);
		ic->i_recv_wc = NULL;
		return PTR_ERR(cq);
	}
	/* Nothing completes before the QP exists: no event comes before the
	 * poller is set up.
	 */
	ic->i_recv_cq = cq;
	irq_poll_init(&ic->i_recv_iop, RDS_IB_RECV_BUDGET, rds_ib_recv_poll);
	ret = ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
	if (ret)
		rds_ib_recv_cq_destroy(ic);
	return ret;
}

/* After the QP is gone: no completion comes, and the poller, waited for,
 * never runs again.  The grace period waits out the send CQ's poller
 * too, for the caller.
 */
void rds_ib_recv_cq_destroy(struct rds_ib_connection *ic)
{
	irq_poll_disable(&ic->i_recv_iop);
	rds_ib_cq_quiesce();
	ib_destroy_cq(ic->i_recv_cq);
	ic->i_recv_cq = NULL;
	kfree(ic->i_recv_wc);
	ic->i_recv_wc = NULL;
}

int rds_ib_inc_copy_to_user(struct rds_incoming *inc, struct iov_iter *to)
{
	struct rds_ib_incoming *ibinc = container_of(inc, struct rds_ib_incoming,
						     ii_inc);
	size_t left = be32_to_cpu(inc->i_hdr.h_len);
	size_t copied = 0, n;
	struct page *page;

	list_for_each_entry(page, &ibinc->ii_pages, lru) {
		if (!left || !iov_iter_count(to))
			break;
		n = min_t(size_t, min_t(size_t, left, RDS_FRAG_SIZE),
			  iov_iter_count(to));
		if (copy_page_to_iter(page, 0, n, to) != n)
			return -EFAULT;
		copied += n;
		left -= n;
	}
	return copied;
}

void rds_ib_inc_free(struct rds_incoming *inc)
{
	struct rds_ib_incoming *ibinc = container_of(inc, struct rds_ib_incoming,
						     ii_inc);
	struct page *page, *tmp;

	list_for_each_entry_safe(page, tmp, &ibinc->ii_pages, lru) {
		list_del(&page->lru);
		rds_ib_recv_page_free(ibinc->ii_budget, page);
	}
	rds_ib_recv_budget_put(ibinc->ii_budget);
	kmem_cache_free(rds_ib_incoming_slab, ibinc);
}
