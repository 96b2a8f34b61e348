#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make run: a short tour of our RDS stack, run in the test guest.
#
#   1. load rds.ko (and rds_tcp.ko when it is built)
#   2. two sockets exchange a message over loopback, in a network namespace
#   3. two network namespaces joined by a veth pair exchange messages over TCP
#   4. rds-ping from one namespace to the other
#
# Steps whose pieces are not built yet say so and are skipped.

. "$(dirname "$0")/lib.sh"

step() {
	echo
	echo "=== $* ==="
}

missing() {
	echo "(skipped: $* is not built yet)"
}

step "our modules for $(uname -r), from ${RDS_MODDIR#"$RDS_ROOT"/}"
ls "$RDS_MODDIR" 2>/dev/null
if [ ! -e "$RDS_MODDIR/rds.ko" ]; then
	missing rds.ko
	exit 0
fi
tcp=
[ -e "$RDS_MODDIR/rds_tcp.ko" ] && tcp=tcp
rds_load $tcp || exit 1
lsmod | grep '^rds'

step "namespaces demo-a (192.0.2.1) and demo-b (192.0.2.2), joined by veth"
netns_pair demo-a demo-b 192.0.2.1 192.0.2.2 || exit 1
ip -n demo-a -br addr show dev veth0

step "loopback: a message from 127.0.0.1 to 127.0.0.1:4000 inside demo-a"
rds_exchange demo-a 127.0.0.1 demo-a 127.0.0.1 4000 "hello over loopback"

step "TCP: a message from demo-a to demo-b, port 4000"
if [ -n "$tcp" ]; then
	rds_exchange demo-a 192.0.2.1 demo-b 192.0.2.2 4000 "hello over TCP"
	ip netns exec demo-a ss -tn | grep -E 'State|:16385'
else
	missing rds_tcp.ko
fi

step "rds-ping from demo-a to demo-b"
ping=$BIN/rds-ping
[ -x "$ping" ] || ping=$RDS_ROOT/tools/rds-ping
if [ -z "$tcp" ]; then
	missing rds_tcp.ko
elif [ -x "$ping" ]; then
	ip netns exec demo-a "$ping" -c 3 -I 192.0.2.1 192.0.2.2
else
	missing rds-ping
fi

cleanup_netns
rds_unload
echo
echo "demo: done"
