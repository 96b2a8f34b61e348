# SPDX-License-Identifier: GPL-2.0
#
# Our RDS/IB against the distribution's in-tree rds_rdma, in two guests
# joined by a link (selftests/vm/run-pair.sh), over Soft-RoCE: rxe0 on each
# guest's end of the link. Source after ../lib.sh, then call
# ib_interop_test OURS FIRST: OURS is the role (a or b) that loads our
# modules, FIRST the one that sends first and so makes the connection (the
# other only accepts it, then answers).
#
# Both sides must report the version they agreed on: ours through
# rds_rdma's debug message, in-tree's with its "conn connected" notice,
# which also says which side was active. The connecting side's offer
# decides it: ours offers 4.1, which in-tree accepts; Debian 6.1's
# in-tree offers 3.1 (seen: its first connect, unrejected, came up as
# 3.1), which we accept.
#
# After the messages, RDMA both ways on the same connection
# (rds_rdma_interop.py): each side registers a region, sends its cookie as
# RDS_CMSG_RDMA_DEST (in-tree: with RDS_CMSG_RDMA_MAP, its RDS_GET_MR
# cannot work on rxe), WRITEs into the other's with RDS_RDMA_NOTIFY_ME
# and READs back; statuses and data are checked on both sides. Our side
# runs with heartbeats on (heartbeat_lib.sh): plain pings from port 2,
# which in-tree answers like any other, warning about nothing.
#
# In-tree rds_rdma trips lockdep on debug kernels: there the test says it
# skips, but exits 0, as make check counts any other exit of a pair test
# as a failure.

. "$(dirname "${BASH_SOURCE[0]}")/heartbeat_lib.sh"

IB_SYNC_PORT=7471

ib_interop_count() {
	if [ "$RDS_PROFILE" = short ]; then
		echo 100
	else
		echo 400
	fi
}

# ib_interop_debug_kernel: prints why in-tree rds_rdma cannot run here.
ib_interop_debug_kernel() {
	local cfg=/boot/config-$(uname -r) opt

	for opt in CONFIG_LOCKDEP CONFIG_KASAN; do
		if grep -q "^$opt=y" "$cfg" 2>/dev/null; then
			echo "$opt=y: in-tree rds_rdma trips lockdep or KASAN here"
			return 0
		fi
	done
	return 1
}

# ib_link_dev: the link of pair_link_up.
ib_link_dev() {
	ls /sys/class/net | grep -v '^lo$' | head -n 1
}

ib_rxe_up() {
	modprobe rdma_rxe && command -v rdma >/dev/null &&
		rdma link add rxe0 type rxe netdev "$(ib_link_dev)" &&
		rdma link show
}

ib_load_ours() {
	rds_load rdma || return 1
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	# The "up, version" message of rds_ib_established().
	echo 'module rds_rdma +p' >/sys/kernel/debug/dynamic_debug/control
}

# A connect to a peer that has no listener yet is rejected, which makes
# both stacks fall back to 3.1 for the next attempt: the side that accepts
# says over TCP when it listens, and the first sender waits for that.
ib_sync_serve() {
	python3 -c '
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("", int(sys.argv[1])))
s.listen(1)
s.settimeout(600)
s.accept()[0].close()' "$IB_SYNC_PORT" &
}

ib_sync_wait() {
	local i
	for i in $(seq 300); do
		timeout 2 bash -c "exec 3<>/dev/tcp/$RDS_PAIR_PEER/$IB_SYNC_PORT" \
			2>/dev/null && return 0
		sleep 1
	done
	echo "the peer never said it listens" >&2
	return 1
}

# ib_ping_until_up: rds-ping the peer until it answers (rdma_cm under TCG
# takes seconds).
ib_ping_until_up() {
	local i
	for i in $(seq 60); do
		"$BIN/rds-ping" -c 3 -i 0.2 -I "$RDS_PAIR_ADDR" "$RDS_PAIR_PEER" &&
			return 0
		sleep 1
	done
	return 1
}

ib_connect_first() {
	ib_sync_wait && ib_ping_until_up
}

# ib_wait_conn: an RDS/IB connection to the peer is up, at most 300 s.
ib_wait_conn() {
	local i
	for i in $(seq 300); do
		"$BIN/rds-info" -n -v | grep -qE "$RDS_PAIR_PEER .* [-s]-C infiniband" &&
			return 0
		sleep 1
	done
	"$BIN/rds-info" -n -v
	return 1
}

# ib_version_seen OURS ACTIVE VERSION: the kernel log says VERSION (and,
# in-tree, whether it was the active side).
ib_version_seen() {
	local log v=${3//./\\.}
	log=$(dmesg)
	if [ "$1" = ours ]; then
		echo "$log" | grep 'rds_rdma: .* up, version'
		echo "$log" | grep -q \
			"rds_rdma: .*$RDS_PAIR_ADDR->.*$RDS_PAIR_PEER up, version $v"
	else
		echo "$log" | grep 'RDS/IB: .*conn connected'
		echo "$log" | grep -q \
			"RDS/IB: $2 conn connected <.*$RDS_PAIR_ADDR,.*$RDS_PAIR_PEER,0> version $v"
	fi
}

ib_interop_diag() {
	"$BIN/rds-info" -n -s -t -r -I -v | sed 's/^/# /'
	dmesg | tail -n 30 | sed 's/^/# /'
}

ib_interop_test() {
	local ours=$1 first=$2 n why stack side version

	if why=$(ib_interop_debug_kernel); then
		ktap_plan 1
		ktap_skip "in-tree rds_rdma on this kernel: $why"
		echo "# Totals: pass:0 fail:0 skip:1"
		exit 0
	fi
	n=$(ib_interop_count)
	stack=in-tree
	[ "$RDS_PAIR_ROLE" = "$ours" ] && stack=ours
	side=Passive
	[ "$RDS_PAIR_ROLE" = "$first" ] && side=Active

	ktap_plan 9
	ktap_test "link to $RDS_PAIR_PEER" pair_link_up || ktap_finished
	ktap_test "rxe0 on the link" ib_rxe_up || ktap_finished
	if [ $stack = ours ]; then
		ktap_test "load our rds_rdma" ib_load_ours || ktap_finished
		hb_on
	else
		ktap_test "modprobe rds_rdma (in-tree)" intree_load rdma ||
			ktap_finished
	fi
	if [ "$RDS_PAIR_ROLE" = "$first" ]; then
		ktap_test "the peer listens; rds-ping it: connects" \
			ib_connect_first
		ktap_test "RDS/IB connection to the peer up" ib_wait_conn
	else
		ib_sync_serve
		ktap_test "connected to by the peer" ib_wait_conn
		ktap_test "rds-ping the peer back" ib_ping_until_up
	fi
	if ! ktap_test "$n messages both ways, 2+2 sockets, exactly once in order" \
		"$BIN/rds_traffic" -T ib -S "$RDS_PAIR_ROLE" -a 192.0.2.1 \
		-b 192.0.2.2 -n "$n" -m 65536 -t "${RDS_INTEROP_TIMEOUT:-300}" \
		-l 5; then
		ib_interop_diag
	fi
	ktap_test "RDMA WRITE both ways, data and statuses; READ back" \
		python3 "$RDS_ROOT/selftests/interop/rds_rdma_interop.py" \
		$stack "$RDS_PAIR_ROLE" "$RDS_PAIR_ADDR" "$RDS_PAIR_PEER" ||
		ib_interop_diag
	version=3.1
	[ "$first" = "$ours" ] && version=4.1
	ktap_test "$stack side: version $version, $side" \
		ib_version_seen $stack $side $version
	if [ $stack = ours ]; then
		ktap_test "our heartbeats (pings from port 2) answered by in-tree" hb_answered
	else
		ktap_test "up while the peer's heartbeats go on" hb_peer_waits
	fi
	"$BIN/rds-info" -c | grep -E 'ib_|conn_reset|conn_heart|recv_drop|cong_' |
		grep -v ' 0$' | sed 's/^/# /'
	ktap_finished
}
