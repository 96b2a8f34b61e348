// SPDX-License-Identifier: GPL-2.0
/* rds.ko's trace events (trace.h) are instantiated here, once. */
#include <rds/transport.h>

#define CREATE_TRACE_POINTS
#include "trace.h"
