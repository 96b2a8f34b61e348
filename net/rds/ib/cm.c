// SPDX-License-Identifier: GPL-2.0
/* Connection management over rdma_cm: the listeners, the active connect
 * (resolve address, resolve route, connect), the passive accept, the
 * private data and version negotiation, and shutdown.
 *
 * Versions: we offer 4.1 (minor mask 0x3); a reject that says
 * "incompatible" (or carries no reason of ours) makes the next attempt of a
 * TOS 0 connection offer 3.1, and a successful connect goes back to 4.1, as
 * in-tree.  We accept a request for 3.1, or for 4.x with a minor mask that
 * has 0 or 1, and keep the connection (4.0 too, as in-tree); any other is
 * rejected as incompatible once, never accepted and dropped.  Each connect
 * starts from the version it offers: a reply that names none keeps that.
 *
 * Both sides connecting at once: a request for a path that is CONNECTING
 * is rejected (and so is ours at the peer); both back off by a random delay
 * and one attempt wins, as in-tree, but the side with the greater address
 * waits longer (rds_conn_path_yield()), so that the other's next attempt
 * finds its path DOWN: with many connections setting up at once the
 * random delays alone kept both sides meeting.  A request for a path that is UP means
 * the peer lost its side: the path is dropped, the request rejected, and
 * the peer's next attempt finds the path DOWN.
 *
 * Connect deadline: an attempt, active or passive, that is not up within
 * RDS_IB_CONNECT_MS is dropped and made again.  rdma_cm resends a request
 * that gets no answer for about a minute (every 4 s or so) before it says
 * "unreachable", and meanwhile every request of the peer for the same
 * path is rejected as a race: a request sent while the peer's device was
 * away (rdma link del) could hold the connection down for that minute
 * after the device came back.  A new attempt asks anew.
 *
 * A request is for the connection its private data names, but only when
 * those addresses are the ones rdma_cm received it from and at; and a
 * netns accepts at most max_accepted connections, max_accepted_per_peer of
 * them from one peer address (sysctls, ours).  Either refusal is a reject
 * that no peer takes for a version problem (RDS_IB_REJ_REFUSED), counted,
 * made before any connection is looked up or made for the request.
 */
#include <linux/in.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/ip_fib.h>
#include <net/ipv6.h>
#include <rds/compat.h>

#include "ib.h"
#include "trace.h"

void rds_ib_sockaddr(struct sockaddr_storage *ss, const struct in6_addr *addr,
		     u16 port, int dev_if)
{
	memset(ss, 0, sizeof(*ss));
	if (ipv6_addr_v4mapped(addr)) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = addr->s6_addr32[3];
		sin->sin_port = htons(port);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = *addr;
		sin6->sin6_port = htons(port);
		sin6->sin6_scope_id = dev_if;
	}
}

/* ---- Private data ------------------------------------------------------ */

static struct rds_ib_conn_priv_cmn *
rds_ib_fill_priv(struct rds_ib_connection *ic, union rds_ib_conn_priv *dp,
		 struct rdma_conn_param *param, u16 version)
{
	struct rds_connection *conn = rds_ib_conn(ic);
	struct rds_ib_conn_priv_cmn *cmn;

	BUILD_BUG_ON(sizeof(struct rds_ib_connect_private) != 32);
	BUILD_BUG_ON(sizeof(struct rds6_ib_connect_private) != 56);
	memset(dp, 0, sizeof(*dp));
	if (ic->i_isv6) {
		dp->ricp_v6.dp_saddr = conn->c_laddr;
		dp->ricp_v6.dp_daddr = conn->c_faddr;
		cmn = &dp->ricp_v6.dp_cmn;
		param->private_data = &dp->ricp_v6;
		param->private_data_len = sizeof(dp->ricp_v6);
	} else {
		dp->ricp_v4.dp_saddr = conn->c_laddr.s6_addr32[3];
		dp->ricp_v4.dp_daddr = conn->c_faddr.s6_addr32[3];
		cmn = &dp->ricp_v4.dp_cmn;
		param->private_data = &dp->ricp_v4;
		param->private_data_len = sizeof(dp->ricp_v4);
	}
	cmn->ricpc_protocol_major = RDS_PROTOCOL_MAJOR(version);
	cmn->ricpc_protocol_minor = RDS_PROTOCOL_MINOR(version);
	cmn->ricpc_protocol_minor_mask = cpu_to_be16(RDS_IB_SUPPORTED_PROTOCOLS);
	cmn->ricpc_dp_toss = conn->c_tos;
	/* Whatever the peer sent that we have: it may drop it at once. */
	put_unaligned(cpu_to_be64(atomic64_read(&ic->i_ack_next)),
		      &cmn->ricpc_ack_seq);
	/* Non-zero asks for flow control and gives the first credits. */
	cmn->ricpc_credit = cpu_to_be32(rds_ib_credits_advertise_all(ic));
	return cmn;
}

/* The QP's two timers, set on the id before it gets its QP attributes (on
 * each side: the active one when the address resolves, the passive one
 * before it accepts).
 *
 * A sender that finds our receive ring empty retries (rnr_retry_count 7:
 * for ever) after the RNR timer; the default, 655 ms, would stall a path
 * for that long whenever the receive work falls behind.
 *
 * A lost packet is resent when its ACK is 4.096 us << ack_timeout late.
 * rdma_cm's default for RoCE is about half a second, which a lossy
 * Ethernet link (RoCE without PFC) pays at every tail loss; the sysctl's
 * 0 keeps that default.
 */
static void rds_ib_set_timers(struct rdma_cm_id *id)
{
	unsigned int timeout = READ_ONCE(rds_ib_sysctl_ack_timeout);

	rdma_set_min_rnr_timer(id, IB_RNR_TIMER_000_32);
	if (timeout)
		rdma_set_ack_timeout(id, timeout);
}

/* The RDMA READ depths: the connecting side offers what the device can
 * do (@max_resp and @max_init are UINT_MAX), the accepting side no more
 * than the request asked for, or a peer on a smaller HCA could not set up
 * its QP with our answer.  rdma_cm gives the request's depths from our
 * side already (the peer's initiator depth is our responder resources).
 */
static void rds_ib_fill_param(struct rdma_cm_id *id,
			      struct rdma_conn_param *param,
			      u32 max_resp, u32 max_init)
{
	const struct ib_device_attr *attrs = &id->device->attrs;

	memset(param, 0, sizeof(*param));
	param->responder_resources = min_t(u32, attrs->max_qp_rd_atom,
					   max_resp);
	param->initiator_depth = min_t(u32, attrs->max_qp_init_rd_atom,
				       max_init);
	param->retry_count = min_t(unsigned int,
				   READ_ONCE(rds_ib_sysctl_retry_count), 7);
	param->rnr_retry_count = 7;	/* an empty receive ring waits */
}

/* The peer's private data, or NULL if it sent too little to be RDS's. */
static const union rds_ib_conn_priv *
rds_ib_peer_dp(const struct rdma_cm_event *ev, bool isv6)
{
	const union rds_ib_conn_priv *dp = ev->param.conn.private_data;
	size_t need = isv6 ? sizeof(dp->ricp_v6) : sizeof(dp->ricp_v4);

	if (!dp || ev->param.conn.private_data_len < need)
		return NULL;
	return dp;
}

static const struct rds_ib_conn_priv_cmn *
rds_ib_dp_cmn(const union rds_ib_conn_priv *dp, bool isv6)
{
	if (!dp)
		return NULL;
	return isv6 ? &dp->ricp_v6.dp_cmn : &dp->ricp_v4.dp_cmn;
}

/* The version we speak with a peer that proposes @cmn, or 0. */
static u16 rds_ib_protocol_compatible(const struct rds_ib_conn_priv_cmn *cmn)
{
	u16 common;
	u16 version;

	if (!cmn || !cmn->ricpc_protocol_major)
		return 0;
	common = be16_to_cpu(cmn->ricpc_protocol_minor_mask) &
		 RDS_IB_SUPPORTED_PROTOCOLS;
	if (cmn->ricpc_protocol_major == 4 && common) {
		version = RDS_PROTOCOL_4_0;
		while ((common >>= 1) != 0)
			version++;
		return version;
	}
	if (RDS_PROTOCOL(cmn->ricpc_protocol_major,
			 cmn->ricpc_protocol_minor) == RDS_PROTOCOL_3_1)
		return RDS_PROTOCOL_3_1;
	return 0;
}

/* In-tree keeps every version from 3.1 on: a request offering 4.0 alone
 * (minor mask 0x1) is accepted and the connection kept as 4.0.  Refusing
 * it once accepted would drop it at every reconnect.  The three versions
 * we can agree to share one data path.
 */
static bool rds_ib_version_kept(u16 version)
{
	return version == RDS_PROTOCOL_3_1 || version == RDS_PROTOCOL_4_0 ||
	       version == RDS_PROTOCOL_4_1;
}

/* What the peer says it has of ours is acknowledged. */
static void rds_ib_peer_ack(struct rds_ib_connection *ic,
			    const struct rds_ib_conn_priv_cmn *cmn)
{
	u64 ack = be64_to_cpu(get_unaligned(&cmn->ricpc_ack_seq));

	if (ack)
		rds_send_path_drop_acked(ic->i_cp, ack, NULL);
}

/* Is @addr an address of @net?  Both ends of a connection may be local
 * when two RDMA devices of one host talk (rxe pairs in tests).
 */
static bool rds_ib_addr_local(struct net *net, const struct in6_addr *addr)
{
	if (ipv6_addr_v4mapped(addr))
		return inet_addr_type_table(net, addr->s6_addr32[3],
					    RT_TABLE_LOCAL) == RTN_LOCAL;
	return ipv6_chk_addr(net, addr, NULL, 0);
}

/* Before the first receive is posted. */
static int rds_ib_setup(struct rds_ib_connection *ic, struct rdma_cm_id *id)
{
	struct rds_connection *conn = rds_ib_conn(ic);

	ic->i_peer_local = rds_ib_addr_local(rds_conn_net(conn),
					     &conn->c_faddr);
	return rds_ib_qp_setup(ic, id);
}

/* ---- Connect deadline (see the top) ------------------------------------ */

/* Under i_mutex, as the id is attached. */
static void rds_ib_connect_arm(struct rds_ib_connection *ic)
{
	ic->i_connect_start = jiffies;
	mod_delayed_work(rds_wq, &ic->i_connect_w,
			 msecs_to_jiffies(RDS_IB_CONNECT_MS));
}

void rds_ib_connect_expired(struct work_struct *work)
{
	struct rds_ib_connection *ic = container_of(to_delayed_work(work),
						    struct rds_ib_connection,
						    i_connect_w);
	unsigned long end;

	mutex_lock(&ic->i_mutex);
	end = ic->i_connect_start + msecs_to_jiffies(RDS_IB_CONNECT_MS);
	/* The attempt that armed us, or a later one (which armed us again
	 * and set its own start): either way only one still not up.
	 */
	if (ic->i_cm_id && time_after_eq(jiffies, end) &&
	    rds_conn_path_state(ic->i_cp) == RDS_CONN_CONNECTING) {
		rds_ib_stats_inc(RDS_IB_STAT_CONNECT_TIMEOUT);
		rds_conn_path_error(ic->i_cp, "connect timed out");
	}
	mutex_unlock(&ic->i_mutex);
}

/* ---- Active side ------------------------------------------------------- */

int rds_ib_conn_path_connect(struct rds_carrier *ca)
{
	struct rds_ib_connection *ic = ca->ca_data;
	struct rds_connection *conn = ca->ca_cp->cp_conn;
	struct sockaddr_storage src, dst;
	struct rdma_cm_id *id;
	bool v4 = ipv6_addr_v4mapped(&conn->c_faddr);
	int ret;

	id = rdma_create_id(rds_conn_net(conn), rds_ib_cm_handler, ic,
			    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);

	mutex_lock(&ic->i_mutex);
	ic->i_cm_id = id;
	ic->i_isv6 = !v4;
	rds_ib_connect_arm(ic);
	mutex_unlock(&ic->i_mutex);

	rds_ib_sockaddr(&src, &conn->c_laddr, 0, conn->c_dev_if);
	rds_ib_sockaddr(&dst, &conn->c_faddr, v4 ? RDS_IB_PORT : RDS_IB_PORT6,
			conn->c_dev_if);
	/* Bound first, not by rdma_resolve_addr(): a device removal between
	 * its bind and its state check trips a WARN_ON in rdma_cm (6.1),
	 * while one after our own bind only makes the resolve fail.
	 */
	ret = rdma_bind_addr(id, (struct sockaddr *)&src);
	if (!ret)
		ret = rdma_resolve_addr(id, (struct sockaddr *)&src,
					(struct sockaddr *)&dst,
					RDS_IB_RESOLVE_MS);
	if (ret) {
		mutex_lock(&ic->i_mutex);
		ic->i_cm_id = NULL;
		mutex_unlock(&ic->i_mutex);
		rdma_destroy_id(id);
	}
	return ret;
}

static int rds_ib_route_resolved(struct rds_ib_connection *ic,
				 struct rdma_cm_id *id)
{
	struct rdma_conn_param param;
	union rds_ib_conn_priv dp;
	int ret;

	/* Asked for; on only if the reply asks too (rds_ib_established()). */
	rds_ib_credits_init(ic, READ_ONCE(rds_ib_sysctl_flow_control));
	ret = rds_ib_setup(ic, id);
	if (ret)
		return ret;
	rds_ib_fill_param(id, &param, UINT_MAX, UINT_MAX);
	rds_ib_fill_priv(ic, &dp, &param, ic->i_proposed_version);
	/* What a reply that names no version agreed to: our offer, not
	 * whatever the last connection of this path spoke.
	 */
	rds_ib_conn(ic)->c_version = ic->i_proposed_version;
	return rdma_connect_locked(id, &param);
}

static void rds_ib_rejected(struct rds_ib_connection *ic,
			    struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	const void *data;
	u8 len = 0;

	data = rdma_consumer_reject_data(id, ev, &len);
	if (!data || (len >= sizeof(int) &&
		      get_unaligned((const int *)data) <= RDS_RDMA_REJ_INCOMPAT)) {
		if (!rds_ib_conn(ic)->c_tos)
			ic->i_proposed_version = RDS_PROTOCOL_3_1;
	}
	rds_conn_path_error(ic->i_cp, "connection rejected");
}

/* ---- Both sides -------------------------------------------------------- */

static void rds_ib_established(struct rds_ib_connection *ic,
			       struct rdma_cm_event *ev)
{
	const struct rds_ib_conn_priv_cmn *cmn;
	struct rds_connection *conn = rds_ib_conn(ic);

	/* The active side learns the version from the reply; the passive
	 * side's event carries no private data and keeps the request's.
	 */
	cmn = rds_ib_dp_cmn(rds_ib_peer_dp(ev, ic->i_isv6), ic->i_isv6);
	if (cmn && cmn->ricpc_protocol_major) {
		conn->c_version = RDS_PROTOCOL(cmn->ricpc_protocol_major,
					       cmn->ricpc_protocol_minor);
		rds_ib_peer_ack(ic, cmn);
		if (cmn->ricpc_credit)
			rds_ib_credits_add(ic, be32_to_cpu(cmn->ricpc_credit));
		else
			ic->i_flowctl = false;
	}
	if (!rds_ib_version_kept(conn->c_version)) {
		/* A reply we cannot speak: the next attempt offers 3.1, as
		 * after a reject, rather than the same offer for ever.
		 */
		if (!conn->c_tos)
			ic->i_proposed_version = RDS_PROTOCOL_3_1;
		rds_conn_path_error(ic->i_cp, "unsupported protocol version");
		return;
	}
	ic->i_proposed_version = RDS_PROTOCOL_4_1;
	cancel_delayed_work(&ic->i_connect_w);
	pr_debug("rds_rdma: %pI6c->%pI6c up, version %u.%u%s\n",
		 &conn->c_laddr, &conn->c_faddr,
		 RDS_PROTOCOL_MAJOR(conn->c_version),
		 RDS_PROTOCOL_MINOR(conn->c_version),
		 ic->i_flowctl ? ", flow control" : "");
	rds_connect_path_complete(ic->i_cp, RDS_CONN_CONNECTING);
}

/* ---- Passive side ------------------------------------------------------ */

/* @ss's address as we keep addresses (IPv4 v4-mapped), if it is of the
 * family the request's private data has.
 */
static bool rds_ib_ss_addr(const struct sockaddr_storage *ss, bool isv6,
			   struct in6_addr *addr)
{
	if (!isv6 && ss->ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;

		ipv6_addr_set_v4mapped(sin->sin_addr.s_addr, addr);
		return true;
	}
	if (isv6 && ss->ss_family == AF_INET6) {
		*addr = ((const struct sockaddr_in6 *)ss)->sin6_addr;
		return true;
	}
	return false;
}

/* The addresses of the connection a request is for (@laddr ours, @faddr
 * the peer's, and the link of a link-local pair), which the private data
 * names: false unless they are the ones rdma_cm took the request from and
 * to.  Otherwise any rdma_cm user could claim to be another host and drop
 * our connection to it, or take its place.  The new id's route has the
 * request's own addressing (src_addr is ours, dst_addr the peer's), which
 * the peer's rdma_cm filled in from the address it bound, and which ours
 * checked against the netdev the request came in on.
 */
static bool rds_ib_req_addrs(const struct rdma_cm_id *id,
			     const union rds_ib_conn_priv *dp, bool isv6,
			     struct in6_addr *laddr, struct in6_addr *faddr,
			     int *dev_if)
{
	const struct rdma_addr *ra = &id->route.addr;
	struct in6_addr ours, peer;

	*dev_if = 0;
	if (isv6) {
		*laddr = dp->ricp_v6.dp_daddr;
		*faddr = dp->ricp_v6.dp_saddr;
		/* In-tree asks for an IPv4 connection in the IPv4 layout
		 * only; v4-mapped addresses in the IPv6 one would make an
		 * IPv4 connection that speaks the IPv6 layout.
		 */
		if (ipv6_addr_v4mapped(laddr) || ipv6_addr_v4mapped(faddr))
			return false;
	} else {
		ipv6_addr_set_v4mapped(dp->ricp_v4.dp_daddr, laddr);
		ipv6_addr_set_v4mapped(dp->ricp_v4.dp_saddr, faddr);
	}
	if (!rds_ib_ss_addr(&ra->src_addr, isv6, &ours) ||
	    !rds_ib_ss_addr(&ra->dst_addr, isv6, &peer) ||
	    !ipv6_addr_equal(&ours, laddr) || !ipv6_addr_equal(&peer, faddr))
		return false;
	/* rdma_cm keeps no scope in the route: a link-local pair is on the
	 * link the request came in on, and without one it is nowhere.
	 */
	if (isv6 && ((ipv6_addr_type(laddr) | ipv6_addr_type(faddr)) &
		     IPV6_ADDR_LINKLOCAL)) {
		*dev_if = ra->dev_addr.bound_dev_if;
		if (!*dev_if)
			return false;
	}
	return true;
}

static void rds_ib_mismatch_notice(struct rdma_cm_id *id,
				   const struct in6_addr *laddr,
				   const struct in6_addr *faddr)
{
	pr_notice_ratelimited("rds_rdma: a request from %pISc to %pISc names %pI6c to %pI6c: rejected\n",
			      (struct sockaddr *)&id->route.addr.dst_addr,
			      (struct sockaddr *)&id->route.addr.src_addr,
			      faddr, laddr);
}

/* ---- Accept limits ----------------------------------------------------- */

static u32 rds_ib_peer_hash(const struct rds_ib_net *rin,
			    const struct in6_addr *addr)
{
	return __ipv6_addr_jhash(addr, rin->rin_peer_seed);
}

static struct rds_ib_peer *rds_ib_peer_find(struct rds_ib_net *rin,
					    const struct in6_addr *addr,
					    u32 hash)
{
	struct rds_ib_peer *peer;

	hash_for_each_possible(rin->rin_peers, peer, rp_node, hash)
		if (ipv6_addr_equal(&peer->rp_addr, addr))
			return peer;
	return NULL;
}

/* One more accepted connection from @addr, if the limits allow it: its
 * peer entry, to be given back with rds_ib_accept_uncharge(), or
 * ERR_PTR(-EDQUOT) over a limit (or -ENOMEM).  The entry of a new peer is
 * allocated unlocked, and the lookup done again.
 */
static struct rds_ib_peer *rds_ib_accept_charge(struct rds_ib_net *rin,
						const struct in6_addr *addr)
{
	unsigned int per_peer = READ_ONCE(rds_ib_sysctl_max_accepted_per_peer);
	unsigned int max = READ_ONCE(rds_ib_sysctl_max_accepted);
	u32 hash = rds_ib_peer_hash(rin, addr);
	struct rds_ib_peer *peer, *spare = NULL;

	for (;;) {
		spin_lock(&rin->rin_accept_lock);
		peer = rds_ib_peer_find(rin, addr, hash);
		if (rin->rin_accepted >= max ||
		    (peer && peer->rp_accepted >= per_peer)) {
			peer = ERR_PTR(-EDQUOT);
			break;
		}
		if (!peer && spare) {
			peer = spare;
			spare = NULL;
			peer->rp_addr = *addr;
			peer->rp_accepted = 0;
			hash_add(rin->rin_peers, &peer->rp_node, hash);
		}
		if (peer) {
			peer->rp_accepted++;
			rin->rin_accepted++;
			break;
		}
		spin_unlock(&rin->rin_accept_lock);
		spare = kmalloc(sizeof(*spare), GFP_KERNEL);
		if (!spare)
			return ERR_PTR(-ENOMEM);
	}
	spin_unlock(&rin->rin_accept_lock);
	kfree(spare);
	return peer;
}

static void rds_ib_accept_uncharge(struct rds_ib_net *rin,
				   struct rds_ib_peer *peer)
{
	spin_lock(&rin->rin_accept_lock);
	rin->rin_accepted--;
	if (--peer->rp_accepted)
		peer = NULL;
	else
		hash_del(&peer->rp_node);
	spin_unlock(&rin->rin_accept_lock);
	kfree(peer);
}

/* A request over a limit for a path that is up still says that the peer
 * lost its side (see rds_ib_cm_req()): the path goes, or it would keep its
 * place under the limit for as long as nothing is sent on it, and the
 * peer's attempts would be refused for ever.  Only an existing connection
 * is looked up: a refused request makes none.
 */
static void rds_ib_refused_up(struct net *net, const struct in6_addr *laddr,
			      const struct in6_addr *faddr, u8 tos, int dev_if)
{
	struct rds_connection *conn;

	conn = rds_conn_find(net, laddr, faddr, &rds_ib_transport, tos,
			     dev_if);
	if (!conn)
		return;
	if (rds_conn_path_up(&conn->c_path[0]))
		rds_conn_path_error(&conn->c_path[0], "peer connected again");
	rds_conn_put(conn);
}

/* With the path won (CONNECTING): build the QP, attach, accept.  Once
 * attached, the path holds @peer's charge until its shutdown.
 */
static int rds_ib_accept(struct rds_ib_connection *ic, struct rdma_cm_id *id,
			 const struct rdma_conn_param *req,
			 const struct rds_ib_conn_priv_cmn *cmn, u16 version,
			 bool isv6, struct rds_ib_peer *peer)
{
	struct rds_connection *conn = rds_ib_conn(ic);
	struct rdma_conn_param param;
	union rds_ib_conn_priv dp;
	int ret;

	mutex_lock(&ic->i_mutex);
	if (ic->i_cm_id) {
		ret = -EBUSY;
		goto out;
	}
	ic->i_isv6 = isv6;
	/* Flow control when both ask: the request's credit says it does. */
	rds_ib_credits_init(ic, READ_ONCE(rds_ib_sysctl_flow_control) &&
			    cmn->ricpc_credit);
	ret = rds_ib_setup(ic, id);
	if (ret)
		goto out;
	rds_ib_credits_add(ic, be32_to_cpu(cmn->ricpc_credit));
	ic->i_cm_id = id;
	ic->i_accept_peer = peer;
	rds_ib_connect_arm(ic);
	id->context = ic;
	conn->c_version = version;
	rds_ib_peer_ack(ic, cmn);

	rds_ib_fill_param(id, &param, req->responder_resources,
			  req->initiator_depth);
	rds_ib_fill_priv(ic, &dp, &param, version);
	rds_ib_set_timers(id);
	/* rdma_accept() rejects by itself when it fails. */
	if (rdma_accept(id, &param))
		rds_conn_path_error(ic->i_cp, "rdma_accept failed");
out:
	mutex_unlock(&ic->i_mutex);
	return ret;
}

/* Request handlers hold it (read) while they use a connection they found;
 * see rds_ib_req_barrier().
 */
static DECLARE_RWSEM(rds_ib_req_sem);

/* A request handler may have found a connection just before its destroy
 * unhashed it, and attach an id to it after the destroy's shutdown ran.
 * Once this returns, every such handler is done: what it attached can be
 * shut down, and the paths freed.
 */
void rds_ib_req_barrier(void)
{
	down_write(&rds_ib_req_sem);
	up_write(&rds_ib_req_sem);
}

/* A peer refused for its version may not know why: say it here, as
 * in-tree does.
 */
static void rds_ib_refused_notice(struct rdma_cm_id *id,
				  const struct rds_ib_conn_priv_cmn *cmn)
{
	struct sockaddr *peer = (struct sockaddr *)&id->route.addr.dst_addr;

	if (cmn)
		pr_notice_ratelimited("rds_rdma: %pISc offers protocol %u.%u (minor mask %#x): rejected\n",
				      peer, cmn->ricpc_protocol_major,
				      cmn->ricpc_protocol_minor,
				      be16_to_cpu(cmn->ricpc_protocol_minor_mask));
	else
		pr_notice_ratelimited("rds_rdma: %pISc sent no RDS private data: rejected\n",
				      peer);
}

/* Returns non-zero when rdma_cm must destroy @id (it was rejected). */
static int rds_ib_cm_req(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	bool isv6 = id->route.addr.src_addr.ss_family == AF_INET6;
	const union rds_ib_conn_priv *dp = rds_ib_peer_dp(ev, isv6);
	const struct rds_ib_conn_priv_cmn *cmn = rds_ib_dp_cmn(dp, isv6);
	struct net *net = id->route.addr.dev_addr.net;
	struct rds_ib_net *rin = rds_ib_net(net);
	struct in6_addr laddr = {}, faddr = {};
	int reject = RDS_RDMA_REJ_INCOMPAT;
	const char *why = "incompatible";
	struct rds_connection *conn;
	struct rds_ib_peer *peer;
	struct rds_conn_path *cp;
	u16 version;
	int dev_if;
	int state;
	int ret;

	version = rds_ib_protocol_compatible(cmn);
	if (!version) {
		rds_ib_refused_notice(id, cmn);
		goto reject;
	}
	if (!rds_ib_req_addrs(id, dp, isv6, &laddr, &faddr, &dev_if)) {
		rds_ib_stats_inc(RDS_IB_STAT_ACCEPT_ADDR_MISMATCH);
		rds_ib_mismatch_notice(id, &laddr, &faddr);
		reject = RDS_IB_REJ_REFUSED;
		why = "addresses not the connection's";
		goto reject;
	}
	/* Charged before the connection is looked up, or a refused request
	 * could still make one for each TOS it names.
	 */
	peer = rds_ib_accept_charge(rin, &faddr);
	if (IS_ERR(peer)) {
		if (PTR_ERR(peer) == -EDQUOT) {
			rds_ib_stats_inc(RDS_IB_STAT_ACCEPT_OVER_LIMIT);
			rds_ib_refused_up(net, &laddr, &faddr,
					  cmn->ricpc_dp_toss, dev_if);
		}
		reject = RDS_IB_REJ_REFUSED;
		why = PTR_ERR(peer) == -EDQUOT ? "over max_accepted" : "no memory";
		goto reject;
	}
	down_read(&rds_ib_req_sem);
	conn = rds_conn_create(net, &laddr, &faddr, &rds_ib_transport,
			       cmn->ricpc_dp_toss, GFP_KERNEL, dev_if);
	if (IS_ERR(conn)) {
		why = "no connection";
		goto reject_unlock;
	}
	cp = &conn->c_path[0];

	if (READ_ONCE(conn->c_destroying) ||
	    !rds_conn_path_transition(cp, RDS_CONN_DOWN, RDS_CONN_CONNECTING)) {
		state = rds_conn_path_state(cp);
		if (state == RDS_CONN_UP)
			rds_conn_path_error(cp, "peer connected again");
		else if (state == RDS_CONN_CONNECTING)
			rds_conn_path_yield(cp);
		why = "path busy";
		goto reject_put;
	}
	/* A request to our listener is for the path's home carrier. */
	ret = rds_ib_accept(cp->cp_home.ca_data, id, &ev->param.conn, cmn,
			    version, isv6, peer);
	if (ret) {
		/* No memory left for its rings (mem.c): later, perhaps. */
		if (ret == -ENOBUFS)
			reject = RDS_IB_REJ_REFUSED;
		rds_conn_path_error(cp, "cannot accept");
		why = ret == -ENOBUFS ? "over max_ring_memory" : "cannot accept";
		goto reject_put;
	}
	rds_conn_put(conn);
	up_read(&rds_ib_req_sem);
	return 0;

reject_put:
	rds_conn_put(conn);
reject_unlock:
	up_read(&rds_ib_req_sem);
	rds_ib_accept_uncharge(rin, peer);
reject:
	trace_rds_ib_cm_refuse(net, &laddr, &faddr, reject, why);
	rdma_reject(id, &reject, sizeof(reject), IB_CM_REJ_CONSUMER_DEFINED);
	return 1;
}

/* ---- Events ------------------------------------------------------------ */

/* rdma_cm calls this with the id's handler mutex held.  Ids we do not own
 * (listeners, laddr_check's) have no context; a request arrives on a new id
 * that inherited that.  Everything else is for the path in the context,
 * and only while the path is still attached to this id: shutdown detaches
 * first, and destroys the id (waiting for us) afterwards.
 */
int rds_ib_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct rds_ib_connection *ic = id->context;
	int ret;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return rds_ib_cm_req(id, ev);
	if (!ic)
		return 0;

	mutex_lock(&ic->i_mutex);
	pr_debug("rds_rdma: %pI6c->%pI6c: %s (%d)%s\n",
		 &rds_ib_conn(ic)->c_laddr, &rds_ib_conn(ic)->c_faddr,
		 rdma_event_msg(ev->event), ev->status,
		 ic->i_cm_id == id ? "" : ", stale");
	trace_rds_ib_cm_event(ic->i_cp, ev->event, ev->status, ic->i_cm_id != id);
	if (ic->i_cm_id != id)
		goto out;
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		rdma_set_service_type(id, rds_ib_conn(ic)->c_tos);
		rds_ib_set_timers(id);
		ret = rdma_resolve_route(id, RDS_IB_RESOLVE_MS);
		if (ret)
			rds_conn_path_error(ic->i_cp, "cannot resolve route");
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		ret = rds_ib_route_resolved(ic, id);
		if (ret)
			rds_conn_path_error(ic->i_cp, "cannot connect");
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		rds_ib_established(ic, ev);
		break;
	case RDMA_CM_EVENT_REJECTED:
		rds_ib_rejected(ic, id, ev);
		break;
	default:
		/* Errors, disconnect, device removal, address change. */
		rds_conn_path_error(ic->i_cp, rdma_event_msg(ev->event));
		break;
	}
out:
	mutex_unlock(&ic->i_mutex);
	return 0;
}

/* ---- Shutdown ---------------------------------------------------------- */

/* Detach the path from its id, then disconnect, drain and destroy. */
void rds_ib_conn_path_shutdown(struct rds_carrier *ca)
{
	struct rds_ib_connection *ic = ca->ca_data;
	struct net *net = rds_conn_net(ca->ca_cp->cp_conn);
	struct rds_ib_peer *peer;
	struct rdma_cm_id *id;

	mutex_lock(&ic->i_mutex);
	id = ic->i_cm_id;
	ic->i_cm_id = NULL;
	peer = ic->i_accept_peer;
	ic->i_accept_peer = NULL;
	mutex_unlock(&ic->i_mutex);
	if (!id)
		return;

	/* rdma_cm's address resolution handler holds no reference on the
	 * id (6.1): a destroy that waited for the id's handler mutex freed
	 * it while the handler was still in its mutex_unlock() (KASAN, debug
	 * kernel, two CPUs, a path dropped as its address resolved).
	 * Cancelling the resolution first waits for a running handler to
	 * return.
	 */
	rdma_addr_cancel(&id->route.addr.dev_addr);
	rdma_disconnect(id);
	rds_ib_qp_teardown(ic, id);
	rdma_destroy_id(id);
	/* Once its rings are gone: the limits bound what is allocated. */
	if (peer)
		rds_ib_accept_uncharge(rds_ib_net(net), peer);
}

/* ---- Listeners --------------------------------------------------------- */

static struct rdma_cm_id *rds_ib_listen_one(struct net *net,
					    const struct in6_addr *any,
					    u16 port)
{
	struct sockaddr_storage ss;
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(net, rds_ib_cm_handler, NULL, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return id;
	rds_ib_sockaddr(&ss, any, port, 0);
	ret = rdma_bind_addr(id, (struct sockaddr *)&ss);
	if (!ret)
		ret = rdma_listen(id, 128);
	if (ret) {
		rdma_destroy_id(id);
		return ERR_PTR(ret);
	}
	return id;
}

/* When a netns listens: see struct rds_ib_net. */
int rds_ib_listen_init(struct rds_ib_net *rin)
{
	struct in6_addr any4;
	struct rdma_cm_id *id;

	ipv6_addr_set_v4mapped(htonl(INADDR_ANY), &any4);
	id = rds_ib_listen_one(rin->rin_net, &any4, RDS_IB_PORT);
	if (IS_ERR(id))
		return PTR_ERR(id);
	rin->rin_listen = id;

	/* Without IPv6 we still serve IPv4. */
	id = rds_ib_listen_one(rin->rin_net, &in6addr_any, RDS_IB_PORT6);
	if (IS_ERR(id))
		pr_info("rds_rdma: no IPv6 listener: %ld\n", PTR_ERR(id));
	else
		rin->rin_listen6 = id;
	return 0;
}

/* Destroying a listener waits for the request handlers running under it. */
void rds_ib_listen_stop(struct rds_ib_net *rin)
{
	if (rin->rin_listen6) {
		rdma_destroy_id(rin->rin_listen6);
		rin->rin_listen6 = NULL;
	}
	if (rin->rin_listen) {
		rdma_destroy_id(rin->rin_listen);
		rin->rin_listen = NULL;
	}
}
