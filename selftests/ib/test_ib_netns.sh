#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-ci-612: run: RDS/IB outside init_net on 6.12's rdma core
# rds-cost: 115
#
# RDS/IB in a network namespace other than init_net. Every rdma_cm id holds
# its netns, so rds_rdma listens there only while sockets there are bound
# through it, and their last release takes the listeners and connections
# away with it: otherwise the netns could never go.
#
# Debian 6.1's rxe carries no RDMA CM traffic outside init_net, so what can
# be checked there is the lifecycle: listeners come with the first IB socket
# of the netns, a socket bound to an rxe address there tries to connect and
# backs off, the netns is deleted while it does, and once its last socket
# closes the netns really goes (its veths and rxe devices with it). Then
# init_net's RDS/IB still works, and its IB connection is in init_net's
# RDS_INFO tables (RDS_INFO_IB_CONNECTIONS, paths) and in none of a new
# netns's.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ib_lib.sh"

NS=rdsib
NA=10.78.0.1
NB=10.78.0.2

# The rdma_cm ids listening on RDS/IB's IPv4 port, in every netns: each
# listener has one per RDMA device. Counted on init_net's two devices,
# which stay while the netns's come and go.
listeners() {
	rdma resource show cm_id |
		grep -c '^link rxe[01]/- .*src-addr 0\.0\.0\.0:18634'
}

attempts() {
	rds_counter conn_connect_attempts
}

ns_setup() {
	ip netns add $NS || return 1
	ip link add nv0 netns $NS type veth peer name nv1 netns $NS || return 1
	ip -n $NS addr add $NA/24 dev nv0 && ip -n $NS addr add $NB/24 dev nv1 &&
	ip -n $NS link set lo up && ip -n $NS link set nv0 up &&
	ip -n $NS link set nv1 up || return 1
	ip netns exec $NS bash -c "$(declare -f ib_veth_ordered); ib_veth_ordered nv0 nv1" ||
		return 1
	ip netns exec $NS rdma link add rxens0 type rxe netdev nv0 &&
	ip netns exec $NS rdma link add rxens1 type rxe netdev nv1
}

# The sender: in the netns, a socket pinned to IB, bound to NA, sending to
# NB every half second until killed. Prints "bound" once bound. Run with
# python3 -c, so that the process we start (ip netns exec execs python3)
# is the one we kill.
SENDER_PY='
import socket, sys, time
SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_IB = 276, 8, 0
s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
s.setsockopt(SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_IB)
s.bind((sys.argv[1], 4000))
print("bound", flush=True)
while True:
    try:
        s.sendto(b"x", (sys.argv[2], 4001))
    except OSError as e:
        print("sendto:", e, flush=True)
    time.sleep(0.5)
'

ktap_plan 8
ib_start "rxe devices in init_net and in a netns" ns_setup

base=$(listeners)
ktap_test "init_net listens, the netns does not yet ($base listening ids)" \
	test "$base" -gt 0

log=$(mktemp)
ip netns exec $NS python3 -c "$SENDER_PY" $NA $NB >"$log" 2>&1 &
sender=$!
for i in $(seq 100); do
	grep -q '^bound' "$log" && break
	sleep 0.1
done
now=$(listeners)
if ! ktap_test "a socket bound through IB in the netns starts its listeners ($base -> $now)" \
	test "$now" -gt "$base"; then
	sed 's/^/# sender: /' "$log"
	rdma resource show cm_id | sed 's/^/# /'
fi

# An attempt may take long to fail (rdma_cm retries its request), so in
# 10 s: at least one, and nowhere near one per send; none gets through.
a0=$(attempts)
sleep 10
a1=$(attempts)
ktap_test "its connects are tried, do not spin, do not come up ($((a1 - a0)) attempts in 10 s)" \
	bash -c "[ $((a1 - a0)) -ge 1 ] && [ $((a1 - a0)) -le 20 ] &&
		 ! grep -v '^bound' '$log' &&
		 ip netns exec $NS '$BIN/rds-info' -n | grep $NB | grep -v -- '--C'"
dmesg | grep "$NA->.*$NB" | tail -n 5 | sed 's/^/# /'

# Deleting the netns only drops its name: the sender still holds it.
ip netns del $NS
sleep 2
kill $sender
wait $sender 2>/dev/null
rm -f "$log"
gone() {
	local i
	for i in $(seq 60); do
		if ! rdma link show | grep -q rxens &&
		   [ "$(listeners)" = "$base" ]; then
			return 0
		fi
		sleep 1
	done
	rdma link show
	rdma resource show cm_id
	return 1
}
ktap_test "netns deleted, its last socket closed: the netns goes, with its listeners" \
	gone

ktap_test "init_net's RDS/IB still works" \
	bash -c "$(declare -f ib_warm); BIN='$BIN'; ib_warm $IA $IB &&
		 '$BIN/rds-ping' -c 2 -i 0.2 -I $IB $IA" || ib_diag

# ib_info_isolated: rds_info_tables.py in init_net and in a new netns,
# for the address of IA.
ib_info_isolated() {
	local tables=$RDS_ROOT/selftests/common/rds_info_tables.py own other rc=0

	ip netns add rdsempty || return 1
	own=$(python3 "$tables" $IA) &&
	other=$(ip netns exec rdsempty python3 "$tables" $IA) || rc=1
	ip netns del rdsempty
	echo "init_net: $(grep -E '^10(008|100|102) ' <<<"$own" | tr '\n' ' ')"
	grep -qE '^10008 ib_connections [1-9][0-9]* '"$IA"':[1-9]' <<<"$own" &&
	grep -qE '^10100 paths [1-9][0-9]* '"$IA"':[1-9]' <<<"$own" &&
	grep -qE '^10102 carriers [1-9][0-9]* '"$IA"':[1-9]' <<<"$own" || rc=1
	if awk '$3 != "absent" && $3 != 0 { bad = 1 } END { exit !bad }' <<<"$other"; then
		echo "rows in a new netns:"
		echo "$other"
		rc=1
	fi
	return $rc
}
ktap_test "init_net's IB connection in its own RDS_INFO tables only" \
	ib_info_isolated

ktap_test "rmmod rds_rdma" rds_rmmod rds_rdma

cleanup_netns
ib_cleanup
ktap_finished
