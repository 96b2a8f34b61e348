#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Interop: our rds_tcp on a (the TCP client), the in-tree one on b.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/interop_lib.sh"
interop_test a
