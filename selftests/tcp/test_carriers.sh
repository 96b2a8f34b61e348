#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 60
#
# RDS_INFO_CARRIERS (rds-info -C): what each path sends through. A path
# sends through its carrier, a transport connection and the transport
# that drives it; failover (Documentation/rds.rst, "Failover across
# devices and transports") will move a path from one carrier to another.
# Nothing moves yet, so every path of every connection must be on its
# home carrier, its connection's own transport, never moved: an RDS/TCP
# connection between two namespaces (its eight paths, at both ends), a
# loopback one inside a namespace, and, with Soft-RoCE, an RDS/IB
# connection each way in init_net. The table is read as --json, as the
# classic columns and as --prometheus series.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../ib/ib_lib.sh"

A=192.0.2.1
B=192.0.2.2

# carriers_home NS LOCAL REMOTE TRANS ROWS: rds-info -C in NS ("-": the
# current one) has ROWS paths of the LOCAL->REMOTE connection, numbered
# from 0, each on its home carrier: the connection's transport TRANS, no
# device yet, never moved.
carriers_home() {
	in_netns "$1" "$BIN/rds-info" --json -C | python3 -c '
import json, sys
local, remote, trans, rows = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
got = [c for c in json.load(sys.stdin).get("carriers", [])
       if c["local_addr"] == local and c["remote_addr"] == remote]
home = (trans, trans, "", 0, True, 0, 0)
bad = [c for c in got if (c["transport"], c["carrier"], c["device"], c["port"],
                          c["home"], c["moves"], c["last_move_time"]) != home]
if bad or sorted(c["path"] for c in got) != list(range(rows)):
    print("# want %d paths of %s->%s on their home carrier (%s), got:"
          % (rows, local, remote, trans))
    for c in got:
        print("#  ", c)
    sys.exit(1)
print("# %s->%s: %d paths on their home carrier (%s)" % (local, remote, rows, trans))
' "$2" "$3" "$4" "$5"
}

# tcp_carriers: both ends of the RDS/TCP connection, all eight paths.
tcp_carriers() {
	carriers_home rds-a $A $B tcp 8 && carriers_home rds-b $B $A tcp 8
}

# carrier_columns: rds-info -C's header and path 0 of A->B; the same
# path as a --prometheus info series and a move counter at 0.
carrier_columns() {
	local out

	out=$(in_netns rds-a "$BIN/rds-info" -C) || return 1
	echo "$out" | sed 's/^/# /'
	grep -qx 'RDS Carriers:' <<<"$out" &&
		grep -qE '^ *LocalAddr +RemoteAddr +Tos +Path +Trans +Carrier +Device +Home +Moves +LastMove$' <<<"$out" &&
		grep -qE "^ *$A +$B +0 +0 +tcp +tcp +- +yes +0 +-$" <<<"$out" || return 1
	out=$(in_netns rds-a "$BIN/rds-info" --prometheus) || return 1
	grep -qxF "rds_path_carrier_info{local=\"$A\",remote=\"$B\",tos=\"0\",transport=\"tcp\",path=\"0\",carrier=\"tcp\",device=\"\",home=\"1\"} 1" <<<"$out" &&
		grep -qxF "rds_path_carrier_moves_total{local=\"$A\",remote=\"$B\",tos=\"0\",transport=\"tcp\",path=\"0\"} 0" <<<"$out" || {
		grep carrier <<<"$out" | sed 's/^/# /'
		return 1
	}
}

# loop_carriers: a message from A to A (RDS/TCP hands a local peer to
# loopback), and the loopback connection's one path on its home carrier.
loop_carriers() {
	rds_exchange rds-a $A rds-a $A 4001 over-loop &&
		carriers_home rds-a $A $A loopback 1
}

# ib_carriers: RDS/IB up both ways in init_net, and each connection's one
# path on its home carrier.
ib_carriers() {
	ib_warm $IA $IB && ib_warm $IB $IA &&
		carriers_home - $IA $IB infiniband 1 &&
		carriers_home - $IB $IA infiniband 1
}

setup() {
	rds_load tcp && netns_pair rds-a rds-b $A $B
}

cleanup() {
	cleanup_netns
	ib_cleanup
}
trap cleanup EXIT

ktap_plan 6
ktap_test "load rds_tcp; rds-a and rds-b joined by veth" setup || ktap_finished
ktap_test "RDS/TCP: $A -> $B and back" rds_exchange rds-a $A rds-b $B 4000 over-tcp
ktap_test "RDS/TCP: the 8 paths at both ends on their home carrier" tcp_carriers
ktap_test "rds-info -C columns and --prometheus series" carrier_columns
ktap_test "loopback: $A -> $A in rds-a, its path on its home carrier" \
	loop_carriers

ib_setup
case $? in
0)
	ktap_test "RDS/IB: $IA <-> $IB, each path on its home carrier" \
		ib_carriers || ib_diag
	;;
4)
	ktap_skip "RDS/IB: no rdma_rxe or no rdma tool"
	;;
*)
	ktap_fail "RDS/IB: Soft-RoCE and rds_rdma set up"
	ib_diag
	;;
esac
ktap_finished
