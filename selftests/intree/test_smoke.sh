#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The distribution's in-tree RDS over TCP between two network namespaces. Its
# main use is to prove the test harness itself; it is also the reference our
# stack is compared with.

. "$(dirname "$0")/../lib.sh"

ktap_plan 4
ktap_test "modprobe rds_tcp (in-tree)" intree_load || ktap_finished
ktap_test "two netns joined by veth" netns_pair rds-a rds-b 192.0.2.1 192.0.2.2
ktap_test "RDS/TCP message a -> b" rds_exchange rds-a 192.0.2.1 rds-b 192.0.2.2 4000 hello-b
ktap_test "RDS/TCP message b -> a" rds_exchange rds-b 192.0.2.2 rds-a 192.0.2.1 4001 hello-a
cleanup_netns
ktap_finished
