// SPDX-License-Identifier: GPL-2.0
/*
 * abi_check built against the system <linux/rds.h> instead of ours.
 *
 * selftests/Makefile puts our uapi/ first on the include path. Pulling the
 * system header in by its absolute path first sets the shared include guard,
 * so the <linux/rds.h> in abi_check.c then expands to nothing.
 */
#include <linux/sockios.h>
#include "/usr/include/linux/rds.h"
#include "abi_check.c"
