// SPDX-License-Identifier: GPL-2.0
/*
 * rds_ll_send: RDS messages to IPv6 addresses that may carry a scope, all
 * from one socket, for test_linklocal.sh (python's AF_RDS knows IPv4 only).
 *
 *   rds_ll_send BIND[%IF] PORT DST[%IF]...
 *
 * Binds to BIND (port chosen by the kernel), sends "hello" to each DST:PORT
 * in turn without blocking, then keeps the socket a second so that the
 * messages leave.  Prints "ok" or the errno name per DST, space separated;
 * exits 0 when every send worked, 1 when one failed, 2 on a setup error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef AF_RDS
#define AF_RDS 21
#endif

/* "ADDR" or "ADDR%IF" into @sin6; 0 on success. */
static int parse(const char *str, int port, struct sockaddr_in6 *sin6)
{
	char buf[128], *pct;

	snprintf(buf, sizeof(buf), "%s", str);
	memset(sin6, 0, sizeof(*sin6));
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(port);
	pct = strchr(buf, '%');
	if (pct) {
		*pct++ = '\0';
		sin6->sin6_scope_id = if_nametoindex(pct);
		if (!sin6->sin6_scope_id)
			return -1;
	}
	return inet_pton(AF_INET6, buf, &sin6->sin6_addr) == 1 ? 0 : -1;
}

static const char *errname(int err)
{
	switch (err) {
	case EINVAL: return "EINVAL";
	case ENOTCONN: return "ENOTCONN";
	case EADDRNOTAVAIL: return "EADDRNOTAVAIL";
	case ENETUNREACH: return "ENETUNREACH";
	case EAGAIN: return "EAGAIN";
	case ENOBUFS: return "ENOBUFS";
	default: return strerror(err);
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in6 src, dst;
	int fd, i, failed = 0;

	if (argc < 4 || parse(argv[1], 0, &src)) {
		fprintf(stderr, "usage: rds_ll_send BIND[%%IF] PORT DST[%%IF]...\n");
		return 2;
	}
	fd = socket(AF_RDS, SOCK_SEQPACKET, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&src, sizeof(src))) {
		printf("setup: %s\n", errname(errno));
		return 2;
	}
	for (i = 3; i < argc; i++) {
		if (parse(argv[i], atoi(argv[2]), &dst)) {
			printf("setup: bad address %s\n", argv[i]);
			return 2;
		}
		if (sendto(fd, "hello", 5, MSG_DONTWAIT,
			   (struct sockaddr *)&dst, sizeof(dst)) == 5) {
			printf("%sok", i > 3 ? " " : "");
		} else {
			printf("%s%s", i > 3 ? " " : "", errname(errno));
			failed = 1;
		}
	}
	printf("\n");
	fflush(stdout);
	sleep(1);
	close(fd);
	return failed;
}
