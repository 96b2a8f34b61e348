// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the RDS tools: error reporting, socket setup, address
 * and number parsing.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/sockios.h>
#include <linux/rds.h>

#include "rdstool.h"
#include "../include/rds/version.h"

static void vreport(const char *fmt, va_list ap, int err)
{
	fprintf(stderr, "%s: ", progname);
	vfprintf(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap, 0);
	va_end(ap);
	exit(1);
}

void die_errno(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap, err);
	va_end(ap);
	exit(1);
}

/* Bad command lines exit 2 after the tool's own usage text. */
void bad_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap, 0);
	va_end(ap);
	fprintf(stderr, "Try '%s -h' for more information.\n", progname);
	exit(EXIT_USAGE);
}

/* The first line of a /sys/module/@mod file, "" when there is none. */
static void read_sys_module(const char *mod, const char *file, char *buf,
			    size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/%s/%s", mod, file);
	buf[0] = '\0';
	f = fopen(path, "r");
	if (!f)
		return;
	if (!fgets(buf, len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

/*
 * Which implementation of @mod is loaded: ours is built out of the kernel's
 * tree, which the kernel marks with the taint flag O; the in-tree modules
 * are not (and in-tree rds.ko has a MODULE_VERSION of its own, "4.0").
 * Not modinfo, which names the file modprobe would load next, not the one
 * running.
 */
static void print_module(const char *mod)
{
	char path[64], taint[16], version[64];

	snprintf(path, sizeof(path), "/sys/module/%s", mod);
	if (access(path, F_OK)) {
		printf("%s: not loaded\n", mod);
		return;
	}
	read_sys_module(mod, "taint", taint, sizeof(taint));
	read_sys_module(mod, "version", version, sizeof(version));
	printf("%s: loaded, %s%s%s\n", mod,
	       strchr(taint, 'O') ? "out-of-tree" : "the kernel's own (in-tree)",
	       version[0] ? " " : "", version);
}

void print_version(void)
{
	printf("%s %s (the out-of-tree RDS's tools)\n", progname, RDS_VERSION);
	print_module("rds");
	print_module("rds_tcp");
	print_module("rds_rdma");
	exit(0);
}

/*
 * The family is missing when neither our rds.ko nor the in-tree one is
 * loaded (neither has a module alias that would load it on demand); say
 * what to do instead of a bare errno.
 */
int rds_socket(void)
{
	int fd = socket(PF_RDS, SOCK_SEQPACKET, 0);

	if (fd >= 0)
		return fd;
	if (errno == EAFNOSUPPORT)
		die("RDS sockets are not available: modprobe rds_tcp (TCP) or rds_rdma (IB, RoCE)");
	die_errno("cannot create an RDS socket");
}

/* The transport bind() would use: the one the socket was pinned to, else
 * the one that serves the address first (IB before TCP, as in-tree).
 */
static const char *bound_transport(int fd)
{
	int t = RDS_TRANS_NONE;
	socklen_t len = sizeof(t);

	if (getsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &t, &len) == 0) {
		if (t == RDS_TRANS_TCP)
			return "RDS/TCP (modprobe rds_tcp)";
		if (t == RDS_TRANS_IB)
			return "RDS/IB (modprobe rds_rdma, an RDMA device with this address)";
	}
	return "RDS/TCP or RDS/IB (modprobe rds_tcp, or rds_rdma with an RDMA device)";
}

/* A local address no transport can serve means no transport module. */
void rds_bind(int fd, const struct sockaddr_storage *addr)
{
	if (bind(fd, (const struct sockaddr *)addr, addr_len(addr)) == 0)
		return;
	if (errno == EADDRNOTAVAIL)
		die("cannot bind to %s: no transport serves it; it needs %s",
		    addr_str(addr), bound_transport(fd));
	die_errno("cannot bind to %s", addr_str(addr));
}

/* The kernel only accepts a TOS before the socket has a connection. */
void rds_set_tos(int fd, unsigned int tos)
{
	rds_tos_t t = tos;

	if (ioctl(fd, SIOCRDSSETTOS, &t) < 0)
		die_errno("cannot set TOS %u", tos);
}

/* A host name's first IPv4 address, else its first IPv6 one, as the
 * classic tools resolve a name; false when it has neither.
 */
static bool resolve_name(const char *name, uint16_t port,
			 struct sockaddr_storage *ss)
{
	static const int families[] = { AF_INET, AF_INET6 };
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM }, *res;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(families); i++) {
		hints.ai_family = families[i];
		if (getaddrinfo(name, NULL, &hints, &res))
			continue;
		memset(ss, 0, sizeof(*ss));
		memcpy(ss, res->ai_addr, res->ai_addrlen);
		freeaddrinfo(res);
		addr_set_port(ss, port);
		return true;
	}
	return false;
}

/* "ADDR", "ADDR%IF" for an IPv6 address on link IF (a link-local one
 * needs it), or a host name.
 */
bool parse_addr(const char *str, uint16_t port, struct sockaddr_storage *ss)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	char buf[INET6_ADDRSTRLEN + IF_NAMESIZE + 1];
	char *pct;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, str, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		return true;
	}
	if (strlen(str) >= sizeof(buf))
		return resolve_name(str, port, ss);
	strcpy(buf, str);
	pct = strchr(buf, '%');
	if (pct) {
		*pct++ = '\0';
		sin6->sin6_scope_id = if_nametoindex(pct);
		if (!sin6->sin6_scope_id)
			return false;
	}
	if (inet_pton(AF_INET6, buf, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		return true;
	}
	return !pct && resolve_name(str, port, ss);
}

socklen_t addr_len(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
					   sizeof(struct sockaddr_in);
}

uint16_t addr_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

void addr_set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons(port);
}

/* Same family and address; ports are not compared. */
bool addr_equal(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)a;
	const struct sockaddr_in6 *b6 = (const struct sockaddr_in6 *)b;

	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET6)
		return !memcmp(&a6->sin6_addr, &b6->sin6_addr, sizeof(a6->sin6_addr));
	return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
	       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
}

/* Returns a static buffer: good for one use per printf. */
const char *addr_str(const struct sockaddr_storage *ss)
{
	static char buf[INET6_ADDRSTRLEN];
	const void *a;

	if (ss->ss_family == AF_INET6)
		a = &((const struct sockaddr_in6 *)ss)->sin6_addr;
	else
		a = &((const struct sockaddr_in *)ss)->sin_addr;
	return inet_ntop(ss->ss_family, a, buf, sizeof(buf)) ? buf : "?";
}

/*
 * RDS needs an explicit local address. Let the routing table pick the one
 * that reaches dst: connect() a UDP socket (which sends nothing) and read
 * back the address it was given.
 */
void route_source(const struct sockaddr_storage *dst, struct sockaddr_storage *src)
{
	struct sockaddr_storage to = *dst;
	socklen_t len = sizeof(*src);
	int fd;

	addr_set_port(&to, 9);
	fd = socket(dst->ss_family, SOCK_DGRAM, 0);
	if (fd < 0)
		die_errno("socket");
	if (connect(fd, (struct sockaddr *)&to, addr_len(&to)) < 0)
		die_errno("no route to %s", addr_str(dst));
	memset(src, 0, sizeof(*src));
	if (getsockname(fd, (struct sockaddr *)src, &len) < 0)
		die_errno("getsockname");
	close(fd);
	addr_set_port(src, 0);
}

bool parse_uint(const char *str, unsigned long max, unsigned long *val)
{
	char *end;

	if (!*str || *str == '-')
		return false;
	errno = 0;
	*val = strtoul(str, &end, 0);
	return !errno && !*end && *val <= max;
}

/* A byte count with an optional K, M or G (powers of 1024) suffix. */
bool parse_size(const char *str, unsigned long max, unsigned long *val)
{
	unsigned long mult = 1;
	char *end;

	if (!*str || *str == '-')
		return false;
	errno = 0;
	*val = strtoul(str, &end, 0);
	if (errno || end == str)
		return false;
	switch (*end) {
	case 'k': case 'K':
		mult = 1UL << 10;
		break;
	case 'm': case 'M':
		mult = 1UL << 20;
		break;
	case 'g': case 'G':
		mult = 1UL << 30;
		break;
	case '\0':
		break;
	default:
		return false;
	}
	if (*end && end[1])
		return false;
	if (*val > max / mult)
		return false;
	*val *= mult;
	return true;
}

/* Seconds, possibly fractional, or a number followed by "msec" or "usec". */
bool parse_interval(const char *str, uint64_t *usec)
{
	double scale = 1e6, v;
	char *end;

	errno = 0;
	v = strtod(str, &end);
	if (errno || end == str || v < 0)
		return false;
	if (!strcmp(end, "msec") || !strcmp(end, "ms"))
		scale = 1e3;
	else if (!strcmp(end, "usec") || !strcmp(end, "us"))
		scale = 1;
	else if (*end && strcmp(end, "s") && strcmp(end, "sec"))
		return false;
	v *= scale;
	if (v > 3600e6)
		return false;
	*usec = (uint64_t)v;
	return true;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die("out of memory");
	return p;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Without SA_RESTART, so that a signal ends whatever call we wait in. */
void on_signals(int sig1, int sig2, void (*handler)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigaction(sig1, &sa, NULL);
	sigaction(sig2, &sa, NULL);
}
