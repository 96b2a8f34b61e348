#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# IPv6 link-local destinations. rds-a sits on two links, veth0 to rds-b
# and veth1 to rds-c, and both peers are fe80::2. A socket bound to a
# link-local address sends on its own link only (EINVAL otherwise, as
# in-tree), and a socket bound to a global address that sends to fe80::2
# on one link and then on the other reaches both: its cached connection
# is the one of the first link, which must not be used for the second.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tcp_lib.sh"

C=rds-c
LL=$BIN/rds_ll_send

setup() {
	local ns
	tcp_load || return 1
	for ns in $A $B $C; do
		ip netns add $ns || return 1
		ip -n $ns link set lo up
	done
	ip link add veth0 netns $A type veth peer name veth0 netns $B || return 1
	ip link add veth1 netns $A type veth peer name veth0 netns $C || return 1
	ip -n $A addr add fe80::1/64 dev veth0 nodad
	ip -n $A addr add fe80::1/64 dev veth1 nodad
	ip -n $A addr add fd00::1/128 dev lo
	ip -n $A link set veth0 up
	ip -n $A link set veth1 up
	for ns in $B $C; do
		ip -n $ns addr add fe80::2/64 dev veth0 nodad
		ip -n $ns link set veth0 up
		ip -n $ns -6 route add fd00::1/128 via fe80::1 dev veth0
	done
	ip netns exec $A ping -6 -c 1 -W 5 fe80::2%veth0 >/dev/null &&
	ip netns exec $A ping -6 -c 1 -W 5 fe80::2%veth1 >/dev/null
}

# expect WHAT CMD...: CMD prints WHAT.
expect() {
	local want=$1 got
	shift
	got=$("$@")
	echo "$*: $got"
	[ "$got" = "$want" ]
}

# peer_has_conn NS: NS has an RDS/TCP connection from fd00::1.
peer_has_conn() {
	ip netns exec "$1" ss -tnH state established '( sport = :16385 )' |
		grep -q 'fd00::1'
}

both_links() {
	local i
	# One socket, so the second send finds the first one's connection
	# in the socket's cache.
	expect "ok ok" ip netns exec $A "$LL" fd00::1 7000 \
		fe80::2%veth0 fe80::2%veth1 || return 1
	for i in $(seq 50); do
		peer_has_conn $B && peer_has_conn $C && return 0
		sleep 0.1
	done
	echo "rds-b: $(peer_has_conn $B && echo connected || echo nothing)"
	echo "rds-c: $(peer_has_conn $C && echo connected || echo nothing)"
	return 1
}

ktap_plan 5
ktap_test "load rds_tcp, three netns, two links" setup || ktap_finished
ktap_test "bound on veth0, to fe80::2%veth0: sent" \
	expect ok ip netns exec $A "$LL" fe80::1%veth0 7000 fe80::2%veth0
ktap_test "bound on veth0, to fe80::2%veth1: EINVAL" \
	expect EINVAL ip netns exec $A "$LL" fe80::1%veth0 7000 fe80::2%veth1
ktap_test "to fe80::2 without a scope: EINVAL" \
	expect EINVAL ip netns exec $A "$LL" fd00::1 7000 fe80::2
ktap_test "bound globally, to fe80::2 on each link: both peers connected" \
	both_links
cleanup_netns
ktap_finished
