#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-pair: in-tree rds_rdma
#
# Interop over Soft-RoCE: our rds_rdma on a connects to the in-tree one on b.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ib_interop_lib.sh"
ib_interop_test a a
