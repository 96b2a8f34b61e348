// SPDX-License-Identifier: GPL-2.0
/* Outgoing messages: their payload pages, their header and the extension
 * headers that ride in it.
 */
#include <linux/highmem.h>
#include <linux/local_lock.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/checksum.h>

#include "message.h"
#include "rdma.h"
#include "recv.h"
#include "socket.h"

/* Payload size of each extension header type; 0 marks an unknown type.
 * RDMA_BYTES and UEK's two are never sent, only stepped over.
 */
static const u8 rds_exthdr_size[__RDS_EXTHDR_MAX] = {
	[RDS_EXTHDR_VERSION]	= sizeof(__be32),
	[RDS_EXTHDR_RDMA]	= sizeof(__be32),
	[RDS_EXTHDR_RDMA_DEST]	= 2 * sizeof(__be32),
	[RDS_EXTHDR_RDMA_BYTES]	= 2 * sizeof(__be32),
	[RDS_EXTHDR_NPATHS]	= sizeof(__be16),
	[RDS_EXTHDR_GEN_NUM]	= sizeof(__be32),
	[RDS_EXTHDR_UEK_CAP]	= sizeof(__be32),
	[RDS_EXTHDR_SPORT_IDX]	= sizeof(u8),
	[RDS_EXTHDR_UEK_CSUM]	= 2 * sizeof(__be32),
};

/* The sender's pages are its own again: tell it, if its send succeeded. */
static void rds_message_zcopy_free(struct rds_zcopy *z)
{
	mm_unaccount_pinned_pages(&z->z_mmp);
	if (z->z_sent) {
		rds_recv_zcopy_done(z);
		return;
	}
	sock_put(rds_rs_to_sk(z->z_rs));
	kfree(z);
}

static void rds_message_free(struct rds_message *rm)
{
	unsigned int i;

	WARN_ON_ONCE(test_bit(RDS_MSG_ON_SOCK, &rm->m_flags));
	WARN_ON_ONCE(test_bit(RDS_MSG_ON_CONN, &rm->m_flags));
	WARN_ON_ONCE(rm->m_rs);
	for (i = 0; i < rm->m_nents; i++)
		put_page(sg_page(&rm->m_sg[i]));
	if (rm->m_sg != &rm->m_sg_one)
		kfree(rm->m_sg);
	if (rm->m_zcopy)
		rds_message_zcopy_free(rm->m_zcopy);
	if (rm->m_rdma)
		rds_rdma_op_free(rm->m_rdma);
	kfree(rm);
}

void rds_message_addref(struct rds_message *rm)
{
	refcount_inc(&rm->m_refcount);
}
EXPORT_SYMBOL_GPL(rds_message_addref);

void rds_message_put(struct rds_message *rm)
{
	if (refcount_dec_and_test(&rm->m_refcount))
		rds_message_free(rm);
}
EXPORT_SYMBOL_GPL(rds_message_put);

/* A message with room for @nents scatterlist entries, none filled yet. */
static struct rds_message *rds_message_new(unsigned int len,
					   unsigned int nents, gfp_t gfp)
{
	struct rds_message *rm;

	if (len > RDS_MAX_MSG_SIZE)
		return NULL;
	rm = kzalloc(sizeof(*rm), gfp);
	if (!rm)
		return NULL;
	refcount_set(&rm->m_refcount, 1);
	INIT_LIST_HEAD(&rm->m_sock_item);
	INIT_LIST_HEAD(&rm->m_conn_item);
	INIT_LIST_HEAD(&rm->m_inc.i_item);
	spin_lock_init(&rm->m_rs_lock);
	rm->m_len = len;
	rm->m_inc.i_hdr.h_len = cpu_to_be32(len);
	if (!nents)
		return rm;

	/* Most messages fit a page: their entry comes with the message, not
	 * as an allocation and a free of its own.
	 */
	if (nents == 1)
		rm->m_sg = &rm->m_sg_one;
	else
		rm->m_sg = kcalloc(nents, sizeof(*rm->m_sg), gfp);
	if (!rm->m_sg) {
		kfree(rm);
		return NULL;
	}
	sg_init_table(rm->m_sg, nents);
	return rm;
}

/* Small payloads (an ack, a ping, a 64-byte request) are carved out of a
 * per-CPU page instead of taking a page each: the kernel zeroes every page
 * it hands out, which cost a whole clear_page per message.  Each piece
 * holds a reference on its page, dropped by rds_message_free() like any
 * other; the cache holds one more until it moves on to a new page.  A
 * piece never crosses a page boundary and the pages are order 0, so a
 * message that lives long (queued for a dead peer) pins at most the one
 * page it would have had to itself.
 */
#define RDS_MSG_FRAG_MAX	(PAGE_SIZE / 2)

struct rds_frag_cache {
	local_lock_t	lock;
	struct page	*page;		/* the cache's reference, or NULL */
	unsigned int	off;		/* next free byte of page */
};

static DEFINE_PER_CPU(struct rds_frag_cache, rds_frag_cache) = {
	.lock = INIT_LOCAL_LOCK(lock),
};

/* Takes @len bytes of the cached page into @sg; false when it has none. */
static bool rds_frag_take(struct scatterlist *sg, unsigned int len)
{
	struct rds_frag_cache *fc;
	unsigned long flags;
	bool taken = false;

	local_lock_irqsave(&rds_frag_cache.lock, flags);
	fc = this_cpu_ptr(&rds_frag_cache);
	if (fc->page && fc->off + len <= PAGE_SIZE) {
		get_page(fc->page);
		sg_set_page(sg, fc->page, len, fc->off);
		fc->off += ALIGN(len, L1_CACHE_BYTES);
		taken = true;
	}
	local_unlock_irqrestore(&rds_frag_cache.lock, flags);
	return taken;
}

/* A new page for @sg, whose rest becomes the cache's (it may sleep). */
static bool rds_frag_refill(struct scatterlist *sg, unsigned int len, gfp_t gfp)
{
	struct page *page = alloc_page(gfp), *old;
	struct rds_frag_cache *fc;
	unsigned long flags;

	if (!page)
		return false;
	sg_set_page(sg, page, len, 0);
	get_page(page);
	local_lock_irqsave(&rds_frag_cache.lock, flags);
	fc = this_cpu_ptr(&rds_frag_cache);
	old = fc->page;
	fc->page = page;
	fc->off = ALIGN(len, L1_CACHE_BYTES);
	local_unlock_irqrestore(&rds_frag_cache.lock, flags);
	if (old)
		put_page(old);
	return true;
}

void rds_message_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct rds_frag_cache *fc = per_cpu_ptr(&rds_frag_cache, cpu);

		if (fc->page)
			put_page(fc->page);
		fc->page = NULL;
	}
}

struct rds_message *rds_message_alloc(unsigned int len, gfp_t gfp)
{
	unsigned int nents = DIV_ROUND_UP(len, PAGE_SIZE);
	struct rds_message *rm;
	unsigned int i;

	rm = rds_message_new(len, nents, gfp);
	if (!rm)
		return NULL;
	if (len && len <= RDS_MSG_FRAG_MAX) {
		if (!rds_frag_take(&rm->m_sg[0], len) &&
		    !rds_frag_refill(&rm->m_sg[0], len, gfp))
			goto free_pages;
		rm->m_nents = 1;
		return rm;
	}
	for (i = 0; i < nents; i++) {
		struct page *page = alloc_page(gfp);

		if (!page)
			goto free_pages;
		sg_set_page(&rm->m_sg[i], page,
			    min_t(unsigned int, len - i * PAGE_SIZE, PAGE_SIZE), 0);
		rm->m_nents++;
	}
	return rm;

free_pages:
	rds_message_free(rm);
	return NULL;
}

/* Pins the sender's pages into m_sg, one entry per page piece. */
static int rds_message_pin_user(struct rds_message *rm, struct iov_iter *from,
				unsigned int max)
{
	struct page *page;
	ssize_t n;
	size_t start;

	while (iov_iter_count(from)) {
		if (rm->m_nents == max)
			return -EFAULT;	/* the iterator changed under us */
		n = iov_iter_get_pages2(from, &page, PAGE_SIZE, 1, &start);
		if (n <= 0)
			return n ? n : -EFAULT;
		sg_set_page(&rm->m_sg[rm->m_nents++], page, n, start);
	}
	return 0;
}

struct rds_message *rds_message_zcopy_from_user(struct rds_sock *rs,
						struct iov_iter *from,
						u32 cookie)
{
	unsigned int len = iov_iter_count(from);
	unsigned int nents = iov_iter_npages(from, INT_MAX);
	struct rds_message *rm;
	struct rds_zcopy *z;
	int ret = -ENOMEM;

	z = kzalloc(sizeof(*z), GFP_KERNEL);
	if (!z)
		return ERR_PTR(-ENOMEM);
	rm = rds_message_new(len, nents, GFP_KERNEL);
	if (!rm)
		goto free_z;
	/* Pinned pages count against RLIMIT_MEMLOCK, as for TCP's. */
	ret = mm_account_pinned_pages(&z->z_mmp, len);
	if (ret)
		goto put_rm;
	ret = rds_message_pin_user(rm, from, nents);
	if (ret)
		goto unaccount;

	INIT_LIST_HEAD(&z->z_item);
	z->z_cookie = cookie;
	sock_hold(rds_rs_to_sk(rs));
	z->z_rs = rs;
	rm->m_zcopy = z;
	return rm;

unaccount:
	mm_unaccount_pinned_pages(&z->z_mmp);
put_rm:
	rds_message_put(rm);	/* unpins what was pinned */
free_z:
	kfree(z);
	return ERR_PTR(ret);
}

int rds_message_copy_from_user(struct rds_message *rm, struct iov_iter *from)
{
	unsigned int i;

	for (i = 0; i < rm->m_nents; i++) {
		struct scatterlist *sg = &rm->m_sg[i];

		if (copy_page_from_iter(sg_page(sg), sg->offset, sg->length,
					from) != sg->length)
			return -EFAULT;
	}
	return 0;
}

/* Returns the bytes copied, or -EFAULT when the iterator faulted. */
int rds_message_copy_to_user(struct rds_message *rm, struct iov_iter *to)
{
	unsigned int left = min_t(size_t, rm->m_len, iov_iter_count(to));
	unsigned int copied = 0;
	unsigned int i;

	for (i = 0; i < rm->m_nents && left; i++) {
		struct scatterlist *sg = &rm->m_sg[i];
		unsigned int n = min(left, sg->length);

		if (copy_page_to_iter(sg_page(sg), sg->offset, n, to) != n)
			return -EFAULT;
		copied += n;
		left -= n;
	}
	return copied;
}

struct rds_message *rds_message_from_buffer(const void *data,
					    unsigned int len, gfp_t gfp)
{
	struct rds_message *rm = rds_message_alloc(len, gfp);
	unsigned int i;

	if (!rm)
		return NULL;
	for (i = 0; i < rm->m_nents; i++) {
		struct scatterlist *sg = &rm->m_sg[i];

		memcpy_to_page(sg_page(sg), sg->offset, data, sg->length);
		data += sg->length;
	}
	return rm;
}

void rds_message_populate_header(struct rds_header *hdr, __be16 sport,
				 __be16 dport, u64 seq)
{
	hdr->h_sport = sport;
	hdr->h_dport = dport;
	hdr->h_sequence = cpu_to_be64(seq);
	hdr->h_csum = rds_header_csum(hdr);
}

/* The header checksum is the IP header checksum algorithm over the 48 bytes
 * of the header with h_csum taken as zero.
 */
__sum16 rds_header_csum(const struct rds_header *hdr)
{
	struct rds_header tmp = *hdr;

	BUILD_BUG_ON(sizeof(*hdr) != 48);
	tmp.h_csum = 0;
	return ip_fast_csum(&tmp, sizeof(tmp) / 4);
}
EXPORT_SYMBOL_GPL(rds_header_csum);

bool rds_header_csum_ok(const struct rds_header *hdr)
{
	return rds_header_csum(hdr) == hdr->h_csum;
}
EXPORT_SYMBOL_GPL(rds_header_csum_ok);

/* Length of a valid extension of @type, or 0 when @type is unknown. */
static unsigned int rds_exthdr_len(unsigned int type)
{
	return type < __RDS_EXTHDR_MAX ? rds_exthdr_size[type] : 0;
}

/* Appends an extension after those already in @hdr.  In-tree senders put
 * at most one there until 2026, but every receiver walks the list until
 * RDS_EXTHDR_NONE or the end of the space, so several are understood.
 * Returns 0, -EINVAL for a bad type or size, -ENOSPC when it does not fit.
 * The caller recomputes h_csum.
 */
int rds_message_add_extension(struct rds_header *hdr, unsigned int type,
			      const void *data, unsigned int len)
{
	unsigned int pos = 0;

	if (type == RDS_EXTHDR_NONE || len != rds_exthdr_len(type))
		return -EINVAL;
	while (pos < RDS_HEADER_EXT_SPACE && hdr->h_exthdr[pos] != RDS_EXTHDR_NONE) {
		unsigned int cur = rds_exthdr_len(hdr->h_exthdr[pos]);

		if (!cur)
			return -EINVAL;
		pos += 1 + cur;
	}
	if (pos + 1 + len > RDS_HEADER_EXT_SPACE)
		return -ENOSPC;
	hdr->h_exthdr[pos] = type;
	memcpy(&hdr->h_exthdr[pos + 1], data, len);
	if (pos + 1 + len < RDS_HEADER_EXT_SPACE)
		hdr->h_exthdr[pos + 1 + len] = RDS_EXTHDR_NONE;
	return 0;
}
EXPORT_SYMBOL_GPL(rds_message_add_extension);

void rds_message_del_extension(struct rds_header *hdr, unsigned int type)
{
	u8 ext[RDS_HEADER_EXT_SPACE] = {};
	unsigned int pos = 0, out = 0, cur;

	while (pos < RDS_HEADER_EXT_SPACE && hdr->h_exthdr[pos] != RDS_EXTHDR_NONE) {
		cur = rds_exthdr_len(hdr->h_exthdr[pos]);
		if (!cur || pos + 1 + cur > RDS_HEADER_EXT_SPACE)
			break;
		if (hdr->h_exthdr[pos] != type) {
			memcpy(&ext[out], &hdr->h_exthdr[pos], 1 + cur);
			out += 1 + cur;
		}
		pos += 1 + cur;
	}
	memcpy(hdr->h_exthdr, ext, sizeof(ext));
}
EXPORT_SYMBOL_GPL(rds_message_del_extension);

/* Returns the type of the extension at *@pos and copies its payload to @buf
 * when *@buflen is large enough, setting *@buflen to its size.  An unknown
 * type or a truncated extension ends the walk: the sender's later bytes
 * cannot be interpreted without knowing the size.  In-tree steps over the
 * type byte alone and reads on, taking the unknown payload for types.
 */
int rds_message_next_extension(const struct rds_header *hdr, unsigned int *pos,
			       void *buf, unsigned int *buflen)
{
	unsigned int type, len;

	if (*pos >= RDS_HEADER_EXT_SPACE)
		return RDS_EXTHDR_NONE;
	type = hdr->h_exthdr[*pos];
	len = rds_exthdr_len(type);
	if (!len || *pos + 1 + len > RDS_HEADER_EXT_SPACE) {
		*pos = RDS_HEADER_EXT_SPACE;
		return RDS_EXTHDR_NONE;
	}
	if (len <= *buflen)
		memcpy(buf, &hdr->h_exthdr[*pos + 1], len);
	*buflen = len;
	*pos += 1 + len;
	return type;
}
EXPORT_SYMBOL_GPL(rds_message_next_extension);
