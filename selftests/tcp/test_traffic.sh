#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-ci-612: run: the TCP send path, MSG_SPLICE_PAGES there (compat.h)
#
# RDS/TCP between two netns joined by veth: messages of random sizes
# (1 B .. 64 KiB) between two sockets on each side, both directions,
# non-blocking with epoll; each arrives exactly once and in order. Over
# IPv4, then IPv6. Then small ones (1 .. 300 B), on both sides of the
# size up to which a received payload is copied into the message itself
# (RDS_TCP_INLINE_MAX, 256).

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tcp_lib.sh"

n=$(tcp_count 20000 2000)
ktap_plan 5
ktap_test "load rds_tcp, netns pair" tcp_setup || ktap_finished
ktap_test "IPv4: $n messages, 2+2 sockets, both directions" \
	traffic -a $A4 -b $B4 -n "$n" -t 600
ktap_test "IPv6: $((n / 5)) messages, 2+2 sockets, both directions" \
	traffic -a $A6 -b $B6 -p 6000 -n $((n / 5)) -t 600
ktap_test "IPv4: $n messages of 1 .. 300 B" \
	traffic -a $A4 -b $B4 -p 6100 -m 300 -n "$n" -t 600
ktap_test "RDS6_INFO_TCP_SOCKETS lists the IPv6 connection" \
	bash -c "ip netns exec $A $BIN/rds-info -T -a | tee /dev/stderr | grep -q 'fd00::2'"
cleanup_netns
ktap_finished
