// SPDX-License-Identifier: GPL-2.0
/* Memory regions: RDS_GET_MR and RDS_GET_MR_FOR_DEST pin a user buffer and
 * have the socket's transport map it for remote access; RDS_FREE_MR and
 * the socket's release let it go.  The regions of a socket are in its
 * rs_mr_tree by key (see struct rds_mr in include/rds/transport.h for
 * what holds what).
 *
 * Keys are unique per device, not per socket: a region whose device went
 * away keeps its key in the tree until freed, and a new device may hand the
 * same key out again.  Registration then tries another key.
 */
#include <linux/mm.h>
#include <linux/rbtree.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "rdma.h"
#include "transports.h"

/* Registrations that may meet a key still held by a dead device's region. */
#define RDS_MR_KEY_TRIES	4

/* As in-tree: 0 for an empty or wrapping vector, or one of 4 GiB and more. */
static unsigned int rds_mr_vec_pages(const struct rds_iovec *vec)
{
	u64 end = vec->addr + vec->bytes;

	if (end <= vec->addr || vec->bytes > UINT_MAX)
		return 0;
	return (PAGE_ALIGN(end) >> PAGE_SHIFT) - (vec->addr >> PAGE_SHIFT);
}

/* The last reference: the device lets go of the pages before they are
 * unpinned, so no DMA can reach a page after it went back to its owner.
 * A device that had them may have written them.
 */
static void rds_mr_free(struct kref *kref)
{
	struct rds_mr *mr = container_of(kref, struct rds_mr, r_kref);
	bool mapped = mr->r_trans;

	if (mapped) {
		mr->r_trans->mr_release(mr, mr->r_invalidate);
		rds_trans_put(mr->r_trans);
	}
	unpin_user_pages_dirty_lock(mr->r_pages, mr->r_npages, mapped);
	kfree(mr->r_pages);
	kfree(mr);
}

static void rds_mr_put(struct rds_mr *mr)
{
	kref_put(&mr->r_kref, rds_mr_free);
}

/* FOLL_WRITE whatever the flags say: a peer's RDMA write must land in the
 * user's pages, never in a copy-on-write page or the zero page.
 */
static struct rds_mr *rds_mr_pin(const struct rds_get_mr_args *args,
				 unsigned int npages)
{
	struct rds_mr *mr;
	int ret;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->r_pages = kcalloc(npages, sizeof(*mr->r_pages), GFP_KERNEL);
	if (!mr->r_pages) {
		ret = -ENOMEM;
		goto err_free_mr;
	}
	ret = pin_user_pages_fast(args->vec.addr & PAGE_MASK, npages,
				  FOLL_WRITE | FOLL_LONGTERM, mr->r_pages);
	if (ret < 0)
		goto err_free_pages;
	if (ret < npages) {
		unpin_user_pages(mr->r_pages, ret);
		ret = -EFAULT;
		goto err_free_pages;
	}
	kref_init(&mr->r_kref);
	RB_CLEAR_NODE(&mr->r_node);
	mr->r_npages = npages;
	mr->r_use_once = args->flags & RDS_RDMA_USE_ONCE;
	mr->r_invalidate = args->flags & RDS_RDMA_INVALIDATE;
	return mr;

err_free_pages:
	kfree(mr->r_pages);
err_free_mr:
	kfree(mr);
	return ERR_PTR(ret);
}

static struct rds_mr *rds_mr_find(struct rds_sock *rs, u32 key)
{
	struct rb_node *node = rs->rs_mr_tree.rb_node;
	struct rds_mr *mr;

	while (node) {
		mr = rb_entry(node, struct rds_mr, r_node);
		if (key < mr->r_key)
			node = node->rb_left;
		else if (key > mr->r_key)
			node = node->rb_right;
		else
			return mr;
	}
	return NULL;
}

/* False: the key is taken. */
static bool rds_mr_insert(struct rds_sock *rs, struct rds_mr *mr)
{
	struct rb_node **link = &rs->rs_mr_tree.rb_node, *parent = NULL;
	struct rds_mr *cur;
	bool ok = true;

	spin_lock(&rs->rs_mr_lock);
	while (*link) {
		parent = *link;
		cur = rb_entry(parent, struct rds_mr, r_node);
		if (mr->r_key < cur->r_key) {
			link = &parent->rb_left;
		} else if (mr->r_key > cur->r_key) {
			link = &parent->rb_right;
		} else {
			ok = false;
			break;
		}
	}
	if (ok) {
		rb_link_node(&mr->r_node, parent, link);
		rb_insert_color(&mr->r_node, &rs->rs_mr_tree);
	}
	spin_unlock(&rs->rs_mr_lock);
	return ok;
}

/* Takes @mr out of the tree, whose reference the caller then owns. */
static void rds_mr_unlink(struct rds_sock *rs, struct rds_mr *mr)
{
	rb_erase(&mr->r_node, &rs->rs_mr_tree);
	RB_CLEAR_NODE(&mr->r_node);
}

/* Maps @mr through the transport and puts it in the tree, which gets a
 * reference of its own.
 */
static int rds_mr_register(struct rds_sock *rs, struct rds_mr *mr)
{
	struct rds_transport *trans = rs->rs_transport;
	struct net *net = sock_net(rds_rs_to_sk(rs));
	int tries, ret;

	for (tries = 0; tries < RDS_MR_KEY_TRIES; tries++) {
		ret = trans->mr_register(net, &rs->rs_bound.addr,
					 rs->rs_bound.scope_id, mr);
		if (ret)
			return ret;
		mr->r_trans = trans;
		kref_get(&mr->r_kref);
		if (rds_mr_insert(rs, mr)) {
			/* The socket's reference on the module covers ours. */
			__module_get(trans->t_owner);
			return 0;
		}
		kref_put(&mr->r_kref, rds_mr_free);	/* the caller's is left */
		mr->r_trans = NULL;
		trans->mr_release(mr, true);
	}
	return -EBUSY;
}

/* In-tree's checks in in-tree's order, so that the same bad request gets
 * the same errno.  The cookie goes to the user last: a region nobody was
 * told about is taken back.
 */
int rds_rdma_get_mr(struct rds_sock *rs, const struct rds_get_mr_args *args)
{
	u64 __user *cookie_addr = u64_to_user_ptr(args->cookie_addr);
	u64 end = args->vec.addr + args->vec.bytes;
	rds_rdma_cookie_t cookie;
	unsigned int npages;
	struct rds_mr *mr;
	int ret;

	if (!rds_sock_bound(rs) || !rs->rs_transport)
		return -ENOTCONN;
	if (!rs->rs_transport->mr_register)
		return -EOPNOTSUPP;
	if (end < args->vec.addr || PAGE_ALIGN(end) < end)
		return -EINVAL;
	if (!can_do_mlock())
		return -EPERM;
	npages = rds_mr_vec_pages(&args->vec);
	if (!npages)
		return -EINVAL;
	/* One page more than a message for an unaligned region. */
	if (npages - 1 > RDS_MAX_MSG_SIZE >> PAGE_SHIFT)
		return -EMSGSIZE;

	mr = rds_mr_pin(args, npages);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	ret = rds_mr_register(rs, mr);
	if (ret)
		goto out_put;

	cookie = rds_rdma_make_cookie(mr->r_key, args->vec.addr & ~PAGE_MASK);
	if (cookie_addr && put_user(cookie, cookie_addr)) {
		spin_lock(&rs->rs_mr_lock);
		rds_mr_unlink(rs, mr);
		spin_unlock(&rs->rs_mr_lock);
		rds_mr_put(mr);
		ret = -EFAULT;
	}
out_put:
	rds_mr_put(mr);
	return ret;
}

/* Cookie 0 asks the transport to finish what it deferred; in-tree says
 * EINVAL when there is no transport to ask, and for a cookie it does not
 * know, another socket's included.
 */
int rds_rdma_free_mr(struct rds_sock *rs, const struct rds_free_mr_args *args)
{
	struct rds_transport *trans = rs->rs_transport;
	struct rds_mr *mr;

	if (!args->cookie) {
		if (!trans || !trans->mr_flush)
			return -EINVAL;
		trans->mr_flush(sock_net(rds_rs_to_sk(rs)));
		return 0;
	}

	spin_lock(&rs->rs_mr_lock);
	mr = rds_mr_find(rs, rds_rdma_cookie_key(args->cookie));
	if (mr) {
		rds_mr_unlink(rs, mr);
		if (args->flags & RDS_RDMA_INVALIDATE)
			mr->r_invalidate = true;
	}
	spin_unlock(&rs->rs_mr_lock);
	if (!mr)
		return -EINVAL;
	rds_mr_put(mr);
	return 0;
}

/* Nobody can register any more; each put may sleep in the transport. */
void rds_rdma_drop_mrs(struct rds_sock *rs)
{
	struct rb_node *node;
	struct rds_mr *mr;

	spin_lock(&rs->rs_mr_lock);
	while ((node = rb_first(&rs->rs_mr_tree))) {
		mr = rb_entry(node, struct rds_mr, r_node);
		rds_mr_unlink(rs, mr);
		spin_unlock(&rs->rs_mr_lock);
		rds_mr_put(mr);
		cond_resched();
		spin_lock(&rs->rs_mr_lock);
	}
	spin_unlock(&rs->rs_mr_lock);
}
