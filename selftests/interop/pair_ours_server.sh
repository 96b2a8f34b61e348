#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Interop: the in-tree rds_tcp on a (the TCP client), ours on b.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/interop_lib.sh"
interop_test b
