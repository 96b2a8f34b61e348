// SPDX-License-Identifier: GPL-2.0
/*
 * rds-info: print the information tables the RDS kernel modules export
 * through getsockopt(SOL_RDS, RDS_INFO_*).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <getopt.h>
#include <time.h>
#include <unistd.h>
#include <linux/rds.h>

#include "rdstool.h"
#include "rds-info.h"

const char *progname = "rds-info";

static bool verbose;

static enum { TEXT, JSON, PROMETHEUS } format = TEXT;

/* Column widths of an address: dotted quad, or a full IPv6 address. */
#define W4	15
#define W6	39

/*
 * Reads a whole table. The table can grow between the sizing call and the
 * copy, so ENOSPC just means: try again with the size the kernel reports.
 * Returns false if the running kernel does not provide this table.
 */
bool read_table(int fd, int opt, struct table *t)
{
	socklen_t len = 0;
	char *buf = NULL;
	int ret;

	for (;;) {
		ret = getsockopt(fd, SOL_RDS, opt, buf, &len);
		if (ret >= 0)
			break;
		if (errno == ENOPROTOOPT || errno == EOPNOTSUPP) {
			free(buf);
			return false;
		}
		if (errno != ENOSPC)
			die_errno("getsockopt(RDS_INFO %d)", opt);
		len += len / 4 + 1024;
		buf = realloc(buf, len);
		if (!buf)
			die("out of memory");
	}
	t->buf = buf;
	t->len = len;
	t->each = ret;
	return true;
}

const char *ip4(__be32 a)
{
	static char s[4][INET_ADDRSTRLEN];
	static int n;

	n = (n + 1) % 4;
	return inet_ntop(AF_INET, &a, s[n], sizeof(s[n]));
}

/* Takes a void pointer: the addresses sit unaligned in packed items. */
const char *ip6(const void *a)
{
	static char s[4][INET6_ADDRSTRLEN];
	static int n;

	n = (n + 1) % 4;
	return inet_ntop(AF_INET6, a, s[n], sizeof(s[n]));
}

const char *ipx(const void *a)
{
	struct in6_addr in;
	__be32 v4;

	memcpy(&in, a, sizeof(in));
	if (!IN6_IS_ADDR_V4MAPPED(&in))
		return ip6(&in);
	memcpy(&v4, &in.s6_addr[12], sizeof(v4));
	return ip4(v4);
}

const char *path_state(unsigned int state)
{
	static const char *const names[] = {
		[RDS_INFO_PATH_DOWN] = "down",
		[RDS_INFO_PATH_CONNECTING] = "connecting",
		[RDS_INFO_PATH_DISCONNECTING] = "disconnecting",
		[RDS_INFO_PATH_UP] = "up",
		[RDS_INFO_PATH_ERROR] = "error",
	};

	return state < ARRAY_SIZE(names) ? names[state] : "?";
}

static void print_counters(struct table *t)
{
	struct rds_info_counter c;
	size_t off;

	printf("\nCounters:\n%32s %16s\n", "CounterName", "Value");
	for (off = 0; table_item(t, off, &c, sizeof(c)); off += t->each)
		printf("%32.32s %16llu\n", (char *)c.name, (unsigned long long)c.value);
}

static const char *conn_flags(uint8_t f)
{
	static char s[4];

	s[0] = f & RDS_INFO_CONNECTION_FLAG_SENDING ? 's' : '-';
	s[1] = f & RDS_INFO_CONNECTION_FLAG_CONNECTING ? 'c' : '-';
	s[2] = f & RDS_INFO_CONNECTION_FLAG_CONNECTED ? 'C' : '-';
	return s;
}

static void print_conns(struct table *t)
{
	struct rds_info_connection c;
	size_t off;

	printf("\nRDS Connections:\n%*s %*s %4s %16s %16s %4s\n", W4, "LocalAddr",
	       W4, "RemoteAddr", "Tos", "NextTX", "NextRX", "Flgs");
	for (off = 0; table_item(t, off, &c, sizeof(c)); off += t->each)
		printf("%*s %*s %4u %16llu %16llu %4s%s%.*s\n",
		       W4, ip4(c.laddr), W4, ip4(c.faddr), c.tos,
		       (unsigned long long)c.next_tx_seq, (unsigned long long)c.next_rx_seq,
		       conn_flags(c.flags), verbose ? " " : "",
		       verbose ? TRANSNAMSIZ : 0, (char *)c.transport);
}

static void print_conns6(struct table *t)
{
	struct rds6_info_connection c;
	size_t off;

	printf("\nRDS IPv6 Connections:\n%*s %*s %16s %16s %4s\n", W6, "LocalAddr",
	       W6, "RemoteAddr", "NextTX", "NextRX", "Flgs");
	for (off = 0; table_item(t, off, &c, sizeof(c)); off += t->each)
		printf("%*s %*s %16llu %16llu %4s%s%.*s\n",
		       W6, ip6(&c.laddr), W6, ip6(&c.faddr),
		       (unsigned long long)c.next_tx_seq, (unsigned long long)c.next_rx_seq,
		       conn_flags(c.flags), verbose ? " " : "",
		       verbose ? TRANSNAMSIZ : 0, (char *)c.transport);
}

static void print_sockets(struct table *t)
{
	struct rds_info_socket s;
	size_t off;

	printf("\nRDS Sockets:\n%*s %5s %*s %5s %10s %10s %8s\n", W4, "BoundAddr",
	       "BPort", W4, "ConnAddr", "CPort", "SndBuf", "RcvBuf", "Inode");
	for (off = 0; table_item(t, off, &s, sizeof(s)); off += t->each)
		printf("%*s %5u %*s %5u %10u %10u %8llu\n",
		       W4, ip4(s.bound_addr), ntohs(s.bound_port),
		       W4, ip4(s.connected_addr), ntohs(s.connected_port),
		       s.sndbuf, s.rcvbuf, (unsigned long long)s.inum);
}

static void print_sockets6(struct table *t)
{
	struct rds6_info_socket s;
	size_t off;

	printf("\nRDS IPv6 Sockets:\n%*s %5s %*s %5s %10s %10s %8s\n", W6, "BoundAddr",
	       "BPort", W6, "ConnAddr", "CPort", "SndBuf", "RcvBuf", "Inode");
	for (off = 0; table_item(t, off, &s, sizeof(s)); off += t->each)
		printf("%*s %5u %*s %5u %10u %10u %8llu\n",
		       W6, ip6(&s.bound_addr), ntohs(s.bound_port),
		       W6, ip6(&s.connected_addr), ntohs(s.connected_port),
		       s.sndbuf, s.rcvbuf, (unsigned long long)s.inum);
}

static void print_msgs(struct table *t, const char *title)
{
	struct rds_info_message m;
	size_t off;

	printf("\n%s Message Queue:\n%*s %5s %*s %5s %4s %16s %10s\n", title,
	       W4, "LocalAddr", "LPort", W4, "RemoteAddr", "RPort", "Tos",
	       "Seq", "Bytes");
	for (off = 0; table_item(t, off, &m, sizeof(m)); off += t->each)
		printf("%*s %5u %*s %5u %4u %16llu %10u\n",
		       W4, ip4(m.laddr), ntohs(m.lport), W4, ip4(m.faddr),
		       ntohs(m.fport), m.tos, (unsigned long long)m.seq, m.len);
}

static void print_msgs6(struct table *t, const char *title)
{
	struct rds6_info_message m;
	size_t off;

	printf("\n%s IPv6 Message Queue:\n%*s %5s %*s %5s %4s %16s %10s\n", title,
	       W6, "LocalAddr", "LPort", W6, "RemoteAddr", "RPort", "Tos",
	       "Seq", "Bytes");
	for (off = 0; table_item(t, off, &m, sizeof(m)); off += t->each)
		printf("%*s %5u %*s %5u %4u %16llu %10u\n",
		       W6, ip6(&m.laddr), ntohs(m.lport), W6, ip6(&m.faddr),
		       ntohs(m.fport), m.tos, (unsigned long long)m.seq, m.len);
}

static void print_tcp(struct table *t)
{
	struct rds_info_tcp_socket s;
	size_t off;

	printf("\nTCP Connections:\n%*s %5s %*s %5s %10s %10s %10s %10s %10s\n",
	       W4, "LocalAddr", "LPort", W4, "RemoteAddr", "RPort", "HdrRemain",
	       "DataRemain", "SentNxt", "ExpectUna", "SeenUna");
	for (off = 0; table_item(t, off, &s, sizeof(s)); off += t->each)
		printf("%*s %5u %*s %5u %10llu %10llu %10u %10u %10u\n",
		       W4, ip4(s.local_addr), ntohs(s.local_port),
		       W4, ip4(s.peer_addr), ntohs(s.peer_port),
		       (unsigned long long)s.hdr_rem, (unsigned long long)s.data_rem,
		       s.last_sent_nxt, s.last_expected_una, s.last_seen_una);
}

static void print_tcp6(struct table *t)
{
	struct rds6_info_tcp_socket s;
	size_t off;

	printf("\nTCP IPv6 Connections:\n%*s %5s %*s %5s %10s %10s %10s %10s %10s\n",
	       W6, "LocalAddr", "LPort", W6, "RemoteAddr", "RPort", "HdrRemain",
	       "DataRemain", "SentNxt", "ExpectUna", "SeenUna");
	for (off = 0; table_item(t, off, &s, sizeof(s)); off += t->each)
		printf("%*s %5u %*s %5u %10llu %10llu %10u %10u %10u\n",
		       W6, ip6(&s.local_addr), ntohs(s.local_port),
		       W6, ip6(&s.peer_addr), ntohs(s.peer_port),
		       (unsigned long long)s.hdr_rem, (unsigned long long)s.data_rem,
		       s.last_sent_nxt, s.last_expected_una, s.last_seen_una);
}

/* Both IB item layouts share these fields under the same names. */
static void print_ib_verbose(unsigned int send_wr, unsigned int recv_wr, unsigned int send_sge,
			     unsigned int mr_max, unsigned int mr_size, unsigned int allocs)
{
	printf("  send_wr=%u, recv_wr=%u, send_sge=%u, ", send_wr, recv_wr, send_sge);
	printf("rdma_mr_max=%u, rdma_mr_size=%u, cache_allocs=%u", mr_max, mr_size, allocs);
}

static void print_ib(struct table *t)
{
	struct rds_info_rdma_connection c;
	size_t off;

	printf("\nRDS IB Connections:\n%*s %*s %4s %3s %32s %32s\n", W4, "LocalAddr",
	       W4, "RemoteAddr", "Tos", "SL", "LocalDev", "RemoteDev");
	for (off = 0; table_item(t, off, &c, sizeof(c)); off += t->each) {
		printf("%*s %*s %4u %3u %32s %32s", W4, ip4(c.src_addr),
		       W4, ip4(c.dst_addr), c.tos, c.sl,
		       ip6(c.src_gid),
		       ip6(c.dst_gid));
		if (verbose)
			print_ib_verbose(c.max_send_wr, c.max_recv_wr, c.max_send_sge,
					 c.rdma_mr_max, c.rdma_mr_size, c.cache_allocs);
		putchar('\n');
	}
}

static void print_ib6(struct table *t)
{
	struct rds6_info_rdma_connection c;
	size_t off;

	printf("\nRDS IB IPv6 Connections:\n%*s %*s %4s %3s %32s %32s\n", W6, "LocalAddr",
	       W6, "RemoteAddr", "Tos", "SL", "LocalDev", "RemoteDev");
	for (off = 0; table_item(t, off, &c, sizeof(c)); off += t->each) {
		printf("%*s %*s %4u %3u %32s %32s", W6, ip6(&c.src_addr),
		       W6, ip6(&c.dst_addr), c.tos, c.sl,
		       ip6(c.src_gid),
		       ip6(c.dst_gid));
		if (verbose)
			print_ib_verbose(c.max_send_wr, c.max_recv_wr, c.max_send_sge,
					 c.rdma_mr_max, c.rdma_mr_size, c.cache_allocs);
		putchar('\n');
	}
}

/* How long ago @when (seconds since the epoch) was, for the columns. */
static const char *ago(int64_t when)
{
	static char s[24];
	int64_t d = time(NULL) - when;

	if (!when)
		return "-";
	if (d < 0)
		d = 0;
	if (d < 3600)
		snprintf(s, sizeof(s), "%llds", (long long)d);
	else if (d < 86400)
		snprintf(s, sizeof(s), "%lldh%02lldm", (long long)(d / 3600),
			 (long long)(d % 3600 / 60));
	else
		snprintf(s, sizeof(s), "%lldd%02lldh", (long long)(d / 86400),
			 (long long)(d % 86400 / 3600));
	return s;
}

/* A NUL padded reason, or "-" when there is none yet. */
static void print_reason(const uint8_t *why)
{
	if (why[0])
		printf("%.*s", RDS_INFO_REASON_LEN, (const char *)why);
	else
		putchar('-');
}

/* The reason of the last reset is the last column; -v adds the last
 * failed connect's.
 */
static void print_paths(struct table *t)
{
	struct rds_info_path p;
	size_t off;

	printf("\nRDS Paths:\n%*s %*s %4s %4s %-8s %-13s %8s %6s %6s %9s  %s\n",
	       W4, "LocalAddr", W4, "RemoteAddr", "Tos", "Path", "Trans", "State",
	       "Attempts", "Fails", "Resets", "LastReset", "Reason");
	for (off = 0; table_item(t, off, &p, sizeof(p)); off += t->each) {
		printf("%*s %*s %4u %4u %-8.*s %-13s %8llu %6llu %6llu %9s  ",
		       W4, ipx(&p.laddr), W4, ipx(&p.faddr), p.tos, p.index,
		       TRANSNAMSIZ, (char *)p.transport, path_state(p.state),
		       (unsigned long long)p.connect_attempts,
		       (unsigned long long)p.connect_failures,
		       (unsigned long long)p.resets, ago(p.last_reset_time));
		print_reason(p.last_reset_reason);
		if (verbose) {
			fputs("  connect: ", stdout);
			print_reason(p.last_connect_error);
		}
		putchar('\n');
	}
}

static void print_sock_drops(struct table *t)
{
	struct rds_info_socket_drops d;
	size_t off;

	printf("\nRDS Socket Drops:\n%*s %5s %8s %10s %10s %10s %10s\n", W4, "BoundAddr",
	       "BPort", "Inode", "RcvBuf", "SendReset", "Purged", "Canceled");
	for (off = 0; table_item(t, off, &d, sizeof(d)); off += t->each)
		printf("%*s %5u %8llu %10llu %10llu %10llu %10llu\n",
		       W4, ipx(&d.bound_addr), ntohs(d.bound_port),
		       (unsigned long long)d.inum, (unsigned long long)d.recv_rcvbuf,
		       (unsigned long long)d.send_reset, (unsigned long long)d.send_purged,
		       (unsigned long long)d.send_canceled);
}

/* Where each path sends through: its carrier's transport and device,
 * whether that is the path's home, and how often and how long ago it
 * moved to another.
 */
static void print_carriers(struct table *t)
{
	struct rds_info_carrier c;
	size_t off;

	printf("\nRDS Carriers:\n%*s %*s %4s %4s %-8s %-8s %-12s %4s %6s %9s\n",
	       W4, "LocalAddr", W4, "RemoteAddr", "Tos", "Path", "Trans", "Carrier",
	       "Device", "Home", "Moves", "LastMove");
	for (off = 0; table_item(t, off, &c, sizeof(c)); off += t->each)
		printf("%*s %*s %4u %4u %-8.*s %-8.*s %-12.*s %4s %6llu %9s\n",
		       W4, ipx(&c.laddr), W4, ipx(&c.faddr), c.tos, c.index,
		       TRANSNAMSIZ, (char *)c.transport, TRANSNAMSIZ, (char *)c.carrier,
		       RDS_INFO_DEVNAMSIZ, c.device[0] ? (char *)c.device : "-",
		       c.flags & RDS_INFO_CARRIER_HOME ? "yes" : "no",
		       (unsigned long long)c.moves, ago(c.last_move_time));
}

struct section {
	char opt;
	int info4, info6;
	void (*print4)(struct table *t);
	void (*print6)(struct table *t);
	const char *title;	/* for the message queues */
	void (*print_msgs4)(struct table *t, const char *title);
	void (*print_msgs6)(struct table *t, const char *title);
	/* --json: the member's name (IPv6 tables add "_ipv6"), its printers;
	 * an object (the counters, by name) rather than an array
	 */
	const char *key;
	bool object;
	void (*json4)(struct table *t);
	void (*json6)(struct table *t);
};

/* In the order rds-info has always printed them. */
static const struct section sections[] = {
	{ 'I', RDS_INFO_IB_CONNECTIONS, RDS6_INFO_IB_CONNECTIONS, print_ib, print_ib6,
	  .key = "ib_connections", .json4 = json_ib, .json6 = json_ib6 },
	{ 'T', RDS_INFO_TCP_SOCKETS, RDS6_INFO_TCP_SOCKETS, print_tcp, print_tcp6,
	  .key = "tcp_sockets", .json4 = json_tcp, .json6 = json_tcp6 },
	{ 'k', RDS_INFO_SOCKETS, RDS6_INFO_SOCKETS, print_sockets, print_sockets6,
	  .key = "sockets", .json4 = json_sockets, .json6 = json_sockets6 },
	{ 'n', RDS_INFO_CONNECTIONS, RDS6_INFO_CONNECTIONS, print_conns, print_conns6,
	  .key = "connections", .json4 = json_conns, .json6 = json_conns6 },
	{ 'c', RDS_INFO_COUNTERS, 0, print_counters, NULL,
	  .key = "counters", .object = true, .json4 = json_counters },
	{ 'r', RDS_INFO_RECV_MESSAGES, RDS6_INFO_RECV_MESSAGES, NULL, NULL,
	  "Receive", print_msgs, print_msgs6,
	  .key = "receive_messages", .json4 = json_msgs, .json6 = json_msgs6 },
	{ 's', RDS_INFO_SEND_MESSAGES, RDS6_INFO_SEND_MESSAGES, NULL, NULL,
	  "Send", print_msgs, print_msgs6,
	  .key = "send_messages", .json4 = json_msgs, .json6 = json_msgs6 },
	{ 't', RDS_INFO_RETRANS_MESSAGES, RDS6_INFO_RETRANS_MESSAGES, NULL, NULL,
	  "Retransmit", print_msgs, print_msgs6,
	  .key = "retransmit_messages", .json4 = json_msgs, .json6 = json_msgs6 },
	/* Ours alone, both families in one table; in-tree has neither. */
	{ 'p', RDS_INFO_PATHS, 0, print_paths, NULL,
	  .key = "paths", .json4 = json_paths },
	{ 'd', RDS_INFO_SOCKET_DROPS, 0, print_sock_drops, NULL,
	  .key = "socket_drops", .json4 = json_sock_drops },
	{ 'C', RDS_INFO_CARRIERS, 0, print_carriers, NULL,
	  .key = "carriers", .json4 = json_carriers },
};

#define NR_SECTIONS	ARRAY_SIZE(sections)

static __noreturn void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"Usage: %s [-a] [-c] [-n] [-k] [-r] [-s] [-t] [-T] [-I] [-p] [-d] [-C] [-v] [--json]\n"
		"       %s --prometheus\n"
		"  -c  counters               -n  connections\n"
		"  -k  sockets                -T  TCP sockets\n"
		"  -r  receive queues         -I  IB connections\n"
		"  -s  send queues            -a  add the IPv6 tables\n"
		"  -t  retransmit queues      -v  verbose (transport names, IB details)\n"
		"  -p  paths: state, resets, the last reset's time and reason\n"
		"  -d  sockets' undelivered messages, by reason\n"
		"  -C  carriers: what each path sends through, its moves\n"
		"      (-p, -d, -C: this implementation's modules only, both address families)\n"
		"  --json        the selected tables as one JSON object\n"
		"  --prometheus  counters and connection state for node_exporter\n"
		"  --version     this tool's version and which RDS modules are loaded\n"
		"Without a table option, all IPv4 tables are shown.\n",
		progname, progname);
	exit(status);
}

/* Opens the JSON document at the first table, so that an error prints none. */
static bool json_first = true;

/* A table the loaded modules don't provide (no rds_rdma, say) is skipped. */
static void show(int fd, const struct section *s, bool v6)
{
	int opt = v6 ? s->info6 : s->info4;
	struct table t;
	char key[32];

	if (!opt || !read_table(fd, opt, &t))
		return;
	if (format == JSON) {
		snprintf(key, sizeof(key), "%s%s", s->key, v6 ? "_ipv6" : "");
		if (json_first)
			putchar('{');
		json_table_begin(key, json_first, s->object);
		(v6 ? s->json6 : s->json4)(&t);
		json_table_end(s->object);
		json_first = false;
	} else if (s->title) {
		(v6 ? s->print_msgs6 : s->print_msgs4)(&t, s->title);
	} else {
		(v6 ? s->print6 : s->print4)(&t);
	}
	free(t.buf);
}

static const struct option long_options[] = {
	{ "json", no_argument, NULL, 'J' },
	{ "prometheus", no_argument, NULL, 'P' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

int main(int argc, char **argv)
{
	bool want[NR_SECTIONS] = { false }, any = false, v6 = false;
	unsigned int i;
	int c, fd;

	while ((c = getopt_long(argc, argv, "acnkrstTIpdCvh", long_options, NULL)) != -1) {
		if (c == 'h')
			usage(0);
		if (c == 'V')
			print_version();
		if (c == 'J' || c == 'P') {
			format = c == 'J' ? JSON : PROMETHEUS;
			continue;
		}
		if (c == 'v' || c == 'a') {
			*(c == 'v' ? &verbose : &v6) = true;
			continue;
		}
		for (i = 0; i < NR_SECTIONS && sections[i].opt != c; i++)
			;
		if (i == NR_SECTIONS)
			usage(EXIT_USAGE);
		want[i] = true;
		any = true;
	}
	if (optind != argc)
		bad_usage("unexpected argument '%s'", argv[optind]);
	if (format == PROMETHEUS && (any || v6))
		bad_usage("--prometheus always exports the same set; no table options");

	fd = rds_socket();
	if (format == PROMETHEUS) {
		prom_export(fd);
		close(fd);
		return 0;
	}
	for (i = 0; i < NR_SECTIONS; i++) {
		if (any && !want[i])
			continue;
		show(fd, &sections[i], false);
		if (v6)
			show(fd, &sections[i], true);
	}
	if (format == JSON)
		puts(json_first ? "{}" : "\n}");
	close(fd);
	return 0;
}
