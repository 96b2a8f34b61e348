#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 80
#
# net.rds.tcp.rds_tcp_sndbuf and rds_tcp_rcvbuf written while their
# network namespace is torn down (CVE-2026-68290: in-tree's handler could
# walk the netns' connections, or its freed per-netns data, while the
# netns exited). Each round makes two namespaces with an RDS/TCP
# connection between them; in each a writer opens both sysctl files and
# goes back to init_net, so that only the open files point into the
# namespace, and writes them in a loop, each write resetting the
# connections, while both namespaces are deleted. Every writer must have
# written before the deletion and end on ENOENT (the tables gone) once
# the namespace has exited: not another errno, not a write that hangs,
# not a namespace that never exits. The harness fails the run on any
# splat or kmemleak report. Then RDS/TCP still works in new namespaces.
# (fault/test_races.sh's "sysctl writes racing their netns' exit" keeps
# its writer in the namespace, which so outlives the writes: there the
# exit comes after them.)

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tcp_lib.sh"

rounds=8
[ "$RDS_PROFILE" = short ] && rounds=3
dir=$(mktemp -d)

# The writer, run by `nsenter --net=... python3 -c`: prints "ready" once
# back in init_net with the files open, then writes until ENOENT and
# prints how many writes went through. Not under ip netns exec, whose
# mount namespace has a sysfs of the netns mounted, which holds it.
WRITER_PY='
import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
fds = [os.open("/proc/sys/net/rds/tcp/rds_tcp_%s" % b, os.O_WRONLY)
       for b in ("sndbuf", "rcvbuf")]
init = os.open("/proc/1/ns/net", os.O_RDONLY)
if libc.setns(init, 0x40000000):
    sys.exit("setns: " + os.strerror(ctypes.get_errno()))
print("ready", flush=True)
n = 0
while True:
    try:
        for fd in fds:
            os.pwrite(fd, b"262144" if n & 1 else b"0", 0)
            n += 1
    except OSError as e:
        print("%d writes, then %s" % (n, errno.errorcode.get(e.errno, e.errno)),
              flush=True)
        sys.exit(e.errno != errno.ENOENT)
'

# round N: the two namespaces, connected, their writers, the deletion.
round() {
	local a=rdsx$1 b=rdsy$1 pa pb rc=0

	netns_pair $a $b 198.51.100.1 198.51.100.2 || return 1
	ip netns exec $a "$BIN/rds-ping" -c 1 -i 0.2 -I 198.51.100.1 198.51.100.2 \
		>/dev/null || { echo "round $1: no connection"; rc=1; }
	timeout 60 nsenter --net=/run/netns/$a python3 -c "$WRITER_PY" >"$dir/a" 2>&1 &
	pa=$!
	timeout 60 nsenter --net=/run/netns/$b python3 -c "$WRITER_PY" >"$dir/b" 2>&1 &
	pb=$!
	for _ in $(seq 100); do
		grep -q ready "$dir/a" && grep -q ready "$dir/b" && break
		sleep 0.1
	done
	# Some writes first, each a reset of the connection.
	sleep 0.$((2 + RANDOM % 5))
	ip netns del $a
	ip netns del $b
	wait $pa || rc=1
	wait $pb || rc=1
	if [ $rc != 0 ] || [ "$1" = 1 ]; then
		echo "round $1: $(grep -v ready "$dir/a" | tr '\n' ' ')/ $(grep -v ready "$dir/b" | tr '\n' ' ')"
	fi
	grep -q '^[1-9][0-9]* writes, then ENOENT' "$dir/a" &&
		grep -q '^[1-9][0-9]* writes, then ENOENT' "$dir/b" || rc=1
	return $rc
}

rounds_pass() {
	local r

	for r in $(seq "$rounds"); do
		round "$r" || return 1
	done
	echo "$rounds rounds, $(rds_counter conn_reset) path resets in all"
}

ktap_plan 3
ktap_test "load rds_tcp" tcp_load || ktap_finished
ktap_test "$rounds rounds: sysctls written while their netns is deleted, ENOENT after" \
	rounds_pass
ktap_test "RDS/TCP in new namespaces after" tcp_setup
rm -rf "$dir"
ktap_finished
