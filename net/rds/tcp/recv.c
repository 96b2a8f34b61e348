// SPDX-License-Identifier: GPL-2.0
/* Receiving: messages are cut out of the TCP byte stream with
 * tcp_read_sock(), from the data_ready callback or the receive work.
 * Headers are copied (they may straddle skbs).  A payload piece that fills
 * a good part of its skb stays there, as a clone that remembers which bytes
 * are the message's; a clone pins the whole skb, though, so a piece small
 * next to its skb (a 10-byte message in a 64 KiB one) is copied out into
 * skbs of the message's own, or into the message itself when the whole
 * payload is small (RDS_TCP_INLINE_MAX).  Either way a message pins at
 * most about RDS_TCP_PIN_RATIO times its size, and says how much in
 * i_truesize, which the socket that queues it is charged.
 */
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/tcp.h>

#include "tcp.h"

/* A clone is kept for a piece of at least 1/RDS_TCP_PIN_RATIO of its skb. */
#define RDS_TCP_PIN_RATIO	2
/* Payload copies go into skbs whose head fits a page. */
#define RDS_TCP_COPY_MAX	SKB_WITH_OVERHEAD(PAGE_SIZE)

static struct kmem_cache *rds_tcp_incoming_slab;

struct rds_tcp_read_ctx {
	struct rds_tcp_connection	*tc;
	struct sock			*sk;
	gfp_t				gfp;
	size_t				delivered;
	/* One read takes in all a segment carries: its reader wakes once. */
	struct rds_recv_batch		batch;
};

void rds_tcp_reasm_reset(struct rds_tcp_connection *tc)
{
	if (tc->t_tinc)
		rds_inc_put(&tc->t_tinc->ti_inc);
	tc->t_tinc = NULL;
	tc->t_hdr_got = 0;
	tc->t_data_rem = 0;
}

/* A handshake that says the peer's source ports carry the path index,
 * on a connection we accepted from a port of another path: before it,
 * nothing told us, and the connection took the first free path.  Upstream
 * drops it too, so that the peer connects it again from where it belongs;
 * a path's sequence numbers must not run through another's.
 */
static bool rds_tcp_wrong_path(struct rds_tcp_connection *tc, struct sock *sk)
{
	struct rds_conn_path *cp = tc->t_cpath;

	if (rds_tcp_we_initiate(cp->cp_conn))
		return false;
	return rds_tcp_sport_path(sk) != cp->cp_index;
}

/* The header is complete: start the message it announces.  -EXDEV: the
 * connection is on the wrong path, it has to go.
 */
static int rds_tcp_inc_start(struct rds_tcp_read_ctx *ctx)
{
	struct rds_tcp_connection *tc = ctx->tc;
	struct rds_conn_path *cp = tc->t_cpath;
	struct rds_tcp_incoming *tinc;
	u32 len = be32_to_cpu(tc->t_hdr.h_len);
	struct rds_handshake hs;

	if (len > RDS_MAX_MSG_SIZE)
		return -EPROTO;
	/* Whether the peer encodes path indexes in source ports is believed
	 * from a real handshake only, as the path count is.
	 */
	if (rds_hs_probe(be16_to_cpu(tc->t_hdr.h_sport),
			 be16_to_cpu(tc->t_hdr.h_dport)) &&
	    rds_handshake_parse(&tc->t_hdr, &hs)) {
		WRITE_ONCE(tc->t_tcn->tcn_sport_idx, hs.sport_idx);
		if (hs.sport_idx && rds_tcp_wrong_path(tc, ctx->sk))
			return -EXDEV;
	}

	tinc = kmem_cache_alloc(rds_tcp_incoming_slab, ctx->gfp);
	if (!tinc)
		return -ENOMEM;
	__skb_queue_head_init(&tinc->ti_skbs);
	rds_inc_init(&tinc->ti_inc, cp, &cp->cp_conn->c_faddr);
	tinc->ti_inc.i_hdr = tc->t_hdr;
	tinc->ti_inc.i_truesize = sizeof(*tinc);
	tc->t_tinc = tinc;
	tc->t_data_rem = len;
	return 0;
}

static void rds_tcp_inc_deliver(struct rds_tcp_read_ctx *ctx)
{
	struct rds_tcp_connection *tc = ctx->tc;
	struct rds_conn_path *cp = tc->t_cpath;
	struct rds_tcp_incoming *tinc = tc->t_tinc;

	tc->t_tinc = NULL;
	tc->t_hdr_got = 0;
	rds_recv_incoming(cp, &cp->cp_conn->c_faddr, &cp->cp_conn->c_laddr,
			  &tinc->ti_inc, ctx->gfp, &ctx->batch);
	rds_inc_put(&tinc->ti_inc);
	ctx->delivered++;
}

static void rds_tcp_inc_hold(struct rds_tcp_incoming *tinc,
			     struct sk_buff *skb, unsigned int off,
			     unsigned int len, bool copy)
{
	RDS_TCP_SKB_CB(skb)->off = off;
	RDS_TCP_SKB_CB(skb)->len = len;
	RDS_TCP_SKB_CB(skb)->copy = copy;
	tinc->ti_inc.i_truesize += skb->truesize;
	__skb_queue_tail(&tinc->ti_skbs, skb);
}

static u32 rds_tcp_inc_len(const struct rds_tcp_incoming *tinc)
{
	return be32_to_cpu(tinc->ti_inc.i_hdr.h_len);
}

static bool rds_tcp_inc_is_inline(const struct rds_tcp_incoming *tinc)
{
	return rds_tcp_inc_len(tinc) <= RDS_TCP_INLINE_MAX;
}

/* Copies @n bytes at @offset of @skb to the end of the message, into its
 * last copy skb while that has room, then into new ones no bigger than
 * what the message still lacks.  Returns the bytes copied: fewer than @n
 * when out of memory.
 */
static int rds_tcp_inc_copy(struct rds_tcp_connection *tc,
			    struct sk_buff *skb, unsigned int offset,
			    unsigned int n, gfp_t gfp)
{
	struct rds_tcp_incoming *tinc = tc->t_tinc;
	struct sk_buff *buf = skb_peek_tail(&tinc->ti_skbs);
	unsigned int done = 0, k;

	while (done < n) {
		if (!buf || !RDS_TCP_SKB_CB(buf)->copy || !skb_tailroom(buf)) {
			k = min_t(unsigned int, tc->t_data_rem - done,
				  RDS_TCP_COPY_MAX);
			buf = alloc_skb(k, gfp);
			if (!buf)
				break;
			rds_tcp_inc_hold(tinc, buf, 0, 0, true);
		}
		k = min_t(unsigned int, n - done, skb_tailroom(buf));
		if (skb_copy_bits(skb, offset + done, skb_put(buf, k), k))
			return -EPROTO;
		RDS_TCP_SKB_CB(buf)->len += k;
		done += k;
	}
	return done;
}

/* Adds @n payload bytes at @offset of @skb to the message being read.
 * Returns the bytes taken (fewer than @n when out of memory) or -EPROTO.
 */
static int rds_tcp_inc_add(struct rds_tcp_connection *tc, struct sk_buff *skb,
			   unsigned int offset, unsigned int n, gfp_t gfp)
{
	struct rds_tcp_incoming *tinc = tc->t_tinc;
	struct sk_buff *clone;

	if (rds_tcp_inc_is_inline(tinc)) {
		/* What came so far ends where the t_data_rem bytes still due
		 * begin; n <= t_data_rem keeps the copy within the length.
		 */
		u32 got = rds_tcp_inc_len(tinc) - tc->t_data_rem;

		if (skb_copy_bits(skb, offset, tinc->ti_inline + got, n))
			return -EPROTO;
		return n;
	}
	if ((u64)n * RDS_TCP_PIN_RATIO < skb->truesize)
		return rds_tcp_inc_copy(tc, skb, offset, n, gfp);
	clone = skb_clone(skb, gfp);
	if (!clone)
		return 0;
	rds_tcp_inc_hold(tinc, clone, offset, n, false);
	return n;
}

/* tcp_read_sock() actor: consumes what belongs to messages, all of it. */
static int rds_tcp_data_recv(read_descriptor_t *desc, struct sk_buff *skb,
			     unsigned int offset, size_t len)
{
	struct rds_tcp_read_ctx *ctx = desc->arg.data;
	struct rds_tcp_connection *tc = ctx->tc;
	const unsigned int hdrlen = sizeof(struct rds_header);
	size_t left = len;
	unsigned int n;
	int ret;

	if (desc->error)
		return 0;
	for (;;) {
		if (tc->t_hdr_got < hdrlen) {
			if (!left)
				break;
			n = min_t(size_t, left, hdrlen - tc->t_hdr_got);
			if (skb_copy_bits(skb, offset,
					  (u8 *)&tc->t_hdr + tc->t_hdr_got, n))
				goto err_proto;
			tc->t_hdr_got += n;
			offset += n;
			left -= n;
			if (tc->t_hdr_got < hdrlen)
				break;
		}
		if (!tc->t_tinc) {
			ret = rds_tcp_inc_start(ctx);
			if (ret) {
				desc->error = ret;
				break;
			}
		}
		if (tc->t_data_rem) {
			if (!left)
				break;
			n = min_t(size_t, left, tc->t_data_rem);
			ret = rds_tcp_inc_add(tc, skb, offset, n, ctx->gfp);
			if (ret < 0)
				goto err_proto;
			tc->t_data_rem -= ret;
			offset += ret;
			left -= ret;
			if (ret < n) {
				desc->error = -ENOMEM;
				break;
			}
		}
		if (!tc->t_data_rem)
			rds_tcp_inc_deliver(ctx);
	}
	return len - left;

err_proto:
	desc->error = -EPROTO;
	return len - left;
}

/* Reads every complete message queued on @sk.  The caller holds the socket
 * lock (owns it, or is its softirq).  Returns the number of messages
 * delivered, or a negative error: -ENOMEM (try again later), -EXDEV (on
 * the wrong path) or -EPROTO.
 */
int rds_tcp_read_sock(struct rds_tcp_connection *tc, struct sock *sk, gfp_t gfp)
{
	struct rds_tcp_read_ctx ctx = { .tc = tc, .sk = sk, .gfp = gfp };
	read_descriptor_t desc = { .arg.data = &ctx, .count = 1 };

	tcp_read_sock(sk, &desc, rds_tcp_data_recv);
	rds_recv_batch_end(&ctx.batch);
	if (desc.error == -ENOMEM)
		rds_tcp_stats_inc(RDS_TCP_STAT_RECV_NOMEM);
	return desc.error ? desc.error : ctx.delivered;
}

/* What a read's error asks for: another read later, or the path down. */
void rds_tcp_read_done(struct rds_conn_path *cp, int ret)
{
	if (ret == -ENOMEM) {
		rds_path_queue_recv(cp, 1);
	} else if (ret == -EXDEV) {
		rds_tcp_stats_inc(RDS_TCP_STAT_ACCEPT_WRONG_PATH);
		rds_conn_path_error(cp, "accepted from another path's port");
	} else if (ret < 0) {
		rds_conn_path_error(cp, "bad RDS/TCP framing");
	}
}

void rds_tcp_data_ready(struct sock *sk)
{
	void (*ready)(struct sock *sk);
	struct rds_tcp_connection *tc;
	struct rds_conn_path *cp;
	unsigned int napi_id __maybe_unused;

	read_lock_bh(&sk->sk_callback_lock);
	cp = sk->sk_user_data;
	if (!cp) {
		ready = sk->sk_data_ready;
		goto out;
	}
	tc = cp->cp_carrier->ca_data;
	ready = tc->t_orig_data_ready;
	rds_tcp_stats_inc(RDS_TCP_STAT_DATA_READY_CALLS);
#ifdef CONFIG_NET_RX_BUSY_POLL
	/* Where TCP took the packets in: the sockets we deliver to poll it.
	 * Our own softirq, under the callback lock, is the field's writer.
	 */
	napi_id = READ_ONCE(sk->sk_napi_id);
	if (READ_ONCE(cp->cp_napi_id) != napi_id)
		WRITE_ONCE(cp->cp_napi_id, napi_id);
#endif
	rds_tcp_read_done(cp, rds_tcp_read_sock(tc, sk, GFP_ATOMIC));
out:
	read_unlock_bh(&sk->sk_callback_lock);
	if (ready != rds_tcp_data_ready)
		ready(sk);
}

/* The receive work: retries what data_ready could not allocate for. */
int rds_tcp_recv_path(struct rds_conn_path *cp)
{
	struct rds_tcp_connection *tc = cp->cp_carrier->ca_data;
	struct sock *sk;
	int ret;

	if (!mutex_trylock(&tc->t_conn_path_lock)) {
		/* A socket is coming or going; look again soon. */
		rds_path_queue_recv(cp, 1);
		return 0;
	}
	if (!tc->t_sock) {
		mutex_unlock(&tc->t_conn_path_lock);
		return 0;
	}
	sk = tc->t_sock->sk;
	lock_sock(sk);
	ret = rds_tcp_read_sock(tc, sk, GFP_KERNEL);
	release_sock(sk);
	mutex_unlock(&tc->t_conn_path_lock);
	rds_tcp_read_done(cp, ret);
	return ret < 0 ? ret : 0;
}

int rds_tcp_inc_copy_to_user(struct rds_incoming *inc, struct iov_iter *to)
{
	struct rds_tcp_incoming *tinc = container_of(inc, struct rds_tcp_incoming,
						     ti_inc);
	struct sk_buff *skb;
	size_t copied = 0, n;

	/* Delivered whole: all its length is in ti_inline. */
	if (rds_tcp_inc_is_inline(tinc)) {
		n = min_t(size_t, rds_tcp_inc_len(tinc), iov_iter_count(to));
		if (copy_to_iter(tinc->ti_inline, n, to) != n)
			return -EFAULT;
		return n;
	}
	skb_queue_walk(&tinc->ti_skbs, skb) {
		if (!iov_iter_count(to))
			break;
		n = min_t(size_t, RDS_TCP_SKB_CB(skb)->len, iov_iter_count(to));
		if (skb_copy_datagram_iter(skb, RDS_TCP_SKB_CB(skb)->off, to, n))
			return -EFAULT;
		copied += n;
	}
	return copied;
}

void rds_tcp_inc_free(struct rds_incoming *inc)
{
	struct rds_tcp_incoming *tinc = container_of(inc, struct rds_tcp_incoming,
						     ti_inc);

	__skb_queue_purge(&tinc->ti_skbs);
	kmem_cache_free(rds_tcp_incoming_slab, tinc);
}

int rds_tcp_recv_init(void)
{
	/* ti_inline is copied to user space: hardened usercopy wants it
	 * declared.
	 */
	rds_tcp_incoming_slab = KMEM_CACHE_USERCOPY(rds_tcp_incoming, 0,
						    ti_inline);
	return rds_tcp_incoming_slab ? 0 : -ENOMEM;
}

void rds_tcp_recv_exit(void)
{
	kmem_cache_destroy(rds_tcp_incoming_slab);
}
