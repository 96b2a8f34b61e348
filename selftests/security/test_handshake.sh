#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The multipath handshake cannot be forged: no socket may bind the probe
# port 1 (EINVAL, as in-tree), and a 1 -> 0 message without the probe's
# extension headers leaves the peer's path count alone, so the peer still
# accepts our other paths.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../tcp/tcp_lib.sh"
. "$(dirname "$0")/sec_lib.sh"

# bind_errno NS ADDR PORT: prints the errno name of the bind, or "ok".
bind_errno() {
	ip netns exec "$1" python3 - "$2" "$3" <<-'PY'
	import errno, socket, sys
	s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
	try:
	    s.bind((sys.argv[1], int(sys.argv[2])))
	    print("ok")
	except OSError as e:
	    print(errno.errorcode[e.errno])
	PY
}

expect_bind() {
	local got
	got=$(bind_errno "$1" "$2" "$3")
	echo "bind to $2:$3: $got"
	[ "$got" = "$4" ]
}

ktap_plan 4
ktap_test "load rds_tcp, netns pair" sec_setup || ktap_finished
ktap_test "bind to port 1 (the probe port) fails with EINVAL" \
	expect_bind $B $B4 1 EINVAL
ktap_test "bind to port 2 works" expect_bind $B $B4 2 ok
ktap_test "a forged 1 -> 0 leaves the path count: second path accepted" \
	rawpeer forge
cleanup_netns
ktap_finished
