/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rds_tcp.ko's trace events, in rds.ko's system "rds" (net/rds/trace.h):
 * the TCP connections under RDS paths, made, accepted and shut down.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rds

#if !defined(_RDS_TCP_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _RDS_TCP_TRACE_H

#include <linux/tracepoint.h>
#include <rds/trace_conn.h>

/* Our connect of a path, from @sport: 0 when under way, else the error
 * (the path is tried again after the reconnect backoff).
 */
TRACE_EVENT(rds_tcp_connect,
	TP_PROTO(struct rds_conn_path *cp, u16 sport, int err),
	TP_ARGS(cp, sport, err),
	TP_STRUCT__entry(
		RDS_TRACE_CONN_ENTRY
		__field(u8, path)
		__field(u16, sport)
		__field(int, err)
	),
	TP_fast_assign(
		RDS_TRACE_CONN_ASSIGN(cp->cp_conn);
		__entry->path = cp->cp_index;
		__entry->sport = sport;
		__entry->err = err;
	),
	TP_printk(RDS_TRACE_CONN_FMT " path=%u sport=%u err=%d",
		  RDS_TRACE_CONN_ARGS, __entry->path, __entry->sport,
		  __entry->err)
);

/* A connection the peer made from @sport: taken for path @path, or (path
 * -1) refused, and why.
 */
TRACE_EVENT(rds_tcp_accept,
	TP_PROTO(struct rds_connection *conn, u16 sport, int path,
		 const char *what),
	TP_ARGS(conn, sport, path, what),
	TP_STRUCT__entry(
		RDS_TRACE_CONN_ENTRY
		__field(u16, sport)
		__field(int, path)
		__array(char, what, RDS_TRACE_REASON_LEN)
	),
	TP_fast_assign(
		RDS_TRACE_CONN_ASSIGN(conn);
		__entry->sport = sport;
		__entry->path = path;
		strscpy(__entry->what, what, RDS_TRACE_REASON_LEN);
	),
	TP_printk(RDS_TRACE_CONN_FMT " sport=%u path=%d %s",
		  RDS_TRACE_CONN_ARGS, __entry->sport, __entry->path,
		  __entry->what)
);

/* A path's TCP socket is let go (the path goes down). */
TRACE_EVENT(rds_tcp_shutdown,
	TP_PROTO(struct rds_conn_path *cp),
	TP_ARGS(cp),
	TP_STRUCT__entry(
		RDS_TRACE_CONN_ENTRY
		__field(u8, path)
	),
	TP_fast_assign(
		RDS_TRACE_CONN_ASSIGN(cp->cp_conn);
		__entry->path = cp->cp_index;
	),
	TP_printk(RDS_TRACE_CONN_FMT " path=%u", RDS_TRACE_CONN_ARGS,
		  __entry->path)
);

#endif /* _RDS_TCP_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
