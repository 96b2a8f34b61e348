/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * User ABI of Reliable Datagram Sockets (PF_RDS).
 *
 * Binary compatible with the Linux 6.1 <linux/rds.h>: every number, field
 * name, type, order and packing below matches it, so programs built against
 * either header talk to either implementation. The include guard is the
 * upstream one on purpose: whichever copy comes first on the include path
 * wins and the other one becomes a no-op.
 */

#ifndef _LINUX_RDS_H
#define _LINUX_RDS_H

#include <linux/types.h>
#include <linux/socket.h>	/* struct __kernel_sockaddr_storage */
#include <linux/in6.h>		/* struct in6_addr */
#include <linux/sockios.h>	/* SIOCPROTOPRIVATE, so the header stands alone */

/* Version of the IB transport's connection handshake, not of this header. */
#define RDS_IB_ABI_VERSION		0x301

/* Socket option level; also the cmsg_level of every RDS control message. */
#define SOL_RDS				276

/*
 * Option names at level SOL_RDS. Number 4 (the old barrier) and 9 are gone
 * and must never be reused.
 */
#define RDS_CANCEL_SENT_TO		1
#define RDS_GET_MR			2
#define RDS_FREE_MR			3
#define RDS_RECVERR			5
#define RDS_CONG_MONITOR		6
#define RDS_GET_MR_FOR_DEST		7
#define SO_RDS_TRANSPORT		8
/* Ask for receive path timestamps; the value is a struct rds_rx_trace_so. */
#define SO_RDS_MSG_RXPATH_LATENCY	10

/* Values of SO_RDS_TRANSPORT (an int); a socket binds to one transport. */
#define RDS_TRANS_IB			0
#define RDS_TRANS_GAP			1
#define RDS_TRANS_TCP			2
#define RDS_TRANS_COUNT			3
#define RDS_TRANS_NONE			(~0)
/* iWARP shared the IB code and was retired; the id is kept as a gap. */
#define RDS_TRANS_IWARP			RDS_TRANS_GAP

/*
 * Type of service is set per socket through ioctl() before the first send,
 * so that all of a socket's traffic uses one connection per peer and TOS.
 */
#define SIOCRDSSETTOS			(SIOCPROTOPRIVATE)
#define SIOCRDSGETTOS			(SIOCPROTOPRIVATE + 1)

typedef __u8 rds_tos_t;

/*
 * Control message types (cmsg_type with cmsg_level SOL_RDS):
 *
 *   RDMA_ARGS        sendmsg  struct rds_rdma_args: RDMA to/from a remote MR
 *   RDMA_DEST        both     rds_rdma_cookie_t of the peer's target region
 *   RDMA_MAP         sendmsg  struct rds_get_mr_args: register a region and
 *                             ship its cookie with the message
 *   RDMA_STATUS      recvmsg  struct rds_rdma_notify of a finished operation
 *   CONG_UPDATE      recvmsg  __u64 mask of ports that became uncongested
 *   ATOMIC_*         sendmsg  struct rds_atomic_args
 *   RXPATH_LATENCY   recvmsg  struct rds_cmsg_rx_trace
 *   ZCOPY_COOKIE     sendmsg  __u32 cookie tagging a MSG_ZEROCOPY send
 *   ZCOPY_COMPLETION recvmsg  struct rds_zcopy_cookies of completed sends
 *
 * Number 10 was never assigned.
 */
#define RDS_CMSG_RDMA_ARGS		1
#define RDS_CMSG_RDMA_DEST		2
#define RDS_CMSG_RDMA_MAP		3
#define RDS_CMSG_RDMA_STATUS		4
#define RDS_CMSG_CONG_UPDATE		5
#define RDS_CMSG_ATOMIC_FADD		6
#define RDS_CMSG_ATOMIC_CSWP		7
#define RDS_CMSG_MASKED_ATOMIC_FADD	8
#define RDS_CMSG_MASKED_ATOMIC_CSWP	9
#define RDS_CMSG_RXPATH_LATENCY		11
#define RDS_CMSG_ZCOPY_COOKIE		12
#define RDS_CMSG_ZCOPY_COMPLETION	13

/*
 * Information tables, read with getsockopt(fd, SOL_RDS, RDS_INFO_x, buf,
 * &len) on any RDS socket. On success the return value is the size of one
 * item and len the number of bytes filled in; when buf is too short the call
 * fails with ENOSPC and len says how many bytes are needed. 10002 (flows) is
 * retired. The RDS6_ tables carry IPv6 (and v4-mapped) addresses.
 */
#define RDS_INFO_FIRST			10000
#define RDS_INFO_COUNTERS		10000
#define RDS_INFO_CONNECTIONS		10001
#define RDS_INFO_SEND_MESSAGES		10003
#define RDS_INFO_RETRANS_MESSAGES	10004
#define RDS_INFO_RECV_MESSAGES		10005
#define RDS_INFO_SOCKETS		10006
#define RDS_INFO_TCP_SOCKETS		10007
#define RDS_INFO_IB_CONNECTIONS		10008
#define RDS_INFO_CONNECTION_STATS	10009
#define RDS_INFO_IWARP_CONNECTIONS	10010

#define RDS6_INFO_CONNECTIONS		10011
#define RDS6_INFO_SEND_MESSAGES		10012
#define RDS6_INFO_RETRANS_MESSAGES	10013
#define RDS6_INFO_RECV_MESSAGES		10014
#define RDS6_INFO_SOCKETS		10015
#define RDS6_INFO_TCP_SOCKETS		10016
#define RDS6_INFO_IB_CONNECTIONS	10017

#define RDS_INFO_LAST			10017

/*
 * Tables of this implementation only. In-tree RDS has no table past 10017
 * and answers ENOPROTOOPT; Oracle's UEK numbers its own from 10018 up (its
 * RDS_INFO_CONN_PATHS is 10020, with another layout), so ours start at
 * 10100, apart from both. Each table has both address families in one:
 * IPv4 addresses as v4-mapped.
 */
#define RDS_INFO_OWN_FIRST		10100
#define RDS_INFO_PATHS			10100
#define RDS_INFO_SOCKET_DROPS		10101
#define RDS_INFO_CARRIERS		10102
#define RDS_INFO_OWN_LAST		10102

/*
 * The info items are packed: their layout is what the kernel copies out
 * byte for byte. The spelled out attribute (not __packed) is because this
 * header is also compiled in user space, where __packed does not exist.
 */

/* RDS_INFO_COUNTERS item: a NUL padded statistic name and its value. */
struct rds_info_counter {
	__u8	name[32];
	__u64	value;
} __attribute__((packed));

/* Bits of rds{,6}_info_connection.flags */
#define RDS_INFO_CONNECTION_FLAG_SENDING	0x01
#define RDS_INFO_CONNECTION_FLAG_CONNECTING	0x02
#define RDS_INFO_CONNECTION_FLAG_CONNECTED	0x04

/* Room for a transport name such as "tcp", NUL included. */
#define TRANSNAMSIZ			16

/* RDS_INFO_CONNECTIONS item; addresses in network byte order. */
struct rds_info_connection {
	__u64	next_tx_seq;
	__u64	next_rx_seq;
	__be32	laddr;
	__be32	faddr;
	__u8	transport[TRANSNAMSIZ];
	__u8	flags;
	__u8	tos;
} __attribute__((packed));

/* RDS6_INFO_CONNECTIONS item; note there is no tos here. */
struct rds6_info_connection {
	__u64		next_tx_seq;
	__u64		next_rx_seq;
	struct in6_addr	laddr;
	struct in6_addr	faddr;
	__u8		transport[TRANSNAMSIZ];
	__u8		flags;
} __attribute__((packed));

/* Bits of rds{,6}_info_message.flags */
#define RDS_INFO_MESSAGE_FLAG_ACK	0x01
#define RDS_INFO_MESSAGE_FLAG_FAST_ACK	0x02

/* Item of the send, retransmit and receive queue tables. */
struct rds_info_message {
	__u64	seq;
	__u32	len;
	__be32	laddr;
	__be32	faddr;
	__be16	lport;
	__be16	fport;
	__u8	flags;
	__u8	tos;
} __attribute__((packed));

struct rds6_info_message {
	__u64		seq;
	__u32		len;
	struct in6_addr	laddr;
	struct in6_addr	faddr;
	__be16		lport;
	__be16		fport;
	__u8		flags;
	__u8		tos;
} __attribute__((packed));

/* RDS_INFO_SOCKETS item; inum is the socket's inode number. */
struct rds_info_socket {
	__u32	sndbuf;
	__be32	bound_addr;
	__be32	connected_addr;
	__be16	bound_port;
	__be16	connected_port;
	__u32	rcvbuf;
	__u64	inum;
} __attribute__((packed));

struct rds6_info_socket {
	__u32		sndbuf;
	struct in6_addr	bound_addr;
	struct in6_addr	connected_addr;
	__be16		bound_port;
	__be16		connected_port;
	__u32		rcvbuf;
	__u64		inum;
} __attribute__((packed));

/*
 * RDS_INFO_TCP_SOCKETS item: one per TCP connection carrying RDS, with the
 * bytes still expected of the current header and payload, and the sequence
 * numbers the sender uses to retire acknowledged messages.
 */
struct rds_info_tcp_socket {
	__be32	local_addr;
	__be16	local_port;
	__be32	peer_addr;
	__be16	peer_port;
	__u64	hdr_rem;
	__u64	data_rem;
	__u32	last_sent_nxt;
	__u32	last_expected_una;
	__u32	last_seen_una;
	__u8	tos;
} __attribute__((packed));

/* IPv6 flavour; it has no tos. */
struct rds6_info_tcp_socket {
	struct in6_addr	local_addr;
	__be16		local_port;
	struct in6_addr	peer_addr;
	__be16		peer_port;
	__u64		hdr_rem;
	__u64		data_rem;
	__u32		last_sent_nxt;
	__u32		last_expected_una;
	__u32		last_seen_una;
} __attribute__((packed));

#define RDS_IB_GID_LEN			16

/*
 * RDS_INFO_IB_CONNECTIONS item. Unlike the other items these two are NOT
 * packed: natural alignment puts two bytes of padding after sl.
 */
struct rds_info_rdma_connection {
	__be32	src_addr;
	__be32	dst_addr;
	__u8	src_gid[RDS_IB_GID_LEN];
	__u8	dst_gid[RDS_IB_GID_LEN];
	__u32	max_send_wr;
	__u32	max_recv_wr;
	__u32	max_send_sge;
	__u32	rdma_mr_max;
	__u32	rdma_mr_size;
	__u8	tos;
	__u8	sl;
	__u32	cache_allocs;
};

struct rds6_info_rdma_connection {
	struct in6_addr	src_addr;
	struct in6_addr	dst_addr;
	__u8		src_gid[RDS_IB_GID_LEN];
	__u8		dst_gid[RDS_IB_GID_LEN];
	__u32		max_send_wr;
	__u32		max_recv_wr;
	__u32		max_send_sge;
	__u32		rdma_mr_max;
	__u32		rdma_mr_size;
	__u8		tos;
	__u8		sl;
	__u32		cache_allocs;
};

/* Room for a reason such as "heartbeat timeout", NUL included. */
#define RDS_INFO_REASON_LEN		40

/* rds_info_path.state */
#define RDS_INFO_PATH_DOWN		0
#define RDS_INFO_PATH_CONNECTING	1
#define RDS_INFO_PATH_DISCONNECTING	2
#define RDS_INFO_PATH_UP		3
#define RDS_INFO_PATH_ERROR		4

/*
 * RDS_INFO_PATHS item (this implementation only): one per path (lane) of
 * each connection. resets counts the times the path was lost while up;
 * last_reset_time (seconds since the epoch, 0 for never) and
 * last_reset_reason (NUL padded: "heartbeat timeout", "device removal",
 * ...) say when and why the last time. connect_failures counts the
 * attempts that failed before the path came up, last_connect_error the
 * last one's reason. The reasons are those of the rds_path_drop trace
 * event.
 */
struct rds_info_path {
	struct in6_addr	laddr;
	struct in6_addr	faddr;
	__u8		transport[TRANSNAMSIZ];
	__u8		tos;
	__u8		index;
	__u8		state;
	__u8		pad;
	__u64		next_tx_seq;
	__u64		next_rx_seq;
	__u64		connect_attempts;
	__u64		connect_failures;
	__u64		resets;
	__s64		last_reset_time;
	__u8		last_reset_reason[RDS_INFO_REASON_LEN];
	__u8		last_connect_error[RDS_INFO_REASON_LEN];
} __attribute__((packed));

/*
 * RDS_INFO_SOCKET_DROPS item (this implementation only): one per socket,
 * its messages that were not delivered, by reason. Received for it:
 * recv_rcvbuf, dropped because its receive buffer was full. Sent by it:
 * send_reset, an RDMA operation that had gone out when its connection
 * reset (the message is not sent again; RDS_RDMA_DROPPED); send_purged,
 * queued when its connection was destroyed (RDS_RDMA_CANCELED: the
 * address went away, the namespace or the transport module exited);
 * send_canceled, taken back by RDS_CANCEL_SENT_TO.
 */
struct rds_info_socket_drops {
	struct in6_addr	bound_addr;
	__be16		bound_port;
	__u16		pad;
	__u32		pad2;
	__u64		inum;
	__u64		recv_rcvbuf;
	__u64		send_reset;
	__u64		send_purged;
	__u64		send_canceled;
} __attribute__((packed));

/* Room for a device name, NUL included: an RDMA device's is the longest. */
#define RDS_INFO_DEVNAMSIZ		64

/* rds_info_carrier.flags: the path is on its home carrier. */
#define RDS_INFO_CARRIER_HOME		0x01

/*
 * RDS_INFO_CARRIERS item (this implementation only): one per path of each
 * connection, what the path sends through. transport is the connection's
 * own (its home), carrier the transport of the carrier the path is on,
 * device and port the RDMA device and port that carrier uses (empty and 0
 * where there is none, and for now always). A failover moves a path to
 * another carrier: moves counts the times, last_move_time (seconds since
 * the epoch, 0 for never) says when the last was. Until this
 * implementation moves paths every one is on its home carrier
 * (RDS_INFO_CARRIER_HOME), never moved.
 */
struct rds_info_carrier {
	struct in6_addr	laddr;
	struct in6_addr	faddr;
	__u8		transport[TRANSNAMSIZ];
	__u8		carrier[TRANSNAMSIZ];
	__u8		device[RDS_INFO_DEVNAMSIZ];
	__u8		tos;
	__u8		index;
	__u8		flags;
	__u8		pad;
	__u32		port;
	__u64		moves;
	__s64		last_move_time;
} __attribute__((packed));

/* Points on the receive path that can be timestamped, in order. */
enum rds_message_rxpath_latency {
	RDS_MSG_RX_HDR_TO_DGRAM_START = 0,
	RDS_MSG_RX_DGRAM_REASSEMBLE,
	RDS_MSG_RX_DGRAM_DELIVERED,
	RDS_MSG_RX_DGRAM_TRACE_MAX
};

/* SO_RDS_MSG_RXPATH_LATENCY value: how many points, and which ones. */
struct rds_rx_trace_so {
	__u8	rx_traces;
	__u8	rx_trace_pos[RDS_MSG_RX_DGRAM_TRACE_MAX];
};

/* RDS_CMSG_RXPATH_LATENCY payload: the latencies in nanoseconds. */
struct rds_cmsg_rx_trace {
	__u8	rx_traces;
	__u8	rx_trace_pos[RDS_MSG_RX_DGRAM_TRACE_MAX];
	__u64	rx_trace[RDS_MSG_RX_DGRAM_TRACE_MAX];
};

/*
 * Congestion monitoring. Congestion is tracked per peer as a bitmap of
 * ports. RDS_CONG_MONITOR is an int: non-zero turns monitoring on. A
 * monitoring socket whose non-blocking send is refused with ENOBUFS notes
 * the port's group, bit (port % 64) of a 64-bit mask, and gets an
 * RDS_CMSG_CONG_UPDATE carrying the mask of the noted groups whenever a port
 * of one of them becomes uncongested (each group once per refusal).
 */
#define RDS_CONG_MONITOR_SIZE		64
#define RDS_CONG_MONITOR_BIT(port)	(((unsigned int)port) % RDS_CONG_MONITOR_SIZE)
#define RDS_CONG_MONITOR_MASK(port)	(1ULL << RDS_CONG_MONITOR_BIT(port))

/*
 * RDMA. A cookie names a registered remote memory region (its key and an
 * offset into it); it travels opaque to the application.
 */
typedef __u64 rds_rdma_cookie_t;

/* One user memory range; addr is a user pointer cast to 64 bits. */
struct rds_iovec {
	__u64	addr;
	__u64	bytes;
};

/* RDS_GET_MR: register vec, write the cookie to user address cookie_addr. */
struct rds_get_mr_args {
	struct rds_iovec	vec;
	__u64			cookie_addr;
	__u64			flags;
};

/* RDS_GET_MR_FOR_DEST: as above, on the device that reaches dest_addr. */
struct rds_get_mr_for_dest_args {
	struct __kernel_sockaddr_storage	dest_addr;
	struct rds_iovec			vec;
	__u64					cookie_addr;
	__u64					flags;
};

/* RDS_FREE_MR */
struct rds_free_mr_args {
	rds_rdma_cookie_t	cookie;
	__u64			flags;
};

/* RDS_CMSG_RDMA_ARGS: local_vec_addr points at nr_local struct rds_iovec. */
struct rds_rdma_args {
	rds_rdma_cookie_t	cookie;
	struct rds_iovec	remote_vec;
	__u64			local_vec_addr;
	__u64			nr_local;
	__u64			flags;
	__u64			user_token;
};

/* RDS_CMSG_*ATOMIC_*: one 8-byte operation on the remote region. */
struct rds_atomic_args {
	rds_rdma_cookie_t	cookie;
	__u64			local_addr;
	__u64			remote_addr;
	union {
		struct {
			__u64	compare;
			__u64	swap;
		} cswp;
		struct {
			__u64	add;
		} fadd;
		struct {
			__u64	compare;
			__u64	swap;
			__u64	compare_mask;
			__u64	swap_mask;
		} m_cswp;
		struct {
			__u64	add;
			__u64	nocarry_mask;
		} m_fadd;
	};
	__u64			flags;
	__u64			user_token;
};

/* RDS_CMSG_RDMA_STATUS: user_token of the operation and an RDS_RDMA_* code. */
struct rds_rdma_notify {
	__u64	user_token;
	__s32	status;
};

#define RDS_RDMA_SUCCESS		0
#define RDS_RDMA_REMOTE_ERROR		1
#define RDS_RDMA_CANCELED		2
#define RDS_RDMA_DROPPED		3
#define RDS_RDMA_OTHER_ERROR		4

/* Up to this many completed zerocopy sends are reported per cmsg. */
#define RDS_MAX_ZCOOKIES		8
struct rds_zcopy_cookies {
	__u32	num;
	__u32	cookies[RDS_MAX_ZCOOKIES];
};

/* Flags shared by all the RDMA argument structs above. */
#define RDS_RDMA_READWRITE		0x0001	/* remote side may write */
#define RDS_RDMA_FENCE			0x0002	/* order after earlier RDMA */
#define RDS_RDMA_INVALIDATE		0x0004	/* drop the key on free */
#define RDS_RDMA_USE_ONCE		0x0008	/* free the MR after one use */
#define RDS_RDMA_DONTWAIT		0x0010	/* don't wait for completion */
#define RDS_RDMA_NOTIFY_ME		0x0020	/* post RDMA_STATUS when done */
#define RDS_RDMA_SILENT			0x0040	/* don't interrupt the peer */

#endif /* _LINUX_RDS_H */
