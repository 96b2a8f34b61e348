// SPDX-License-Identifier: GPL-2.0
/* The registry of transport modules.  Loopback is not in it: it is part of
 * rds.ko, has no user visible id and is chosen by address, not by name.
 */
#include <linux/in.h>
#include <linux/kmod.h>
#include <linux/rwsem.h>
#include <net/ipv6.h>

#include "connection.h"
#include "loop.h"
#include "transports.h"

/* rds_trans_sem protects rds_transports[].  Readers call a transport's
 * laddr_check() and stats_info_copy() under it, so those must not take a
 * lock that is held around rds_trans_register()/unregister().
 */
static DECLARE_RWSEM(rds_trans_sem);
static struct rds_transport *rds_transports[RDS_TRANS_COUNT];

int rds_trans_register(struct rds_transport *trans)
{
	int ret = 0;

	if (trans->t_type >= RDS_TRANS_COUNT)
		return -EINVAL;
	/* A carrier it makes must be one it can free (and vice versa). */
	if (!trans->carrier_alloc != !trans->carrier_free)
		return -EINVAL;
	down_write(&rds_trans_sem);
	if (rds_transports[trans->t_type])
		ret = -EEXIST;
	else
		rds_transports[trans->t_type] = trans;
	up_write(&rds_trans_sem);
	if (!ret)
		pr_info("rds: registered transport %s\n", trans->t_name);
	return ret;
}
EXPORT_SYMBOL_GPL(rds_trans_register);

/* Called from the transport's module exit after it destroyed its
 * connections.  Once it is out of the table no socket can pick it; the
 * second rds_conn_destroy_all() catches connections an accept or a send
 * created while the transport was tearing the first ones down.
 */
void rds_trans_unregister(struct rds_transport *trans)
{
	down_write(&rds_trans_sem);
	if (trans->t_type < RDS_TRANS_COUNT &&
	    rds_transports[trans->t_type] == trans)
		rds_transports[trans->t_type] = NULL;
	up_write(&rds_trans_sem);
	rds_conn_destroy_all(NULL, trans);
	pr_info("rds: unregistered transport %s\n", trans->t_name);
}
EXPORT_SYMBOL_GPL(rds_trans_unregister);

static bool rds_trans_try_get(struct rds_transport *trans)
{
	return trans && try_module_get(trans->t_owner);
}

void rds_trans_put(struct rds_transport *trans)
{
	if (trans)
		module_put(trans->t_owner);
}

static bool rds_addr_is_loopback(const struct in6_addr *addr)
{
	if (ipv6_addr_v4mapped(addr))
		return ipv4_is_loopback(addr->s6_addr32[3]);
	return ipv6_addr_loopback(addr);
}

struct rds_transport *rds_trans_get_preferred(struct net *net,
					      const struct in6_addr *addr,
					      u32 scope_id)
{
	struct rds_transport *found = NULL;
	unsigned int i;

	if (rds_addr_is_loopback(addr))
		return rds_trans_try_get(&rds_loop_transport) ?
			&rds_loop_transport : NULL;

	down_read(&rds_trans_sem);
	for (i = 0; i < RDS_TRANS_COUNT && !found; i++) {
		struct rds_transport *trans = rds_transports[i];

		if (trans && trans->laddr_check(net, addr, scope_id) == 0 &&
		    rds_trans_try_get(trans))
			found = trans;
	}
	up_read(&rds_trans_sem);
	return found;
}

/* The modules SO_RDS_TRANSPORT loads on demand, by in-tree's names. */
static const char * const rds_trans_modules[RDS_TRANS_COUNT] = {
	[RDS_TRANS_IB]	= "rds_rdma",
	[RDS_TRANS_TCP]	= "rds_tcp",
};

static struct rds_transport *rds_trans_lookup(int t_type)
{
	struct rds_transport *trans = NULL;

	down_read(&rds_trans_sem);
	if (rds_trans_try_get(rds_transports[t_type]))
		trans = rds_transports[t_type];
	up_read(&rds_trans_sem);
	return trans;
}

struct rds_transport *rds_trans_get(int t_type)
{
	struct rds_transport *trans;

	if (t_type < 0 || t_type >= RDS_TRANS_COUNT)
		return NULL;
	trans = rds_trans_lookup(t_type);
	if (trans || !rds_trans_modules[t_type])
		return trans;
	/* Returns once the module's init ran, which registers it. */
	request_module("%s", rds_trans_modules[t_type]);
	return rds_trans_lookup(t_type);
}

/* Returns how many counters all transports have, copied or not. */
unsigned int rds_trans_stats_info_copy(struct rds_info_iterator *iter,
				       unsigned int avail)
{
	unsigned int total = 0;
	unsigned int i;

	down_read(&rds_trans_sem);
	for (i = 0; i < RDS_TRANS_COUNT; i++) {
		struct rds_transport *trans = rds_transports[i];
		unsigned int part;

		if (!trans || !trans->stats_info_copy)
			continue;
		part = trans->stats_info_copy(iter, avail);
		avail -= min(avail, part);
		total += part;
	}
	up_read(&rds_trans_sem);
	return total;
}
