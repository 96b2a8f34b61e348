// SPDX-License-Identifier: GPL-2.0
/*
 * rds-info --prometheus: one snapshot of the counters and of each
 * connection's state in the Prometheus text exposition format, for
 * node_exporter's textfile collector. The metric names are documented in
 * rds-info(1).
 *
 * Connections come from the IPv4 table, which has their tos, and from the
 * IPv6 table for those with IPv6 addresses (it lists the IPv4 ones too, as
 * mapped addresses). Every connection series carries the same labels,
 * because the collector refuses a family whose label names differ between
 * series: IPv6 connections have tos="", the kernel not exporting theirs.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "rdstool.h"
#include "rds-info.h"

struct conn {
	char local[INET6_ADDRSTRLEN];
	char remote[INET6_ADDRSTRLEN];
	char tos[4];
	char transport[TRANSNAMSIZ + 1];
	unsigned int flags;
	unsigned long long next_tx, next_rx;
};

/* Messages queued per local address, remote address and tos. */
enum queue { Q_SEND, Q_RETRANS, Q_RECV, NR_QUEUES };

struct queued {
	char local[INET6_ADDRSTRLEN];
	char remote[INET6_ADDRSTRLEN];
	char tos[4];
	unsigned long long msgs[NR_QUEUES], bytes[NR_QUEUES];
};

/* A growing array; the tables are small, so lookups are linear. */
struct list {
	void *v;
	size_t n, size;
};

static void *list_add(struct list *l)
{
	char *item;

	l->v = realloc(l->v, (l->n + 1) * l->size);
	if (!l->v)
		die("out of memory");
	item = (char *)l->v + l->n++ * l->size;
	memset(item, 0, l->size);
	return item;
}

/* Takes void pointers: the addresses sit unaligned in packed items. */
static bool v4mapped(const void *a)
{
	struct in6_addr in;

	memcpy(&in, a, sizeof(in));
	return IN6_IS_ADDR_V4MAPPED(&in);
}

/* IPv4-mapped addresses print as dotted quads, as in the IPv4 tables. */
static void addr6_str(const void *a, char *s)
{
	struct in6_addr in;

	memcpy(&in, a, sizeof(in));
	if (IN6_IS_ADDR_V4MAPPED(&in))
		inet_ntop(AF_INET, &in.s6_addr[12], s, INET6_ADDRSTRLEN);
	else
		inet_ntop(AF_INET6, &in, s, INET6_ADDRSTRLEN);
}

/*
 * Connections that differ only in tos look the same in the IPv6 table; only
 * the first is shown, since the collector refuses duplicate series.
 */
static bool conn_seen(const struct list *conns, const struct conn *c)
{
	const struct conn *p = conns->v;
	size_t i;

	for (i = 0; i + 1 < conns->n; i++)
		if (!strcmp(p[i].local, c->local) && !strcmp(p[i].remote, c->remote) &&
		    !strcmp(p[i].transport, c->transport))
			return true;
	return false;
}

static void read_conns(int fd, struct list *conns)
{
	struct rds6_info_connection c6;
	struct rds_info_connection c;
	struct table t;
	struct conn *p;
	size_t off;

	if (read_table(fd, RDS_INFO_CONNECTIONS, &t)) {
		for (off = 0; table_item(&t, off, &c, sizeof(c)); off += t.each) {
			p = list_add(conns);
			inet_ntop(AF_INET, &c.laddr, p->local, sizeof(p->local));
			inet_ntop(AF_INET, &c.faddr, p->remote, sizeof(p->remote));
			snprintf(p->tos, sizeof(p->tos), "%u", c.tos);
			memcpy(p->transport, c.transport, TRANSNAMSIZ);
			p->flags = c.flags;
			p->next_tx = c.next_tx_seq;
			p->next_rx = c.next_rx_seq;
		}
		free(t.buf);
	}
	if (!read_table(fd, RDS6_INFO_CONNECTIONS, &t))
		return;
	for (off = 0; table_item(&t, off, &c6, sizeof(c6)); off += t.each) {
		if (v4mapped(&c6.laddr))
			continue;
		p = list_add(conns);
		addr6_str(&c6.laddr, p->local);
		addr6_str(&c6.faddr, p->remote);
		memcpy(p->transport, c6.transport, TRANSNAMSIZ);
		p->flags = c6.flags;
		p->next_tx = c6.next_tx_seq;
		p->next_rx = c6.next_rx_seq;
		if (conn_seen(conns, p))
			conns->n--;
	}
	free(t.buf);
}

static struct queued *queued_find(struct list *l, const char *local, const char *remote,
				  const char *tos)
{
	struct queued *q = l->v;
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(q[i].local, local) && !strcmp(q[i].remote, remote) &&
		    !strcmp(q[i].tos, tos))
			return &q[i];
	q = list_add(l);
	strcpy(q->local, local);
	strcpy(q->remote, remote);
	strcpy(q->tos, tos);
	return q;
}

/* The IPv6 message tables list every message, IPv4 ones included. */
static void read_queue(int fd, int opt, enum queue which, struct list *l)
{
	char local[INET6_ADDRSTRLEN], remote[INET6_ADDRSTRLEN], tos[4];
	struct rds6_info_message m;
	struct queued *q;
	struct table t;
	size_t off;

	if (!read_table(fd, opt, &t))
		return;
	for (off = 0; table_item(&t, off, &m, sizeof(m)); off += t.each) {
		addr6_str(&m.laddr, local);
		addr6_str(&m.faddr, remote);
		snprintf(tos, sizeof(tos), "%u", m.tos);
		q = queued_find(l, local, remote, tos);
		q->msgs[which]++;
		q->bytes[which] += m.len;
	}
	free(t.buf);
}

/* Label values are addresses and transport names; escape them anyway. */
static void label(const char *name, const char *val, bool last)
{
	printf("%s=\"", name);
	for (; *val; val++) {
		if (*val == '\\' || *val == '"')
			printf("\\%c", *val);
		else if (*val == '\n')
			fputs("\\n", stdout);
		else
			putchar(*val);
	}
	printf("\"%s", last ? "} " : ",");
}

static void family(const char *name, const char *type, const char *help)
{
	printf("# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* Which value of a connection one family shows. */
enum conn_value { C_UP, C_CONNECTING, C_SENDING, C_NEXT_TX, C_NEXT_RX };

static const struct {
	const char *name, *help;
} conn_families[] = {
	[C_UP] = { "rds_connection_up", "1 if the connection is up." },
	[C_CONNECTING] = { "rds_connection_connecting", "1 while the connection is being made." },
	[C_SENDING] = { "rds_connection_sending", "1 while a message is being sent." },
	[C_NEXT_TX] = { "rds_connection_next_tx_seq",
			"Sequence number of the next message sent." },
	[C_NEXT_RX] = { "rds_connection_next_rx_seq",
			"Sequence number of the next message expected." },
};

static unsigned long long conn_value(const struct conn *c, enum conn_value v)
{
	switch (v) {
	case C_UP:
		return !!(c->flags & RDS_INFO_CONNECTION_FLAG_CONNECTED);
	case C_CONNECTING:
		return !!(c->flags & RDS_INFO_CONNECTION_FLAG_CONNECTING);
	case C_SENDING:
		return !!(c->flags & RDS_INFO_CONNECTION_FLAG_SENDING);
	case C_NEXT_TX:
		return c->next_tx;
	default:
		return c->next_rx;
	}
}

static void print_conns(const struct list *conns)
{
	const struct conn *c = conns->v;
	unsigned int v;
	size_t i;

	for (v = 0; v < ARRAY_SIZE(conn_families); v++) {
		family(conn_families[v].name, "gauge", conn_families[v].help);
		for (i = 0; i < conns->n; i++) {
			printf("%s{", conn_families[v].name);
			label("local", c[i].local, false);
			label("remote", c[i].remote, false);
			label("tos", c[i].tos, false);
			label("transport", c[i].transport, true);
			printf("%llu\n", conn_value(&c[i], v));
		}
	}
}

static const char *const queue_names[NR_QUEUES] = {
	[Q_SEND] = "send", [Q_RETRANS] = "retransmit", [Q_RECV] = "receive",
};

static void print_queued(const struct list *l)
{
	const struct queued *q = l->v;
	char name[64], help[96];
	unsigned int w, bytes;
	size_t i;

	for (w = 0; w < NR_QUEUES; w++) {
		for (bytes = 0; bytes < 2; bytes++) {
			snprintf(name, sizeof(name), "rds_%s_queue_%s", queue_names[w],
				 bytes ? "bytes" : "messages");
			snprintf(help, sizeof(help), "Payload %s in the %s queues.",
				 bytes ? "bytes" : "messages", queue_names[w]);
			family(name, "gauge", help);
			for (i = 0; i < l->n; i++) {
				printf("%s{", name);
				label("local", q[i].local, false);
				label("remote", q[i].remote, false);
				label("tos", q[i].tos, true);
				printf("%llu\n", bytes ? q[i].bytes[w] : q[i].msgs[w]);
			}
		}
	}
}

/* Metric names allow [a-zA-Z0-9_:]; the counters' are [a-z_0-9] already. */
static void print_counters(int fd)
{
	struct rds_info_counter c;
	char name[sizeof(c.name) + 1];
	struct table t;
	size_t off, i;

	if (!read_table(fd, RDS_INFO_COUNTERS, &t))
		return;
	for (off = 0; table_item(&t, off, &c, sizeof(c)); off += t.each) {
		memcpy(name, c.name, sizeof(c.name));
		name[sizeof(c.name)] = '\0';
		for (i = 0; name[i]; i++)
			if (!isalnum((unsigned char)name[i]))
				name[i] = '_';
		printf("# HELP rds_%s_total RDS statistic %s.\n", name, name);
		printf("# TYPE rds_%s_total counter\n", name);
		printf("rds_%s_total %llu\n", name, (unsigned long long)c.value);
	}
	free(t.buf);
}

/* Every socket is in the IPv6 table; the one rds-info reads with is not counted. */
static void print_sockets(int fd)
{
	struct rds6_info_socket s;
	unsigned long long n = 0;
	struct stat st;
	struct table t;
	size_t off;

	if (fstat(fd, &st))
		die_errno("fstat");
	if (!read_table(fd, RDS6_INFO_SOCKETS, &t))
		return;
	for (off = 0; table_item(&t, off, &s, sizeof(s)); off += t.each)
		n += s.inum != st.st_ino;
	free(t.buf);
	family("rds_sockets", "gauge", "RDS sockets open in this network namespace.");
	printf("rds_sockets %llu\n", n);
}

/* The start of a series of @name for one path: its name and the labels
 * that say which path (RDS_INFO_PATHS' and RDS_INFO_CARRIERS' rows alike);
 * @last when no label follows.
 */
static void path_labels(const char *name, const void *laddr,
			const void *faddr, unsigned int tos,
			const __u8 *transport, unsigned int index, bool last)
{
	char local[INET6_ADDRSTRLEN], remote[INET6_ADDRSTRLEN], n[8];
	char trans[TRANSNAMSIZ + 1];

	addr6_str(laddr, local);
	addr6_str(faddr, remote);
	memcpy(trans, transport, TRANSNAMSIZ);
	trans[TRANSNAMSIZ] = '\0';
	printf("%s{", name);
	label("local", local, false);
	label("remote", remote, false);
	snprintf(n, sizeof(n), "%u", tos);
	label("tos", n, false);
	label("transport", trans, false);
	snprintf(n, sizeof(n), "%u", index);
	label("path", n, last);
}

/* One series of @name for path @p, its value @v. */
static void path_sample(const char *name, const struct rds_info_path *p,
			const char *reason, unsigned long long v)
{
	path_labels(name, &p->laddr, &p->faddr, p->tos, p->transport,
		    p->index, !reason);
	if (reason)
		label("reason", reason, true);
	printf("%llu\n", v);
}

/* Ours alone (RDS_INFO_PATHS): nothing at all from the in-tree modules. */
static void print_paths(int fd)
{
	char reason[RDS_INFO_REASON_LEN + 1];
	struct rds_info_path p;
	struct table t;
	size_t off;

	if (!read_table(fd, RDS_INFO_PATHS, &t))
		return;
	family("rds_path_resets_total", "counter",
	       "Times the path was lost while up.");
	for (off = 0; table_item(&t, off, &p, sizeof(p)); off += t.each)
		path_sample("rds_path_resets_total", &p, NULL, p.resets);
	family("rds_path_connect_failures_total", "counter",
	       "Connection attempts of the path that failed.");
	for (off = 0; table_item(&t, off, &p, sizeof(p)); off += t.each)
		path_sample("rds_path_connect_failures_total", &p, NULL, p.connect_failures);
	family("rds_path_last_reset_timestamp_seconds", "gauge",
	       "When the path was last lost while up, 0 for never.");
	for (off = 0; table_item(&t, off, &p, sizeof(p)); off += t.each)
		path_sample("rds_path_last_reset_timestamp_seconds", &p, NULL,
			    p.last_reset_time > 0 ? p.last_reset_time : 0);
	family("rds_path_last_reset_info", "gauge",
	       "Why the path was last lost while up, in the reason label.");
	for (off = 0; table_item(&t, off, &p, sizeof(p)); off += t.each) {
		if (!p.resets)
			continue;
		memcpy(reason, p.last_reset_reason, RDS_INFO_REASON_LEN);
		reason[RDS_INFO_REASON_LEN] = '\0';
		path_sample("rds_path_last_reset_info", &p, reason, 1);
	}
	free(t.buf);
}

/* Bound sockets with a drop, one series per reason (RDS_INFO_SOCKET_DROPS). */
static void print_sock_drops(int fd)
{
	static const char *const reasons[] = {
		"recv_rcvbuf", "send_reset", "send_purged", "send_canceled",
	};
	struct rds_info_socket_drops d;
	char addr[INET6_ADDRSTRLEN], port[8];
	unsigned long long v[4];
	struct table t;
	size_t off, i;

	if (!read_table(fd, RDS_INFO_SOCKET_DROPS, &t))
		return;
	family("rds_socket_drops_total", "counter",
	       "Messages of a bound socket not delivered, by reason.");
	for (off = 0; table_item(&t, off, &d, sizeof(d)); off += t.each) {
		v[0] = d.recv_rcvbuf;
		v[1] = d.send_reset;
		v[2] = d.send_purged;
		v[3] = d.send_canceled;
		if (!d.bound_port || !(v[0] | v[1] | v[2] | v[3]))
			continue;
		addr6_str(&d.bound_addr, addr);
		snprintf(port, sizeof(port), "%u", ntohs(d.bound_port));
		for (i = 0; i < ARRAY_SIZE(reasons); i++) {
			printf("rds_socket_drops_total{");
			label("addr", addr, false);
			label("port", port, false);
			label("reason", reasons[i], true);
			printf("%llu\n", v[i]);
		}
	}
	free(t.buf);
}

/* One series of @name for the path of carrier @c, its value @v; with
 * @info, the carrier's own labels too.
 */
static void carrier_sample(const char *name, const struct rds_info_carrier *c,
			   bool info, unsigned long long v)
{
	char carrier[TRANSNAMSIZ + 1], device[RDS_INFO_DEVNAMSIZ + 1];

	path_labels(name, &c->laddr, &c->faddr, c->tos, c->transport,
		    c->index, !info);
	if (info) {
		memcpy(carrier, c->carrier, TRANSNAMSIZ);
		carrier[TRANSNAMSIZ] = '\0';
		memcpy(device, c->device, RDS_INFO_DEVNAMSIZ);
		device[RDS_INFO_DEVNAMSIZ] = '\0';
		label("carrier", carrier, false);
		label("device", device, false);
		label("home", c->flags & RDS_INFO_CARRIER_HOME ? "1" : "0", true);
	}
	printf("%llu\n", v);
}

/* Ours alone (RDS_INFO_CARRIERS), a row per path like the paths'. */
static void print_carriers(int fd)
{
	struct rds_info_carrier c;
	struct table t;
	size_t off;

	if (!read_table(fd, RDS_INFO_CARRIERS, &t))
		return;
	family("rds_path_carrier_info", "gauge",
	       "1 for each path: what it sends through, in the labels.");
	for (off = 0; table_item(&t, off, &c, sizeof(c)); off += t.each)
		carrier_sample("rds_path_carrier_info", &c, true, 1);
	family("rds_path_carrier_moves_total", "counter",
	       "Times the path moved to another carrier.");
	for (off = 0; table_item(&t, off, &c, sizeof(c)); off += t.each)
		carrier_sample("rds_path_carrier_moves_total", &c, false, c.moves);
	family("rds_path_last_move_timestamp_seconds", "gauge",
	       "When the path last moved to another carrier, 0 for never.");
	for (off = 0; table_item(&t, off, &c, sizeof(c)); off += t.each)
		carrier_sample("rds_path_last_move_timestamp_seconds", &c, false,
			       c.last_move_time > 0 ? c.last_move_time : 0);
	free(t.buf);
}

void prom_export(int fd)
{
	struct list conns = { .size = sizeof(struct conn) };
	struct list queued = { .size = sizeof(struct queued) };
	const struct conn *c;
	size_t i;

	print_counters(fd);
	print_sockets(fd);
	read_conns(fd, &conns);
	print_conns(&conns);

	/* Each IPv4 connection gets its queue series, at 0 when empty. */
	c = conns.v;
	for (i = 0; i < conns.n; i++)
		if (c[i].tos[0])
			queued_find(&queued, c[i].local, c[i].remote, c[i].tos);
	read_queue(fd, RDS6_INFO_SEND_MESSAGES, Q_SEND, &queued);
	read_queue(fd, RDS6_INFO_RETRANS_MESSAGES, Q_RETRANS, &queued);
	read_queue(fd, RDS6_INFO_RECV_MESSAGES, Q_RECV, &queued);
	print_queued(&queued);
	print_paths(fd);
	print_sock_drops(fd);
	print_carriers(fd);
	free(conns.v);
	free(queued.v);
}
