/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by rds-ping, rds-info and rds-stress.
 *
 * All three speak the upstream user ABI (<linux/rds.h>), so they run
 * unchanged against our modules and against the in-tree ones; rds-info
 * also reads this implementation's own tables (RDS_INFO_OWN_FIRST on),
 * which the in-tree modules refuse with ENOPROTOOPT and it leaves out.
 */
#ifndef RDSTOOL_H
#define RDSTOOL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <netinet/in.h>

#ifndef AF_RDS
#define AF_RDS		21
#endif
#ifndef PF_RDS
#define PF_RDS		AF_RDS
#endif
#ifndef SOL_RDS
#define SOL_RDS		276
#endif

/* The kernel's spellings of what the tools use, for user space. */
#define __noreturn		__attribute__((noreturn))
#define __printf(a, b)		__attribute__((format(printf, a, b)))
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

/* Exit status for a bad command line, as documented in the man pages. */
#define EXIT_USAGE	2

extern const char *progname;

__noreturn __printf(1, 2) void die(const char *fmt, ...);
__noreturn __printf(1, 2) void die_errno(const char *fmt, ...);
__noreturn __printf(1, 2) void bad_usage(const char *fmt, ...);

__noreturn void print_version(void);
int rds_socket(void);
void rds_bind(int fd, const struct sockaddr_storage *addr);
void rds_set_tos(int fd, unsigned int tos);

bool parse_addr(const char *str, uint16_t port, struct sockaddr_storage *ss);
socklen_t addr_len(const struct sockaddr_storage *ss);
uint16_t addr_port(const struct sockaddr_storage *ss);
void addr_set_port(struct sockaddr_storage *ss, uint16_t port);
bool addr_equal(const struct sockaddr_storage *a, const struct sockaddr_storage *b);
const char *addr_str(const struct sockaddr_storage *ss);
void route_source(const struct sockaddr_storage *dst, struct sockaddr_storage *src);

bool parse_uint(const char *str, unsigned long max, unsigned long *val);
bool parse_size(const char *str, unsigned long max, unsigned long *val);
bool parse_interval(const char *str, uint64_t *usec);

void *xcalloc(size_t n, size_t size);
uint64_t now_ns(void);
void on_signals(int sig1, int sig2, void (*handler)(int));

#endif
