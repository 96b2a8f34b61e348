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
 *
 * Limits: a socket holds at most net.rds.max_mrs_per_socket regions
 * (EAGAIN beyond, the errno of in-tree's exhausted pools), and the pages
 * of regions and RDMA operations count against RLIMIT_MEMLOCK for as long
 * as they are pinned (ENOMEM beyond), as io_uring's registered buffers
 * and our MSG_ZEROCOPY sends do.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/rbtree.h>
#include <linux/scatterlist.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/uio.h>

#include "trace.h"
#include "rdma.h"
#include "recv.h"
#include "sysctl.h"
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

/* Charges @npages pinned pages to the caller's RLIMIT_MEMLOCK: ENOMEM
 * when the user's locked_vm would go beyond it, as for io_uring.  The
 * limit is the caller's, the count the user's: every process and every
 * pinning kind (mlock aside) of one user share it, MSG_ZEROCOPY's too.
 * CAP_IPC_LOCK charges nothing, as for mlock().
 */
static int rds_pin_charge(struct rds_pin_charge *pc, unsigned long npages)
{
	struct user_struct *user = current_user();
	unsigned long limit, cur, want;

	if (capable(CAP_IPC_LOCK) || !current->mm)
		return 0;
	limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	cur = atomic_long_read(&user->locked_vm);
	do {
		want = cur + npages;
		if (want > limit || want < cur)
			return -ENOMEM;
	} while (!atomic_long_try_cmpxchg(&user->locked_vm, &cur, want));

	/* References: the pages may be unpinned by a work item, long after
	 * this task and its mm went.  pinned_vm is what /proc shows as VmPin.
	 */
	pc->pc_user = get_uid(user);
	pc->pc_mm = current->mm;
	mmgrab(pc->pc_mm);
	atomic64_add(npages, &pc->pc_mm->pinned_vm);
	pc->pc_pages = npages;
	return 0;
}

/* Once the pages are unpinned.  Process context: mmdrop() may free the
 * mm.  Clears the charge, so a second call gives nothing back twice.
 */
static void rds_pin_uncharge(struct rds_pin_charge *pc)
{
	if (!pc->pc_user)
		return;
	atomic64_sub(pc->pc_pages, &pc->pc_mm->pinned_vm);
	mmdrop(pc->pc_mm);
	atomic_long_sub(pc->pc_pages, &pc->pc_user->locked_vm);
	free_uid(pc->pc_user);
	pc->pc_user = NULL;
	pc->pc_mm = NULL;
	pc->pc_pages = 0;
}

/* The last reference: the device lets go of the pages before they are
 * unpinned, so no DMA can reach a page after it went back to its owner.
 * A device that had them may have written them.  Process context.
 */
static void rds_mr_destroy(struct rds_mr *mr)
{
	struct rds_transport *trans = mr->r_trans;

	if (trans) {
		trans->mr_release(mr, mr->r_invalidate);
		trans->device_put(mr->r_dev);
		rds_trans_put(trans);
	}
	unpin_user_pages_dirty_lock(mr->r_pages, mr->r_npages, trans);
	rds_pin_uncharge(&mr->r_charge);
	kfree(mr->r_pages);
	kfree(mr);
}

static void rds_mr_free_work(struct work_struct *work)
{
	rds_mr_destroy(container_of(work, struct rds_mr, r_free_work));
}

static void rds_mr_free(struct kref *kref)
{
	rds_mr_destroy(container_of(kref, struct rds_mr, r_kref));
}

/* A peer's use-once (RDS_EXTHDR_RDMA) may drop the last reference in
 * softirq, or under a socket's lock; the transport's release sleeps.
 * rds_wq is flushed before rds.ko goes, and the MR pins its transport's
 * module.  Whether the caller may sleep is the caller's to say:
 * preemptible() cannot tell (it is false on kernels without preemption
 * counting, and true inside an RCU read section on some).
 */
static void rds_mr_free_deferred(struct kref *kref)
{
	struct rds_mr *mr = container_of(kref, struct rds_mr, r_kref);

	INIT_WORK(&mr->r_free_work, rds_mr_free_work);
	queue_work(rds_wq, &mr->r_free_work);
}

/* In process context, where the release may sleep: every caller but a
 * peer's use-once.
 */
static void rds_mr_put(struct rds_mr *mr)
{
	might_sleep();
	kref_put(&mr->r_kref, rds_mr_free);
}

/* FOLL_WRITE whatever the flags say: a peer's RDMA write must land in the
 * user's pages, never in a copy-on-write page or the zero page.  Charged
 * before pinning, so a region beyond RLIMIT_MEMLOCK never pins a page.
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
	ret = rds_pin_charge(&mr->r_charge, npages);
	if (ret)
		goto err_free_pages;
	ret = pin_user_pages_fast(args->vec.addr & PAGE_MASK, npages,
				  FOLL_WRITE | FOLL_LONGTERM, mr->r_pages);
	if (ret < 0)
		goto err_uncharge;
	if (ret < npages) {
		unpin_user_pages(mr->r_pages, ret);
		ret = -EFAULT;
		goto err_uncharge;
	}
	kref_init(&mr->r_kref);
	RB_CLEAR_NODE(&mr->r_node);
	mr->r_npages = npages;
	mr->r_offset = args->vec.addr & ~PAGE_MASK;
	mr->r_bytes = args->vec.bytes;
	mr->r_use_once = args->flags & RDS_RDMA_USE_ONCE;
	mr->r_invalidate = args->flags & RDS_RDMA_INVALIDATE;
	return mr;

err_uncharge:
	rds_pin_uncharge(&mr->r_charge);
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
	unsigned long flags;
	struct rds_mr *cur;
	bool ok = true;

	spin_lock_irqsave(&rs->rs_mr_lock, flags);
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
	spin_unlock_irqrestore(&rs->rs_mr_lock, flags);
	return ok;
}

/* Takes @mr out of the tree, whose reference the caller then owns, and
 * gives its place back (rds_mr_reserve()).  Under rs_mr_lock.
 */
static void rds_mr_unlink(struct rds_sock *rs, struct rds_mr *mr)
{
	rb_erase(&mr->r_node, &rs->rs_mr_tree);
	RB_CLEAR_NODE(&mr->r_node);
	rs->rs_mr_count--;
}

/* A place for one more region of @rs, taken before anything is pinned and
 * kept by the region while in the tree: false at net.rds.max_mrs_per_socket.
 */
static bool rds_mr_reserve(struct rds_sock *rs)
{
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&rs->rs_mr_lock, flags);
	ok = rs->rs_mr_count < READ_ONCE(rds_sysctl_max_mrs_per_socket);
	if (ok)
		rs->rs_mr_count++;
	spin_unlock_irqrestore(&rs->rs_mr_lock, flags);
	return ok;
}

/* A place no region took after all. */
static void rds_mr_unreserve(struct rds_sock *rs)
{
	unsigned long flags;

	spin_lock_irqsave(&rs->rs_mr_lock, flags);
	rs->rs_mr_count--;
	spin_unlock_irqrestore(&rs->rs_mr_lock, flags);
}

/* Maps @mr through the transport and puts it in the tree, which gets a
 * reference of its own.
 */
static int rds_mr_register(struct rds_sock *rs, struct rds_mr *mr)
{
	struct rds_transport *trans = rs->rs_transport;
	struct net *net = sock_net(rds_rs_to_sk(rs));
	struct rds_device *dev;
	int tries, ret;

	dev = trans->device_get(net, &rs->rs_bound.addr,
				rs->rs_bound.scope_id);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	for (tries = 0; tries < RDS_MR_KEY_TRIES; tries++) {
		ret = trans->mr_register(dev, mr);
		if (ret)
			goto out_put_dev;
		mr->r_trans = trans;
		mr->r_dev = dev;
		kref_get(&mr->r_kref);
		if (rds_mr_insert(rs, mr)) {
			/* The socket's reference on the module covers ours. */
			__module_get(trans->t_owner);
			return 0;
		}
		kref_put(&mr->r_kref, rds_mr_free);	/* the caller's is left */
		mr->r_trans = NULL;
		mr->r_dev = NULL;
		trans->mr_release(mr, true);
	}
	ret = -EBUSY;
out_put_dev:
	trans->device_put(dev);
	return ret;
}

/* In-tree's checks in in-tree's order, so that the same bad request gets
 * the same errno; ours come after them: the socket's region cap (EAGAIN),
 * RLIMIT_MEMLOCK (ENOMEM) and, in the transport, its device's cap
 * (EAGAIN).  The cookie goes to the user last: a region nobody was told
 * about is taken back.
 */
static void rds_mr_trace(struct rds_sock *rs, const struct rds_mr *mr,
			 int what)
{
	trace_rds_mr(sock_net(rds_rs_to_sk(rs)), &rs->rs_bound.addr, mr->r_key,
		     mr->r_npages, what);
}

int rds_rdma_get_mr(struct rds_sock *rs, const struct rds_get_mr_args *args,
		    rds_rdma_cookie_t *cookie_ret)
{
	u64 __user *cookie_addr = u64_to_user_ptr(args->cookie_addr);
	u64 end = args->vec.addr + args->vec.bytes;
	rds_rdma_cookie_t cookie;
	unsigned long flags;
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
	if (!rds_mr_reserve(rs))
		return -EAGAIN;

	mr = rds_mr_pin(args, npages);
	if (IS_ERR(mr)) {
		rds_mr_unreserve(rs);
		return PTR_ERR(mr);
	}
	ret = rds_mr_register(rs, mr);
	if (ret) {
		rds_mr_unreserve(rs);
		goto out_put;
	}

	rds_mr_trace(rs, mr, RDS_TRACE_MR_REGISTER);
	cookie = rds_rdma_make_cookie(mr->r_key, args->vec.addr & ~PAGE_MASK);
	if (cookie_addr && put_user(cookie, cookie_addr)) {
		bool linked;

		/* The key was live from the insert on: a peer's use-once
		 * (rds_rdma_unuse()), RDS_FREE_MR with a guessed cookie or
		 * the socket's release may have taken the region out of the
		 * tree, and its reference with it, while put_user() faulted.
		 */
		spin_lock_irqsave(&rs->rs_mr_lock, flags);
		linked = !RB_EMPTY_NODE(&mr->r_node);
		if (linked)
			rds_mr_unlink(rs, mr);
		spin_unlock_irqrestore(&rs->rs_mr_lock, flags);
		if (linked)
			rds_mr_put(mr);
		ret = -EFAULT;
	} else if (cookie_ret) {
		*cookie_ret = cookie;
	}
out_put:
	rds_mr_put(mr);
	return ret;
}

/* Cookie 0 asks the transport to finish the releases it deferred.  Ours
 * defer none (a region's key is dead when its release returns), so there
 * is nothing to do: 0 where the transport registers memory, EINVAL where
 * it does not, as in-tree.  In-tree says EINVAL for a cookie it does not
 * know too, another socket's included.
 */
int rds_rdma_free_mr(struct rds_sock *rs, const struct rds_free_mr_args *args)
{
	struct rds_transport *trans = rs->rs_transport;
	unsigned long flags;
	struct rds_mr *mr;

	if (!args->cookie)
		return trans && trans->mr_register ? 0 : -EINVAL;

	spin_lock_irqsave(&rs->rs_mr_lock, flags);
	mr = rds_mr_find(rs, rds_rdma_cookie_key(args->cookie));
	if (mr) {
		rds_mr_unlink(rs, mr);
		if (args->flags & RDS_RDMA_INVALIDATE)
			mr->r_invalidate = true;
	}
	spin_unlock_irqrestore(&rs->rs_mr_lock, flags);
	if (!mr)
		return -EINVAL;
	rds_mr_trace(rs, mr, args->flags & RDS_RDMA_INVALIDATE ?
		     RDS_TRACE_MR_INVALIDATE : RDS_TRACE_MR_FREE);
	rds_mr_put(mr);
	return 0;
}

void rds_rdma_forget_mr(struct rds_sock *rs, rds_rdma_cookie_t cookie)
{
	struct rds_free_mr_args args = {
		.cookie = cookie,
		.flags = RDS_RDMA_INVALIDATE,
	};

	rds_rdma_free_mr(rs, &args);
}

/* Nobody can register any more; each put may sleep in the transport.
 * The regions nobody else holds have their keys killed first, all of
 * them, so that the transport does that in batches rather than one round
 * trip per region (a socket may have thousands).
 */
void rds_rdma_drop_mrs(struct rds_sock *rs)
{
	struct rds_mr *mr, *next;
	struct rb_node *node;
	unsigned long flags;
	LIST_HEAD(drop);

	spin_lock_irqsave(&rs->rs_mr_lock, flags);
	while ((node = rb_first(&rs->rs_mr_tree))) {
		mr = rb_entry(node, struct rds_mr, r_node);
		rds_mr_unlink(rs, mr);
		list_add_tail(&mr->r_drop, &drop);
	}
	spin_unlock_irqrestore(&rs->rs_mr_lock, flags);

	/* Out of the tree, a region nobody else holds stays so. */
	list_for_each_entry(mr, &drop, r_drop) {
		if (mr->r_trans && mr->r_trans->mr_invalidate &&
		    kref_read(&mr->r_kref) == 1)
			mr->r_trans->mr_invalidate(mr);
		cond_resched();
	}
	list_for_each_entry_safe(mr, next, &drop, r_drop) {
		list_del(&mr->r_drop);
		rds_mr_trace(rs, mr, RDS_TRACE_MR_RELEASE);
		rds_mr_put(mr);
		cond_resched();
	}
}

bool rds_rdma_dest_mr(struct rds_sock *rs, rds_rdma_cookie_t cookie)
{
	unsigned long flags;
	struct rds_mr *mr;

	spin_lock_irqsave(&rs->rs_mr_lock, flags);
	mr = rds_mr_find(rs, rds_rdma_cookie_key(cookie));
	if (mr)
		kref_get(&mr->r_kref);
	spin_unlock_irqrestore(&rs->rs_mr_lock, flags);
	if (!mr)
		return false;
	/* As in-tree: the peer may READ what the user wrote since the
	 * region was mapped.
	 */
	if (mr->r_trans && mr->r_trans->mr_sync)
		mr->r_trans->mr_sync(mr, DMA_TO_DEVICE);
	rds_mr_put(mr);
	return true;
}

/* As in-tree: the peer's RDMA is done with a use-once region, which goes
 * as if freed with RDS_RDMA_INVALIDATE; any other stays.
 */
void rds_rdma_unuse(struct rds_sock *rs, u32 key)
{
	struct rds_mr *mr, *sync = NULL;
	unsigned long flags;

	spin_lock_irqsave(&rs->rs_mr_lock, flags);
	mr = rds_mr_find(rs, key);
	if (mr && mr->r_use_once) {
		rds_mr_unlink(rs, mr);
		mr->r_invalidate = true;
	} else {
		if (mr && mr->r_trans && mr->r_trans->mr_sync) {
			kref_get(&mr->r_kref);
			sync = mr;
		}
		mr = NULL;
	}
	spin_unlock_irqrestore(&rs->rs_mr_lock, flags);
	if (sync) {
		/* It stays: what the peer wrote into it is the user's to
		 * read now.  Out of rs_mr_lock, with IRQs on: with a bounce
		 * buffer the sync copies the whole region.
		 */
		sync->r_trans->mr_sync(sync, DMA_FROM_DEVICE);
		kref_put(&sync->r_kref, rds_mr_free_deferred);
	}
	if (mr) {
		rds_mr_trace(rs, mr, RDS_TRACE_MR_USED_ONCE);
		kref_put(&mr->r_kref, rds_mr_free_deferred);
	}
}

/* ---- RDMA operations (RDS_CMSG_RDMA_ARGS) ----------------------------- */

/* In-tree's limits on the local side: at most UIO_MAXIOV vectors
 * (EMSGSIZE, checked by the caller), none empty, wrapping or of 4 GiB or
 * more (EINVAL), all of them checked before any is pinned.  The remote
 * range, at most a message's worth (rds_sendmsg() saw to that), must
 * hold them (EINVAL), which in-tree finds only after pinning: a local
 * page that is not there is EFAULT first.  Here a local total beyond a
 * message's worth, which no remote range holds, is EINVAL before
 * anything is pinned, so that one sendmsg never pins more than that.
 */
static int rds_rdma_op_vecs(const struct rds_rdma_args *args,
			    struct rds_iovec *vecs, unsigned int *npages,
			    u32 *bytes)
{
	const struct rds_iovec __user *uvecs =
		u64_to_user_ptr(args->local_vec_addr);
	unsigned int i, pages = 0;
	u64 total = 0;

	if (copy_from_user(vecs, uvecs, args->nr_local * sizeof(*vecs)))
		return -EFAULT;
	for (i = 0; i < args->nr_local; i++) {
		unsigned int n = rds_mr_vec_pages(&vecs[i]);

		if (!n)
			return -EINVAL;
		total += vecs[i].bytes;
		pages += n;
	}
	if (total > RDS_MAX_MSG_SIZE)
		return -EINVAL;
	*npages = pages;
	*bytes = total;
	return 0;
}

/* A READ writes the local pages: they are pinned for writing.  All of
 * them (@npages) are charged to RLIMIT_MEMLOCK first, so an operation
 * beyond it pins nothing.
 */
static int rds_rdma_op_pin(struct rds_rdma_op *op,
			   const struct rds_iovec *vecs, unsigned int nr,
			   unsigned int npages)
{
	unsigned int gup = FOLL_LONGTERM | (op->op_write ? 0 : FOLL_WRITE);
	unsigned int i, j, n;
	int ret;

	ret = rds_pin_charge(&op->op_charge, npages);
	if (ret)
		return ret;
	for (i = 0; i < nr; i++) {
		u64 addr = vecs[i].addr, left = vecs[i].bytes;

		n = rds_mr_vec_pages(&vecs[i]);
		ret = pin_user_pages_fast(addr & PAGE_MASK, n, gup,
					  op->op_pages + op->op_npages);
		if (ret > 0)
			op->op_npages += ret;
		if (ret < 0)
			return ret;
		if (ret < n)
			return -EFAULT;
		for (j = 0; j < n; j++) {
			unsigned int off = offset_in_page(addr);
			unsigned int len = min_t(u64, left, PAGE_SIZE - off);

			sg_set_page(&op->op_sg[op->op_nents++],
				    op->op_pages[op->op_npages - n + j], len,
				    off);
			addr += len;
			left -= len;
		}
	}
	sg_mark_end(&op->op_sg[op->op_nents - 1]);
	return 0;
}

static void rds_rdma_op_release(struct rds_rdma_op *op)
{
	struct rds_rdma_notifier *n = xchg(&op->op_notifier, NULL);

	if (n) {
		sock_put(rds_rs_to_sk(n->n_rs));
		kfree(n);
	}
	WARN_ON_ONCE(op->op_trans_private);
	unpin_user_pages_dirty_lock(op->op_pages, op->op_npages,
				    op->op_posted && !op->op_write);
	rds_pin_uncharge(&op->op_charge);
	kfree(op->op_pages);
	kfree(op->op_sg);
	kfree(op);
}

static void rds_rdma_op_free_work(struct work_struct *work)
{
	rds_rdma_op_release(container_of(work, struct rds_rdma_op,
					 op_free_work));
}

/* Dirtying a page may sleep, and a message's last reference may go in
 * softirq (an ack, a completion), under a lock or in an RCU read section,
 * which nothing here can tell reliably (see rds_mr_free_deferred()): the
 * pages are let go of by a work item on rds_wq, flushed before rds.ko
 * unloads.
 */
void rds_rdma_op_free(struct rds_rdma_op *op)
{
	INIT_WORK(&op->op_free_work, rds_rdma_op_free_work);
	queue_work(rds_wq, &op->op_free_work);
}

/* An operation for @npages local pages, with the notifier it needs when
 * @rs wants to hear of it (RDS_RDMA_NOTIFY_ME, or SO_RECVERR for errors).
 */
static struct rds_rdma_op *rds_rdma_op_alloc(struct rds_sock *rs,
					     unsigned int npages, u64 flags,
					     u64 token)
{
	struct rds_rdma_op *op;

	op = kzalloc(sizeof(*op), GFP_KERNEL);
	if (!op)
		return NULL;
	op->op_pages = kcalloc(npages, sizeof(*op->op_pages), GFP_KERNEL);
	op->op_sg = kcalloc(npages, sizeof(*op->op_sg), GFP_KERNEL);
	if (!op->op_pages || !op->op_sg)
		goto out;
	sg_init_table(op->op_sg, npages);
	op->op_fence = flags & RDS_RDMA_FENCE;
	op->op_notify = flags & RDS_RDMA_NOTIFY_ME;
	op->op_silent = flags & RDS_RDMA_SILENT;
	if (op->op_notify || rs->rs_recverr) {
		op->op_notifier = kzalloc(sizeof(*op->op_notifier), GFP_KERNEL);
		if (!op->op_notifier)
			goto out;
		op->op_notifier->n_user_token = token;
		sock_hold(rds_rs_to_sk(rs));
		op->op_notifier->n_rs = rs;
	}
	return op;
out:
	rds_rdma_op_release(op);
	return NULL;
}

struct rds_rdma_op *rds_rdma_op_build(struct rds_sock *rs,
				      const struct rds_rdma_args *args)
{
	struct rds_iovec *vecs;
	struct rds_rdma_op *op;
	unsigned int npages;
	u32 bytes;
	int ret;

	if (!args->nr_local)
		return ERR_PTR(-EINVAL);
	if (args->nr_local > UIO_MAXIOV)
		return ERR_PTR(-EMSGSIZE);
	vecs = kcalloc(args->nr_local, sizeof(*vecs), GFP_KERNEL);
	if (!vecs)
		return ERR_PTR(-ENOMEM);
	ret = rds_rdma_op_vecs(args, vecs, &npages, &bytes);
	if (ret)
		goto out_vecs;

	ret = -ENOMEM;
	op = rds_rdma_op_alloc(rs, npages, args->flags, args->user_token);
	if (!op)
		goto out_vecs;
	op->op_write = args->flags & RDS_RDMA_READWRITE;
	op->op_rkey = rds_rdma_cookie_key(args->cookie);
	op->op_remote_addr = args->remote_vec.addr +
			     rds_rdma_cookie_offset(args->cookie);
	op->op_bytes = bytes;
	ret = rds_rdma_op_pin(op, vecs, args->nr_local, npages);
	if (ret)
		goto out_op;
	if (args->remote_vec.bytes < bytes) {
		ret = -EINVAL;
		goto out_op;
	}
	kfree(vecs);
	return op;

out_op:
	rds_rdma_op_release(op);
out_vecs:
	kfree(vecs);
	return ERR_PTR(ret);
}

/* ---- Atomic operations (RDS_CMSG_*ATOMIC_*) --------------------------- */

struct rds_rdma_op *rds_rdma_atomic_build(struct rds_sock *rs, int type,
					  const struct rds_atomic_args *args)
{
	struct rds_iovec vec = { .addr = args->local_addr, .bytes = 8 };
	u64 remote = args->remote_addr + rds_rdma_cookie_offset(args->cookie);
	struct rds_rdma_op *op;
	int ret;

	/* As in-tree: the old value goes to 8 aligned bytes, which never
	 * straddle two pages.
	 */
	if (args->local_addr & 7)
		return ERR_PTR(-EFAULT);
	/* Ours: the peer's device refuses an atomic at an address not 8
	 * aligned with a remote access error, which resets the connection
	 * under every message queued on it.  A region is mapped from its
	 * page's offset (the cookie's), so the peer's address and the
	 * memory behind it agree modulo 8.
	 */
	if (remote & 7)
		return ERR_PTR(-EINVAL);
	op = rds_rdma_op_alloc(rs, 1, args->flags, args->user_token);
	if (!op)
		return ERR_PTR(-ENOMEM);
	op->op_atomic = type;
	op->op_rkey = rds_rdma_cookie_key(args->cookie);
	op->op_remote_addr = remote;
	op->op_bytes = 8;
	switch (type) {
	case RDS_CMSG_ATOMIC_CSWP:
		op->op_compare_add = args->cswp.compare;
		op->op_swap = args->cswp.swap;
		break;
	case RDS_CMSG_ATOMIC_FADD:
		op->op_compare_add = args->fadd.add;
		break;
	case RDS_CMSG_MASKED_ATOMIC_CSWP:
		op->op_compare_add = args->m_cswp.compare;
		op->op_swap = args->m_cswp.swap;
		op->op_compare_add_mask = args->m_cswp.compare_mask;
		op->op_swap_mask = args->m_cswp.swap_mask;
		break;
	default:	/* RDS_CMSG_MASKED_ATOMIC_FADD */
		op->op_compare_add = args->m_fadd.add;
		op->op_compare_add_mask = args->m_fadd.nocarry_mask;
		break;
	}
	ret = rds_rdma_op_pin(op, &vec, 1, 1);
	if (ret) {
		rds_rdma_op_release(op);
		return ERR_PTR(ret);
	}
	return op;
}

/* The one who takes the notifier queues it; a socket that is closing
 * gets nothing.  Any context.
 */
void rds_rdma_notify(struct rds_rdma_op *op, int status)
{
	struct rds_rdma_notifier *n;
	struct rds_sock *rs;

	/* SO_RECVERR alone: only failures are worth a status.  Asked of the
	 * operation, never of the notifier, which whoever took it may have
	 * queued and the reader freed by now.
	 */
	if (status == RDS_RDMA_SUCCESS && !op->op_notify)
		return;
	n = xchg(&op->op_notifier, NULL);
	if (!n)
		return;
	rs = n->n_rs;
	n->n_status = status;
	if (!rds_recv_queue_event(rs, &n->n_item, &rs->rs_notify_queue))
		kfree(n);
	sock_put(rds_rs_to_sk(rs));
}

/* As in-tree, the local completion says something only to a sender who
 * asked with RDS_RDMA_NOTIFY_ME; SO_RECVERR alone hears of a failure
 * when the message is dropped for it (RDS_RDMA_DROPPED).
 */
void rds_rdma_op_done(struct rds_message *rm, int status)
{
	if (rm->m_rdma->op_notify)
		rds_rdma_notify(rm->m_rdma, status);
}
EXPORT_SYMBOL_GPL(rds_rdma_op_done);

void rds_rdma_clear_notify(struct rds_sock *rs)
{
	struct rds_rdma_notifier *n, *tmp;
	unsigned long flags;
	LIST_HEAD(list);

	spin_lock_irqsave(&rs->rs_recv_lock, flags);
	list_splice_init(&rs->rs_notify_queue, &list);
	spin_unlock_irqrestore(&rs->rs_recv_lock, flags);
	list_for_each_entry_safe(n, tmp, &list, n_item)
		kfree(n);
}
