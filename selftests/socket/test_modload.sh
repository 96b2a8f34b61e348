#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-ci-612: run: the sysctl tables (const on 6.11 and later) and module unload
#
# Load and unload rds.ko many times (25; 10 with RDS_PROFILE=short), each time
# with sockets opened, bound, used over loopback and closed in between, one
# of them with a message still queued when it closes. Any leak keeps the
# module from unloading; any splat fails the run.

. "$(dirname "$0")/../lib.sh"

rounds=25
[ "$RDS_PROFILE" = short ] && rounds=10

# Two sockets exchange a message; a third message stays unread.
use_sockets() {
	python3 - <<-'PY'
	import socket
	a = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
	b = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
	c = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
	a.bind(("127.0.0.1", 0))
	b.bind(("127.0.0.1", 0))
	b.settimeout(10)
	a.sendto(b"hello", b.getsockname())
	data, src = b.recvfrom(100)
	assert data == b"hello" and src == a.getsockname(), (data, src)
	a.sendto(b"left behind", b.getsockname())
	c.close()
	a.close()
	b.close()
	PY
}

round() {
	rds_load || return 1
	use_sockets || return 1
	rds_unload || return 1
	[ ! -e /sys/module/rds ] || { echo "rds still loaded"; return 1; }
}

rounds_all() {
	local i
	for i in $(seq "$rounds"); do
		round || { echo "round $i failed"; return 1; }
	done
}

ktap_plan 1
ktap_test "$rounds rounds of load, use sockets, unload" rounds_all
ktap_finished
