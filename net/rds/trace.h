/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trace events of rds.ko, system "rds" (the transports add their own
 * rds_tcp_* and rds_ib_* events to it): /sys/kernel/tracing/events/rds/.
 * Each says which connection (RDS_TRACE_CONN_ENTRY) and, for a drop or a
 * reset, why, in the words the counters and the kernel log use.  Off, an
 * event costs a patched-out branch.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rds

#if !defined(_RDS_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _RDS_TRACE_H

#include <linux/tracepoint.h>
#include <rds/trace_conn.h>

#define RDS_TRACE_PATH_STATES					\
	{ RDS_CONN_DOWN,		"down" },		\
	{ RDS_CONN_CONNECTING,		"connecting" },		\
	{ RDS_CONN_DISCONNECTING,	"disconnecting" },	\
	{ RDS_CONN_UP,			"up" },			\
	{ RDS_CONN_ERROR,		"error" }

/* A path moved from one state to another (rds_conn_path_transition()). */
TRACE_EVENT(rds_path_state,
	TP_PROTO(struct rds_conn_path *cp, int old, int new),
	TP_ARGS(cp, old, new),
	TP_STRUCT__entry(
		RDS_TRACE_CONN_ENTRY
		__field(u8, path)
		__field(int, old)
		__field(int, new)
	),
	TP_fast_assign(
		RDS_TRACE_CONN_ASSIGN(cp->cp_conn);
		__entry->path = cp->cp_index;
		__entry->old = old;
		__entry->new = new;
	),
	TP_printk(RDS_TRACE_CONN_FMT " path=%u %s->%s", RDS_TRACE_CONN_ARGS,
		  __entry->path,
		  __print_symbolic(__entry->old, RDS_TRACE_PATH_STATES),
		  __print_symbolic(__entry->new, RDS_TRACE_PATH_STATES))
);

/* A path that was up or connecting is dropped, and why: the peer reset
 * it, a heartbeat went unanswered, its device went away, a bad header...
 */
TRACE_EVENT(rds_path_drop,
	TP_PROTO(struct rds_conn_path *cp, const char *why),
	TP_ARGS(cp, why),
	TP_STRUCT__entry(
		RDS_TRACE_CONN_ENTRY
		__field(u8, path)
		__array(char, why, RDS_TRACE_REASON_LEN)
	),
	TP_fast_assign(
		RDS_TRACE_CONN_ASSIGN(cp->cp_conn);
		__entry->path = cp->cp_index;
		strscpy(__entry->why, why, RDS_TRACE_REASON_LEN);
	),
	TP_printk(RDS_TRACE_CONN_FMT " path=%u why=\"%s\"", RDS_TRACE_CONN_ARGS,
		  __entry->path, __entry->why)
);

/* A received message not delivered, and why, by the name of the counter
 * that counts it (recv_drop_no_sock, recv_drop_rcvbuf, ...).
 */
TRACE_EVENT(rds_recv_drop,
	TP_PROTO(struct rds_conn_path *cp, const struct rds_header *hdr,
		 const char *reason),
	TP_ARGS(cp, hdr, reason),
	TP_STRUCT__entry(
		RDS_TRACE_CONN_ENTRY
		__field(u8, path)
		__field(u16, sport)
		__field(u16, dport)
		__field(u64, seq)
		__field(u32, len)
		__array(char, reason, RDS_TRACE_REASON_LEN)
	),
	TP_fast_assign(
		RDS_TRACE_CONN_ASSIGN(cp->cp_conn);
		__entry->path = cp->cp_index;
		__entry->sport = be16_to_cpu(hdr->h_sport);
		__entry->dport = be16_to_cpu(hdr->h_dport);
		__entry->seq = be64_to_cpu(hdr->h_sequence);
		__entry->len = be32_to_cpu(hdr->h_len);
		strscpy(__entry->reason, reason, RDS_TRACE_REASON_LEN);
	),
	TP_printk(RDS_TRACE_CONN_FMT " path=%u sport=%u dport=%u seq=%llu len=%u reason=%s",
		  RDS_TRACE_CONN_ARGS, __entry->path, __entry->sport,
		  __entry->dport, __entry->seq, __entry->len, __entry->reason)
);

/* A path starts over: @nr messages sent but not acknowledged go again. */
TRACE_EVENT(rds_retransmit,
	TP_PROTO(struct rds_conn_path *cp, unsigned int nr),
	TP_ARGS(cp, nr),
	TP_STRUCT__entry(
		RDS_TRACE_CONN_ENTRY
		__field(u8, path)
		__field(unsigned int, nr)
	),
	TP_fast_assign(
		RDS_TRACE_CONN_ASSIGN(cp->cp_conn);
		__entry->path = cp->cp_index;
		__entry->nr = nr;
	),
	TP_printk(RDS_TRACE_CONN_FMT " path=%u messages=%u", RDS_TRACE_CONN_ARGS,
		  __entry->path, __entry->nr)
);

#define RDS_TRACE_HB_SENT	0
#define RDS_TRACE_HB_ANSWERED	1
#define RDS_TRACE_HB_TIMEOUT	2

/* Our heartbeat on an idle path: a ping sent, its answer (anything heard
 * from the peer), or no answer within conn_heartbeat_timeout_secs.
 */
TRACE_EVENT(rds_heartbeat,
	TP_PROTO(struct rds_conn_path *cp, int what),
	TP_ARGS(cp, what),
	TP_STRUCT__entry(
		RDS_TRACE_CONN_ENTRY
		__field(u8, path)
		__field(int, what)
	),
	TP_fast_assign(
		RDS_TRACE_CONN_ASSIGN(cp->cp_conn);
		__entry->path = cp->cp_index;
		__entry->what = what;
	),
	TP_printk(RDS_TRACE_CONN_FMT " path=%u %s", RDS_TRACE_CONN_ARGS,
		  __entry->path,
		  __print_symbolic(__entry->what,
				   { RDS_TRACE_HB_SENT, "sent" },
				   { RDS_TRACE_HB_ANSWERED, "answered" },
				   { RDS_TRACE_HB_TIMEOUT, "timeout" }))
);

/* The peer's congestion map came: @congested of its ports are now full,
 * @changed ports flipped since the last map.
 */
TRACE_EVENT(rds_cong_update,
	TP_PROTO(struct rds_connection *conn, unsigned int congested,
		 unsigned int changed),
	TP_ARGS(conn, congested, changed),
	TP_STRUCT__entry(
		RDS_TRACE_CONN_ENTRY
		__field(unsigned int, congested)
		__field(unsigned int, changed)
	),
	TP_fast_assign(
		RDS_TRACE_CONN_ASSIGN(conn);
		__entry->congested = congested;
		__entry->changed = changed;
	),
	TP_printk(RDS_TRACE_CONN_FMT " congested=%u changed=%u",
		  RDS_TRACE_CONN_ARGS, __entry->congested, __entry->changed)
);

#define RDS_TRACE_MR_REGISTER	0
#define RDS_TRACE_MR_FREE	1
#define RDS_TRACE_MR_INVALIDATE	2
#define RDS_TRACE_MR_USED_ONCE	3
#define RDS_TRACE_MR_RELEASE	4

/* A memory region of a socket: registered (RDS_GET_MR and its kin),
 * freed (RDS_FREE_MR, or with RDS_RDMA_INVALIDATE: its key killed
 * first), used once by the peer's RDMA and so gone, or dropped with its
 * socket.  A region has no peer: the socket's bound address names it.
 */
TRACE_EVENT(rds_mr,
	TP_PROTO(struct net *net, const struct in6_addr *laddr, u32 key,
		 unsigned int pages, int what),
	TP_ARGS(net, laddr, key, pages, what),
	TP_STRUCT__entry(
		__field(unsigned int, netns)
		__array(u8, laddr, RDS_TRACE_ADDR_LEN)
		__field(u32, key)
		__field(unsigned int, pages)
		__field(int, what)
	),
	TP_fast_assign(
		__entry->netns = net->ns.inum;
		rds_trace_addr(__entry->laddr, laddr);
		__entry->key = key;
		__entry->pages = pages;
		__entry->what = what;
	),
	TP_printk("netns=%u %pISc key=%#x pages=%u %s", __entry->netns,
		  __entry->laddr, __entry->key, __entry->pages,
		  __print_symbolic(__entry->what,
				   { RDS_TRACE_MR_REGISTER, "register" },
				   { RDS_TRACE_MR_FREE, "free" },
				   { RDS_TRACE_MR_INVALIDATE, "invalidate" },
				   { RDS_TRACE_MR_USED_ONCE, "used-once" },
				   { RDS_TRACE_MR_RELEASE, "release" }))
);

#endif /* _RDS_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
