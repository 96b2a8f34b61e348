// SPDX-License-Identifier: GPL-2.0
/* /proc/sys/net/rds/ib: ring sizes, retries, ACK timeout and flow control,
 * global as in-tree, read when a queue pair is built (a change applies to
 * the next connection); max_recv_allocation and max_mrs_per_device apply
 * at once, and so do the accept limits (ours), global too but counted per
 * netns: a lower limit refuses new requests and drops nothing accepted.
 */
#include <linux/mm.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>
#include <rds/compat.h>

#include "ib.h"

unsigned long rds_ib_sysctl_max_send_wr = RDS_IB_DEFAULT_SEND_WR;
unsigned long rds_ib_sysctl_max_recv_wr = RDS_IB_DEFAULT_RECV_WR;
unsigned long rds_ib_sysctl_max_unsig_wrs = RDS_IB_DEFAULT_UNSIG_WR;
unsigned int rds_ib_sysctl_retry_count = RDS_IB_DEFAULT_RETRY_COUNT;
/* 0: rdma_cm's own, as in-tree (which has no such knob). */
unsigned int rds_ib_sysctl_ack_timeout;
/* Off by default, as in-tree: a connection uses it if both sides ask. */
unsigned int rds_ib_sysctl_flow_control;
/* Receive pages all connections together may hold; a ring always gets
 * pages up to its own size, beyond it only under this (recv.c).  Set at
 * init.
 */
unsigned long rds_ib_sysctl_max_recv_allocation;
/* Ours: bytes all rings of the host may pin, and one netns's rings (mem.c);
 * they apply to the next connection.  Set at init.
 */
unsigned long rds_ib_sysctl_max_ring_memory;
unsigned long rds_ib_sysctl_max_ring_memory_netns;
/* Ours: connections receive into their domain's shared receive queue
 * where the device has one (srq.c), of srq_max_wr slots; both apply to
 * the next connection (an SRQ's size to the next SRQ made).
 */
unsigned int rds_ib_sysctl_srq = 1;
unsigned long rds_ib_sysctl_srq_max_wr = RDS_IB_DEFAULT_SRQ_WR;
/* Ours: fragments of messages of a fragment or more sent from the
 * message's own pages, not copies (send.c); on by default since it won in
 * make bench (performance.rst, variants-1); applies to the next
 * connection.
 */
unsigned int rds_ib_sysctl_send_zerocopy = 1;
/* Ours: freed receive pages kept for the refill (recv.c); off by default
 * until it wins in make bench; applies at once.
 */
unsigned int rds_ib_sysctl_recv_page_cache;
/* Regions mapped on one device at most (mr.c); applies at once. */
unsigned int rds_ib_sysctl_max_mrs_per_device = RDS_IB_DEFAULT_MAX_MRS;
/* Of those, regions one netns maps on one device at most; applies at once. */
unsigned int rds_ib_sysctl_max_mrs_per_netns = RDS_IB_DEFAULT_MAX_MRS_NETNS;
unsigned int rds_ib_sysctl_max_accepted_per_peer = RDS_IB_DEFAULT_ACCEPT_PER_PEER;
/* Set at init. */
unsigned int rds_ib_sysctl_max_accepted;

static unsigned long rds_ib_wr_min = 1;
static unsigned long rds_ib_wr_max = U32_MAX;
static unsigned long rds_ib_unsig_min = 1;
static unsigned long rds_ib_unsig_max = 64;
static unsigned int rds_ib_retry_max = 7;
static unsigned int rds_ib_ack_timeout_max = 31;	/* 5 bits on the wire */

static struct ctl_table_header *rds_ib_sysctl_hdr;

/* ring_memory, read only: bytes the rings pin now (mem.c). */
static int rds_ib_ring_memory_show(RDS_COMPAT_CTL_CONST struct ctl_table *table,
				   int write, void *buffer, size_t *lenp,
				   loff_t *ppos)
{
	unsigned long bytes = rds_ib_mem_pages() << PAGE_SHIFT;
	struct ctl_table t = *table;

	t.data = &bytes;
	return proc_doulongvec_minmax(&t, write, buffer, lenp, ppos);
}

static struct ctl_table rds_ib_sysctl_table[] = {
	{
		.procname	= "max_send_wr",
		.data		= &rds_ib_sysctl_max_send_wr,
		.maxlen		= sizeof(unsigned long),
		.mode		= 0644,
		.proc_handler	= proc_doulongvec_minmax,
		.extra1		= &rds_ib_wr_min,
		.extra2		= &rds_ib_wr_max,
	},
	{
		.procname	= "max_recv_wr",
		.data		= &rds_ib_sysctl_max_recv_wr,
		.maxlen		= sizeof(unsigned long),
		.mode		= 0644,
		.proc_handler	= proc_doulongvec_minmax,
		.extra1		= &rds_ib_wr_min,
		.extra2		= &rds_ib_wr_max,
	},
	{
		.procname	= "max_unsignaled_wr",
		.data		= &rds_ib_sysctl_max_unsig_wrs,
		.maxlen		= sizeof(unsigned long),
		.mode		= 0644,
		.proc_handler	= proc_doulongvec_minmax,
		.extra1		= &rds_ib_unsig_min,
		.extra2		= &rds_ib_unsig_max,
	},
	{
		.procname	= "retry_count",
		.data		= &rds_ib_sysctl_retry_count,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &rds_ib_retry_max,
	},
	{
		.procname	= "ack_timeout",
		.data		= &rds_ib_sysctl_ack_timeout,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &rds_ib_ack_timeout_max,
	},
	{
		.procname	= "flow_control",
		.data		= &rds_ib_sysctl_flow_control,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
	{
		.procname	= "max_recv_allocation",
		.data		= &rds_ib_sysctl_max_recv_allocation,
		.maxlen		= sizeof(unsigned long),
		.mode		= 0644,
		.proc_handler	= proc_doulongvec_minmax,
	},
	{
		.procname	= "max_ring_memory",
		.data		= &rds_ib_sysctl_max_ring_memory,
		.maxlen		= sizeof(unsigned long),
		.mode		= 0644,
		.proc_handler	= proc_doulongvec_minmax,
	},
	{
		.procname	= "max_ring_memory_per_netns",
		.data		= &rds_ib_sysctl_max_ring_memory_netns,
		.maxlen		= sizeof(unsigned long),
		.mode		= 0644,
		.proc_handler	= proc_doulongvec_minmax,
	},
	{
		.procname	= "ring_memory",
		.maxlen		= sizeof(unsigned long),
		.mode		= 0444,
		.proc_handler	= rds_ib_ring_memory_show,
	},
	{
		.procname	= "srq",
		.data		= &rds_ib_sysctl_srq,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
	{
		.procname	= "send_zerocopy",
		.data		= &rds_ib_sysctl_send_zerocopy,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
	{
		.procname	= "recv_page_cache",
		.data		= &rds_ib_sysctl_recv_page_cache,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
	{
		.procname	= "srq_max_wr",
		.data		= &rds_ib_sysctl_srq_max_wr,
		.maxlen		= sizeof(unsigned long),
		.mode		= 0644,
		.proc_handler	= proc_doulongvec_minmax,
		.extra1		= &rds_ib_wr_min,
		.extra2		= &rds_ib_wr_max,
	},
	{
		.procname	= "max_mrs_per_device",
		.data		= &rds_ib_sysctl_max_mrs_per_device,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec,
	},
	{
		.procname	= "max_mrs_per_netns",
		.data		= &rds_ib_sysctl_max_mrs_per_netns,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec,
	},
	{
		.procname	= "max_accepted_per_peer",
		.data		= &rds_ib_sysctl_max_accepted_per_peer,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ONE,
	},
	{
		.procname	= "max_accepted",
		.data		= &rds_ib_sysctl_max_accepted,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ONE,
	},
	{ }
};

/* Every accepted connection has a send ring of its own (1 MiB at the
 * default size) which nothing else bounds, unlike its receive pages
 * (max_recv_allocation): at most a quarter of memory goes to those rings
 * by default, but never fewer than 256 connections, nor more than
 * RDS_IB_DEFAULT_ACCEPT_MAX.
 */
static unsigned int rds_ib_default_max_accepted(const struct sysinfo *si)
{
	unsigned long ring = RDS_IB_DEFAULT_SEND_WR * RDS_FRAG_SIZE;
	unsigned long n = si->totalram / 4 / (ring / PAGE_SIZE);

	return clamp_t(unsigned long, n, 256, RDS_IB_DEFAULT_ACCEPT_MAX);
}

int rds_ib_sysctl_init(void)
{
	struct sysinfo si;

	/* A third of memory, as in-tree. */
	si_meminfo(&si);
	rds_ib_sysctl_max_recv_allocation = si.totalram / 3 * PAGE_SIZE /
					    RDS_FRAG_SIZE;
	rds_ib_sysctl_max_accepted = rds_ib_default_max_accepted(&si);
	/* An eighth of memory for all rings, half of that for one netns. */
	rds_ib_sysctl_max_ring_memory = si.totalram / 8 * PAGE_SIZE;
	rds_ib_sysctl_max_ring_memory_netns = rds_ib_sysctl_max_ring_memory / 2;
	/* The sentinel is not an entry: 6.11 and later check every one. */
	rds_ib_sysctl_hdr = rds_compat_register_net_sysctl(&init_net, "net/rds/ib",
							   rds_ib_sysctl_table,
							   ARRAY_SIZE(rds_ib_sysctl_table) - 1);
	return rds_ib_sysctl_hdr ? 0 : -ENOMEM;
}

void rds_ib_sysctl_exit(void)
{
	unregister_net_sysctl_table(rds_ib_sysctl_hdr);
}
