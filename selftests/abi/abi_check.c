// SPDX-License-Identifier: GPL-2.0
/*
 * Print every number and every struct layout of <linux/rds.h>, one per line.
 *
 * Built twice, once against our uapi/ and once against the system header;
 * test_abi.sh diffs the two outputs, so any drift in a constant, a size, an
 * offset, a field width or a field's signedness shows up as a changed line.
 */
#include <stddef.h>
#include <stdio.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/sockios.h>	/* the system rds.h uses SIOCPROTOPRIVATE bare */
#include <linux/rds.h>

#define CONST(c)	printf("const %s = %lld\n", #c, (long long)(c))

#define TYPE(t)		printf("type %s size %zu align %zu\n", #t, sizeof(t), \
			       __alignof__(t))

#define MEMBER(t, m)	(((t *)0)->m)

/* Arrays and nested structs: place and size only. */
#define FIELD(t, m)	printf("field %s.%s offset %zu size %zu\n", #t, #m, \
			       offsetof(t, m), sizeof(MEMBER(t, m)))

/* True for signed types; written so that -Wtype-limits stays quiet. */
#define IS_SIGNED(type)	(!((type)~0 > (type)0))

/* Scalars: also whether the type is signed. */
#define SCALAR(t, m)	printf("field %s.%s offset %zu size %zu signed %d\n", \
			       #t, #m, offsetof(t, m), sizeof(MEMBER(t, m)), \
			       IS_SIGNED(__typeof__(MEMBER(t, m))))

static void print_constants(void)
{
	CONST(RDS_IB_ABI_VERSION);
	CONST(SOL_RDS);

	CONST(RDS_CANCEL_SENT_TO);
	CONST(RDS_GET_MR);
	CONST(RDS_FREE_MR);
	CONST(RDS_RECVERR);
	CONST(RDS_CONG_MONITOR);
	CONST(RDS_GET_MR_FOR_DEST);
	CONST(SO_RDS_TRANSPORT);
	CONST(SO_RDS_MSG_RXPATH_LATENCY);

	CONST(RDS_TRANS_IB);
	CONST(RDS_TRANS_GAP);
	CONST(RDS_TRANS_TCP);
	CONST(RDS_TRANS_COUNT);
	CONST(RDS_TRANS_NONE);
	CONST(RDS_TRANS_IWARP);

	CONST(SIOCRDSSETTOS);
	CONST(SIOCRDSGETTOS);

	CONST(RDS_CMSG_RDMA_ARGS);
	CONST(RDS_CMSG_RDMA_DEST);
	CONST(RDS_CMSG_RDMA_MAP);
	CONST(RDS_CMSG_RDMA_STATUS);
	CONST(RDS_CMSG_CONG_UPDATE);
	CONST(RDS_CMSG_ATOMIC_FADD);
	CONST(RDS_CMSG_ATOMIC_CSWP);
	CONST(RDS_CMSG_MASKED_ATOMIC_FADD);
	CONST(RDS_CMSG_MASKED_ATOMIC_CSWP);
	CONST(RDS_CMSG_RXPATH_LATENCY);
	CONST(RDS_CMSG_ZCOPY_COOKIE);
	CONST(RDS_CMSG_ZCOPY_COMPLETION);

	CONST(RDS_INFO_FIRST);
	CONST(RDS_INFO_COUNTERS);
	CONST(RDS_INFO_CONNECTIONS);
	CONST(RDS_INFO_SEND_MESSAGES);
	CONST(RDS_INFO_RETRANS_MESSAGES);
	CONST(RDS_INFO_RECV_MESSAGES);
	CONST(RDS_INFO_SOCKETS);
	CONST(RDS_INFO_TCP_SOCKETS);
	CONST(RDS_INFO_IB_CONNECTIONS);
	CONST(RDS_INFO_CONNECTION_STATS);
	CONST(RDS_INFO_IWARP_CONNECTIONS);
	CONST(RDS6_INFO_CONNECTIONS);
	CONST(RDS6_INFO_SEND_MESSAGES);
	CONST(RDS6_INFO_RETRANS_MESSAGES);
	CONST(RDS6_INFO_RECV_MESSAGES);
	CONST(RDS6_INFO_SOCKETS);
	CONST(RDS6_INFO_TCP_SOCKETS);
	CONST(RDS6_INFO_IB_CONNECTIONS);
	CONST(RDS_INFO_LAST);

	CONST(RDS_INFO_CONNECTION_FLAG_SENDING);
	CONST(RDS_INFO_CONNECTION_FLAG_CONNECTING);
	CONST(RDS_INFO_CONNECTION_FLAG_CONNECTED);
	CONST(TRANSNAMSIZ);
	CONST(RDS_INFO_MESSAGE_FLAG_ACK);
	CONST(RDS_INFO_MESSAGE_FLAG_FAST_ACK);
	CONST(RDS_IB_GID_LEN);

	CONST(RDS_MSG_RX_HDR_TO_DGRAM_START);
	CONST(RDS_MSG_RX_DGRAM_REASSEMBLE);
	CONST(RDS_MSG_RX_DGRAM_DELIVERED);
	CONST(RDS_MSG_RX_DGRAM_TRACE_MAX);

	CONST(RDS_CONG_MONITOR_SIZE);
	CONST(RDS_CONG_MONITOR_BIT(0));
	CONST(RDS_CONG_MONITOR_BIT(63));
	CONST(RDS_CONG_MONITOR_BIT(64));
	CONST(RDS_CONG_MONITOR_BIT(65535));
	CONST(RDS_CONG_MONITOR_MASK(1));
	CONST(RDS_CONG_MONITOR_MASK(63));
	CONST(RDS_CONG_MONITOR_MASK(130));
	CONST(sizeof(RDS_CONG_MONITOR_MASK(5)));

	CONST(RDS_RDMA_SUCCESS);
	CONST(RDS_RDMA_REMOTE_ERROR);
	CONST(RDS_RDMA_CANCELED);
	CONST(RDS_RDMA_DROPPED);
	CONST(RDS_RDMA_OTHER_ERROR);
	CONST(RDS_MAX_ZCOOKIES);

	CONST(RDS_RDMA_READWRITE);
	CONST(RDS_RDMA_FENCE);
	CONST(RDS_RDMA_INVALIDATE);
	CONST(RDS_RDMA_USE_ONCE);
	CONST(RDS_RDMA_DONTWAIT);
	CONST(RDS_RDMA_NOTIFY_ME);
	CONST(RDS_RDMA_SILENT);
}

static void print_scalar_types(void)
{
	TYPE(rds_tos_t);
	CONST(IS_SIGNED(rds_tos_t));
	TYPE(rds_rdma_cookie_t);
	CONST(IS_SIGNED(rds_rdma_cookie_t));
	TYPE(enum rds_message_rxpath_latency);
}

static void print_info_structs(void)
{
	TYPE(struct rds_info_counter);
	FIELD(struct rds_info_counter, name);
	SCALAR(struct rds_info_counter, value);

	TYPE(struct rds_info_connection);
	SCALAR(struct rds_info_connection, next_tx_seq);
	SCALAR(struct rds_info_connection, next_rx_seq);
	SCALAR(struct rds_info_connection, laddr);
	SCALAR(struct rds_info_connection, faddr);
	FIELD(struct rds_info_connection, transport);
	SCALAR(struct rds_info_connection, flags);
	SCALAR(struct rds_info_connection, tos);

	TYPE(struct rds6_info_connection);
	SCALAR(struct rds6_info_connection, next_tx_seq);
	SCALAR(struct rds6_info_connection, next_rx_seq);
	FIELD(struct rds6_info_connection, laddr);
	FIELD(struct rds6_info_connection, faddr);
	FIELD(struct rds6_info_connection, transport);
	SCALAR(struct rds6_info_connection, flags);

	TYPE(struct rds_info_message);
	SCALAR(struct rds_info_message, seq);
	SCALAR(struct rds_info_message, len);
	SCALAR(struct rds_info_message, laddr);
	SCALAR(struct rds_info_message, faddr);
	SCALAR(struct rds_info_message, lport);
	SCALAR(struct rds_info_message, fport);
	SCALAR(struct rds_info_message, flags);
	SCALAR(struct rds_info_message, tos);

	TYPE(struct rds6_info_message);
	SCALAR(struct rds6_info_message, seq);
	SCALAR(struct rds6_info_message, len);
	FIELD(struct rds6_info_message, laddr);
	FIELD(struct rds6_info_message, faddr);
	SCALAR(struct rds6_info_message, lport);
	SCALAR(struct rds6_info_message, fport);
	SCALAR(struct rds6_info_message, flags);
	SCALAR(struct rds6_info_message, tos);

	TYPE(struct rds_info_socket);
	SCALAR(struct rds_info_socket, sndbuf);
	SCALAR(struct rds_info_socket, bound_addr);
	SCALAR(struct rds_info_socket, connected_addr);
	SCALAR(struct rds_info_socket, bound_port);
	SCALAR(struct rds_info_socket, connected_port);
	SCALAR(struct rds_info_socket, rcvbuf);
	SCALAR(struct rds_info_socket, inum);

	TYPE(struct rds6_info_socket);
	SCALAR(struct rds6_info_socket, sndbuf);
	FIELD(struct rds6_info_socket, bound_addr);
	FIELD(struct rds6_info_socket, connected_addr);
	SCALAR(struct rds6_info_socket, bound_port);
	SCALAR(struct rds6_info_socket, connected_port);
	SCALAR(struct rds6_info_socket, rcvbuf);
	SCALAR(struct rds6_info_socket, inum);
}

static void print_tcp_ib_structs(void)
{
	TYPE(struct rds_info_tcp_socket);
	SCALAR(struct rds_info_tcp_socket, local_addr);
	SCALAR(struct rds_info_tcp_socket, local_port);
	SCALAR(struct rds_info_tcp_socket, peer_addr);
	SCALAR(struct rds_info_tcp_socket, peer_port);
	SCALAR(struct rds_info_tcp_socket, hdr_rem);
	SCALAR(struct rds_info_tcp_socket, data_rem);
	SCALAR(struct rds_info_tcp_socket, last_sent_nxt);
	SCALAR(struct rds_info_tcp_socket, last_expected_una);
	SCALAR(struct rds_info_tcp_socket, last_seen_una);
	SCALAR(struct rds_info_tcp_socket, tos);

	TYPE(struct rds6_info_tcp_socket);
	FIELD(struct rds6_info_tcp_socket, local_addr);
	SCALAR(struct rds6_info_tcp_socket, local_port);
	FIELD(struct rds6_info_tcp_socket, peer_addr);
	SCALAR(struct rds6_info_tcp_socket, peer_port);
	SCALAR(struct rds6_info_tcp_socket, hdr_rem);
	SCALAR(struct rds6_info_tcp_socket, data_rem);
	SCALAR(struct rds6_info_tcp_socket, last_sent_nxt);
	SCALAR(struct rds6_info_tcp_socket, last_expected_una);
	SCALAR(struct rds6_info_tcp_socket, last_seen_una);

	TYPE(struct rds_info_rdma_connection);
	SCALAR(struct rds_info_rdma_connection, src_addr);
	SCALAR(struct rds_info_rdma_connection, dst_addr);
	FIELD(struct rds_info_rdma_connection, src_gid);
	FIELD(struct rds_info_rdma_connection, dst_gid);
	SCALAR(struct rds_info_rdma_connection, max_send_wr);
	SCALAR(struct rds_info_rdma_connection, max_recv_wr);
	SCALAR(struct rds_info_rdma_connection, max_send_sge);
	SCALAR(struct rds_info_rdma_connection, rdma_mr_max);
	SCALAR(struct rds_info_rdma_connection, rdma_mr_size);
	SCALAR(struct rds_info_rdma_connection, tos);
	SCALAR(struct rds_info_rdma_connection, sl);
	SCALAR(struct rds_info_rdma_connection, cache_allocs);

	TYPE(struct rds6_info_rdma_connection);
	FIELD(struct rds6_info_rdma_connection, src_addr);
	FIELD(struct rds6_info_rdma_connection, dst_addr);
	FIELD(struct rds6_info_rdma_connection, src_gid);
	FIELD(struct rds6_info_rdma_connection, dst_gid);
	SCALAR(struct rds6_info_rdma_connection, max_send_wr);
	SCALAR(struct rds6_info_rdma_connection, max_recv_wr);
	SCALAR(struct rds6_info_rdma_connection, max_send_sge);
	SCALAR(struct rds6_info_rdma_connection, rdma_mr_max);
	SCALAR(struct rds6_info_rdma_connection, rdma_mr_size);
	SCALAR(struct rds6_info_rdma_connection, tos);
	SCALAR(struct rds6_info_rdma_connection, sl);
	SCALAR(struct rds6_info_rdma_connection, cache_allocs);
}

static void print_trace_structs(void)
{
	TYPE(struct rds_rx_trace_so);
	SCALAR(struct rds_rx_trace_so, rx_traces);
	FIELD(struct rds_rx_trace_so, rx_trace_pos);

	TYPE(struct rds_cmsg_rx_trace);
	SCALAR(struct rds_cmsg_rx_trace, rx_traces);
	FIELD(struct rds_cmsg_rx_trace, rx_trace_pos);
	FIELD(struct rds_cmsg_rx_trace, rx_trace);

	TYPE(struct rds_zcopy_cookies);
	SCALAR(struct rds_zcopy_cookies, num);
	FIELD(struct rds_zcopy_cookies, cookies);
}

static void print_mr_structs(void)
{
	TYPE(struct rds_iovec);
	SCALAR(struct rds_iovec, addr);
	SCALAR(struct rds_iovec, bytes);

	TYPE(struct rds_get_mr_args);
	FIELD(struct rds_get_mr_args, vec);
	SCALAR(struct rds_get_mr_args, vec.addr);
	SCALAR(struct rds_get_mr_args, vec.bytes);
	SCALAR(struct rds_get_mr_args, cookie_addr);
	SCALAR(struct rds_get_mr_args, flags);

	TYPE(struct rds_get_mr_for_dest_args);
	FIELD(struct rds_get_mr_for_dest_args, dest_addr);
	FIELD(struct rds_get_mr_for_dest_args, vec);
	SCALAR(struct rds_get_mr_for_dest_args, vec.addr);
	SCALAR(struct rds_get_mr_for_dest_args, vec.bytes);
	SCALAR(struct rds_get_mr_for_dest_args, cookie_addr);
	SCALAR(struct rds_get_mr_for_dest_args, flags);

	TYPE(struct rds_free_mr_args);
	SCALAR(struct rds_free_mr_args, cookie);
	SCALAR(struct rds_free_mr_args, flags);

	TYPE(struct rds_rdma_notify);
	SCALAR(struct rds_rdma_notify, user_token);
	SCALAR(struct rds_rdma_notify, status);
}

static void print_rdma_structs(void)
{
	TYPE(struct rds_rdma_args);
	SCALAR(struct rds_rdma_args, cookie);
	FIELD(struct rds_rdma_args, remote_vec);
	SCALAR(struct rds_rdma_args, remote_vec.addr);
	SCALAR(struct rds_rdma_args, remote_vec.bytes);
	SCALAR(struct rds_rdma_args, local_vec_addr);
	SCALAR(struct rds_rdma_args, nr_local);
	SCALAR(struct rds_rdma_args, flags);
	SCALAR(struct rds_rdma_args, user_token);

	TYPE(struct rds_atomic_args);
	SCALAR(struct rds_atomic_args, cookie);
	SCALAR(struct rds_atomic_args, local_addr);
	SCALAR(struct rds_atomic_args, remote_addr);
	FIELD(struct rds_atomic_args, cswp);
	SCALAR(struct rds_atomic_args, cswp.compare);
	SCALAR(struct rds_atomic_args, cswp.swap);
	FIELD(struct rds_atomic_args, fadd);
	SCALAR(struct rds_atomic_args, fadd.add);
	FIELD(struct rds_atomic_args, m_cswp);
	SCALAR(struct rds_atomic_args, m_cswp.compare);
	SCALAR(struct rds_atomic_args, m_cswp.swap);
	SCALAR(struct rds_atomic_args, m_cswp.compare_mask);
	SCALAR(struct rds_atomic_args, m_cswp.swap_mask);
	FIELD(struct rds_atomic_args, m_fadd);
	SCALAR(struct rds_atomic_args, m_fadd.add);
	SCALAR(struct rds_atomic_args, m_fadd.nocarry_mask);
	SCALAR(struct rds_atomic_args, flags);
	SCALAR(struct rds_atomic_args, user_token);
}

int main(void)
{
	print_constants();
	print_scalar_types();
	print_info_structs();
	print_tcp_ib_structs();
	print_trace_structs();
	print_mr_structs();
	print_rdma_structs();
	return 0;
}
