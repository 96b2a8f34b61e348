/* SPDX-License-Identifier: GPL-2.0 */
/* RDS over TCP: one TCP connection per RDS path, messages framed back to
 * back on the byte stream (48-byte struct rds_header, then h_len bytes).
 */
#ifndef _RDS_TCP_H
#define _RDS_TCP_H

#include <linux/skbuff.h>
#include <linux/percpu.h>
#include <net/inet_sock.h>
#include <net/sock.h>
#include <net/netns/generic.h>
#include <rds/transport.h>

#define RDS_TCP_PORT		16385
#define RDS_TCP_BACKLOG		64
/* Accepted sockets a path holds while it cannot take them yet.  Each may
 * already hold data TCP acked, so they are taken in order, never dropped
 * while there is room.
 */
#define RDS_TCP_MAX_PARKED	4

/* The multipath probe and pong we send carry RDS_EXTHDR_SPORT_IDX (as
 * upstream does since its 2026 series): the client encodes the path index
 * in the low bits of its source ports, so the acceptor can put every TCP
 * connection on the path it belongs to.  In-tree 6.1 neither sends nor understands it (it
 * logs "ignoring unknown exthdr type 0x8" once and reads on); we add it to
 * the probes we transmit and look for it in the probes we receive.
 */

extern struct rds_transport rds_tcp_transport;
extern unsigned int rds_tcp_netid;

/* Per network namespace state.
 *
 * rtn_listen is the listening socket; it is set up by the pernet init and
 * released by the pernet exit after its callbacks are restored and the
 * accept work is cancelled, so the accept work may use it without a lock.
 * rtn_sndbuf/rtn_rcvbuf are the sysctls (0: TCP autotuning), read with
 * READ_ONCE() when a socket is tuned.
 */
struct rds_tcp_net {
	struct net		*rtn_net;
	struct socket		*rtn_listen;
	struct work_struct	rtn_accept_w;
	void			(*rtn_orig_data_ready)(struct sock *sk);
	struct ctl_table_header	*rtn_sysctl;
	struct ctl_table	*rtn_ctl;
	int			rtn_sndbuf;
	int			rtn_rcvbuf;
};

static inline struct rds_tcp_net *rds_tcp_net(struct net *net)
{
	return net_generic(net, rds_tcp_netid);
}

/* A payload this small is copied into the message itself: an skb of its
 * own costs an allocation, a zeroing and a free per message.
 */
#define RDS_TCP_INLINE_MAX	256

/* A received message: the header, then its data.  Up to
 * RDS_TCP_INLINE_MAX bytes in ti_inline; more in the skbs (clones of
 * TCP's, or copies of our own, in order; see recv.c).  Both are built
 * under the socket lock and read only once the message is delivered.
 */
struct rds_tcp_incoming {
	struct sk_buff_head	ti_skbs;
	struct rds_incoming	ti_inc;
	u8			ti_inline[RDS_TCP_INLINE_MAX];
};

/* The part of a payload skb that belongs to the message, in skb->cb. */
struct rds_tcp_skb_cb {
	u32	off;
	u32	len;
	bool	copy;	/* ours: a copy the message may append to */
};

#define RDS_TCP_SKB_CB(skb)	((struct rds_tcp_skb_cb *)&(skb)->cb[0])

struct rds_tcp_conn;

/* Per path state: the ca_data of a path's home carrier (cp_home).
 *
 * t_conn_path_lock (mutex) serializes everything that attaches or detaches
 * a socket: connect, accept, adopting a parked socket and shutdown.  It
 * protects t_sock, t_outgoing, t_parked, t_nparked and t_gen.  Whoever holds
 * RDS_IN_XMIT, and the receive work, may use t_sock while the path is UP:
 * the generic layer does not shut a path down under them.
 *
 * The socket callbacks find the path through sk->sk_user_data, read under
 * sk->sk_callback_lock; detaching clears it under the write lock first, so
 * once a socket is detached none of our callbacks touch the path.
 *
 * The receive reassembly state (t_hdr, t_hdr_got, t_tinc, t_data_rem) is
 * only touched with the socket locked (owned, or bh-locked in softirq), and
 * reset when a socket is detached.
 *
 * t_xmit_hdr and t_xmit_full belong to the sender, under RDS_IN_XMIT.
 * t_flags is atomic bits: the sender sets RDS_TCP_WANT_ROOM, write_space()
 * takes it.
 *
 * t_list links the path on rds_tcp_tc_list (rds_tcp_tc_lock) while it has a
 * socket, for RDS_INFO_TCP_SOCKETS.
 */
/* t_flags: the sender is waiting for send buffer space. */
#define RDS_TCP_WANT_ROOM	0

struct rds_tcp_connection {
	struct list_head	t_list;
	struct rds_conn_path	*t_cpath;
	struct rds_tcp_conn	*t_tcn;

	struct mutex		t_conn_path_lock;	/* see above */
	struct socket		*t_sock;
	bool			t_outgoing;	/* t_sock is our connect, not accepted */
	/* accepted, oldest first, each waits for the path to take it */
	struct socket		*t_parked[RDS_TCP_MAX_PARKED];
	unsigned int		t_nparked;
	struct delayed_work	t_adopt_w;
	u32			t_gen;		/* tags m_ack_seq with the socket */
	u16			t_port_group;	/* next source port group to try */

	void			(*t_orig_data_ready)(struct sock *sk);
	void			(*t_orig_write_space)(struct sock *sk);
	void			(*t_orig_state_change)(struct sock *sk);

	struct rds_header	t_hdr;
	unsigned int		t_hdr_got;
	struct rds_tcp_incoming	*t_tinc;
	unsigned int		t_data_rem;

	struct rds_header	t_xmit_hdr;
	bool			t_xmit_full;	/* the last xmit got -EAGAIN */
	unsigned long		t_flags;	/* RDS_TCP_WANT_ROOM */

	/* RDS_INFO_TCP_SOCKETS, racy snapshots */
	u32			t_last_sent_nxt;
	u32			t_last_expected_una;
	u32			t_last_seen_una;
};

/* Per connection state, conn->c_transport_data: the paths' state, and
 * whether the peer encodes the path index in its source ports (set from the
 * probes we receive, read when accepting).
 */
struct rds_tcp_conn {
	bool				tcn_sport_idx;
	unsigned int			tcn_npaths;
	struct rds_tcp_connection	tcn_path[];
};

extern spinlock_t rds_tcp_tc_lock;
extern struct list_head rds_tcp_tc_list;

/* ---- statistics ---- */
enum rds_tcp_stat {
	RDS_TCP_STAT_DATA_READY_CALLS,
	RDS_TCP_STAT_WRITE_SPACE_CALLS,
	RDS_TCP_STAT_SNDBUF_FULL,
	RDS_TCP_STAT_CONNECT_RACED,
	RDS_TCP_STAT_LISTEN_CLOSED_STALE,
	RDS_TCP_STAT_ACCEPT_PARKED,
	RDS_TCP_STAT_ACCEPT_REFUSED,
	RDS_TCP_STAT_ACCEPT_WRONG_PATH,
	RDS_TCP_STAT_RECV_NOMEM,
	RDS_TCP_STAT_DRAINED_ON_SHUTDOWN,
	RDS_TCP_STAT_NR
};

struct rds_tcp_statistics {
	u64 s[RDS_TCP_STAT_NR];
};

DECLARE_PER_CPU(struct rds_tcp_statistics, rds_tcp_stats);

static inline void rds_tcp_stats_inc(enum rds_tcp_stat which)
{
	this_cpu_inc(rds_tcp_stats.s[which]);
}

/* memcmp order of the addresses: the smaller one initiates connections. */
static inline int rds_tcp_addr_cmp(const struct in6_addr *a,
				   const struct in6_addr *b)
{
	return memcmp(a, b, sizeof(*a));
}

static inline bool rds_tcp_we_initiate(const struct rds_connection *conn)
{
	return rds_tcp_addr_cmp(&conn->c_laddr, &conn->c_faddr) < 0;
}

/* The path an accepted socket's source port names, for a peer that says
 * its ports carry the index (RDS_EXTHDR_SPORT_IDX).
 */
static inline unsigned int rds_tcp_sport_path(struct sock *sk)
{
	return ntohs(inet_sk(sk)->inet_dport) % RDS_MPATH_WORKERS;
}

/* tcp.c */
void rds_tcp_tune(struct socket *sock, struct rds_tcp_net *rtn);
bool rds_tcp_destroying(struct rds_conn_path *cp);

/* listen.c */
int rds_tcp_listen_init(struct rds_tcp_net *rtn);
void rds_tcp_listen_stop(struct rds_tcp_net *rtn);

/* connect.c */
int rds_tcp_conn_path_connect(struct rds_carrier *ca);
void rds_tcp_conn_path_shutdown(struct rds_carrier *ca);
void rds_tcp_accept_sock(struct rds_tcp_net *rtn, struct socket *sock);
void rds_tcp_adopt_worker(struct work_struct *work);
void rds_tcp_sock_reset(struct socket *sock);
void rds_tcp_path_release(struct rds_tcp_connection *tc);

/* send.c */
int rds_tcp_xmit(struct rds_conn_path *cp, struct rds_message *rm,
		 unsigned int *pos);
void rds_tcp_xmit_path_prepare(struct rds_conn_path *cp);
void rds_tcp_xmit_path_complete(struct rds_conn_path *cp);
void rds_tcp_write_space(struct sock *sk);

/* recv.c */
int rds_tcp_recv_init(void);
void rds_tcp_recv_exit(void);
void rds_tcp_data_ready(struct sock *sk);
int rds_tcp_recv_path(struct rds_conn_path *cp);
int rds_tcp_read_sock(struct rds_tcp_connection *tc, struct sock *sk, gfp_t gfp);
void rds_tcp_read_done(struct rds_conn_path *cp, int ret);
void rds_tcp_reasm_reset(struct rds_tcp_connection *tc);
int rds_tcp_inc_copy_to_user(struct rds_incoming *inc, struct iov_iter *to);
void rds_tcp_inc_free(struct rds_incoming *inc);

/* info.c */
void rds_tcp_info_init(void);
void rds_tcp_info_exit(void);
unsigned int rds_tcp_stats_info_copy(struct rds_info_iterator *iter,
				     unsigned int avail);

/* sysctl.c */
int rds_tcp_sysctl_init(struct rds_tcp_net *rtn);
void rds_tcp_sysctl_exit(struct rds_tcp_net *rtn);

#endif /* _RDS_TCP_H */
