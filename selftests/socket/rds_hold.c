// SPDX-License-Identifier: GPL-2.0
/*
 * Holds RDS sockets open for the shell tests: for each address given, binds
 * two sockets (ports 7000 and 7001), sends one message from the first to
 * the second and reads it, sends another and leaves it queued; then prints
 * "ready" and waits until stdin closes.
 *
 *   rds_hold ADDR...        e.g. rds_hold 127.0.0.1 ::1
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#ifndef AF_RDS
#define AF_RDS 21
#endif

static socklen_t make_addr(struct sockaddr_in6 *a, const char *str, int port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)a;

	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, str, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		return sizeof(*sin);
	}
	if (inet_pton(AF_INET6, str, &a->sin6_addr) != 1)
		return 0;
	a->sin6_family = AF_INET6;
	a->sin6_port = htons(port);
	return sizeof(*a);
}

static int bound(const char *str, int port)
{
	struct sockaddr_in6 a;
	socklen_t len = make_addr(&a, str, port);
	int fd = socket(AF_RDS, SOCK_SEQPACKET, 0);

	if (fd < 0 || !len || bind(fd, (struct sockaddr *)&a, len)) {
		perror(str);
		return -1;
	}
	return fd;
}

static int pair(const char *str)
{
	struct timeval tv = { .tv_sec = 10 };
	int a = bound(str, 7000), b = bound(str, 7001);
	struct sockaddr_in6 to;
	socklen_t len = make_addr(&to, str, 7001);
	char buf[16];

	if (a < 0 || b < 0)
		return -1;
	setsockopt(b, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (sendto(a, "one", 3, 0, (struct sockaddr *)&to, len) != 3 ||
	    recv(b, buf, sizeof(buf), 0) != 3 ||
	    sendto(a, "queued", 6, 0, (struct sockaddr *)&to, len) != 6) {
		perror(str);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char buf[64];
	int i;

	for (i = 1; i < argc; i++)
		if (pair(argv[i]))
			return 1;
	printf("ready\n");
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	return 0;
}
