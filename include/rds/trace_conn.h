/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every RDS trace event starts with: the connection, named by its
 * network namespace (the inode number `ls -L -i /proc/PID/ns/net` shows,
 * as `ip netns identify` matches it), both addresses and the type of
 * service.  Copied into the event, not pointed to: the trace buffer
 * outlives connections and modules.  Used inside TRACE_EVENT()s of the
 * modules' own trace headers (system "rds"), so the events of rds.ko,
 * rds_tcp.ko and rds_rdma.ko read alike.
 */
#ifndef _RDS_TRACE_CONN_H
#define _RDS_TRACE_CONN_H

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/string.h>
#include <net/ipv6.h>
#include <rds/transport.h>

/* An address as a socket address, for "%pISc": an IPv4 one (v4-mapped in
 * the connection) reads 192.0.2.1, not ::ffff:192.0.2.1.
 */
#define RDS_TRACE_ADDR_LEN	sizeof(struct sockaddr_in6)

static inline void rds_trace_addr(u8 *dst, const struct in6_addr *addr)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)dst;
	struct sockaddr_in *sin = (struct sockaddr_in *)dst;

	memset(dst, 0, RDS_TRACE_ADDR_LEN);
	if (ipv6_addr_v4mapped(addr)) {
		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = addr->s6_addr32[3];
	} else {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = *addr;
	}
}

#define RDS_TRACE_CONN_ENTRY					\
	__field(unsigned int, netns)				\
	__array(u8, laddr, RDS_TRACE_ADDR_LEN)			\
	__array(u8, faddr, RDS_TRACE_ADDR_LEN)			\
	__field(u8, tos)

#define RDS_TRACE_CONN_ASSIGN(conn) do {			\
	__entry->netns = rds_conn_net(conn)->ns.inum;		\
	rds_trace_addr(__entry->laddr, &(conn)->c_laddr);	\
	rds_trace_addr(__entry->faddr, &(conn)->c_faddr);	\
	__entry->tos = (conn)->c_tos;				\
} while (0)

#define RDS_TRACE_CONN_FMT	"netns=%u %pISc->%pISc tos=%u"
#define RDS_TRACE_CONN_ARGS						\
	__entry->netns, __entry->laddr, __entry->faddr, __entry->tos

/* Reasons and names are copied, at most this long, for the same reason. */
#define RDS_TRACE_REASON_LEN	40

#endif /* _RDS_TRACE_CONN_H */
