/* SPDX-License-Identifier: GPL-2.0 */
/* Congestion maps: one bit per port for each address, set while the socket
 * bound there holds more than its rcvbuf.  Our maps are sent to peers when
 * they change; peers' maps tell senders which ports to stop sending to.
 */
#ifndef _RDS_CONG_H
#define _RDS_CONG_H

#include <linux/rbtree.h>
#include <linux/wait.h>
#include <rds/transport.h>

struct rds_sock;

/* One map per (netns, address), shared by every connection with that
 * address as laddr (our map) or faddr (the peer's map): loopback
 * connections therefore share the receiver's map with no updates sent.
 *
 * Lifetime: m_ref.  The netns cong_tree holds no reference; a connection
 * holds one on each of c_lcong and c_fcong.  The last put unlinks it.
 * Bits are set and cleared with atomic bitops; m_waitq wakes senders
 * blocked on a port of this map.
 */
struct rds_cong_map {
	struct rb_node		m_rb_node;	/* rds_net cong_tree, cong_lock */
	refcount_t		m_ref;
	struct net		*m_net;
	struct in6_addr		m_addr;
	wait_queue_head_t	m_waitq;
	atomic64_t		m_changed;	/* monitor bits of changed ports */
	unsigned long		m_bits[RDS_CONG_MAP_BYTES / sizeof(unsigned long)];
};

struct rds_cong_map *rds_cong_map_get(struct net *net,
				      const struct in6_addr *addr, gfp_t gfp);
void rds_cong_map_put(struct rds_cong_map *map);

void rds_cong_set_bit(struct rds_cong_map *map, __be16 port);
void rds_cong_clear_bit(struct rds_cong_map *map, __be16 port);
bool rds_cong_test_bit(struct rds_cong_map *map, __be16 port);

/* Our map changed: send it on every connection that has it as c_lcong. */
void rds_cong_queue_updates(struct rds_cong_map *map);

/* A peer's map (or a loopback map) changed in the ports of @portmask. */
void rds_cong_map_updated(struct rds_cong_map *map, u64 portmask);

/* 0 if @port of the peer's map is open; -ENOBUFS if congested and
 * @nonblock (noting the port for RDS_CONG_MONITOR); else sleeps until it
 * opens, at most @rs's sndtimeo.  Asks the peer for its map again when it
 * may be stale (rds_cong_resync() in cong.c), also while sleeping.
 */
int rds_cong_wait(struct rds_connection *conn, __be16 port, bool nonblock,
		  struct rds_sock *rs);

/* The message that carries c_lcong to the peer. */
struct rds_message *rds_cong_update_alloc(struct rds_connection *conn);

/* An incoming RDS_FLAG_CONG_BITMAP message: replace c_fcong's bits. */
void rds_cong_recv(struct rds_connection *conn, struct rds_incoming *inc);

/* RDS_CONG_MONITOR */
int rds_cong_monitor_set(struct rds_sock *rs, bool on);
void rds_cong_remove_socket(struct rds_sock *rs);
/* For poll(): has any map changed since *@recent?  Updates *@recent. */
bool rds_cong_updated_since(unsigned long *recent);

void rds_cong_net_exit(struct net *net);
int rds_cong_init(void);
void rds_cong_exit(void);

#endif /* _RDS_CONG_H */
