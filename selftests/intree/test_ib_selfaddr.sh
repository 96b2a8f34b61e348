#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/ib/test_ib_selfaddr.sh against the in-tree rds_rdma: the small
# cluster on one node, each address to itself and to the other, compared
# on the very same test with ours.

RDS_IB_INTREE=1 exec "$(dirname "$0")/../ib/test_ib_selfaddr.sh"
