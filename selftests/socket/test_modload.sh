#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-ci-612: run: the sysctl tables (const on 6.11 and later) and module unload
# rds-cost: 90
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

# sysctl_doc: right after a load of all three modules, before anything
# writes a knob, Documentation/sysctl.rst lists every knob with the default
# and mode it has, and nothing else.
sysctl_doc() {
	rds_load tcp rdma || return 1
	python3 "$(dirname "$0")/../tools/check_sysctl_doc.py" || return 1
	rds_unload
}

# sysctl_errno FILE VALUE WANT: writing VALUE to FILE succeeds ("ok") or
# fails with WANT.
sysctl_errno() {
	local got
	got=$(python3 -c '
import errno, sys
try:
    with open(sys.argv[1], "w") as f:
        f.write(sys.argv[2])
    print("ok")
except OSError as e:
    print(errno.errorcode[e.errno])' "$1" "$2")
	echo "$1 = $2: $got"
	[ "$got" = "$3" ]
}

# tcp_skbuf_range: in-tree's bounds, the socket minimum of each buffer
# (SOCK_MIN_SNDBUF, SOCK_MIN_RCVBUF: 4608 and 2304 on x86-64), and 0
# (autotuning), which in-tree refuses.
tcp_skbuf_range() {
	local d=/proc/sys/net/rds/tcp rc=0
	rds_load tcp || return 1
	sysctl_errno $d/rds_tcp_sndbuf 4607 EINVAL || rc=1
	sysctl_errno $d/rds_tcp_sndbuf 4608 ok || rc=1
	sysctl_errno $d/rds_tcp_sndbuf -1 EINVAL || rc=1
	sysctl_errno $d/rds_tcp_sndbuf 0 ok || rc=1
	sysctl_errno $d/rds_tcp_rcvbuf 2303 EINVAL || rc=1
	sysctl_errno $d/rds_tcp_rcvbuf 2304 ok || rc=1
	sysctl_errno $d/rds_tcp_rcvbuf 0 ok || rc=1
	rds_unload || rc=1
	return $rc
}

ktap_plan 3
ktap_test "$rounds rounds of load, use sockets, unload" rounds_all
ktap_test "Documentation/sysctl.rst: every knob, its default and mode" sysctl_doc
ktap_test "rds_tcp_sndbuf and rcvbuf: the sockets' minimums, or 0" tcp_skbuf_range
ktap_finished
