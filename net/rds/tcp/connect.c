// SPDX-License-Identifier: GPL-2.0
/* Putting TCP sockets on paths and taking them off again: connect, accept,
 * the state change callback and shutdown.
 *
 * Who connects: the node with the smaller address initiates every path.
 * The larger one may connect path 0 to get things going; its peer resets
 * that socket and connects back, and when our own connect completes first
 * we drop it ourselves.  The client encodes the path index in the low
 * three bits of its source port (announced by RDS_EXTHDR_SPORT_IDX in
 * the probe), so both ends of a TCP connection agree on its path across
 * reconnects, which the receive sequence numbers rely on.
 */
#include <linux/tcp.h>
#include <net/inet_common.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/tcp.h>

#include "tcp.h"
#include "trace.h"

static void rds_tcp_state_change(struct sock *sk)
{
	void (*state_change)(struct sock *sk);
	struct rds_tcp_connection *tc;
	struct rds_conn_path *cp;

	read_lock_bh(&sk->sk_callback_lock);
	cp = sk->sk_user_data;
	if (!cp) {
		state_change = sk->sk_state_change;
		goto out;
	}
	tc = cp->cp_carrier->ca_data;
	state_change = tc->t_orig_state_change;

	switch (sk->sk_state) {
	case TCP_ESTABLISHED:
		/* Only our own connects get here; accepted sockets are born so. */
		if (!rds_tcp_we_initiate(cp->cp_conn)) {
			/* The peer resets it and connects back; keep nothing. */
			rds_tcp_stats_inc(RDS_TCP_STAT_CONNECT_RACED);
			rds_conn_path_error(cp, "larger address connected");
		} else {
			rds_connect_path_complete(cp, RDS_CONN_CONNECTING);
		}
		break;
	case TCP_CLOSE_WAIT:
	case TCP_CLOSE:
		rds_conn_path_error(cp, "TCP connection closed");
		break;
	default:
		break;
	}
out:
	read_unlock_bh(&sk->sk_callback_lock);
	if (state_change != rds_tcp_state_change)
		state_change(sk);
}

/* Called with t_conn_path_lock; @sock becomes the path's socket. */
static void rds_tcp_set_callbacks(struct rds_tcp_connection *tc,
				  struct socket *sock, bool outgoing)
{
	struct sock *sk = sock->sk;

	rds_tcp_reasm_reset(tc);
	tc->t_gen++;
	tc->t_sock = sock;
	tc->t_outgoing = outgoing;
	WRITE_ONCE(tc->t_last_sent_nxt, tcp_sk(sk)->write_seq);
	WRITE_ONCE(tc->t_last_expected_una, tcp_sk(sk)->write_seq);
	WRITE_ONCE(tc->t_last_seen_una, tcp_sk(sk)->snd_una);

	spin_lock_bh(&rds_tcp_tc_lock);
	list_add_tail(&tc->t_list, &rds_tcp_tc_list);
	spin_unlock_bh(&rds_tcp_tc_lock);

	write_lock_bh(&sk->sk_callback_lock);
	tc->t_orig_data_ready = sk->sk_data_ready;
	tc->t_orig_write_space = sk->sk_write_space;
	tc->t_orig_state_change = sk->sk_state_change;
	sk->sk_user_data = tc->t_cpath;
	sk->sk_data_ready = rds_tcp_data_ready;
	sk->sk_write_space = rds_tcp_write_space;
	sk->sk_state_change = rds_tcp_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
}

/* Called with t_conn_path_lock: none of our callbacks runs after this. */
static void rds_tcp_restore_callbacks(struct rds_tcp_connection *tc,
				      struct socket *sock)
{
	struct sock *sk = sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = tc->t_orig_data_ready;
	sk->sk_write_space = tc->t_orig_write_space;
	sk->sk_state_change = tc->t_orig_state_change;
	write_unlock_bh(&sk->sk_callback_lock);

	spin_lock_bh(&rds_tcp_tc_lock);
	list_del_init(&tc->t_list);
	spin_unlock_bh(&rds_tcp_tc_lock);
}

/* Close without TIME_WAIT: a reset.  Only for sockets that carry no data. */
void rds_tcp_sock_reset(struct socket *sock)
{
	sock_no_linger(sock->sk);
	sock_release(sock);
}

/* Takes the path's socket away.  Whatever the peer sent and TCP has acked
 * must reach the generic layer, since the peer has forgotten it: stop
 * the callbacks, shut the socket down (from then on TCP answers new data
 * with a reset instead of acking it), and read what is queued.  That holds
 * for our own connects as much as for accepted sockets: data may arrive
 * between the callbacks going and the shutdown, or be left behind by a
 * failed allocation in data_ready, on either end.  The partial message at
 * the end, if any, was never acked in full and comes again after the
 * reconnect.
 */
static void rds_tcp_detach(struct rds_tcp_connection *tc)
{
	struct socket *sock = tc->t_sock;
	struct sock *sk;

	if (!sock)
		return;
	sk = sock->sk;
	rds_tcp_restore_callbacks(tc, sock);
	kernel_sock_shutdown(sock, SHUT_RDWR);

	lock_sock(sk);
	if (rds_tcp_read_sock(tc, sk, GFP_KERNEL) > 0)
		rds_tcp_stats_inc(RDS_TCP_STAT_DRAINED_ON_SHUTDOWN);
	rds_tcp_reasm_reset(tc);
	release_sock(sk);

	tc->t_sock = NULL;
	tc->t_outgoing = false;
	rds_tcp_sock_reset(sock);
}

/* Called with t_conn_path_lock. */
static struct socket *rds_tcp_unpark(struct rds_tcp_connection *tc)
{
	struct socket *sock = tc->t_parked[0];

	tc->t_nparked--;
	memmove(&tc->t_parked[0], &tc->t_parked[1],
		tc->t_nparked * sizeof(tc->t_parked[0]));
	tc->t_parked[tc->t_nparked] = NULL;
	return sock;
}

static void rds_tcp_unpark_all(struct rds_tcp_connection *tc)
{
	while (tc->t_nparked)
		rds_tcp_sock_reset(rds_tcp_unpark(tc));
}

/* The path dies with its connection: drop every socket it has. */
void rds_tcp_path_release(struct rds_tcp_connection *tc)
{
	mutex_lock(&tc->t_conn_path_lock);
	rds_tcp_detach(tc);
	rds_tcp_unpark_all(tc);
	mutex_unlock(&tc->t_conn_path_lock);
}

void rds_tcp_conn_path_shutdown(struct rds_carrier *ca)
{
	struct rds_tcp_connection *tc = ca->ca_data;
	struct rds_conn_path *cp = ca->ca_cp;

	trace_rds_tcp_shutdown(cp);
	mutex_lock(&tc->t_conn_path_lock);
	rds_tcp_detach(tc);
	if (rds_tcp_destroying(cp))
		rds_tcp_unpark_all(tc);
	else if (tc->t_nparked)
		/* The path goes DOWN when we return: take the next one then. */
		queue_delayed_work(rds_wq, &tc->t_adopt_w, 1);
	mutex_unlock(&tc->t_conn_path_lock);
}

/* Puts an accepted socket on the path, which is CONNECTING on our behalf
 * (we moved it there, or the connect work did): it is UP right away.
 * Called with t_conn_path_lock.
 */
static void rds_tcp_attach_accepted(struct rds_tcp_connection *tc,
				    struct socket *sock)
{
	struct rds_conn_path *cp = tc->t_cpath;
	struct sock *sk = sock->sk;
	int ret;

	if (tc->t_sock) {
		/* Our own connect lost the race to the peer's. */
		rds_tcp_stats_inc(RDS_TCP_STAT_CONNECT_RACED);
		rds_tcp_detach(tc);
	}
	rds_tcp_set_callbacks(tc, sock, false);
	rds_connect_path_complete(cp, RDS_CONN_CONNECTING);

	/* What arrived before the callbacks were in place raised no event. */
	lock_sock(sk);
	ret = rds_tcp_read_sock(tc, sk, GFP_KERNEL);
	release_sock(sk);
	rds_tcp_read_done(cp, ret);
	if (READ_ONCE(sk->sk_state) != TCP_ESTABLISHED)
		rds_conn_path_error(cp, "accepted socket closed");
}

/* Tries to give the parked socket to the path.  Returns true when it
 * should try again later.  Called with t_conn_path_lock.
 */
static bool rds_tcp_try_adopt(struct rds_tcp_connection *tc)
{
	struct rds_conn_path *cp = tc->t_cpath;

	if (!tc->t_nparked)
		return false;
	if (rds_tcp_destroying(cp)) {
		rds_tcp_unpark_all(tc);
		return false;
	}

	switch (rds_conn_path_state(cp)) {
	case RDS_CONN_DOWN:
		if (!rds_conn_path_transition(cp, RDS_CONN_DOWN,
					      RDS_CONN_CONNECTING))
			return true;
		fallthrough;
	case RDS_CONN_CONNECTING:
		if (tc->t_sock && !tc->t_outgoing)
			return true;
		rds_tcp_attach_accepted(tc, rds_tcp_unpark(tc));
		/* A newer one means the peer gave up on this one too. */
		return tc->t_nparked > 0;
	case RDS_CONN_UP:
		/* The peer reconnected: what we have is stale. */
		rds_tcp_stats_inc(RDS_TCP_STAT_LISTEN_CLOSED_STALE);
		rds_conn_path_error(cp, "peer reconnected");
		return false;	/* our shutdown queues the adoption */
	default:
		return true;	/* on its way down */
	}
}

void rds_tcp_adopt_worker(struct work_struct *work)
{
	struct rds_tcp_connection *tc = container_of(to_delayed_work(work),
						     struct rds_tcp_connection,
						     t_adopt_w);
	bool again;

	mutex_lock(&tc->t_conn_path_lock);
	again = rds_tcp_try_adopt(tc);
	mutex_unlock(&tc->t_conn_path_lock);
	if (again)
		queue_delayed_work(rds_wq, &tc->t_adopt_w, msecs_to_jiffies(10));
}

/* The path an accepted socket belongs to: the index its source port
 * encodes when the peer says it does that, else (a legacy peer) the first
 * path that is not in use.  NULL when there is none.
 */
static struct rds_tcp_connection *rds_tcp_accept_path(struct rds_connection *conn,
						      struct socket *sock)
{
	struct rds_tcp_conn *tcn = conn->c_transport_data;
	int npaths = max_t(int, 1, READ_ONCE(conn->c_npaths));
	struct rds_tcp_connection *later = NULL;
	unsigned int idx;
	int i;

	npaths = min_t(int, npaths, tcn->tcn_npaths);
	if (READ_ONCE(tcn->tcn_sport_idx)) {
		idx = rds_tcp_sport_path(sock->sk);
		return idx < npaths ? &tcn->tcn_path[idx] : NULL;
	}
	for (i = 0; i < npaths; i++) {
		struct rds_tcp_connection *tc = &tcn->tcn_path[i];

		switch (rds_conn_path_state(&conn->c_path[i])) {
		case RDS_CONN_DOWN:
		case RDS_CONN_CONNECTING:
			return tc;
		case RDS_CONN_UP:
			break;
		default:
			/* Going down: it can take the socket when it is. */
			if (!later && !READ_ONCE(tc->t_nparked))
				later = tc;
		}
	}
	return later;
}

static void rds_tcp_sock_addrs(struct sock *sk, struct in6_addr *laddr,
			       struct in6_addr *faddr)
{
	if (sk->sk_family == AF_INET6) {
		*laddr = sk->sk_v6_rcv_saddr;
		*faddr = sk->sk_v6_daddr;
	} else {
		ipv6_addr_set_v4mapped(inet_sk(sk)->inet_rcv_saddr, laddr);
		ipv6_addr_set_v4mapped(inet_sk(sk)->inet_daddr, faddr);
	}
}

/* A connection came in on the listener: find its RDS path. */
void rds_tcp_accept_sock(struct rds_tcp_net *rtn, struct socket *sock)
{
	struct rds_tcp_connection *tc;
	struct in6_addr laddr, faddr;
	struct rds_connection *conn;
	struct sock *sk = sock->sk;
	u16 sport = ntohs(inet_sk(sk)->inet_dport);
	int dev_if = 0;

	rds_tcp_sock_addrs(sk, &laddr, &faddr);
	if (!ipv6_addr_v4mapped(&faddr) &&
	    (ipv6_addr_type(&faddr) & IPV6_ADDR_LINKLOCAL))
		dev_if = sk->sk_bound_dev_if;

	conn = rds_conn_create(rtn->rtn_net, &laddr, &faddr, &rds_tcp_transport,
			       0, GFP_KERNEL, dev_if);
	if (IS_ERR(conn))
		goto refuse;

	if (!rds_tcp_addr_cmp(&laddr, &faddr) || rds_tcp_we_initiate(conn)) {
		/* We initiate; make sure we do, at least for path 0. */
		if (READ_ONCE(conn->c_npaths) <= 1)
			rds_conn_path_connect_if_down(&conn->c_path[0]);
		trace_rds_tcp_accept(conn, sport, -1, "refused: we connect");
		rds_conn_put(conn);
		goto refuse;
	}

	tc = rds_tcp_accept_path(conn, sock);
	if (!tc) {
		trace_rds_tcp_accept(conn, sport, -1, "refused: no path free or named");
		rds_conn_put(conn);
		goto refuse;
	}
	trace_rds_tcp_accept(conn, sport, tc->t_cpath->cp_index, "accepted");
	rds_tcp_tune(sock, rtn);

	mutex_lock(&tc->t_conn_path_lock);
	if (tc->t_nparked == RDS_TCP_MAX_PARKED) {
		/* The peer keeps reconnecting: the oldest is surely dead. */
		rds_tcp_sock_reset(rds_tcp_unpark(tc));
	}
	tc->t_parked[tc->t_nparked++] = sock;
	if (rds_tcp_try_adopt(tc)) {
		rds_tcp_stats_inc(RDS_TCP_STAT_ACCEPT_PARKED);
		queue_delayed_work(rds_wq, &tc->t_adopt_w, 1);
	}
	mutex_unlock(&tc->t_conn_path_lock);
	rds_conn_put(conn);
	return;

refuse:
	rds_tcp_stats_inc(RDS_TCP_STAT_ACCEPT_REFUSED);
	rds_tcp_sock_reset(sock);
}

/* Binds the client socket to a source port whose low bits are the path
 * index, trying port groups round robin from where the last attempt
 * stopped.  When none is free the connect fails and is tried again after
 * the reconnect backoff: any other port would make the acceptor, which
 * believes the low bits, put the connection on another path.
 */
static int rds_tcp_bind_client(struct rds_tcp_connection *tc,
			       struct socket *sock, struct sockaddr *addr,
			       int addrlen, __be16 *port)
{
	struct rds_conn_path *cp = tc->t_cpath;
	int low, high, groups, tries, ret;

	inet_get_local_port_range(sock_net(sock->sk), &low, &high);
	low = ALIGN(low, RDS_MPATH_WORKERS);
	groups = (high - low + 1) / RDS_MPATH_WORKERS;
	for (tries = 0; groups > 0 && tries < min(groups, 256); tries++) {
		tc->t_port_group = (tc->t_port_group + 1) % groups;
		*port = htons(low + tc->t_port_group * RDS_MPATH_WORKERS +
			      cp->cp_index);
		ret = kernel_bind(sock, addr, addrlen);
		if (!ret)
			return 0;
		if (ret != -EADDRINUSE)
			return ret;
	}
	return -EADDRINUSE;
}

static int rds_tcp_connect_sock(struct rds_tcp_connection *tc)
{
	struct rds_conn_path *cp = tc->t_cpath;
	struct rds_connection *conn = cp->cp_conn;
	struct net *net = rds_conn_net(conn);
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	bool v6 = !ipv6_addr_v4mapped(&conn->c_faddr);
	struct sockaddr *addr;
	struct socket *sock;
	int addrlen, ret;

	ret = sock_create_kern(net, v6 ? AF_INET6 : AF_INET, SOCK_STREAM,
			       IPPROTO_TCP, &sock);
	if (ret)
		return ret;
	sock_set_reuseaddr(sock->sk);
	rds_tcp_tune(sock, rds_tcp_net(net));

	if (v6) {
		sin6.sin6_addr = conn->c_laddr;
		sin6.sin6_scope_id = conn->c_dev_if;
		addr = (struct sockaddr *)&sin6;
		addrlen = sizeof(sin6);
		ret = rds_tcp_bind_client(tc, sock, addr, addrlen, &sin6.sin6_port);
	} else {
		sin.sin_addr.s_addr = conn->c_laddr.s6_addr32[3];
		addr = (struct sockaddr *)&sin;
		addrlen = sizeof(sin);
		ret = rds_tcp_bind_client(tc, sock, addr, addrlen, &sin.sin_port);
	}
	if (ret) {
		trace_rds_tcp_connect(cp, 0, ret);
		goto err_release;
	}

	if (v6) {
		sin6.sin6_addr = conn->c_faddr;
		sin6.sin6_port = htons(RDS_TCP_PORT);
	} else {
		sin.sin_addr.s_addr = conn->c_faddr.s6_addr32[3];
		sin.sin_port = htons(RDS_TCP_PORT);
	}

	/* The callbacks must be in place before the handshake can finish. */
	rds_tcp_set_callbacks(tc, sock, true);
	ret = kernel_connect(sock, addr, addrlen, O_NONBLOCK);
	if (ret == -EINPROGRESS)
		ret = 0;
	trace_rds_tcp_connect(cp, ntohs(inet_sk(sock->sk)->inet_sport), ret);
	if (ret) {
		rds_tcp_restore_callbacks(tc, sock);
		tc->t_sock = NULL;
		tc->t_outgoing = false;
		goto err_release;
	}
	return 0;

err_release:
	rds_tcp_sock_reset(sock);
	return ret;
}

int rds_tcp_conn_path_connect(struct rds_carrier *ca)
{
	struct rds_tcp_connection *tc = ca->ca_data;
	struct rds_conn_path *cp = ca->ca_cp;
	struct rds_connection *conn = cp->cp_conn;
	int ret = 0;

	mutex_lock(&tc->t_conn_path_lock);
	if (tc->t_sock || rds_tcp_destroying(cp))
		goto out;
	if (tc->t_nparked) {
		/* The peer got here first. */
		rds_tcp_try_adopt(tc);
		goto out;
	}
	/* Paths > 0 are only ever connected by the smaller address. */
	if (cp->cp_index > 0 && !rds_tcp_we_initiate(conn))
		goto out;
	ret = rds_tcp_connect_sock(tc);
out:
	mutex_unlock(&tc->t_conn_path_lock);
	return ret;
}
