// SPDX-License-Identifier: GPL-2.0
/* setsockopt/getsockopt at level SOL_RDS.  SOL_SOCKET options never get
 * here: the socket core handles them (SO_SNDBUF, SO_RCVBUF...).
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/rds.h>
#include <linux/uaccess.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "socket.h"
#include "info.h"
#include "cong.h"
#include "rdma.h"
#include "send.h"
#include "transports.h"

static int rds_get_int(sockptr_t optval, unsigned int optlen, int *val)
{
	if (optlen < sizeof(int))
		return -EINVAL;
	if (copy_from_sockptr(val, optval, sizeof(int)))
		return -EFAULT;
	return 0;
}

/* Drops every queued, unacknowledged message of ours to one address:port.
 * As in-tree, the length alone says which family the address is: shorter
 * than a sockaddr_in6, it is read as a sockaddr_in.
 */
static int rds_cancel_sent_to(struct rds_sock *rs, sockptr_t optval,
			      unsigned int optlen)
{
	struct sockaddr_in6 sin6;
	struct sockaddr_in sin;
	struct in6_addr daddr;
	__be16 dport;

	if (!rds_sock_bound(rs))
		return -ENOTCONN;
	if (optlen < sizeof(sin))
		return -EINVAL;
	if (optlen < sizeof(sin6)) {
		if (copy_from_sockptr(&sin, optval, sizeof(sin)))
			return -EFAULT;
		ipv6_addr_set_v4mapped(sin.sin_addr.s_addr, &daddr);
		dport = sin.sin_port;
	} else {
		if (copy_from_sockptr(&sin6, optval, sizeof(sin6)))
			return -EFAULT;
		daddr = sin6.sin6_addr;
		dport = sin6.sin6_port;
	}
	rds_send_drop_to(rs, &daddr, dport);
	return 0;
}

/* Only one transport per socket, chosen before or by bind.  The checks
 * come in in-tree's order, so that the same bad input gets the same errno.
 */
static int rds_set_transport(struct rds_sock *rs, sockptr_t optval,
			     unsigned int optlen)
{
	struct net *net = sock_net(rds_rs_to_sk(rs));
	struct rds_transport *trans;
	int type;

	if (rs->rs_transport)
		return -EOPNOTSUPP;
	if (optlen != sizeof(int))
		return -EINVAL;
	if (copy_from_sockptr(&type, optval, sizeof(int)))
		return -EFAULT;
	if (type < 0 || type >= RDS_TRANS_COUNT)
		return -EINVAL;
	trans = rds_trans_get(type);
	/* In-tree serves RDS/IB in the initial namespace only and refuses
	 * any other transport elsewhere with EPROTOTYPE.  Ours serves every
	 * netns; asking there for a transport we do not have gets in-tree's
	 * errno.
	 */
	if (!trans && type != RDS_TRANS_TCP && !net_eq(net, &init_net))
		return -EPROTOTYPE;
	if (!trans)
		return -ENOPROTOOPT;
	rs->rs_transport = trans;
	return 0;
}

static int rds_get_mr(struct rds_sock *rs, sockptr_t optval,
		      unsigned int optlen)
{
	struct rds_get_mr_args args;

	if (optlen != sizeof(args))
		return -EINVAL;
	if (copy_from_sockptr(&args, optval, sizeof(args)))
		return -EFAULT;
	return rds_rdma_get_mr(rs, &args, NULL);
}

/* In-tree registers on the device of the bound address, whatever the
 * destination says: so do we, and a peer reached through another device
 * cannot use the region.
 */
static int rds_get_mr_for_dest(struct rds_sock *rs, sockptr_t optval,
			       unsigned int optlen)
{
	struct rds_get_mr_for_dest_args dargs;
	struct rds_get_mr_args args;

	if (optlen != sizeof(dargs))
		return -EINVAL;
	if (copy_from_sockptr(&dargs, optval, sizeof(dargs)))
		return -EFAULT;
	args.vec = dargs.vec;
	args.cookie_addr = dargs.cookie_addr;
	args.flags = dargs.flags;
	return rds_rdma_get_mr(rs, &args, NULL);
}

static int rds_free_mr(struct rds_sock *rs, sockptr_t optval,
		       unsigned int optlen)
{
	struct rds_free_mr_args args;

	if (optlen != sizeof(args))
		return -EINVAL;
	if (copy_from_sockptr(&args, optval, sizeof(args)))
		return -EFAULT;
	return rds_rdma_free_mr(rs, &args);
}

/* A wrong length is EFAULT here, as in-tree has it. */
static int rds_set_recvtstamp(struct sock *sk, int optname, sockptr_t optval,
			      unsigned int optlen)
{
	int val;

	if (optlen != sizeof(int) || copy_from_sockptr(&val, optval, sizeof(int)))
		return -EFAULT;
	if (optname == SO_TIMESTAMP_NEW)
		sock_set_flag(sk, SOCK_TSTAMP_NEW);
	else
		sock_reset_flag(sk, SOCK_TSTAMP_NEW);
	if (val)
		sock_set_flag(sk, SOCK_RCVTSTAMP);
	else
		sock_reset_flag(sk, SOCK_RCVTSTAMP);
	return 0;
}

/* A wrong length and out of range trace points are EFAULT, as in-tree has
 * it; a bad point also turns tracing off there.
 */
static int rds_set_rx_latency(struct rds_sock *rs, sockptr_t optval,
			      unsigned int optlen)
{
	struct rds_rx_trace_so trace;
	unsigned int i;

	if (optlen != sizeof(trace))
		return -EFAULT;
	if (copy_from_sockptr(&trace, optval, sizeof(trace)))
		return -EFAULT;
	if (trace.rx_traces > RDS_MSG_RX_DGRAM_TRACE_MAX)
		return -EFAULT;
	for (i = 0; i < trace.rx_traces; i++) {
		if (trace.rx_trace_pos[i] >= RDS_MSG_RX_DGRAM_TRACE_MAX) {
			WRITE_ONCE(rs->rs_rx_traces, 0);
			return -EFAULT;
		}
	}

	for (i = 0; i < trace.rx_traces; i++)
		rs->rs_rx_trace[i] = trace.rx_trace_pos[i];
	/* recvmsg reads the count without the socket lock: publish it last. */
	WRITE_ONCE(rs->rs_rx_traces, trace.rx_traces);
	return 0;
}

static int rds_setsockopt_locked(struct rds_sock *rs, int optname,
				 sockptr_t optval, unsigned int optlen)
{
	struct sock *sk = rds_rs_to_sk(rs);
	int val, ret;

	switch (optname) {
	case RDS_CANCEL_SENT_TO:
		return rds_cancel_sent_to(rs, optval, optlen);
	case RDS_GET_MR:
		return rds_get_mr(rs, optval, optlen);
	case RDS_GET_MR_FOR_DEST:
		return rds_get_mr_for_dest(rs, optval, optlen);
	case RDS_FREE_MR:
		return rds_free_mr(rs, optval, optlen);
	case RDS_RECVERR:
		ret = rds_get_int(optval, optlen, &val);
		if (!ret)
			rs->rs_recverr = !!val;
		return ret;
	case RDS_CONG_MONITOR:
		ret = rds_get_int(optval, optlen, &val);
		if (!ret)
			ret = rds_cong_monitor_set(rs, !!val);
		return ret;
	case SO_RDS_TRANSPORT:
		return rds_set_transport(rs, optval, optlen);
	case SO_TIMESTAMP_OLD:
	case SO_TIMESTAMP_NEW:
		return rds_set_recvtstamp(sk, optname, optval, optlen);
	case SO_RDS_MSG_RXPATH_LATENCY:
		return rds_set_rx_latency(rs, optval, optlen);
	default:
		return -ENOPROTOOPT;
	}
}

int rds_setsockopt(struct socket *sock, int level, int optname,
		   sockptr_t optval, unsigned int optlen)
{
	struct sock *sk = sock->sk;
	int ret;

	if (level != SOL_RDS)
		return -ENOPROTOOPT;
	lock_sock(sk);
	ret = rds_setsockopt_locked(rds_sk_to_rs(sk), optname, optval, optlen);
	release_sock(sk);
	return ret;
}

static int rds_put_int(int val, int len, char __user *optval,
		       int __user *optlen)
{
	if (len < (int)sizeof(int))
		return -EINVAL;
	if (put_user(val, (int __user *)optval) ||
	    put_user((int)sizeof(int), optlen))
		return -EFAULT;
	return 0;
}

int rds_getsockopt(struct socket *sock, int level, int optname,
		   char __user *optval, int __user *optlen)
{
	struct rds_sock *rs = rds_sk_to_rs(sock->sk);
	struct rds_transport *trans;
	int len;

	if (level != SOL_RDS)
		return -ENOPROTOOPT;
	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;

	if (rds_info_optname(optname))
		return rds_info_getsockopt(sock, optname, optval, optlen);

	switch (optname) {
	case RDS_RECVERR:
		return rds_put_int(READ_ONCE(rs->rs_recverr), len, optval,
				   optlen);
	case SO_RDS_TRANSPORT:
		trans = READ_ONCE(rs->rs_transport);
		return rds_put_int(trans ? trans->t_type : RDS_TRANS_NONE, len,
				   optval, optlen);
	default:
		return -ENOPROTOOPT;
	}
}
