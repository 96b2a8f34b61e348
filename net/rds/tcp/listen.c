// SPDX-License-Identifier: GPL-2.0
/* The per-netns listener on RDS_TCP_PORT: one IPv6 socket that also takes
 * IPv4 (v4-mapped) connections, or an IPv4 one when IPv6 is disabled.
 */
#include <linux/tcp.h>
#include <net/ipv6.h>
#include <net/tcp.h>

#include "tcp.h"

/* Runs for the listener when a connection is ready to accept, and for
 * children not yet accepted, which inherit the callback: those just get the
 * default behaviour.
 */
static void rds_tcp_listen_data_ready(struct sock *sk)
{
	void (*ready)(struct sock *sk);
	struct rds_tcp_net *rtn;

	read_lock_bh(&sk->sk_callback_lock);
	rtn = sk->sk_user_data;
	if (!rtn) {
		ready = sk->sk_data_ready;
		goto out;
	}
	ready = rtn->rtn_orig_data_ready;
	if (sk->sk_state == TCP_LISTEN)
		queue_work(rds_wq, &rtn->rtn_accept_w);
out:
	read_unlock_bh(&sk->sk_callback_lock);
	if (ready != rds_tcp_listen_data_ready)
		ready(sk);
}

static void rds_tcp_accept_worker(struct work_struct *work)
{
	struct rds_tcp_net *rtn = container_of(work, struct rds_tcp_net,
					       rtn_accept_w);
	struct socket *sock;
	struct sock *sk;

	for (;;) {
		if (kernel_accept(rtn->rtn_listen, &sock, O_NONBLOCK))
			break;
		/* Children inherit the listener's callback and user data. */
		sk = sock->sk;
		write_lock_bh(&sk->sk_callback_lock);
		sk->sk_user_data = NULL;
		sk->sk_data_ready = rtn->rtn_orig_data_ready;
		write_unlock_bh(&sk->sk_callback_lock);
		rds_tcp_accept_sock(rtn, sock);
		cond_resched();
	}
}

static int rds_tcp_listen_create(struct net *net, bool v6, struct socket **res)
{
	struct sockaddr_storage ss = { };
	struct socket *sock;
	int addrlen, ret;

	ret = sock_create_kern(net, v6 ? AF_INET6 : AF_INET, SOCK_STREAM,
			       IPPROTO_TCP, &sock);
	if (ret)
		return ret;
	sock_set_reuseaddr(sock->sk);
	if (v6) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		/* One listener for both families. */
		sock->sk->sk_ipv6only = false;
		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = in6addr_any;
		sin6->sin6_port = htons(RDS_TCP_PORT);
		addrlen = sizeof(*sin6);
	} else {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = htonl(INADDR_ANY);
		sin->sin_port = htons(RDS_TCP_PORT);
		addrlen = sizeof(*sin);
	}
	ret = kernel_bind(sock, (struct sockaddr *)&ss, addrlen);
	if (ret)
		goto err_release;
	*res = sock;
	return 0;

err_release:
	sock_release(sock);
	return ret;
}

int rds_tcp_listen_init(struct rds_tcp_net *rtn)
{
	struct socket *sock;
	struct sock *sk;
	int ret;

	INIT_WORK(&rtn->rtn_accept_w, rds_tcp_accept_worker);
	ret = rds_tcp_listen_create(rtn->rtn_net, ipv6_mod_enabled(), &sock);
	if (ret == -EAFNOSUPPORT)
		ret = rds_tcp_listen_create(rtn->rtn_net, false, &sock);
	if (ret) {
		pr_warn("rds_tcp: cannot bind port %d: %d\n", RDS_TCP_PORT, ret);
		return ret;
	}

	sk = sock->sk;
	write_lock_bh(&sk->sk_callback_lock);
	rtn->rtn_orig_data_ready = sk->sk_data_ready;
	sk->sk_user_data = rtn;
	sk->sk_data_ready = rds_tcp_listen_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);

	ret = kernel_listen(sock, RDS_TCP_BACKLOG);
	if (ret) {
		rtn->rtn_listen = sock;
		rds_tcp_listen_stop(rtn);
		return ret;
	}
	rtn->rtn_listen = sock;
	return 0;
}

void rds_tcp_listen_stop(struct rds_tcp_net *rtn)
{
	struct socket *sock = rtn->rtn_listen;
	struct sock *sk;

	if (!sock)
		return;
	sk = sock->sk;
	/* No callback queues the accept work after this... */
	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = rtn->rtn_orig_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	/* ...and once it is done nothing uses the listener. */
	cancel_work_sync(&rtn->rtn_accept_w);
	sock_release(sock);
	rtn->rtn_listen = NULL;
}
