// SPDX-License-Identifier: GPL-2.0
/*
 * rds-info --json: the same tables as the columns, as one JSON object with a
 * member per table. The member and field names are an interface for
 * scripts, documented in rds-info(1): add to them, never rename.
 *
 * Every field of an item is printed whatever -v says, addresses as strings,
 * ports in host order, flags as booleans. One item per line keeps the
 * output greppable as well as parseable.
 */
#include <arpa/inet.h>
#include <stdio.h>

#include "rdstool.h"
#include "rds-info.h"

/* Separator state of the object or array being printed. */
static bool first_item, first_field;

/* Kernel strings are fixed-size arrays, not always NUL-terminated. */
static void json_string(const char *s, size_t max)
{
	size_t i;

	putchar('"');
	for (i = 0; i < max && s[i]; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void field_name(const char *name)
{
	printf("%s\"%s\": ", first_field ? "" : ", ", name);
	first_field = false;
}

static void field_str(const char *name, const char *val, size_t max)
{
	field_name(name);
	json_string(val, max);
}

static void field_u64(const char *name, unsigned long long val)
{
	field_name(name);
	printf("%llu", val);
}

static void field_bool(const char *name, bool val)
{
	field_name(name);
	fputs(val ? "true" : "false", stdout);
}

static void item_begin(void)
{
	printf("%s\n    {", first_item ? "" : ",");
	first_item = false;
	first_field = true;
}

static void item_end(void)
{
	putchar('}');
}

/* Opens the member @key of the top-level object: an array, or an object. */
void json_table_begin(const char *key, bool first, bool is_object)
{
	printf("%s\n  \"%s\": %c", first ? "" : ",", key, is_object ? '{' : '[');
	first_item = true;
}

void json_table_end(bool is_object)
{
	printf("%s%c", first_item ? "" : "\n  ", is_object ? '}' : ']');
}

/* Counters are an object keyed by name: .counters.conn_reset in jq. */
void json_counters(struct table *t)
{
	struct rds_info_counter c;
	size_t off;

	for (off = 0; table_item(t, off, &c, sizeof(c)); off += t->each) {
		printf("%s\n    ", first_item ? "" : ",");
		json_string((char *)c.name, sizeof(c.name));
		printf(": %llu", (unsigned long long)c.value);
		first_item = false;
	}
}

static void conn_fields(uint8_t flags, unsigned long long tx, unsigned long long rx,
			const uint8_t *transport)
{
	field_u64("next_tx_seq", tx);
	field_u64("next_rx_seq", rx);
	field_bool("sending", flags & RDS_INFO_CONNECTION_FLAG_SENDING);
	field_bool("connecting", flags & RDS_INFO_CONNECTION_FLAG_CONNECTING);
	field_bool("connected", flags & RDS_INFO_CONNECTION_FLAG_CONNECTED);
	field_str("transport", (const char *)transport, TRANSNAMSIZ);
}

void json_conns(struct table *t)
{
	struct rds_info_connection c;
	size_t off;

	for (off = 0; table_item(t, off, &c, sizeof(c)); off += t->each) {
		item_begin();
		field_str("local_addr", ip4(c.laddr), INET6_ADDRSTRLEN);
		field_str("remote_addr", ip4(c.faddr), INET6_ADDRSTRLEN);
		field_u64("tos", c.tos);
		conn_fields(c.flags, c.next_tx_seq, c.next_rx_seq, c.transport);
		item_end();
	}
}

/* The kernel's IPv6 item has no tos, so neither has ours. */
void json_conns6(struct table *t)
{
	struct rds6_info_connection c;
	size_t off;

	for (off = 0; table_item(t, off, &c, sizeof(c)); off += t->each) {
		item_begin();
		field_str("local_addr", ip6(&c.laddr), INET6_ADDRSTRLEN);
		field_str("remote_addr", ip6(&c.faddr), INET6_ADDRSTRLEN);
		conn_fields(c.flags, c.next_tx_seq, c.next_rx_seq, c.transport);
		item_end();
	}
}

static void socket_fields(const char *bound, __be16 bport, const char *conn, __be16 cport,
			  unsigned int sndbuf, unsigned int rcvbuf, unsigned long long inum)
{
	item_begin();
	field_str("bound_addr", bound, INET6_ADDRSTRLEN);
	field_u64("bound_port", ntohs(bport));
	field_str("connected_addr", conn, INET6_ADDRSTRLEN);
	field_u64("connected_port", ntohs(cport));
	field_u64("sndbuf", sndbuf);
	field_u64("rcvbuf", rcvbuf);
	field_u64("inode", inum);
	item_end();
}

void json_sockets(struct table *t)
{
	struct rds_info_socket s;
	size_t off;

	for (off = 0; table_item(t, off, &s, sizeof(s)); off += t->each)
		socket_fields(ip4(s.bound_addr), s.bound_port, ip4(s.connected_addr),
			      s.connected_port, s.sndbuf, s.rcvbuf, s.inum);
}

void json_sockets6(struct table *t)
{
	struct rds6_info_socket s;
	size_t off;

	for (off = 0; table_item(t, off, &s, sizeof(s)); off += t->each)
		socket_fields(ip6(&s.bound_addr), s.bound_port, ip6(&s.connected_addr),
			      s.connected_port, s.sndbuf, s.rcvbuf, s.inum);
}

static void msg_fields(const char *laddr, __be16 lport, const char *faddr, __be16 fport,
		       unsigned int tos, unsigned long long seq, unsigned int len,
		       unsigned int flags)
{
	item_begin();
	field_str("local_addr", laddr, INET6_ADDRSTRLEN);
	field_u64("local_port", ntohs(lport));
	field_str("remote_addr", faddr, INET6_ADDRSTRLEN);
	field_u64("remote_port", ntohs(fport));
	field_u64("tos", tos);
	field_u64("seq", seq);
	field_u64("bytes", len);
	field_bool("ack", flags & RDS_INFO_MESSAGE_FLAG_ACK);
	field_bool("fast_ack", flags & RDS_INFO_MESSAGE_FLAG_FAST_ACK);
	item_end();
}

void json_msgs(struct table *t)
{
	struct rds_info_message m;
	size_t off;

	for (off = 0; table_item(t, off, &m, sizeof(m)); off += t->each)
		msg_fields(ip4(m.laddr), m.lport, ip4(m.faddr), m.fport, m.tos,
			   m.seq, m.len, m.flags);
}

void json_msgs6(struct table *t)
{
	struct rds6_info_message m;
	size_t off;

	for (off = 0; table_item(t, off, &m, sizeof(m)); off += t->each)
		msg_fields(ip6(&m.laddr), m.lport, ip6(&m.faddr), m.fport, m.tos,
			   m.seq, m.len, m.flags);
}

static void tcp_fields(unsigned long long hdr_rem, unsigned long long data_rem,
		       unsigned int sent_nxt, unsigned int expected_una, unsigned int seen_una)
{
	field_u64("hdr_rem", hdr_rem);
	field_u64("data_rem", data_rem);
	field_u64("last_sent_nxt", sent_nxt);
	field_u64("last_expected_una", expected_una);
	field_u64("last_seen_una", seen_una);
}

void json_tcp(struct table *t)
{
	struct rds_info_tcp_socket s;
	size_t off;

	for (off = 0; table_item(t, off, &s, sizeof(s)); off += t->each) {
		item_begin();
		field_str("local_addr", ip4(s.local_addr), INET6_ADDRSTRLEN);
		field_u64("local_port", ntohs(s.local_port));
		field_str("remote_addr", ip4(s.peer_addr), INET6_ADDRSTRLEN);
		field_u64("remote_port", ntohs(s.peer_port));
		field_u64("tos", s.tos);
		tcp_fields(s.hdr_rem, s.data_rem, s.last_sent_nxt, s.last_expected_una,
			   s.last_seen_una);
		item_end();
	}
}

void json_tcp6(struct table *t)
{
	struct rds6_info_tcp_socket s;
	size_t off;

	for (off = 0; table_item(t, off, &s, sizeof(s)); off += t->each) {
		item_begin();
		field_str("local_addr", ip6(&s.local_addr), INET6_ADDRSTRLEN);
		field_u64("local_port", ntohs(s.local_port));
		field_str("remote_addr", ip6(&s.peer_addr), INET6_ADDRSTRLEN);
		field_u64("remote_port", ntohs(s.peer_port));
		tcp_fields(s.hdr_rem, s.data_rem, s.last_sent_nxt, s.last_expected_una,
			   s.last_seen_una);
		item_end();
	}
}

/*
 * The IPv6 item ends with the same fields as the IPv4 one; it is copied into
 * one of those so that a single function prints them. The GIDs print as IPv6
 * addresses, as in the columns.
 */
static void ib_fields(const struct rds_info_rdma_connection *c)
{
	field_u64("tos", c->tos);
	field_u64("sl", c->sl);
	field_str("local_gid", ip6(c->src_gid), INET6_ADDRSTRLEN);
	field_str("remote_gid", ip6(c->dst_gid), INET6_ADDRSTRLEN);
	field_u64("max_send_wr", c->max_send_wr);
	field_u64("max_recv_wr", c->max_recv_wr);
	field_u64("max_send_sge", c->max_send_sge);
	field_u64("rdma_mr_max", c->rdma_mr_max);
	field_u64("rdma_mr_size", c->rdma_mr_size);
	field_u64("cache_allocs", c->cache_allocs);
}

void json_ib(struct table *t)
{
	struct rds_info_rdma_connection c;
	size_t off;

	for (off = 0; table_item(t, off, &c, sizeof(c)); off += t->each) {
		item_begin();
		field_str("local_addr", ip4(c.src_addr), INET6_ADDRSTRLEN);
		field_str("remote_addr", ip4(c.dst_addr), INET6_ADDRSTRLEN);
		ib_fields(&c);
		item_end();
	}
}

void json_ib6(struct table *t)
{
	struct rds6_info_rdma_connection c;
	struct rds_info_rdma_connection tail;
	size_t off;

	for (off = 0; table_item(t, off, &c, sizeof(c)); off += t->each) {
		memcpy(tail.src_gid, c.src_gid, sizeof(tail.src_gid));
		memcpy(tail.dst_gid, c.dst_gid, sizeof(tail.dst_gid));
		tail.max_send_wr = c.max_send_wr;
		tail.max_recv_wr = c.max_recv_wr;
		tail.max_send_sge = c.max_send_sge;
		tail.rdma_mr_max = c.rdma_mr_max;
		tail.rdma_mr_size = c.rdma_mr_size;
		tail.tos = c.tos;
		tail.sl = c.sl;
		tail.cache_allocs = c.cache_allocs;
		item_begin();
		field_str("local_addr", ip6(&c.src_addr), INET6_ADDRSTRLEN);
		field_str("remote_addr", ip6(&c.dst_addr), INET6_ADDRSTRLEN);
		ib_fields(&tail);
		item_end();
	}
}

/* The fields that say which path (RDS_INFO_PATHS' and RDS_INFO_CARRIERS'
 * rows alike).
 */
static void path_fields(const void *laddr, const void *faddr,
			unsigned int tos, unsigned int index,
			const __u8 *transport)
{
	field_str("local_addr", ipx(laddr), INET6_ADDRSTRLEN);
	field_str("remote_addr", ipx(faddr), INET6_ADDRSTRLEN);
	field_u64("tos", tos);
	field_u64("path", index);
	field_str("transport", (const char *)transport, TRANSNAMSIZ);
}

/* Ours alone: a reason is "" until the first of its kind. */
void json_paths(struct table *t)
{
	struct rds_info_path p;
	size_t off;

	for (off = 0; table_item(t, off, &p, sizeof(p)); off += t->each) {
		item_begin();
		path_fields(&p.laddr, &p.faddr, p.tos, p.index, p.transport);
		field_str("state", path_state(p.state), 16);
		field_u64("next_tx_seq", p.next_tx_seq);
		field_u64("next_rx_seq", p.next_rx_seq);
		field_u64("connect_attempts", p.connect_attempts);
		field_u64("connect_failures", p.connect_failures);
		field_str("last_connect_error", (const char *)p.last_connect_error,
			  RDS_INFO_REASON_LEN);
		field_u64("resets", p.resets);
		field_u64("last_reset_time", p.last_reset_time > 0 ? p.last_reset_time : 0);
		field_str("last_reset_reason", (const char *)p.last_reset_reason,
			  RDS_INFO_REASON_LEN);
		item_end();
	}
}

void json_sock_drops(struct table *t)
{
	struct rds_info_socket_drops d;
	size_t off;

	for (off = 0; table_item(t, off, &d, sizeof(d)); off += t->each) {
		item_begin();
		field_str("bound_addr", ipx(&d.bound_addr), INET6_ADDRSTRLEN);
		field_u64("bound_port", ntohs(d.bound_port));
		field_u64("inode", d.inum);
		field_u64("recv_rcvbuf", d.recv_rcvbuf);
		field_u64("send_reset", d.send_reset);
		field_u64("send_purged", d.send_purged);
		field_u64("send_canceled", d.send_canceled);
		item_end();
	}
}

void json_carriers(struct table *t)
{
	struct rds_info_carrier c;
	size_t off;

	for (off = 0; table_item(t, off, &c, sizeof(c)); off += t->each) {
		item_begin();
		path_fields(&c.laddr, &c.faddr, c.tos, c.index, c.transport);
		field_str("carrier", (const char *)c.carrier, TRANSNAMSIZ);
		field_str("device", (const char *)c.device, RDS_INFO_DEVNAMSIZ);
		field_u64("port", c.port);
		field_bool("home", c.flags & RDS_INFO_CARRIER_HOME);
		field_u64("moves", c.moves);
		field_u64("last_move_time", c.last_move_time > 0 ? c.last_move_time : 0);
		item_end();
	}
}
