# SPDX-License-Identifier: GPL-2.0
#
# Our RDS/TCP against the distribution's in-tree one, in two guests joined
# by a link (selftests/vm/run-pair.sh). Source after ../lib.sh, then call
# interop_test OURS, OURS being the role (a or b) that loads our modules.
#
# Guest a has the smaller address, so it is the TCP client of every path;
# b, the larger, pings first, which makes it connect, get refused and be
# connected to. The two pair tests put our stack on either end. Ours runs
# with heartbeats on (issue 26): the traffic is the same, and the in-tree
# peer answers the heartbeats of the idle connection after it.

. "$(dirname "${BASH_SOURCE[0]}")/heartbeat_lib.sh"

interop_count() {
	if [ "$RDS_PROFILE" = short ]; then
		echo 2000
	else
		echo 10000
	fi
}

# ping_peer: rds-ping the peer until it answers (it may still be loading).
ping_peer() {
	local try
	for try in $(seq 60); do
		"$BIN/rds-ping" -c 3 -i 0.2 -I "$RDS_PAIR_ADDR" "$RDS_PAIR_PEER" && return 0
		sleep 1
	done
	return 1
}

# interop_timeout: rds_traffic's limit, well inside the guest's (run-pair's
# 300 s, 600 s on a debug kernel), so that a stall still prints the state
# of both stacks below instead of ending in a guest timeout.
interop_timeout() {
	if [ "$RDS_PROFILE" = short ]; then
		echo 300
	else
		echo 150
	fi
}

interop_test() {
	local ours=$1 n
	n=$(interop_count)

	ktap_plan 6
	ktap_test "link to $RDS_PAIR_PEER" pair_link_up || ktap_finished
	if [ "$RDS_PAIR_ROLE" = "$ours" ]; then
		ktap_test "load our rds_tcp" rds_load tcp || ktap_finished
		hb_on
	else
		ktap_test "modprobe rds_tcp (in-tree)" intree_load || ktap_finished
	fi
	if [ "$RDS_PAIR_ROLE" = b ]; then
		ktap_test "b pings a first" ping_peer
		sleep 2
		ktap_test "a's pings answered" true
	else
		sleep 5
		ktap_test "b's pings answered" true
		ktap_test "a pings b" ping_peer
	fi
	if ! ktap_test "$n messages both ways, 2+2 sockets, exactly once in order" \
		"$BIN/rds_traffic" -S "$RDS_PAIR_ROLE" -a 192.0.2.1 -b 192.0.2.2 \
		-n "$n" -t "${RDS_INTEROP_TIMEOUT:-$(interop_timeout)}" -l 5; then
		"$BIN/rds-info" -n -s -t -r -T -c | sed 's/^/# /'
		ss -tni '( sport = :16385 or dport = :16385 )' | sed 's/^/# /'
	fi
	if [ "$RDS_PAIR_ROLE" = "$ours" ]; then
		ktap_test "our heartbeats answered by the in-tree peer" hb_answered
	else
		ktap_test "up while the peer's heartbeats go on" hb_peer_waits
	fi
	"$BIN/rds-info" -c | grep -E 'tcp_|conn_reset|conn_heart|recv_drop|cong_' | sed 's/^/# /'
	ktap_finished
}
