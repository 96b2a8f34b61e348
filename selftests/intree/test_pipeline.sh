#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/tcp/test_pipeline.sh against the in-tree RDS/TCP: the reference
# for what a sender with a 2 KiB send buffer and 8 messages in flight sees.

RDS_TCP_INTREE=1 exec "$(dirname "$0")/../tcp/test_pipeline.sh"
