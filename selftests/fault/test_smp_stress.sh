#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-ci-612: run: every path at once on two CPUs
# rds-ci-debug: run: every path at once on two CPUs, the races lockdep and KASAN see only on SMP
# rds-cost: 300
#
# Everything at once on both CPUs, for a minute (forty seconds on slow
# kernels; RDS_SMP_SECS=N for longer): checked traffic over TCP (two netns
# over veth), loopback (127.0.0.1 and .2, and each address to itself) and
# IB (the rxe pair of ib_lib.sh), each pinned to a CPU with taskset; and
# beside it rds_smp on each, five threads on both CPUs sharing one socket
# (sending, receiving, polling, setting options, binding and closing, the
# socket itself replaced under the others). Meanwhile the TCP connections
# are reset (ss -K, the link down and up, a buffer sysctl) and the rxe
# devices deleted and added again. The checked traffic loses nothing; then
# every transport still carries messages, and the modules unload right
# after a last burst of traffic is killed. Until d89f1b9 every guest had
# one CPU: no two of these ever ran at the same moment. The harness fails
# the run on any splat, lockdep or kmemleak report.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../tcp/tcp_lib.sh"
. "$(dirname "$0")/../ib/ib_lib.sh"

if [ "$(nproc)" -lt 2 ]; then
	echo "1..0 # SKIP one CPU: nothing would run at the same moment"
	exit $KSFT_SKIP
fi

SECS=${RDS_SMP_SECS:-$(tcp_count 60 40)}
N=$(tcp_count 2000 200)
SMP=$BIN/rds_smp
LOGS=$(mktemp -d)
have_ib=false

# After ib_link_setup, at the top level (its settings are undone by
# ib_cleanup).
setup() {
	if $have_ib; then
		rds_load tcp rdma || return 1
	else
		rds_load tcp || return 1
	fi
	netns_pair $A $B $A4 $B4 $A6 $B6 && tcp_warm $A4 $B4 || return 1
	! $have_ib || ib_both_warm || { ib_diag; return 1; }
}

# traffic_loop NAME CPU ARGS...: rds_traffic ARGS on CPU, round after
# round until the deadline; each round must deliver all, exactly once.
traffic_loop() {
	local name=$1 cpu=$2 round=0
	shift 2

	while [ $SECONDS -lt "$deadline" ]; do
		round=$((round + 1))
		taskset -c "$cpu" "$TRAFFIC" "$@" -n "$N" -t 300 >"$LOGS/$name.out" 2>&1 &&
			continue
		# A socket pinned to IB binds where an rxe device is, which
		# the churn may have deleted: a round that did not start.
		if grep -q '^bind .*: Protocol not available$' "$LOGS/$name.out"; then
			round=$((round - 1))
			sleep 0.5
			continue
		fi
		echo "$name: round $round failed:"
		tail -n 20 "$LOGS/$name.out"
		return 1
	done
	echo "$name: $round rounds of $N messages on CPU $cpu"
}

# The TCP connections between A and B reset from A's side, one way after
# another, by one shell in A: every process costs seconds under TCG on a
# loaded host, and the sysctl write is a builtin's. Each reset says how
# long it took when that was more than two seconds.
tcp_resets() {
	local i=0 t

	while [ $SECONDS -lt "$1" ]; do
		t=$SECONDS
		case $((i++ % 4)) in
		# No ss -K where INET_DIAG_DESTROY is off (the debug build).
		0) ss -tnK '( sport = :16385 or dport = :16385 )' >/dev/null 2>&1 ;;
		2) ip link set veth0 down
		   sleep 0.$((RANDOM % 3))
		   ip link set veth0 up ;;
		*) echo $((i % 3 * 131072)) >/proc/sys/net/rds/tcp/rds_tcp_sndbuf ;;
		esac
		[ $((SECONDS - t)) -le 2 ] || echo "reset $i took $((SECONDS - t)) s"
		sleep 0.5
	done
	echo "TCP: $i resets"
}

# One rxe device at a time deleted and added again, both there at the end.
rxe_churn() {
	local i=0 dev t

	while [ $SECONDS -lt "$deadline" ]; do
		dev=$((i++ % 2)); t=$SECONDS
		rdma link del rxe$dev || return 1
		sleep 0.$((RANDOM % 5))
		rdma link add rxe$dev type rxe netdev rv$dev || return 1
		[ $((SECONDS - t)) -le 5 ] || echo "rxe $i took $((SECONDS - t)) s"
		sleep 2
	done
	echo "rxe: $i devices deleted and added again"
}

# smp NAME NS ARGS...: rds_smp ARGS in NS ("-": this one) for the whole
# stress, in the background; its pid added to smp_pids. Its threads pin
# themselves, one CPU after the other (-c: the first one's).
smp() {
	local name=$1 ns=()
	[ "$2" = - ] || ns=(ip netns exec "$2")
	shift 2
	timeout $((SECS + 120)) "${ns[@]}" "$SMP" -s "$SECS" "$@" \
		>"$LOGS/$name.smp" 2>&1 &
	smp_pids+=($!)
}

# rds-ping over IB, round after round: its pongs go out from the IB
# receive softirq, beside everything else (what test_ib_pong.sh showed
# lockdep on the debug kernel, before CI's debug run left that test to
# this one). Rounds cut short by the churn are not failures.
ib_pings() {
	local n=0

	while [ $SECONDS -lt "$deadline" ]; do
		timeout 10 "$BIN/rds-ping" -c 10 -i 0.1 -I $IA $IB >/dev/null 2>&1 &&
			n=$((n + 1))
		sleep 0.2
	done
	echo "IB: $n rounds of 10 pings all answered"
}

# The rxe devices the churn left out (it failed, or stopped between).
rxe_back() {
	local dev
	for dev in 0 1; do
		[ -e /sys/class/infiniband/rxe$dev ] ||
			rdma link add rxe$dev type rxe netdev rv$dev || return 1
	done
}

stress() {
	local pids=() smp_pids=() pid rc=0 f

	deadline=$((SECONDS + SECS))
	traffic_loop tcp 0 -A $A -B $B -a $A4 -b $B4 -p 4000 -k 2 -m 16384 &
	pids+=($!)
	traffic_loop loop 1 -a 127.0.0.1 -b 127.0.0.2 -p 4100 -k 2 -X &
	pids+=($!)
	ip netns exec $A bash -c "$(declare -f tcp_resets); tcp_resets $SECS" &
	pids+=($!)
	smp tcp-a $A -l $A4 -r $B4 -p 5000 -c 0
	smp tcp-b $B -l $B4 -r $A4 -p 5000 -c 1
	smp loop - -l 127.0.0.1 -r 127.0.0.1 -p 5100
	if $have_ib; then
		traffic_loop ib 0 -T ib -a $IA -b $IB -p 4200 -k 2 -m 16384 &
		pids+=($!)
		rxe_churn &
		pids+=($!)
		ib_pings &
		pids+=($!)
		smp ib-a - -T ib -l $IA -r $IB -p 5200 -c 1
		smp ib-b - -T ib -l $IB -r $IA -p 5200
	fi
	for pid in "${pids[@]}"; do
		wait "$pid" || rc=1
	done
	for pid in "${smp_pids[@]}"; do
		wait "$pid" || rc=1
	done
	for f in "$LOGS"/*.smp; do
		echo "${f##*/}: $(cat "$f")"
	done
	$have_ib && { rxe_back || rc=1; }
	return $rc
}

# After the stress, each transport carries a round of checked traffic.
after_tcp() {
	"$TRAFFIC" -A $A -B $B -a $A4 -b $B4 -p 4000 -n "$N" -t 300
}

after_loop() {
	"$TRAFFIC" -a 127.0.0.1 -b 127.0.0.2 -p 4100 -n "$N" -X -t 300
}

after_ib() {
	ib_both_warm && "$TRAFFIC" -T ib -a $IA -b $IB -p 4200 -n "$N" -t 300
}

# Traffic on every transport killed mid-stream, then every module out at
# once: what the killed sockets left queued or in flight must not hold
# them.
unload_after_kill() {
	local pids=() pid

	"$TRAFFIC" -A $A -B $B -a $A4 -b $B4 -p 4000 -n 100000000 -t 3600 >/dev/null 2>&1 &
	pids+=($!)
	"$TRAFFIC" -a 127.0.0.1 -b 127.0.0.2 -p 4100 -n 100000000 -t 3600 >/dev/null 2>&1 &
	pids+=($!)
	if $have_ib; then
		"$TRAFFIC" -T ib -a $IA -b $IB -p 4200 -n 100000000 -t 3600 >/dev/null 2>&1 &
		pids+=($!)
	fi
	sleep 2
	for pid in "${pids[@]}"; do
		kill -9 "$pid"
		wait "$pid" 2>/dev/null
	done
	rds_unload
}

ktap_plan 6
ib_link_setup
case $? in
0) have_ib=true ;;
4) echo "# no rdma_rxe: TCP and loopback only" ;;
*) echo "# the rxe pair cannot be set up"; ib_cleanup; exit $KSFT_FAIL ;;
esac
ktap_test "rds loaded with its transports, netns pair, rxe pair" setup || {
	ib_cleanup
	ktap_finished
}
ktap_test "${SECS}s of everything on $(nproc) CPUs: nothing lost" stress
ktap_test "TCP carries messages after it" after_tcp
ktap_test "loopback carries messages after it" after_loop
if $have_ib; then
	ktap_test "IB carries messages after it" after_ib || ib_diag
else
	ktap_skip "IB carries messages after it: no rxe"
fi
ktap_test "modules unload right after traffic is killed" unload_after_kill
ib_cleanup
cleanup_netns
rm -rf "$LOGS"
ktap_finished
