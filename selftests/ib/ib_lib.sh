# SPDX-License-Identifier: GPL-2.0
#
# Shared by the RDS/IB tests. Source after ../lib.sh.
#
# ib_setup: Soft-RoCE in init_net (Debian 6.1's rxe carries RDMA CM traffic
# nowhere else): a veth pair rv0/rv1, rxe0 on rv0 and rxe1 on rv1, IA on rv0
# and IB on rv1. Both addresses are local, so each one's traffic to the
# other is steered out of its own veth by a policy rule looked up before the
# local table (else it would go through lo and rdma_cm would use one rxe for
# both ends), with a static neighbour entry; the receiving veth must accept
# packets from a local source (accept_local, no rp_filter).
# ib_cleanup undoes it all. Returns 4 (skip) without rdma_rxe.
#
#   RDS_IB_INTREE=1  ib_setup loads the distribution's in-tree rds_rdma
#                    instead of ours (the intree guest's runs of our tests)

IA=10.77.0.1
IB=10.77.0.2

# ib_count N [SHORT]: message counts, N in the default profile, SHORT (a
# tenth of N unless given) on slow (debug) kernels.
ib_count() {
	if [ "$RDS_PROFILE" = short ]; then
		echo "${2:-$(($1 / 10))}"
	else
		echo "$1"
	fi
}

# ib_counter NAME: RDS_INFO_COUNTERS' NAME (rds-info -c).
ib_counter() {
	rds_counter "$1"
}

ib_have_rxe() {
	modprobe rdma_rxe 2>/dev/null && command -v rdma >/dev/null
}

# The policy rules (ib_setup) send SRC -> DST through the table of its
# veth. They match on the output device, which rxe and rdma_cm always set
# (rxe1 sends from IB out of rv1), and which rdma_cm also sets when it
# checks an incoming request by looking the reverse route up on the device
# it came in on. A packet arriving has none, so it still finds the local
# table.
#
# ib_paths: the routes of those tables and the static neighbours. Taking a
# veth down flushes both (permanent neighbours too), so a test that takes
# one down and up calls this again.
ib_paths() {
	local mac0 mac1

	read -r mac0 </sys/class/net/rv0/address &&
	read -r mac1 </sys/class/net/rv1/address || return 1
	ip -batch - <<-EOF
	neigh replace $IB lladdr $mac1 dev rv0 nud permanent
	neigh replace $IA lladdr $mac0 dev rv1 nud permanent
	route replace $IB/32 dev rv0 src $IA table 101
	route replace $IA/32 dev rv1 src $IB table 102
	EOF
}

# ib_veth_ordered DEV...: each veth's received packets handed to the
# backlog of CPU 0, in the order they were sent. A veth hands a packet to
# the backlog of whichever CPU sent it, and rxe sends a queue pair's
# packets from either CPU: with two CPUs they arrive out of order, and
# the rxe of 6.1 then lost atomics and stalled the queue pair for good
# (an out_of_seq_request at the responder, a completer retry at the
# requester, no completion ever after; test_ib_rdma's atomics, every
# time). A real HCA, or rxe on one NIC queue, keeps a queue pair's
# packets in order. Under `ip netns exec` for a netns' own veths.
ib_veth_ordered() {
	local dev

	for dev in "$@"; do
		echo 1 >"/sys/class/net/$dev/queues/rx-0/rps_cpus" || return 1
	done
}

ib_rxe_add() {
	rdma link add rxe0 type rxe netdev rv0 &&
	rdma link add rxe1 type rxe netdev rv1
}

# Each process costs seconds on the debug kernel under TCG (two to four
# for an `ip` or a `sysctl`, measured): the setup and cleanup every IB
# test goes through write /proc/sys themselves and give ip its commands
# in one batch, which took them from some 70 s down to a few.

# ib_link_setup: the two rxe devices on their veth pair, no RDS stack loaded
# (make bench loads either stack on it). 4 for no rxe.
ib_link_setup() {
	local d

	ib_have_rxe || return 4
	# What a test killed by its timeout left behind (the harness removes
	# modules and namespaces only) would make every step fail.
	ib_cleanup
	modprobe rdma_cm || return 1
	# rds_traffic asks for 4 MiB socket buffers: 1 MiB messages need them.
	read -r IB_WMEM_MAX </proc/sys/net/core/wmem_max
	read -r IB_RMEM_MAX </proc/sys/net/core/rmem_max
	echo 4194304 >/proc/sys/net/core/wmem_max &&
	echo 4194304 >/proc/sys/net/core/rmem_max || return 1
	ip link add rv0 type veth peer name rv1 || return 1
	ib_veth_ordered rv0 rv1 || return 1
	for d in rv0 rv1; do
		echo 1 >/proc/sys/net/ipv4/conf/$d/accept_local &&
		echo 0 >/proc/sys/net/ipv4/conf/$d/rp_filter || return 1
	done
	echo 0 >/proc/sys/net/ipv4/conf/all/rp_filter
	# The local table moves behind our two rules.
	ip -batch - <<-EOF || return 1
	addr add $IA/32 dev rv0
	addr add $IB/32 dev rv1
	link set rv0 up
	link set rv1 up
	rule add pref 1000 lookup local
	rule del pref 0
	rule add pref 101 from $IA to $IB oif rv0 lookup 101
	rule add pref 102 from $IB to $IA oif rv1 lookup 102
	EOF
	ib_paths || return 1
	ib_rxe_add
}

ib_setup() {
	ib_link_setup || return
	if [ "${RDS_IB_INTREE:-0}" = 1 ]; then
		intree_load rdma || return 1
	else
		rds_load rdma || return 1
	fi
	# Path drops and rdma_cm events, for ib_diag.
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	# Not on a kernel without CONFIG_DYNAMIC_DEBUG (the debug build).
	[ -w /sys/kernel/debug/dynamic_debug/control ] &&
		echo 'module rds_rdma +p; module rds +p' \
			>/sys/kernel/debug/dynamic_debug/control
	true
}

# ib_start DESC [MORE_SETUP]: ib_setup, then MORE_SETUP if given, as the
# test's first point DESC. Without rxe the whole test is skipped; when the
# setup fails it ends there. Call at the top level of the test: ending it
# is ktap_finished's exit.
ib_start() {
	local rc

	ib_setup
	rc=$?
	if [ $rc = 4 ]; then
		ib_cleanup
		ktap_skip "no rdma_rxe or no rdma tool"
		ktap_finished
	fi
	if [ $rc != 0 ] || { [ -n "${2:-}" ] && ! "$2"; }; then
		ktap_fail "$1"
		ib_diag
		cleanup_netns
		ib_cleanup
		ktap_finished
	fi
	ktap_ok "$1"
}

ib_cleanup() {
	rds_unload
	if [ -n "$IB_WMEM_MAX" ]; then
		echo "$IB_WMEM_MAX" >/proc/sys/net/core/wmem_max
		echo "$IB_RMEM_MAX" >/proc/sys/net/core/rmem_max
	fi
	[ ! -e /sys/class/infiniband/rxe0 ] || rdma link del rxe0
	[ ! -e /sys/class/infiniband/rxe1 ] || rdma link del rxe1
	# -force goes past what is not there.
	ip -force -batch - >/dev/null 2>&1 <<-EOF
	link del rv0
	rule del pref 101
	rule del pref 102
	EOF
	# The local table back in front, once (a second rule for it would
	# outlive the next setup's move).
	if [[ "$(ip rule show pref 0)" != *local* ]]; then
		ip rule add pref 0 lookup local
		ip rule del pref 1000 2>/dev/null
	fi
	true
}

# ib_warm SRC DST: ping until the connection is up (rdma_cm takes a while
# under TCG), at most 30 s.
ib_warm() {
	local i
	for i in $(seq 30); do
		"$BIN/rds-ping" -c 1 -i 1 -I "$1" "$2" >/dev/null 2>&1 && return 0
	done
	return 1
}

# ib_first_ping DESC PLAN SRC DST [SRC DST...]: the test point DESC, each
# SRC to its DST connected (ib_warm) and answering 3 rds-pings. Nothing
# else can work without the connections, so when they do not come the test
# ends there, its remaining points up to PLAN failed, rather than waiting
# for them once a point.
ib_first_ping() {
	local desc=$1 plan=$2 cmd=

	shift 2
	while [ $# -ge 2 ]; do
		cmd+="ib_warm $1 $2 && '$BIN/rds-ping' -c 3 -i 0.2 -I $1 $2 && "
		shift 2
	done
	ktap_test "$desc" bash -c "$(declare -f ib_warm); BIN='$BIN'; ${cmd}true" &&
		return
	ib_diag
	ib_cleanup
	while [ $ktap_num -lt "$plan" ]; do
		ktap_fail "not run: no RDS/IB connection"
	done
	ktap_finished
}

# ib_rxe_gone_ring_memory_zero: the rxe devices deleted, and every
# connection with them: ring_memory (what RDS/IB rings and SRQs pin)
# comes back to 0 within 30 s.
ib_rxe_gone_ring_memory_zero() {
	local i

	rdma link del rxe0 && rdma link del rxe1 || return 1
	for i in $(seq 1 150); do
		[ "$(sysctl -n net.rds.ib.ring_memory)" = 0 ] && return 0
		sleep 0.2
	done
	echo "# ring_memory $(sysctl -n net.rds.ib.ring_memory) with no device"
	return 1
}

# ib_both_warm: ib_warm both ways between the rxe pair's addresses.
ib_both_warm() {
	ib_warm $IA $IB && ib_warm $IB $IA
}

# ib_peers_add PREFIX ADDR...: the ADDRs on rv1 as more peers of IA,
# reached out of rv0 as IB is (ib_link_setup): a /32 each, a route in
# rv0's table and a static neighbour, and the two policy rules for PREFIX,
# which holds them all. ib_peers_del takes the rules away; ib_cleanup
# takes the rest with rv0.
ib_peers_add() {
	local prefix=$1 mac1 d cmds=

	shift
	read -r mac1 </sys/class/net/rv1/address || return 1
	for d in "$@"; do
		cmds+="addr add $d/32 dev rv1
route replace $d/32 dev rv0 src $IA table 101
neigh replace $d lladdr $mac1 dev rv0 nud permanent
"
	done
	ip -batch - <<-EOF
	${cmds}rule add pref 103 from $IA to $prefix oif rv0 lookup 101
	rule add pref 104 from $prefix to $IA oif rv1 lookup 102
	EOF
}

ib_peers_del() {
	ip rule del pref 103 2>/dev/null
	ip rule del pref 104 2>/dev/null
	true
}

# ib_conns_count: how many RDS/IB connections are up (flags --C).
ib_conns_count() {
	"$BIN/rds-info" -n -v | grep -cE ' [-s]-C infiniband'
}

# ib_conns_up N: N RDS/IB connections are up, within 30 s: on a fast
# kernel the short profile's traffic can end before the bounce, and the
# connections then come back on their own after it.
ib_conns_up() {
	local waited

	for waited in $(seq 30); do
		[ "$(ib_conns_count)" = "$1" ] && return 0
		sleep 1
	done
	"$BIN/rds-info" -n -v
	echo "not $1 up after $waited s"
	return 1
}

# ib_traffic_across DESC BOUNCE ARGS...: rds_traffic ARGS in the background
# while the function BOUNCE takes the link away and back; one point, DESC,
# passed when BOUNCE did and every message arrived exactly once, in order.
ib_traffic_across() {
	local desc=$1 bounce=$2 traffic bounced ok
	shift 2

	"$BIN/rds_traffic" "$@" &
	traffic=$!
	"$bounce"
	bounced=$?
	wait $traffic
	ok=$?
	ib_both_ok "$desc" $bounced $ok
}

# ib_both_ok DESC LINK_RC TRAFFIC_RC: the point "DESC: nothing lost" when
# both the link's bounce and the traffic across it went right.
ib_both_ok() {
	if [ "$2" = 0 ] && [ "$3" = 0 ]; then
		ktap_ok "$1: nothing lost"
	else
		ktap_fail "$1 (link $2, traffic $3)"
		ib_diag
	fi
}

# ib_diag: what a failure needs to be understood.
ib_diag() {
	local f

	rdma link show
	ip rule show
	"$BIN/rds-info" -n -v
	"$BIN/rds-info" -s -t | head -n 20
	"$BIN/rds-info" -c | grep -v ' 0$'
	# rxe's own view: retries, RNR NAKs, sequence errors.
	for f in /sys/class/infiniband/*/ports/1/hw_counters/*; do
		[ -r "$f" ] && [ "$(cat "$f")" != 0 ] &&
			echo "${f#/sys/class/infiniband/} $(cat "$f")"
	done
	dmesg | tail -n 30
}

# IPv6: link-local addresses only. A global pair would be two addresses of
# one host, which rdma_cm resolves as loopback (no policy rule helps, as
# for IPv4); a link-local destination with a scope is looked up on that
# link only, so fe80::b2%rv0 leaves through rv0 and reaches rxe1.
IA6=fe80::a1
IB6=fe80::b2

# ib_setup6: after ib_setup. rxe adds the GIDs of new addresses itself.
ib_setup6() {
	local mac0 mac1

	ip addr add $IA6/64 dev rv0 nodad && ip addr add $IB6/64 dev rv1 nodad ||
		return 1
	mac0=$(cat /sys/class/net/rv0/address)
	mac1=$(cat /sys/class/net/rv1/address)
	ip -6 neigh replace $IB6 lladdr "$mac1" dev rv0 nud permanent &&
	ip -6 neigh replace $IA6 lladdr "$mac0" dev rv1 nud permanent
}

# ib_golden: rds_rdma.py golden on the rxe pair, whichever stack is loaded,
# against the golden file made from the in-tree modules; the differences
# as a unified diff.
ib_golden() {
	local dir out

	dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	out=$(python3 "$dir/rds_rdma.py" golden $IA $IB 2>&1)
	diff -u "$dir/rds_rdma.golden" - <<<"$out"
}
