#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 35
#
# A full send buffer: over TCP to a peer address nobody answers, messages stay
# queued; a non-blocking send then fails with EAGAIN, poll() has no POLLOUT,
# and RDS_CANCEL_SENT_TO frees the buffer. Also SO_RDS_TRANSPORT, bind and
# TOS of a socket set to TCP. Needs rds_tcp.ko.

. "$(dirname "$0")/../lib.sh"

ktap_plan 4
if [ ! -e "$RDS_MODDIR/rds_tcp.ko" ]; then
	ktap_skip "rds_tcp.ko not built"
	ktap_skip "sndbuf full"
	ktap_skip "TCP socket options"
	ktap_skip "unload"
	ktap_finished
fi
ktap_test "load rds.ko and rds_tcp.ko" rds_load tcp
netns_pair rdsa rdsb 10.77.0.1 10.77.0.2 >/dev/null
# 10.77.0.99 does not exist: the connection never comes up.
ktap_test "sndbuf full: EAGAIN, no POLLOUT, cancel (rds_sock_msgs sndbuf)" \
	ip netns exec rdsa "$BIN/rds_sock_msgs" sndbuf 10.77.0.1 10.77.0.99
ktap_test "TCP socket: transport, bind, TOS (rds_sock_api tcp)" \
	ip netns exec rdsa "$BIN/rds_sock_api" tcp 10.77.0.1
cleanup_netns
ktap_test "modules unload" rds_unload
ktap_finished
