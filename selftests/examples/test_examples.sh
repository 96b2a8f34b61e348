#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 100
#
# The examples for application developers, run as one would run them.
# rds_echo_server and rds_echo_client over RDS/TCP between two network
# namespaces: 200 requests of 1 KiB, every answer intact, the server
# stopping after its 200th; the same over IPv6; in one namespace, one
# address and two ports (the loopback transport), the server stopped by
# SIGTERM; 64 KiB requests, four in flight from a non-blocking client, to
# a server whose SO_SNDBUF holds one answer. Then over the rxe pair
# (ib_lib.sh): the echo over RDS/IB, and rds_rdma_example's RDMA WRITE,
# the region registered with RDS_GET_MR, then with RDS_CMSG_RDMA_MAP: the
# owner finds the writer's bytes in it. Every program runs under
# `timeout 60`, so that a hang fails its point and not the whole guest.

# The points' functions run through ktap_test, which shellcheck cannot see.
# shellcheck disable=SC2317

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../tcp/tcp_lib.sh"
. "$(dirname "$0")/../ib/ib_lib.sh"

SERVER=$BIN/rds_echo_server
CLIENT=$BIN/rds_echo_client
RDMA=$BIN/rds_rdma_example
for p in "$SERVER" "$CLIENT" "$RDMA"; do
	if [ ! -x "$p" ]; then
		echo "1..0 # SKIP $p not built (make selftests)"
		exit "$KSFT_SKIP"
	fi
done

log=$(mktemp -d) || exit 1
trap 'rm -rf "$log"' EXIT
big=$(tcp_count 100 30)

# wait_line PID FILE TEXT: until FILE, the output of PID, has TEXT; fails
# when PID ends first or after 20 s.
wait_line() {
	local i

	for i in $(seq 100); do
		grep -q -- "$3" "$2" && return 0
		kill -0 "$1" 2>/dev/null || break
		sleep 0.2
	done
	echo "no \"$3\" from $1 after $((i / 5)) s:"
	cat "$2"
	kill "$1" 2>/dev/null
	wait "$1"
	return 1
}

# serve NS ARGS...: rds_echo_server ARGS in the background, in netns NS
# ("-": this one), its output in $log/server, $server the pid of its
# timeout (which passes SIGTERM on); returns once it serves. The log is
# emptied first: the last server's "serving on" must not pass for this
# one's, whose requests would go to a port nobody has bound yet.
serve() {
	local ns=$1

	shift
	: >"$log/server"
	if [ "$ns" = - ]; then
		timeout 60 "$SERVER" "$@" >"$log/server" 2>&1 &
	else
		ip netns exec "$ns" timeout 60 "$SERVER" "$@" >"$log/server" 2>&1 &
	fi
	server=$!
	wait_line "$server" "$log/server" "serving on"
}

# client NS ARGS...: rds_echo_client ARGS in netns NS ("-": this one).
client() {
	local ns=$1

	shift
	in_netns "$ns" timeout 60 "$CLIENT" "$@"
}

# served RC WANT: the end of a point whose client gave RC: the server
# stopped (SIGTERM if the client failed: it would wait for more), exited
# 0 and said WANT.
served() {
	local rc=$1 src

	[ "$rc" = 0 ] || kill -TERM "$server" 2>/dev/null
	wait "$server"
	src=$?
	cat "$log/server"
	if [ "$src" != 0 ]; then
		echo "server: exit $src"
		rc=1
	fi
	if ! grep -q -F "$2" "$log/server"; then
		echo "server: no \"$2\""
		rc=1
	fi
	return "$rc"
}

# echo_netns ADDR_B ADDR_A PORT COUNT: COUNT requests of 1 KiB from rds-a
# to a server in rds-b that stops after COUNT.
echo_netns() {
	serve "$B" -n "$4" "$1" "$3" || return 1
	client "$A" -n "$4" -s 1024 "$2" "$1" "$3"
	served $? "done after $4 requests: $4 answered, 0 failed"
}

# echo_loopback: a server and a client on one address of rds-a; the
# connection is the loopback transport's. SIGTERM stops the server.
echo_loopback() {
	local rc=0

	serve "$A" "$A4" 4010 || return 1
	client "$A" -n 200 -s 1024 "$A4" "$A4" 4010 || rc=1
	kill -TERM "$server"
	served "$rc" "SIGTERM after 200 requests: 200 answered, 0 failed" ||
		return 1
	ip netns exec "$A" "$BIN/rds-info" -n -v |
		grep -E "^ *$A4 +$A4 .* loopback"
}

# echo_big: 64 KiB requests, four in flight from a non-blocking client,
# to a server whose SO_SNDBUF holds one answer: both wait for room.
echo_big() {
	serve "$B" -n "$big" -b 65536 "$B4" 4020 || return 1
	client "$A" -N -d 4 -n "$big" -s 65536 "$A4" "$B4" 4020
	served $? "done after $big requests: $big answered, 0 failed"
}

# echo_ib: 100 requests of 4 KiB from IA to IB, over RDS/IB.
echo_ib() {
	serve - -n 100 "$IB" 4030 || return 1
	client - -n 100 -s 4096 "$IA" "$IB" 4030
	served $? "done after 100 requests: 100 answered, 0 failed"
}

# rdma_write PORT OWNER_ARGS...: rds_rdma_example's owner on IB:PORT, its
# writer on IA; both exit 0, the owner with the bytes in its region.
rdma_write() {
	local port=$1 owner rc=0

	shift
	: >"$log/owner"
	timeout 60 "$RDMA" owner "$@" "$IB" "$port" >"$log/owner" 2>&1 &
	owner=$!
	wait_line "$owner" "$log/owner" "bound to" || return 1
	timeout 60 "$RDMA" writer "$IA" "$IB" "$port" || rc=1
	[ "$rc" = 0 ] || kill -TERM "$owner" 2>/dev/null
	wait "$owner" || rc=1
	cat "$log/owner"
	grep -q "the region holds the writer's" "$log/owner" || rc=1
	return "$rc"
}

TCP_POINTS=(
	"TCP, two netns: 200 requests of 1 KiB, every answer intact"
	"TCP, two netns, IPv6: 50 requests of 1 KiB"
	"one netns, one address, two ports (loopback): 200 requests, SIGTERM"
	"TCP: $big requests of 64 KiB, 4 in flight, non-blocking, SO_SNDBUF 64 KiB"
)
IB_POINTS=(
	"IB: rxe pair and rds_rdma set up"
	"IB: $IA and $IB connected"
	"IB: echo, 100 requests of 4 KiB"
	"IB: RDMA WRITE of 64 KiB into a region from RDS_GET_MR"
	"IB: RDMA WRITE of 1 MiB into a region from RDS_CMSG_RDMA_MAP"
	"IB: rmmod rds_rdma after"
)
ktap_plan $((1 + ${#TCP_POINTS[@]} + ${#IB_POINTS[@]}))

if ktap_test "load rds_tcp, netns pair" tcp_setup; then
	ktap_test "${TCP_POINTS[0]}" echo_netns "$B4" "$A4" 4000 200
	ktap_test "${TCP_POINTS[1]}" echo_netns "$B6" "$A6" 4001 50
	ktap_test "${TCP_POINTS[2]}" echo_loopback
	ktap_test "${TCP_POINTS[3]}" echo_big
else
	for d in "${TCP_POINTS[@]}"; do
		ktap_fail "$d: not run"
	done
fi
cleanup_netns

# Every IB point skipped, not just the first, so that the plan holds.
if ! ib_have_rxe; then
	for d in "${IB_POINTS[@]}"; do
		ktap_skip "$d: no rdma_rxe or no rdma tool"
	done
	ktap_finished
fi
ib_start "${IB_POINTS[0]}"
ib_first_ping "${IB_POINTS[1]}" $((1 + ${#TCP_POINTS[@]} + ${#IB_POINTS[@]})) \
	"$IA" "$IB"
ktap_test "${IB_POINTS[2]}" echo_ib || ib_diag
ktap_test "${IB_POINTS[3]}" rdma_write 4040 -s 65536 || ib_diag
ktap_test "${IB_POINTS[4]}" rdma_write 4041 -m -s 1048576 || ib_diag
ktap_test "${IB_POINTS[5]}" rds_rmmod rds_rdma || ib_diag
ib_cleanup
ktap_finished
