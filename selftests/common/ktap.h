/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal TAP output for the C selftests: one plan, one line per check,
 * a summary, and an exit code the harness understands (0 pass, 1 fail,
 * 4 skip).
 */
#ifndef _RDS_SELFTEST_KTAP_H
#define _RDS_SELFTEST_KTAP_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KSFT_PASS	0
#define KSFT_FAIL	1
#define KSFT_SKIP	4

static int ktap_nr, ktap_failed;

static inline void ktap_plan(int n)
{
	printf("TAP version 13\n1..%d\n", n);
	fflush(stdout);
}

static inline void ktap_result(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d ", ok ? "ok" : "not ok", ++ktap_nr);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		ktap_failed++;
}

static inline void ktap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* A call that must fail with @err: records one check. */
#define ktap_expect_errno(call, err, desc) do {				\
	int __r = (call);						\
	int __e = errno;						\
	int __want = (err);						\
	ktap_result(__r < 0 && __e == __want, "%s: %s (got %d, %s)",	\
		    desc, strerror(__want), __r, strerror(__e));	\
} while (0)

/* A call that must succeed (return >= 0): records one check. */
#define ktap_expect_ok(call, desc) do {					\
	int __r = (call);						\
	int __e = errno;						\
	ktap_result(__r >= 0, "%s (got %d, %s)", desc, __r,		\
		    __r < 0 ? strerror(__e) : "ok");			\
} while (0)

static inline int ktap_finish(void)
{
	printf("# %d checks, %d failed\n", ktap_nr, ktap_failed);
	return ktap_failed ? KSFT_FAIL : KSFT_PASS;
}

static inline void ktap_bail(const char *fmt, ...)
{
	va_list ap;

	printf("Bail out! ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" (%s)\n", strerror(errno));
	exit(KSFT_FAIL);
}

#endif /* _RDS_SELFTEST_KTAP_H */
