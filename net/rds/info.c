// SPDX-License-Identifier: GPL-2.0
/* RDS_INFO_* getsockopt.  Each table is a function registered for its
 * optname by whoever owns the data (the core, a transport).  A call fills a
 * kernel buffer the size of the user's, then copies it out in one go, so
 * table functions can walk their data under spinlocks without faulting.
 *
 * rds_info_sem protects rds_info_funcs: getsockopt holds it for reading
 * while a table function runs, so deregistering (module exit) waits for
 * every running call to finish before the function's code can go away.
 */
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/rwsem.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/rds.h>

#include "info.h"

/* Tables may be large, but not unbounded: a kernel buffer caps them. */
#define RDS_INFO_MAX_BYTES	(16U << 20)

/* The tables in-tree has (RDS_INFO_FIRST..LAST), then our own. */
#define RDS_INFO_NR_UPSTREAM	(RDS_INFO_LAST - RDS_INFO_FIRST + 1)
#define RDS_INFO_NR		(RDS_INFO_NR_UPSTREAM + \
				 RDS_INFO_OWN_LAST - RDS_INFO_OWN_FIRST + 1)

static DECLARE_RWSEM(rds_info_sem);
static rds_info_func rds_info_funcs[RDS_INFO_NR];

/* @optname's slot in rds_info_funcs, or -1 when it names no table. */
static int rds_info_slot(int optname)
{
	if (optname >= RDS_INFO_FIRST && optname <= RDS_INFO_LAST)
		return optname - RDS_INFO_FIRST;
	if (optname >= RDS_INFO_OWN_FIRST && optname <= RDS_INFO_OWN_LAST)
		return RDS_INFO_NR_UPSTREAM + optname - RDS_INFO_OWN_FIRST;
	return -1;
}

bool rds_info_optname(int optname)
{
	return rds_info_slot(optname) >= 0;
}

void rds_info_register_func(int optname, rds_info_func func)
{
	int slot = rds_info_slot(optname);

	if (WARN_ON_ONCE(slot < 0))
		return;
	down_write(&rds_info_sem);
	WARN_ON_ONCE(rds_info_funcs[slot]);
	rds_info_funcs[slot] = func;
	up_write(&rds_info_sem);
}
EXPORT_SYMBOL_GPL(rds_info_register_func);

void rds_info_deregister_func(int optname, rds_info_func func)
{
	int slot = rds_info_slot(optname);

	if (WARN_ON_ONCE(slot < 0))
		return;
	down_write(&rds_info_sem);
	WARN_ON_ONCE(rds_info_funcs[slot] != func);
	rds_info_funcs[slot] = NULL;
	up_write(&rds_info_sem);
}
EXPORT_SYMBOL_GPL(rds_info_deregister_func);

/* Appends one item.  An item that does not fit is dropped and closes the
 * buffer, so table functions may simply copy every item they count: when
 * anything was dropped the count exceeds the buffer and the caller gets
 * ENOSPC instead of a partial table.
 */
void rds_info_copy(struct rds_info_iterator *iter, const void *data,
		   unsigned long bytes)
{
	if (bytes > iter->len - iter->offset) {
		iter->offset = iter->len;
		return;
	}
	memcpy(iter->buf + iter->offset, data, bytes);
	iter->offset += bytes;
}
EXPORT_SYMBOL_GPL(rds_info_copy);

/* Runs the table function for @optname over a buffer of @len bytes.
 * Returns the item size (>= 0) with *@total set to the bytes the whole
 * table takes, or a negative errno.
 */
static int rds_info_fill(struct socket *sock, int optname,
			 struct rds_info_iterator *iter, unsigned long *total)
{
	struct rds_info_lengths lens = { };
	rds_info_func func;

	down_read(&rds_info_sem);
	func = rds_info_funcs[rds_info_slot(optname)];
	if (func)
		func(sock, iter->len, iter, &lens);
	up_read(&rds_info_sem);
	if (!func)
		return -ENOPROTOOPT;

	*total = (unsigned long)lens.nr * lens.each;
	return lens.each;
}

int rds_info_getsockopt(struct socket *sock, int optname, char __user *optval,
			int __user *optlen)
{
	struct rds_info_iterator iter = { };
	unsigned long total;
	int len, each, ret;

	if (!rds_info_optname(optname))
		return -ENOPROTOOPT;
	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;

	iter.len = min_t(unsigned int, len, RDS_INFO_MAX_BYTES);
	if (iter.len) {
		/* Zeroed: a table that copies less than it counts leaks nothing. */
		iter.buf = kvzalloc(iter.len, GFP_KERNEL);
		if (!iter.buf)
			return -ENOMEM;
	}

	each = rds_info_fill(sock, optname, &iter, &total);
	if (each < 0) {
		ret = each;
		goto free_buf;
	}
	if (total > len) {
		ret = put_user((int)min_t(unsigned long, total, INT_MAX), optlen) ?
		      -EFAULT : -ENOSPC;
		goto free_buf;
	}
	/* It fits the user's buffer but not our cap. */
	if (total > iter.len) {
		ret = -ENOMEM;
		goto free_buf;
	}
	if (copy_to_user(optval, iter.buf, total) || put_user((int)total, optlen)) {
		ret = -EFAULT;
		goto free_buf;
	}
	ret = each;
free_buf:
	kvfree(iter.buf);
	return ret;
}
