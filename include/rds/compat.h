/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel API differences between the series we build for (6.1 and
 * 6.12), in one place. Each entry is decided by the kernel's own feature
 * macro where there is one, else by LINUX_VERSION_CODE, and says which
 * kernel changed what, so that it can go when that series is dropped.
 * The code elsewhere calls the rds_compat_*() helpers and never tests a
 * version itself.
 */
#ifndef _RDS_COMPAT_H
#define _RDS_COMPAT_H

#include <linux/bvec.h>
#include <linux/net.h>
#include <linux/socket.h>
#include <linux/sysctl.h>
#include <linux/uio.h>
#include <linux/version.h>
#include <net/net_namespace.h>

/*
 * 6.12 moved <asm/unaligned.h>, get_unaligned() and put_unaligned(), to
 * <linux/unaligned.h> and dropped the old name. A version check rather
 * than __has_include(), which sparse does not understand.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * 6.5 removed kernel_sendpage() and MSG_SENDPAGE_NOTLAST: a page is handed
 * to the socket by sendmsg() with MSG_SPLICE_PAGES and a bvec iterator, as
 * the in-tree RDS/TCP of 6.12 does. Both ways the page is referenced by the
 * skb, not copied, so the caller must have checked sendpage_ok().
 *
 * A version check, not the flag: 6.1's stable releases define
 * MSG_SPLICE_PAGES (for other users) while their tcp_sendmsg() ignores it
 * and copies the pages, which cost make bench a third of in-tree's bytes/s
 * at 1 MiB requests.
 */
static inline int rds_compat_sendpage(struct socket *sock, struct page *page,
				      unsigned int off, unsigned int len,
				      int flags, bool more)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
	struct msghdr msg = { .msg_flags = flags | MSG_SPLICE_PAGES };
	struct bio_vec bvec;

	if (more)
		msg.msg_flags |= MSG_MORE;
	bvec_set_page(&bvec, page, len, off);
	iov_iter_bvec(&msg.msg_iter, ITER_SOURCE, &bvec, 1, len);
	return sock_sendmsg(sock, &msg);
#else
	if (more)
		flags |= MSG_MORE | MSG_SENDPAGE_NOTLAST;
	return kernel_sendpage(sock, page, off, len, flags);
#endif
}

/*
 * 6.11 made the table argument of every proc_handler const; our handlers
 * are declared with RDS_COMPAT_CTL_CONST struct ctl_table *.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define RDS_COMPAT_CTL_CONST	const
#else
#define RDS_COMPAT_CTL_CONST
#endif

/*
 * 6.6 turned register_net_sysctl() into a macro that takes the size of an
 * array (register_net_sysctl_sz() takes it from a pointer), and 6.11 stopped
 * ending a table at an empty entry, which it now refuses. Our tables keep
 * the empty entry 6.1 needs at their end; @n counts the entries before it.
 */
static inline struct ctl_table_header *
rds_compat_register_net_sysctl(struct net *net, const char *path,
			       struct ctl_table *table, size_t n)
{
#ifdef register_net_sysctl
	return register_net_sysctl_sz(net, path, table, n);
#else
	return register_net_sysctl(net, path, table);
#endif
}

#endif
