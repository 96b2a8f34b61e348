// SPDX-License-Identifier: GPL-2.0
/* net.rds.tcp.rds_tcp_sndbuf and rds_tcp_rcvbuf, per netns.  0 leaves the
 * socket buffers to TCP's autotuning.  A new value applies to new sockets,
 * so writing one resets the netns' RDS/TCP connections; their messages are
 * sent again after the reconnect.
 */
#include <linux/slab.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <rds/compat.h>

#include "tcp.h"

static void rds_tcp_reset_one(struct rds_connection *conn, void *arg)
{
	rds_conn_reset(conn);
}

static int rds_tcp_skbuf_handler(RDS_COMPAT_CTL_CONST struct ctl_table *ctl,
				 int write, void *buffer, size_t *lenp, loff_t *ppos)
{
	struct rds_tcp_net *rtn = ctl->extra1;
	int *valp = ctl->data;
	int val = READ_ONCE(*valp);
	struct ctl_table tmp = *ctl;
	int min, ret;

	tmp.data = &val;
	ret = proc_dointvec(&tmp, write, buffer, lenp, ppos);
	if (ret || !write)
		return ret;
	/* Like SO_SNDBUF/SO_RCVBUF: at least that buffer's socket minimum
	 * (in-tree's range), or 0.
	 */
	min = valp == &rtn->rtn_sndbuf ? SOCK_MIN_SNDBUF : SOCK_MIN_RCVBUF;
	if (val < 0 || (val > 0 && val < min))
		return -EINVAL;
	WRITE_ONCE(*valp, val);
	rds_conn_for_each(rtn->rtn_net, &rds_tcp_transport, rds_tcp_reset_one,
			  NULL);
	return 0;
}

static const struct ctl_table rds_tcp_sysctl_template[] = {
	{
		.procname	= "rds_tcp_sndbuf",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= rds_tcp_skbuf_handler,
	},
	{
		.procname	= "rds_tcp_rcvbuf",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= rds_tcp_skbuf_handler,
	},
	{ }
};

int rds_tcp_sysctl_init(struct rds_tcp_net *rtn)
{
	struct ctl_table *tbl;

	tbl = kmemdup(rds_tcp_sysctl_template, sizeof(rds_tcp_sysctl_template),
		      GFP_KERNEL);
	if (!tbl)
		return -ENOMEM;
	tbl[0].data = &rtn->rtn_sndbuf;
	tbl[0].extra1 = rtn;
	tbl[1].data = &rtn->rtn_rcvbuf;
	tbl[1].extra1 = rtn;

	rtn->rtn_sysctl = rds_compat_register_net_sysctl(rtn->rtn_net, "net/rds/tcp", tbl,
							 ARRAY_SIZE(rds_tcp_sysctl_template) - 1);
	if (!rtn->rtn_sysctl) {
		kfree(tbl);
		return -ENOMEM;
	}
	rtn->rtn_ctl = tbl;
	return 0;
}

void rds_tcp_sysctl_exit(struct rds_tcp_net *rtn)
{
	if (!rtn->rtn_sysctl)
		return;
	unregister_net_sysctl_table(rtn->rtn_sysctl);
	rtn->rtn_sysctl = NULL;
	kfree(rtn->rtn_ctl);
	rtn->rtn_ctl = NULL;
}
