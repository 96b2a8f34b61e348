// SPDX-License-Identifier: GPL-2.0
/* The tunables under /proc/sys/net/rds.  They are global (registered in
 * init_net only), like the module parameters they replace: every netns
 * shares one reconnect policy and one ack policy.
 */
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>

#include <rds/compat.h>
#include <rds/transport.h>
#include "heartbeat.h"
#include "sndbuf.h"
#include "sysctl.h"

/* The defaults and ranges are in-tree's, so that a tuning that works there
 * works here: the reconnect backoff starts at one jiffy and doubles up to a
 * second; the unacked limits and ping_enable take any int.
 */
unsigned long rds_sysctl_reconnect_min_jiffies;
EXPORT_SYMBOL_GPL(rds_sysctl_reconnect_min_jiffies);
unsigned long rds_sysctl_reconnect_max_jiffies = HZ;
EXPORT_SYMBOL_GPL(rds_sysctl_reconnect_max_jiffies);

unsigned int rds_sysctl_max_unacked_packets = 8;
unsigned int rds_sysctl_max_unacked_bytes = 16 << 20;
unsigned int rds_sysctl_ping_enable = 1;
/* Ours: in-tree bounds the regions of a device only.  A socket may hold
 * many, and RLIMIT_MEMLOCK bounds them only for users without
 * CAP_IPC_LOCK; this bounds what one socket takes of its device's.
 */
unsigned int rds_sysctl_max_mrs_per_socket = 65536;

/* 64 send buffers of at most INT_MAX / 2 bytes fit rs_snd_bytes easily. */
static unsigned int rds_sndbuf_dests_max = 64;

static unsigned long rds_reconnect_floor;	/* jiffies, set at init */
static unsigned long rds_reconnect_ceiling = ~0UL;

/* Keeps min <= max: each of the two is bounded by the current value of the
 * other.  The mutex makes the check and the store of one writer atomic
 * against the other writer.
 */
static DEFINE_MUTEX(rds_sysctl_reconnect_mutex);

static int rds_sysctl_reconnect(RDS_COMPAT_CTL_CONST struct ctl_table *table,
				int write, void *buffer, size_t *lenp, loff_t *ppos)
{
	struct ctl_table t = *table;
	int ret;

	mutex_lock(&rds_sysctl_reconnect_mutex);
	if (table->data == &rds_sysctl_reconnect_min_jiffies) {
		t.extra1 = &rds_reconnect_floor;
		t.extra2 = &rds_sysctl_reconnect_max_jiffies;
	} else {
		t.extra1 = &rds_sysctl_reconnect_min_jiffies;
		t.extra2 = &rds_reconnect_ceiling;
	}
	ret = proc_doulongvec_ms_jiffies_minmax(&t, write, buffer, lenp, ppos);
	mutex_unlock(&rds_sysctl_reconnect_mutex);
	return ret;
}

/* A day, in seconds: past that a heartbeat is no heartbeat. */
static unsigned int rds_hb_max = 86400;

/* Paths that are UP start or stop at once, not at their next connect. */
static int rds_sysctl_hb(RDS_COMPAT_CTL_CONST struct ctl_table *table,
			 int write, void *buffer, size_t *lenp, loff_t *ppos)
{
	int ret = proc_douintvec_minmax(table, write, buffer, lenp, ppos);

	if (!ret && write)
		rds_hb_sysctl_changed();
	return ret;
}

static struct ctl_table rds_sysctl_table[] = {
	{
		.procname	= "reconnect_min_delay_ms",
		.data		= &rds_sysctl_reconnect_min_jiffies,
		.maxlen		= sizeof(unsigned long),
		.mode		= 0644,
		.proc_handler	= rds_sysctl_reconnect,
	},
	{
		.procname	= "reconnect_max_delay_ms",
		.data		= &rds_sysctl_reconnect_max_jiffies,
		.maxlen		= sizeof(unsigned long),
		.mode		= 0644,
		.proc_handler	= rds_sysctl_reconnect,
	},
	{
		.procname	= "max_unacked_packets",
		.data		= &rds_sysctl_max_unacked_packets,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec,
	},
	{
		.procname	= "max_unacked_bytes",
		.data		= &rds_sysctl_max_unacked_bytes,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec,
	},
	{
		.procname	= "ping_enable",
		.data		= &rds_sysctl_ping_enable,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec,
	},
	{
		.procname	= "conn_heartbeat_interval_secs",
		.data		= &rds_sysctl_hb_interval,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= rds_sysctl_hb,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &rds_hb_max,
	},
	{
		.procname	= "conn_heartbeat_timeout_secs",
		.data		= &rds_sysctl_hb_timeout,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= rds_sysctl_hb,
		.extra1		= SYSCTL_ONE,
		.extra2		= &rds_hb_max,
	},
	{
		.procname	= "sndbuf_dests",
		.data		= &rds_sysctl_sndbuf_dests,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ONE,
		.extra2		= &rds_sndbuf_dests_max,
	},
	{
		.procname	= "max_mrs_per_socket",
		.data		= &rds_sysctl_max_mrs_per_socket,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec,
	},
	{ }
};

static struct ctl_table_header *rds_sysctl_header;

int rds_sysctl_init(void)
{
	/* 1 ms rounds up to one jiffy: 0 would mean "reconnect in a loop". */
	rds_reconnect_floor = msecs_to_jiffies(1);
	rds_sysctl_reconnect_min_jiffies = rds_reconnect_floor;

	rds_sysctl_header = rds_compat_register_net_sysctl(&init_net, "net/rds", rds_sysctl_table,
							   ARRAY_SIZE(rds_sysctl_table) - 1);
	return rds_sysctl_header ? 0 : -ENOMEM;
}

void rds_sysctl_exit(void)
{
	unregister_net_sysctl_table(rds_sysctl_header);
}
