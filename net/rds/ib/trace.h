/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rds_rdma.ko's trace events, in rds.ko's system "rds" (net/rds/trace.h):
 * what rdma_cm tells a path, the connection requests we refuse, and
 * senders stalled for credits.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rds

#if !defined(_RDS_IB_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _RDS_IB_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/rdma_cm.h>
#include <rds/trace_conn.h>

/* An rdma_cm event for a path's id; @stale: for an id the path has
 * already let go of, and ignored.
 */
TRACE_EVENT(rds_ib_cm_event,
	TP_PROTO(struct rds_conn_path *cp, int event, int status, bool stale),
	TP_ARGS(cp, event, status, stale),
	TP_STRUCT__entry(
		RDS_TRACE_CONN_ENTRY
		__field(int, event)
		__field(int, status)
		__field(bool, stale)
		__array(char, name, RDS_TRACE_REASON_LEN)
	),
	TP_fast_assign(
		RDS_TRACE_CONN_ASSIGN(cp->cp_conn);
		__entry->event = event;
		__entry->status = status;
		__entry->stale = stale;
		strscpy(__entry->name, rdma_event_msg(event),
			RDS_TRACE_REASON_LEN);
	),
	TP_printk(RDS_TRACE_CONN_FMT " %s (%d) status=%d%s",
		  RDS_TRACE_CONN_ARGS, __entry->name, __entry->event,
		  __entry->status, __entry->stale ? " stale" : "")
);

/* A peer's connection request we refuse, and why.  The addresses are the
 * ones it asked for (zero when it did not say, or in a way we cannot
 * read); @reject is the reason code it is sent.
 */
TRACE_EVENT(rds_ib_cm_refuse,
	TP_PROTO(struct net *net, const struct in6_addr *laddr,
		 const struct in6_addr *faddr, int reject, const char *why),
	TP_ARGS(net, laddr, faddr, reject, why),
	TP_STRUCT__entry(
		__field(unsigned int, netns)
		__array(u8, laddr, RDS_TRACE_ADDR_LEN)
		__array(u8, faddr, RDS_TRACE_ADDR_LEN)
		__field(int, reject)
		__array(char, why, RDS_TRACE_REASON_LEN)
	),
	TP_fast_assign(
		__entry->netns = net->ns.inum;
		rds_trace_addr(__entry->laddr, laddr);
		rds_trace_addr(__entry->faddr, faddr);
		__entry->reject = reject;
		strscpy(__entry->why, why, RDS_TRACE_REASON_LEN);
	),
	TP_printk("netns=%u %pISc->%pISc reject=%d why=\"%s\"", __entry->netns,
		  __entry->laddr, __entry->faddr, __entry->reject, __entry->why)
);

/* A sender out of the peer's credits (flow control): the path waits for
 * an update.  @posted: our own receives the peer has not been told of.
 */
TRACE_EVENT(rds_ib_credit_stall,
	TP_PROTO(struct rds_conn_path *cp, unsigned int posted),
	TP_ARGS(cp, posted),
	TP_STRUCT__entry(
		RDS_TRACE_CONN_ENTRY
		__field(unsigned int, posted)
	),
	TP_fast_assign(
		RDS_TRACE_CONN_ASSIGN(cp->cp_conn);
		__entry->posted = posted;
	),
	TP_printk(RDS_TRACE_CONN_FMT " posted=%u", RDS_TRACE_CONN_ARGS,
		  __entry->posted)
);

#endif /* _RDS_IB_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
