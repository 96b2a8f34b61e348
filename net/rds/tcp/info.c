// SPDX-License-Identifier: GPL-2.0
/* Counters and the RDS_INFO_TCP_SOCKETS / RDS6_INFO_TCP_SOCKETS tables. */
#include <linux/tcp.h>
#include <net/inet_sock.h>
#include <net/tcp.h>

#include "tcp.h"

DEFINE_PER_CPU(struct rds_tcp_statistics, rds_tcp_stats);

static const char *const rds_tcp_stat_names[RDS_TCP_STAT_NR] = {
	[RDS_TCP_STAT_DATA_READY_CALLS]		= "tcp_data_ready_calls",
	[RDS_TCP_STAT_WRITE_SPACE_CALLS]	= "tcp_write_space_calls",
	[RDS_TCP_STAT_SNDBUF_FULL]		= "tcp_sndbuf_full",
	[RDS_TCP_STAT_CONNECT_RACED]		= "tcp_connect_raced",
	[RDS_TCP_STAT_LISTEN_CLOSED_STALE]	= "tcp_listen_closed_stale",
	[RDS_TCP_STAT_ACCEPT_PARKED]		= "tcp_accept_parked",
	[RDS_TCP_STAT_ACCEPT_REFUSED]		= "tcp_accept_refused",
	[RDS_TCP_STAT_ACCEPT_WRONG_PATH]	= "tcp_accept_wrong_path",
	[RDS_TCP_STAT_RECV_NOMEM]		= "tcp_recv_nomem",
	[RDS_TCP_STAT_DRAINED_ON_SHUTDOWN]	= "tcp_drained_on_shutdown",
};

unsigned int rds_tcp_stats_info_copy(struct rds_info_iterator *iter,
				     unsigned int avail)
{
	u64 sum[RDS_TCP_STAT_NR] = { };
	int cpu, i;

	for_each_possible_cpu(cpu) {
		const struct rds_tcp_statistics *s = per_cpu_ptr(&rds_tcp_stats, cpu);

		for (i = 0; i < RDS_TCP_STAT_NR; i++)
			sum[i] += READ_ONCE(s->s[i]);
	}
	return rds_stats_info_copy(iter, sum, rds_tcp_stat_names, RDS_TCP_STAT_NR);
}

/* Called under rds_tcp_tc_lock, which keeps tc->t_sock alive. */
static void rds_tcp_info_one(struct rds_tcp_connection *tc, bool v6,
			     struct rds_info_iterator *iter)
{
	struct rds_connection *conn = tc->t_cpath->cp_conn;
	struct inet_sock *inet = inet_sk(tc->t_sock->sk);
	u64 hdr_rem = sizeof(struct rds_header) - READ_ONCE(tc->t_hdr_got);
	u64 data_rem = READ_ONCE(tc->t_data_rem);

	if (v6) {
		struct rds6_info_tcp_socket t6 = { };

		t6.local_addr = conn->c_laddr;
		t6.local_port = inet->inet_sport;
		t6.peer_addr = conn->c_faddr;
		t6.peer_port = inet->inet_dport;
		t6.hdr_rem = hdr_rem;
		t6.data_rem = data_rem;
		t6.last_sent_nxt = READ_ONCE(tc->t_last_sent_nxt);
		t6.last_expected_una = READ_ONCE(tc->t_last_expected_una);
		t6.last_seen_una = READ_ONCE(tc->t_last_seen_una);
		rds_info_copy(iter, &t6, sizeof(t6));
	} else {
		struct rds_info_tcp_socket t4 = { };

		t4.local_addr = conn->c_laddr.s6_addr32[3];
		t4.local_port = inet->inet_sport;
		t4.peer_addr = conn->c_faddr.s6_addr32[3];
		t4.peer_port = inet->inet_dport;
		t4.hdr_rem = hdr_rem;
		t4.data_rem = data_rem;
		t4.last_sent_nxt = READ_ONCE(tc->t_last_sent_nxt);
		t4.last_expected_una = READ_ONCE(tc->t_last_expected_una);
		t4.last_seen_una = READ_ONCE(tc->t_last_seen_una);
		t4.tos = conn->c_tos;
		rds_info_copy(iter, &t4, sizeof(t4));
	}
}

static void rds_tcp_info(struct socket *sock, struct rds_info_iterator *iter,
			 struct rds_info_lengths *lens, bool v6)
{
	struct net *net = sock_net(sock->sk);
	struct rds_tcp_connection *tc;
	unsigned int nr = 0;

	spin_lock_bh(&rds_tcp_tc_lock);
	list_for_each_entry(tc, &rds_tcp_tc_list, t_list) {
		struct rds_connection *conn = tc->t_cpath->cp_conn;

		if (!net_eq(rds_conn_net(conn), net))
			continue;
		if (!v6 && !ipv6_addr_v4mapped(&conn->c_faddr))
			continue;
		rds_tcp_info_one(tc, v6, iter);
		nr++;
	}
	spin_unlock_bh(&rds_tcp_tc_lock);

	lens->nr = nr;
	lens->each = v6 ? sizeof(struct rds6_info_tcp_socket) :
			  sizeof(struct rds_info_tcp_socket);
}

static void rds_tcp_info4(struct socket *sock, unsigned int len,
			  struct rds_info_iterator *iter,
			  struct rds_info_lengths *lens)
{
	rds_tcp_info(sock, iter, lens, false);
}

static void rds_tcp_info6(struct socket *sock, unsigned int len,
			  struct rds_info_iterator *iter,
			  struct rds_info_lengths *lens)
{
	rds_tcp_info(sock, iter, lens, true);
}

void rds_tcp_info_init(void)
{
	rds_info_register_func(RDS_INFO_TCP_SOCKETS, rds_tcp_info4);
	rds_info_register_func(RDS6_INFO_TCP_SOCKETS, rds_tcp_info6);
}

void rds_tcp_info_exit(void)
{
	rds_info_deregister_func(RDS_INFO_TCP_SOCKETS, rds_tcp_info4);
	rds_info_deregister_func(RDS6_INFO_TCP_SOCKETS, rds_tcp_info6);
}
