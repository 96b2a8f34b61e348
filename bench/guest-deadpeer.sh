# SPDX-License-Identifier: GPL-2.0
#
# The dead-peer rows of make bench, sourced by guest-bench.sh (whose
# helpers and variables they use).

# --- a dead peer's cost (issue 36) ------------------------------------------
#
# One socket on A sends to X and Y; after a healthy phase every packet to
# and from X is dropped, and the socket's rate to Y is measured again. A
# row of DEADPEER_WORKLOADS is "NAME TRANSPORT STYLE": TRANSPORT tcp or
# ib, STYLE how bench/rds_dpbench.py's sender drives the socket (poll,
# epoll, blocking). Each phase lasts DEADPEER_SECONDS (default
# SECONDS_EACH).

DP_TOOL=$RDS_ROOT/bench/rds_dpbench.py
DP_A=198.51.100.1
DP_X=198.51.100.2
DP_Y=198.51.100.3
# Y of the IB rows: a second address of rv1, beside X (IB) on rxe1.
DP_IB_Y=10.77.0.3
dp_old_hb=
dp_px=
dp_py=
# How X is silenced, for the rows' results.
dp_how=

# dp_rows TRANSPORT: the rows of DEADPEER_WORKLOADS over TRANSPORT, one a line.
dp_rows() {
	local w name tr style

	for w in "${DEADPEER_WORKLOADS[@]}"; do
		read -r name tr style <<<"$w"
		[ "$tr" = "$1" ] && echo "$name $style"
	done
}

# dp_heartbeats on|off: ours declares a silent path down after a second's
# interval and two seconds without an answer, as the selftests set it;
# in-tree has no heartbeats (nor the sysctls).
dp_heartbeats() {
	local f=/proc/sys/net/rds/conn_heartbeat

	[ "$stack" = ours ] && [ -w "${f}_interval_secs" ] || return 0
	if [ "$1" = on ]; then
		dp_old_hb="$(cat "${f}_interval_secs") $(cat "${f}_timeout_secs")"
		echo 1 >"${f}_interval_secs" && echo 2 >"${f}_timeout_secs"
	elif [ -n "$dp_old_hb" ]; then
		echo "${dp_old_hb% *}" >"${f}_interval_secs"
		echo "${dp_old_hb#* }" >"${f}_timeout_secs"
	fi
}

# dp_exec NS: the words that run a command in NS ("-": this one), for a
# command put in the background whose $! must be its own pid (ip netns
# exec execs it; a function would leave a subshell in between).
dp_exec() {
	[ "$1" = - ] || echo "ip netns exec $1"
}

# dp_alive PID: PID is there and not a zombie.
dp_alive() {
	local state

	state=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)
	[ -n "$state" ] && [ "$state" != Z ]
}

# dp_stop PID...: TERM, and what is still there 10 s later is shown (where
# it sleeps in the kernel: a task stuck in an RDS call is a finding) and
# KILLed; a task that outlives KILL too is left, not waited for, so that
# a row never holds the guest until its timeout (CI lost half an hour so).
dp_stop() {
	local p left=

	kill "$@" 2>/dev/null
	for _ in $(seq 50); do
		left=
		for p; do
			dp_alive "$p" && left="$left $p"
		done
		[ -z "$left" ] && break
		sleep 0.2
	done
	for p in $left; do
		echo "bench: $(cat "/proc/$p/comm" 2>/dev/null) ($p) still there 10 s after TERM, in the kernel at:" >&2
		sed 's/^/bench:   /' "/proc/$p/stack" >&2 2>/dev/null
		kill -9 "$p" 2>/dev/null
	done
	[ -z "$left" ] || sleep 1
	for p; do
		dp_alive "$p" && { echo "bench: $p outlived KILL" >&2; continue; }
		wait "$p" 2>/dev/null
	done
	return 0
}

# dp_wait_for FILE WORD SECS: FILE has a line with WORD within SECS.
dp_wait_for() {
	local i

	for i in $(seq $(($3 * 10))); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# dp_reach NS SRC DST SECS: an rds-ping from SRC answered by DST within
# SECS; prints the seconds it took. A ping waits a second for its answer;
# one refused at once (nothing to send on yet) is tried again later.
dp_reach() {
	local t0=$SECONDS

	while [ $((SECONDS - t0)) -lt "$4" ]; do
		if in_netns "$1" timeout 5 "$BIN/rds-ping" -c 1 -i 1 -I "$2" "$3" >/dev/null 2>&1; then
			echo $((SECONDS - t0))
			return 0
		fi
		sleep 0.5
	done
	return 1
}

# Every row's sockets are on one port, so on one path of an RDS/TCP
# connection (both stacks pick path port % 8: 0, that of rds-ping, with
# which dp_reach sees X back); a port of its own would give each row a
# path that might be new, its TCP connection made and its window opened
# during the healthy phase.
DP_PORT=4000

# dp_receivers DIR NS_X X NS_Y Y: the receivers of X and Y, their pids in
# dp_px and dp_py, their output in DIR/recv-x and DIR/recv-y.
dp_receivers() {
	# shellcheck disable=SC2046 # dp_exec gives words
	$(dp_exec "$2") python3 "$DP_TOOL" recv "$3" $DP_PORT >"$1/recv-x" 2>&1 &
	dp_px=$!
	# shellcheck disable=SC2046
	$(dp_exec "$4") python3 "$DP_TOOL" recv "$5" $DP_PORT >"$1/recv-y" 2>&1 &
	dp_py=$!
	dp_wait_for "$1/recv-x" ready 30 && dp_wait_for "$1/recv-y" ready 30 && return 0
	sed "s/^/bench: receiver: /" "$1"/recv-* >&2
	dp_stop $dp_px $dp_py
	return 1
}

# dp_warmup NS_A A NS_X X NS_Y Y: the rows' traffic for a few seconds,
# not measured, before a transport's first row. Without it (and with a
# port per row) the first row's healthy rate came out a quarter to a
# half below the next rows', TCP and IB, whichever sender came first.
dp_warmup() {
	local dir=/tmp/dp-warmup pid

	rm -rf "$dir" && mkdir -p "$dir"
	dp_receivers "$dir" "$3" "$4" "$5" "$6" || return 1
	# shellcheck disable=SC2046
	$(dp_exec "$1") python3 "$DP_TOOL" send "$2" $DP_PORT "$4" "$6" poll >"$dir/send" 2>&1 &
	pid=$!
	dp_wait_for "$dir/send" ready 30 && sleep 3
	dp_stop $pid $dp_px $dp_py
	return 0
}

# dp_run NAME TRANSPORT STYLE NS_A A NS_X X NS_Y Y SILENCE: one row.
# SILENCE add|del drops every packet to and from X, or lets them through.
# After the run X must answer again before the next row's healthy phase;
# how long that took goes into the row (x_back_s, -1 for never).
dp_run() {
	local name=$1 tr=$2 style=$3 nsa=$4 a=$5 nsx=$6 x=$7 nsy=$8 y=$9 silence=${10}
	local secs=${DEADPEER_SECONDS:-$SECONDS_EACH} port=$DP_PORT
	local dir=/tmp/dp-$name pid out back rc=0 c0 c1 c2 c3 t0 t1 t2 t3 e0 e1

	rm -rf "$dir" && mkdir -p "$dir"
	dp_receivers "$dir" "$nsx" "$x" "$nsy" "$y" || {
		echo "bench: $name: the receivers did not start" >&2
		return 1
	}
	# shellcheck disable=SC2046
	$(dp_exec "$nsa") python3 "$DP_TOOL" send "$a" $port "$x" "$y" "$style" >"$dir/send" 2>&1 &
	pid=$!
	if dp_wait_for "$dir/send" ready 30; then
		# Warm-up, healthy phase, X silenced (the gap), dead phase;
		# the guest's CPU time over each phase, and rxe's failed
		# transmissions over the dead one: where a rate goes when it
		# falls.
		sleep 1
		kill -USR1 $pid
		c0=$(cpu_ticks) t0=$(date +%s%N)
		sleep "$secs"
		kill -USR1 $pid
		c1=$(cpu_ticks) t1=$(date +%s%N)
		"$silence" add || rc=1
		kill -USR1 $pid
		c2=$(cpu_ticks) t2=$(date +%s%N) e0=$(dp_rxe_send_err)
		sleep "$secs"
		kill -USR1 $pid
		c3=$(cpu_ticks) t3=$(date +%s%N) e1=$(dp_rxe_send_err)
		dp_wait_for "$dir/send" phases 30 || rc=1
	else
		rc=1
	fi
	"$silence" del
	dp_stop $pid $dp_px $dp_py
	out=$(grep '^{.*phases' "$dir/send")
	back=$(dp_reach "$nsa" "$a" "$x" 60) || back=-1
	if [ $rc != 0 ] || [ -z "$out" ]; then
		echo "bench: $name gave no result" >&2
		sed "s/^/bench: $name: /" "$dir/send" >&2
		return 1
	fi
	emit "\"workload\": \"$name\", \"kind\": \"deadpeer\", \"result\": {\"transport\": \"$tr\", \"silence\": \"$dp_how\", \"x_back_s\": $back, \"x_received\": $(dp_received "$dir/recv-x"), \"y_received\": $(dp_received "$dir/recv-y"), \"rxe_send_err_dead\": $(dp_delta "$e0" "$e1"), \"cpu_healthy\": $(cpu_json "$c0" "$c1" $((t1 - t0))), \"cpu_dead\": $(cpu_json "$c2" "$c3" $((t3 - t2))), ${out#\{}"
	echo "bench: $stack $name: to Y $(dp_field "$out" y_healthy_per_sec)/s healthy, $(dp_field "$out" y_dead_per_sec)/s with X dead, X back after ${back} s" >&2
}

# dp_rxe_send_err: the packets both rxe devices failed to hand to the
# network, or nothing without them.
dp_rxe_send_err() {
	cat /sys/class/infiniband/rxe[01]/ports/1/hw_counters/send_err 2>/dev/null |
		awk '{ n += $1 } END { if (NR) print n }'
}

# dp_delta A B: B - A, or null when either is missing.
dp_delta() {
	if [ -n "$1" ] && [ -n "$2" ]; then
		echo $(($2 - $1))
	else
		echo null
	fi
}

# dp_received FILE: a receiver's count of messages, or null.
dp_received() {
	sed -n 's/^{"received": \([0-9]*\)}$/\1/p' "$1" 2>/dev/null | grep . || echo null
}

# dp_field JSON KEY: KEY's number in the sender's JSON line.
dp_field() {
	sed -n "s/.*\"$2\": \([-0-9.]*\).*/\1/p" <<<"$1"
}

# RDS/TCP: A, X and Y in netns of their own, A's address on its lo and
# routed out of one veth to each peer, as selftests/tcp/test_deadpeer.sh
# sets them up; X silenced by netem dropping everything on both ends of
# its veth.
# shellcheck disable=SC2317 # called through dp_run's SILENCE
dp_tcp_silence() {
	tc -n dp-a qdisc "$1" dev dpv-x root netem loss 100% &&
	tc -n dp-x qdisc "$1" dev veth0 root netem loss 100%
}

dp_tcp_setup() {
	local n

	for n in a x y; do
		ip netns add dp-$n && ip -n dp-$n link set lo up || return 1
	done
	ip -n dp-a addr add $DP_A/32 dev lo || return 1
	for n in x y; do
		ip link add dpv-$n netns dp-a type veth peer name veth0 netns dp-$n &&
		ip -n dp-a link set dpv-$n up && ip -n dp-$n link set veth0 up || return 1
	done
	ip -n dp-x addr add $DP_X/24 dev veth0 && ip -n dp-y addr add $DP_Y/24 dev veth0 &&
	ip -n dp-a route add $DP_X/32 dev dpv-x src $DP_A &&
	ip -n dp-a route add $DP_Y/32 dev dpv-y src $DP_A &&
	dp_reach dp-a $DP_A $DP_X 30 >/dev/null && dp_reach dp-a $DP_A $DP_Y 30 >/dev/null
}

# dp_tcp_phase: the TCP rows, on the stack load() loaded. The receivers'
# 4 MiB SO_RCVBUF needs rmem_max (ib_link_setup raises it for IB): with
# the default a receiver that lags the sender by 200 messages congests
# its port, and the rate measured is the receiver's.
dp_tcp_phase() {
	local fails=0 name style rmem

	[ -n "$(dp_rows tcp)" ] || return 0
	if ! dp_tcp_setup; then
		echo "bench: A, X and Y over RDS/TCP did not come up" >&2
		cleanup_netns
		return 1
	fi
	read -r rmem </proc/sys/net/core/rmem_max
	echo 4194304 >/proc/sys/net/core/rmem_max
	dp_heartbeats on
	dp_how="netem loss 100%"
	dp_warmup dp-a $DP_A dp-x $DP_X dp-y $DP_Y
	while read -r name style; do
		dp_run "$name" tcp "$style" dp-a $DP_A dp-x $DP_X dp-y $DP_Y dp_tcp_silence ||
			fails=$((fails + 1))
	done < <(dp_rows tcp)
	dp_heartbeats off
	echo "$rmem" >/proc/sys/net/core/rmem_max
	cleanup_netns
	[ $fails = 0 ]
}

# RDS/IB: X is IB on rxe1, Y a second address of rv1, reached from IA out
# of rv0 as IB is (policy rules ahead of the local table, a static
# neighbour), as selftests/ib's dead-peer test does. Both peers share the
# link, so only X's packets may be dropped: by address, with the legacy
# iptables (the guest's kernel has them; Debian's default iptables speaks
# nf_tables). DEADPEER_IB_CHAIN (default INPUT) is where. Dropped in
# INPUT, a packet is lost after it left, as on a wire: rxe retransmits on
# its timer and the QP fails in the end, as a real HCA's would. Dropped
# in OUTPUT, a packet's transmission fails inside rxe, whose requester
# (6.1) rolls back and tries again at once: 50,000 failures a second
# (rxe_send_err_dead), the guest's idle time gone to softirq, and the
# rate to Y falls with both stacks for rxe's sake, not RDS's.
# shellcheck disable=SC2317 # called through dp_run's SILENCE
dp_ib_silence() {
	local op=-I chain=${DEADPEER_IB_CHAIN:-INPUT}

	[ "$1" = add ] || op=-D
	iptables-legacy -w "$op" "$chain" -d "$IB/32" -j DROP &&
	iptables-legacy -w "$op" "$chain" -s "$IB/32" -j DROP
}

dp_ib_setup() {
	if ! command -v iptables-legacy >/dev/null ||
	   ! iptables-legacy -w -L "${DEADPEER_IB_CHAIN:-INPUT}" -n >/dev/null; then
		echo "bench: no iptables-legacy (Debian: iptables): no IB dead-peer rows" >&2
		return 4
	fi
	ib_peers_add "$DP_IB_Y/32" "$DP_IB_Y" && ib_warm "$IA" "$DP_IB_Y"
}

# dp_ib_phase: the IB rows, on the rxe pair ib_phase set up, its stack
# loaded and IA -> IB connected.
dp_ib_phase() {
	local fails=0 name style rc

	[ -n "$(dp_rows ib)" ] || return 0
	dp_ib_setup
	rc=$?
	if [ $rc = 0 ]; then
		dp_heartbeats on
		dp_how="iptables-legacy ${DEADPEER_IB_CHAIN:-INPUT}"
		dp_warmup - "$IA" - "$IB" - "$DP_IB_Y"
		while read -r name style; do
			dp_run "$name" ib "$style" - "$IA" - "$IB" - "$DP_IB_Y" dp_ib_silence ||
				fails=$((fails + 1))
		done < <(dp_rows ib)
		dp_heartbeats off
	elif [ $rc != 4 ]; then
		echo "bench: no RDS/IB connection $IA -> $DP_IB_Y" >&2
		fails=1
	fi
	# ib_cleanup takes rv0, and its routes and neighbours, away; not these.
	ib_peers_del
	[ $fails = 0 ]
}
