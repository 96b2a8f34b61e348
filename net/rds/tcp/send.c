// SPDX-License-Identifier: GPL-2.0
/* Sending: the wire image of a message goes into the TCP socket as the
 * header (a kvec) and the payload pages (sendpage, no copy).  A message is
 * acknowledged when TCP's snd_una passes its last byte.
 *
 * m_ack_seq holds the TCP sequence number just past the message's last
 * byte in the low 32 bits and the path's socket generation (t_gen) in the
 * high 32 bits, so a sequence number of an earlier socket never matches
 * the snd_una of a later one.
 */
#include <linux/highmem.h>
#include <linux/tcp.h>
#include <net/tcp.h>
#include <rds/compat.h>

#include "tcp.h"

static u64 rds_tcp_ack_tag(u32 gen, u32 seq)
{
	return ((u64)gen << 32) | seq;
}

static bool rds_tcp_is_acked(struct rds_message *rm, u64 ack)
{
	if ((rm->m_ack_seq >> 32) != (ack >> 32))
		return false;
	return !before((u32)ack, (u32)rm->m_ack_seq);
}

static void rds_tcp_drop_acked(struct rds_conn_path *cp,
			       struct rds_tcp_connection *tc, struct sock *sk)
{
	u32 una = READ_ONCE(tcp_sk(sk)->snd_una);

	WRITE_ONCE(tc->t_last_seen_una, una);
	rds_send_path_drop_acked(cp, rds_tcp_ack_tag(READ_ONCE(tc->t_gen), una),
				 rds_tcp_is_acked);
}

/* Queues the path's send work, as rds_path_queue_send() does, but @now
 * also pulls an already queued, delayed run forward.
 */
static void rds_tcp_kick_send(struct rds_conn_path *cp, unsigned long delay,
			      bool now)
{
	rcu_read_lock();
	if (!test_bit(RDS_DESTROY_PENDING, &cp->cp_flags)) {
		if (now)
			mod_delayed_work(rds_wq, &cp->cp_send_w, 0);
		else
			queue_delayed_work(rds_wq, &cp->cp_send_w, delay);
	}
	rcu_read_unlock();
}

/* Adds the source port index announcement to a probe or its pong. */
static void rds_tcp_add_sport_idx(struct rds_header *hdr)
{
	unsigned int pos = 0, len;
	u8 buf[8], zero = 0;
	int type;

	if (!rds_hs_probe(be16_to_cpu(hdr->h_sport), be16_to_cpu(hdr->h_dport)))
		return;
	do {
		len = sizeof(buf);
		type = rds_message_next_extension(hdr, &pos, buf, &len);
		if (type == RDS_EXTHDR_SPORT_IDX)
			return;	/* the generic layer announced it already */
	} while (type != RDS_EXTHDR_NONE);
	rds_message_add_extension(hdr, RDS_EXTHDR_SPORT_IDX, &zero, sizeof(zero));
}

/* The first call for a message: its header, and where its last byte goes. */
static void rds_tcp_xmit_start(struct rds_tcp_connection *tc,
			       struct rds_message *rm, struct sock *sk)
{
	u32 seq = READ_ONCE(tcp_sk(sk)->write_seq);
	u32 end = seq + rds_message_wire_len(rm);

	tc->t_xmit_hdr = rm->m_inc.i_hdr;
	rds_tcp_add_sport_idx(&tc->t_xmit_hdr);
	tc->t_xmit_hdr.h_csum = 0;
	tc->t_xmit_hdr.h_csum = rds_header_csum(&tc->t_xmit_hdr);
	rm->m_ack_seq = rds_tcp_ack_tag(tc->t_gen, end);
	WRITE_ONCE(tc->t_last_sent_nxt, seq);
	WRITE_ONCE(tc->t_last_expected_una, end);
}

static int rds_tcp_send_hdr(struct rds_tcp_connection *tc, struct socket *sock,
			    struct rds_message *rm, unsigned int *pos)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	struct kvec vec;
	int ret;

	if (rm->m_len)
		msg.msg_flags |= MSG_MORE;
	while (*pos < sizeof(struct rds_header)) {
		vec.iov_base = (u8 *)&tc->t_xmit_hdr + *pos;
		vec.iov_len = sizeof(struct rds_header) - *pos;
		ret = kernel_sendmsg(sock, &msg, &vec, 1, vec.iov_len);
		if (ret <= 0)
			return ret ? ret : -EAGAIN;
		*pos += ret;
	}
	return 0;
}

/* Sends payload bytes from @off on, one page at a most per call. */
static int rds_tcp_send_page(struct socket *sock, struct rds_message *rm,
			     unsigned int off)
{
	unsigned int i, start = 0, poff, len;
	struct scatterlist *sg = NULL;
	struct page *page;
	int flags = MSG_DONTWAIT | MSG_NOSIGNAL;
	bool more;
	int ret;

	for (i = 0; i < rm->m_nents; i++) {
		sg = &rm->m_sg[i];
		if (off < start + sg->length)
			break;
		start += sg->length;
	}
	if (i == rm->m_nents)
		return -EINVAL;

	poff = sg->offset + (off - start);
	page = nth_page(sg_page(sg), poff >> PAGE_SHIFT);
	poff &= ~PAGE_MASK;
	len = min_t(unsigned int, sg->length - (off - start), PAGE_SIZE - poff);
	more = off + len < rm->m_len;

	if (sendpage_ok(page)) {
		ret = rds_compat_sendpage(sock, page, poff, len, flags, more);
	} else {
		struct msghdr msg = { .msg_flags = flags | (more ? MSG_MORE : 0) };
		struct kvec vec;
		void *addr = kmap_local_page(page);

		vec.iov_base = addr + poff;
		vec.iov_len = len;
		ret = kernel_sendmsg(sock, &msg, &vec, 1, len);
		kunmap_local(addr);
	}
	return ret ? ret : -EAGAIN;
}

int rds_tcp_xmit(struct rds_conn_path *cp, struct rds_message *rm,
		 unsigned int *pos)
{
	struct rds_tcp_connection *tc = cp->cp_carrier->ca_data;
	struct socket *sock = tc->t_sock;
	const unsigned int hdrlen = sizeof(struct rds_header);
	int ret;

	if (!sock)
		return -ENOTCONN;
	if (*pos == 0)
		rds_tcp_xmit_start(tc, rm, sock->sk);

	ret = rds_tcp_send_hdr(tc, sock, rm, pos);
	while (!ret && *pos < hdrlen + rm->m_len) {
		ret = rds_tcp_send_page(sock, rm, *pos - hdrlen);
		if (ret > 0) {
			*pos += ret;
			ret = 0;
		}
	}
	/* write_space() only runs when this is set: we want every ack. */
	set_bit(SOCK_NOSPACE, &sock->flags);

	if (ret == -EAGAIN || ret == -ENOBUFS) {
		rds_tcp_stats_inc(RDS_TCP_STAT_SNDBUF_FULL);
		tc->t_xmit_full = true;
		/* write_space() kicks the send work only for a sender that
		 * asked; the room may have come back before we asked, so
		 * look once more.
		 */
		set_bit(RDS_TCP_WANT_ROOM, &tc->t_flags);
		/* Pairs with the test_and_clear_bit() in write_space(), which
		 * runs after TCP freed room: one of the two sees the other.
		 */
		smp_mb__after_atomic();
		if (sk_stream_is_writeable(sock->sk) &&
		    test_and_clear_bit(RDS_TCP_WANT_ROOM, &tc->t_flags))
			set_bit(RDS_XMIT_AGAIN, &cp->cp_flags);
		return -EAGAIN;
	}
	return ret;
}

/* Cork while the generic layer hands us a batch: fewer, fuller segments. */
void rds_tcp_xmit_path_prepare(struct rds_conn_path *cp)
{
	struct rds_tcp_connection *tc = cp->cp_carrier->ca_data;

	if (tc->t_sock)
		tcp_sock_set_cork(tc->t_sock->sk, true);
}

void rds_tcp_xmit_path_complete(struct rds_conn_path *cp)
{
	struct rds_tcp_connection *tc = cp->cp_carrier->ca_data;

	if (!tc->t_sock)
		return;
	tcp_sock_set_cork(tc->t_sock->sk, false);
	/* Acks that came in while the batch was still being queued. */
	rds_tcp_drop_acked(cp, tc, tc->t_sock->sk);
	/* write_space() queues the send work when room frees up, but that
	 * work gives up if it finds RDS_IN_XMIT still held by our caller:
	 * look again a little later in any case.
	 */
	if (tc->t_xmit_full) {
		tc->t_xmit_full = false;
		rds_tcp_kick_send(cp, HZ / 10, false);
	}
}

/* Runs, from softirq or with the socket owned, when acks free send buffer
 * space (we keep SOCK_NOSPACE set so that it runs on every ack): complete
 * what the peer has, and send more.
 */
void rds_tcp_write_space(struct sock *sk)
{
	void (*write_space)(struct sock *sk);
	struct rds_tcp_connection *tc;
	struct rds_conn_path *cp;

	read_lock_bh(&sk->sk_callback_lock);
	cp = sk->sk_user_data;
	if (!cp) {
		write_space = sk->sk_write_space;
		goto out;
	}
	tc = cp->cp_carrier->ca_data;
	write_space = tc->t_orig_write_space;
	rds_tcp_stats_inc(RDS_TCP_STAT_WRITE_SPACE_CALLS);

	rds_tcp_drop_acked(cp, tc, sk);
	/* Most acks find the sender done with its queue (it sends inline
	 * from sendmsg): waking the send work for each of them cost a work
	 * item and a context switch per message. Only a sender that ran out
	 * of room waits for this (test_and_clear_bit() is fully ordered:
	 * it pairs with the sender's barrier in rds_tcp_xmit()).
	 */
	if (rds_conn_path_up(cp) && sk_stream_is_writeable(sk) &&
	    test_and_clear_bit(RDS_TCP_WANT_ROOM, &tc->t_flags))
		rds_tcp_kick_send(cp, 0, true);
out:
	read_unlock_bh(&sk->sk_callback_lock);
	if (write_space == rds_tcp_write_space)
		return;
	write_space(sk);
	/* The stream's write_space() clears it when there is room: set it again. */
	if (cp && sk->sk_socket)
		set_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
}
