#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make soak: RDS/TCP between two netns for RDS_SOAK_SECONDS (the
# Makefile's SOAK_MINUTES). Rounds of rds_traffic, four sockets a side,
# messages of 1 B .. 1 MiB both ways, each round proven exactly once and in
# order per sender, while a disturber resets the connections every few
# seconds: ss -K on either side, or a write of the buffer sysctls (which
# resets them too). Not in make check (no test_ prefix). The harness
# fails the run on any splat or kmemleak report.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../tcp/tcp_lib.sh"

secs=${RDS_SOAK_SECONDS:-600}

# disturb: one reset of one kind, at random, every 3 to 10 s.
disturb() {
	local ns

	while :; do
		sleep $((3 + RANDOM % 8))
		ns=$([ $((RANDOM % 2)) = 0 ] && echo $A || echo $B)
		case $((RANDOM % 3)) in
		0) ip netns exec $ns ss -tnK '( sport = :16385 or dport = :16385 )' >/dev/null ;;
		1) ip netns exec $ns sysctl -qw net.rds.tcp.rds_tcp_sndbuf=$((RANDOM % 2 * 262144)) ;;
		2) ip netns exec $ns sysctl -qw net.rds.tcp.rds_tcp_rcvbuf=$((RANDOM % 2 * 262144)) ;;
		esac
		echo "$ns $((SECONDS - start)) s: reset" >>"$log"
	done
}

# A socket sends nothing larger than its sndbuf, which rds_traffic sets to
# 4 MiB: let it, so that the 1 MiB messages fit (the guest is throwaway).
sysctl -qw net.core.wmem_max=4194304 net.core.rmem_max=4194304

ktap_plan 2
ktap_test "load rds_tcp, netns pair" tcp_setup || ktap_finished

start=$SECONDS
log=$(mktemp)
disturb &
disturber=$!
rounds=0 msgs=0 rc=0
while [ $((SECONDS - start)) -lt "$secs" ]; do
	rounds=$((rounds + 1))
	# Each round on ports of its own: nothing of the last one can be
	# taken for this one's.
	if ! out=$(traffic -a $A4 -b $B4 -p $((5000 + rounds % 50 * 16)) -k 4 \
			-n 20000 -m 32768 -M 1048576 -t 900 2>&1); then
		echo "$out" | sed 's/^/# /'
		rc=1
		break
	fi
	msgs=$((msgs + 20000))
done
kill $disturber
wait $disturber 2>/dev/null
echo "# $rounds rounds, $msgs messages, $(wc -l <"$log") resets in $((SECONDS - start)) s"
rm -f "$log"
if [ $rc = 0 ]; then
	ktap_ok "soak: every message exactly once and in order"
else
	ktap_fail "soak: round $rounds failed"
fi
cleanup_netns
ktap_finished
