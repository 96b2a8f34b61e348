#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One benchmark guest: one RDS stack, every workload of a profile, one JSON
# object a line on stdout, each prefixed "BENCH ". Run by bench/bench.sh.
#
#   bench/guest-bench.sh intree|ours PROFILE
#
# PROFILE is a file of bench/profiles/, or a path to one (for trying a
# profile out without adding it).
#
# RDS/TCP: two network namespaces joined by veth, as in the selftests:
# rds-stress's passive side in b, the active side in a. RDS/IB: two
# Soft-RoCE devices in init_net (rdma_rxe carries RDMA CM nowhere else),
# set up as selftests/ib/ib_lib.sh does. The limits of the same links come
# from iperf3 (a TCP stream), sockperf (TCP ping-pong) and perftest
# (ib_send_bw, ib_send_lat), when installed, in the guests of our stack
# only, before any RDS module is loaded.
#
# Every stress line carries the guest's CPU time over the run from
# /proc/stat (both ends and the softirqs are in this one guest). With
# PERF_WORKLOADS, those workloads run once more under perf record -a, and
# the top symbols go to $RDSVM_OUT/perf-STACK-WORKLOAD{,.children}.txt.
#
# PIN_TASKS=split (a profile's or the environment's): on two CPUs,
# rds-stress's active side runs on CPU 0 and its passive side on CPU 1,
# each end its own CPU as on two hosts. Left to the scheduler, the two
# sides shared a CPU in some runs and not in others, and a run on one CPU
# went at about half the rate, with either stack (Documentation/
# performance.rst, "Where the two sides run"): the rounds' medians were a
# draw of placements, not of the stacks.

. "$(dirname "$0")/../selftests/lib.sh"
. "$RDS_ROOT/selftests/ib/ib_lib.sh"
. "$RDS_ROOT/bench/guest-deadpeer.sh"

stack=$1
profile=$2
# shellcheck source=profiles/full disable=SC1091 # any profile, as full
case $profile in
*/*) . "$profile" || exit 1 ;;
*) . "$RDS_ROOT/bench/profiles/$profile" || exit 1 ;;
esac

A=192.0.2.1
B=192.0.2.2
ncpu=$(nproc)
PIN_TASKS=${RDS_BENCH_PIN:-${PIN_TASKS:-}}

# on CPU: the taskset prefix that puts a side on CPU, if pinning.
on() {
	[ "$PIN_TASKS" = split ] && [ "$ncpu" -ge 2 ] && echo "taskset -c $1"
}
hz=$(getconf CLK_TCK)
perf_dir=${RDSVM_OUT:-/tmp}

emit() {
	echo "BENCH {\"stack\": \"$stack\", \"ncpu\": $ncpu, $1}"
}

# cpu_ticks: the guest's "cpu" line of /proc/stat: user nice system idle
# iowait irq softirq steal, in USER_HZ ticks.
cpu_ticks() {
	sed -n 's/^cpu  *//p' /proc/stat | cut -d' ' -f1-8
}

# cpu_json BEFORE AFTER WALL_NS: busy, user, system and softirq seconds
# between two cpu_ticks, and the wall time, as a JSON object. rds-stress's
# own cpu_pct is the busy share of the same counters, which is 100 % in
# any run that is CPU-bound (all of them under TCG): only the seconds,
# over the messages, say what one costs.
cpu_json() {
	awk -v a="$1" -v b="$2" -v hz="$hz" -v wall="$3" 'BEGIN {
		split(a, x, " "); split(b, y, " ")
		for (i = 1; i <= 8; i++) d[i] = (y[i] - x[i]) / hz
		busy = d[1] + d[2] + d[3] + d[6] + d[7] + d[8]
		printf "{\"busy_s\": %.2f, \"user_s\": %.2f, \"system_s\": %.2f, \"softirq_s\": %.2f, \"irq_s\": %.2f, \"idle_s\": %.2f, \"wall_s\": %.3f}",
			busy, d[1] + d[2], d[3], d[7], d[6], d[4] + d[5], wall / 1e9
	}'
}

# ib_events: what an RDS/IB row costs besides CPU, as totals for
# ib_events_json (issue 38 counts them per 1,000 messages, both stacks):
# the softirqs that bring completions and packets (rxe has no interrupts:
# NET_RX, TASKLET and IRQ_POLL stand for them), the acks and credit
# updates RDS sent (both stacks count them by these names), the packets
# the rxe devices sent, and the RNR NAKs they received (a send that
# found no receive posted and was retried).
ib_events() {
	local f pkts=0 rnr=0

	awk '$1 == "NET_RX:" || $1 == "TASKLET:" || $1 == "IRQ_POLL:" {
		for (i = 2; i <= NF; i++) s += $i } END { printf "%d ", s }' /proc/softirqs
	"$BIN/rds-info" -c 2>/dev/null | awk '$1 == "ib_ack_sent" { a = $2 }
		$1 == "ib_tx_credit_updates" || $1 == "ib_rx_credit_updates" { c += $2 }
		END { printf "%d %d ", a, c }'
	for f in /sys/class/infiniband/rxe*/ports/1/hw_counters; do
		[ -r "$f/sent_pkts" ] || continue
		pkts=$((pkts + $(cat "$f/sent_pkts")))
		rnr=$((rnr + $(cat "$f/rcvd_rnr_err")))
	done
	echo "$pkts $rnr"
}

# ib_events_json BEFORE AFTER: two ib_events as a JSON object of the
# differences.
ib_events_json() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		split(a, x, " "); split(b, y, " ")
		printf "{\"softirqs\": %d, \"acks\": %d, \"credit_updates\": %d, \"rxe_pkts\": %d, \"rnr_naks\": %d}",
			y[1] - x[1], y[2] - x[2], y[3] - x[3], y[4] - x[4], y[5] - x[5]
	}'
}

load() {
	if [ "$stack" = intree ]; then
		intree_load
	else
		rds_load tcp
	fi
}

# load_rdma: the IB transport of this guest's stack. rds_tcp goes first
# where it can: an address could otherwise be claimed by either transport.
load_rdma() {
	if [ "$stack" = intree ]; then
		modprobe -r rds_tcp 2>/dev/null
		intree_load rdma
	else
		[ -e /sys/module/rds_tcp ] && rmmod rds_tcp 2>/dev/null
		rds_load rdma
	fi
}

# passive NS ADDR PORT: rds-stress's passive side, in the background. It
# gets a deadline too: if the active side fails to start, nothing would
# ever tell it to stop and wait would hang.
passive() {
	# shellcheck disable=SC2046 # on() gives words or nothing
	in_netns "$1" $(on 1) timeout $((SECONDS_EACH + 90)) "$BIN/rds-stress" -r "$2" -p "$3" \
		--json >/dev/null 2>&1 &
	sleep 0.5
}

# active NS ADDR PEER PORT REQ DEPTH TASKS [ARGS...]: rds-stress's active
# side, with more options (the passive side takes them from it); its JSON
# summary on stdout.
active() {
	# shellcheck disable=SC2046
	in_netns "$1" $(on 0) timeout $((SECONDS_EACH + 60)) "$BIN/rds-stress" -s "$3" -r "$2" \
		-p "$4" -q "$5" -d "$6" -t "$7" -T "$SECONDS_EACH" --json "${@:8}" 2>&1 |
		grep '^{' | tail -n 1
}

# background_1m NS_A ADDR_A NS_B ADDR_B PORT: a stream of 1 MiB messages
# (depth 2) between the same two addresses as the measured run, so on the
# same RDS connection, from a second before that run to a second after it.
background_1m() {
	passive "$3" "$4" "$5"
	# shellcheck disable=SC2046
	in_netns "$1" $(on 0) timeout $((SECONDS_EACH + 60)) "$BIN/rds-stress" -s "$4" -r "$2" \
		-p "$5" -q 1M -d 2 -t 1 -T $((SECONDS_EACH + 2)) --json >/dev/null 2>&1 &
	sleep 1
}

# events ON|OFF: every trace event of ours (system rds: the core's and
# both transports') on or off, for a -ev workload. In-tree has none: its
# side of the row runs as the plain workload does. Off again, the ring
# buffer is emptied so that the next row starts as the others do.
events() {
	local t=/sys/kernel/tracing

	[ "$stack" = ours ] || return 0
	[ -e $t/events/rds/enable ] || mount -t tracefs nodev $t 2>/dev/null
	if [ "$1" = on ]; then
		echo 1 >$t/events/rds/enable
	else
		echo 0 >$t/events/rds/enable
		: >$t/trace
	fi
}

# stress NAME REQ DEPTH TASKS NS_A ADDR_A NS_B ADDR_B [ARGS...]: one
# rds-stress run, its summary and the CPU time around it as a BENCH line.
# ARGS: more options of rds-stress (--classic-io). A NAME ending in -bg1M
# runs beside background_1m: the head-of-line cost of bulk traffic to the
# same peer, in the round trips' percentiles (issue #27). One ending in -ev
# runs with ours' trace events on (issue 40: what they cost when on; the
# plain workload is the cost with them off).
stress() {
	local name=$1 req=$2 depth=$3 tasks=$4 port=$((4000 + RANDOM % 20000)) out
	local t0 t1 c0 c1 e0 e1 events=

	case $name in
	# Past the ports of the measured run's tasks (port + 1 + i).
	*-bg1M) background_1m "$5" "$6" "$7" "$8" $((port + 64)) ;;
	*-ev) events on || return 1 ;;
	esac
	passive "$7" "$8" "$port"
	case $name in ib-*) e0=$(ib_events) ;; esac
	c0=$(cpu_ticks)
	t0=$(date +%s%N)
	out=$(active "$5" "$6" "$8" "$port" "$req" "$depth" "$tasks" "${@:9}")
	t1=$(date +%s%N)
	c1=$(cpu_ticks)
	case $name in ib-*) e1=$(ib_events) && events=", \"events\": $(ib_events_json "$e0" "$e1")" ;; esac
	wait
	case $name in
	*-ev) events off ;;
	esac
	if [ -z "$out" ]; then
		echo "bench: $name gave no result" >&2
		return 1
	fi
	emit "\"workload\": \"$name\", \"kind\": \"stress\", \"result\": $out, \"cpu\": $(cpu_json "$c0" "$c1" $((t1 - t0)))$events"
	profiled "$name" && profile "$@"
	return 0
}

# profiled NAME: NAME is one of PERF_WORKLOADS, and this guest profiles
# (bench.sh asks only the guests of round 1, RDS_BENCH_PERF=1).
profiled() {
	local w
	[ "${RDS_BENCH_PERF:-1}" = 1 ] || return 1
	for w in ${PERF_WORKLOADS:-}; do
		[ "$w" = "$1" ] && return 0
	done
	return 1
}

# profile NAME REQ DEPTH TASKS NS_A ADDR_A NS_B ADDR_B [ARGS...]: the same run again,
# the whole guest sampled by perf (cpu-clock: TCG has no PMU) while the
# active side runs. perf starts first and stops when the active side is
# done: started around the run, its own set-up (seconds under TCG) would
# eat the window. The flat profile (self time) goes to
# perf-STACK-NAME.txt, the time under each function to
# perf-STACK-NAME.children.txt.
profile() {
	local name=$1 port=$((4000 + RANDOM % 20000)) data=/tmp/perf.data
	local txt=$perf_dir/perf-$stack-$name.txt pid i

	command -v perf >/dev/null || { echo "bench: no perf, no profile of $name" >&2; return 0; }
	passive "$7" "$8" "$port"
	rm -f "$data"
	perf record -q -a -g -F 499 -e cpu-clock -o "$data" -- sleep $((SECONDS_EACH + 120)) \
		>/dev/null 2>&1 &
	pid=$!
	for i in $(seq 100); do
		[ -s "$data" ] && break
		sleep 0.1
	done
	sleep 1
	active "$5" "$6" "$8" "$port" "$2" "$3" "$4" "${@:9}" >/dev/null
	# SIGTERM: perf handles it as SIGINT, which a background job ignores.
	kill -TERM "$pid"
	wait
	{
		echo "# perf record -a -g -F 499 -e cpu-clock over rds-stress $name ($2 B, depth $3, $4 task(s)), $stack stack"
		perf report -i "$data" --stdio --no-children -g none --percent-limit 0.3 \
			--sort dso,sym 2>/dev/null | grep -v '^$' | head -n 80
	} >"$txt"
	# Under TCG self time spreads thin over hundreds of symbols; the
	# time spent under each function (children included) shows which
	# parts of a message's path cost most.
	{
		echo "# the same samples, time under each function (children included)"
		perf report -i "$data" --stdio --children -g none --percent-limit 2 \
			--sort sym 2>/dev/null | sed -n '/^ *[0-9]/p' | head -n 120
	} >"${txt%.txt}.children.txt"
	# Who waits for a spinlock, and whose IRQ-off sections the sampling
	# interrupt waited for (their samples land on the unlock that ends
	# them): the callers of each, two levels of chain shown.
	{
		echo "# the same samples, callers of the spinlock slow path and of the irqrestores"
		perf report -i "$data" --stdio --no-children -g graph,0.5,callee,function,percent \
			--max-stack 6 --percent-limit 0.5 --sort sym \
			--symbols native_queued_spin_lock_slowpath,_raw_spin_unlock_irqrestore,_raw_spin_unlock_irq,_raw_read_unlock_irqrestore,_raw_write_unlock_irqrestore \
			2>/dev/null | grep -v '^$' | head -n 200
	} >"${txt%.txt}.locks.txt"
	rm -f "$data"
	echo "bench: profile of $name in $txt"
	sed -n '/^ *[0-9]/p' "$txt" | head -n 15 | sed "s/^/bench: $stack $name: /"
}

# ping_lat NAME COUNT NS SRC DST: rds-ping round trips, p50 and p99 in
# microseconds. 11 ms apart: our stack answers at most 100 pings a second
# per connection (net/rds/control.c, past a burst of 32) and drops the
# rest, where in-tree answers all; faster, ours would lose pings, not time.
ping_lat() {
	local out
	out=$(in_netns "$3" "$BIN/rds-ping" -c "$2" -i 0.011 -I "$4" "$5" 2>/dev/null |
		sed -n 's/^ *[0-9]*: \([0-9]*\) usec$/\1/p' | sort -n)
	[ -n "$out" ] || { echo "bench: $1 gave nothing" >&2; return 1; }
	emit "\"workload\": \"$1\", \"kind\": \"ping\", \"result\": $(pct_json <<<"$out")"
}

# ping_lat_busy NAME ...: ping_lat with busy polling on for every socket
# made meanwhile (net.core.busy_read gives new sockets SO_BUSY_POLL,
# net.core.busy_poll lets poll() spin: rds-ping waits in poll()).
ping_lat_busy() {
	local read poll rc

	read=$(cat /proc/sys/net/core/busy_read)
	poll=$(cat /proc/sys/net/core/busy_poll)
	echo 50 >/proc/sys/net/core/busy_read
	echo 50 >/proc/sys/net/core/busy_poll
	ping_lat "$@"
	rc=$?
	echo "$read" >/proc/sys/net/core/busy_read
	echo "$poll" >/proc/sys/net/core/busy_poll
	return $rc
}

# pct_json: sorted numbers on stdin -> {"count", "mean_us", "p50_us", "p99_us"}.
pct_json() {
	awk '{ v[NR] = $1; sum += $1 } END {
		i50 = int(NR * 0.50 + 0.5); if (i50 < 1) i50 = 1
		i99 = int(NR * 0.99 + 0.5); if (i99 < 1) i99 = 1; if (i99 > NR) i99 = NR
		printf "{\"count\": %d, \"mean_us\": %.1f, \"p50_us\": %s, \"p99_us\": %s}", NR, sum / NR, v[i50], v[i99]
	}'
}

# sockperf_pingpong NAME PORT [ARGS...]: sockperf's TCP ping-pong between
# the two netns for SECONDS_EACH, as limit NAME. sockperf's percentiles
# are of half a round trip, rds-ping's of a whole one: p50_us is the round
# trip, as rds-ping's.
sockperf_pingpong() {
	local name=$1 port=$2 out limit=$((SECONDS_EACH + 20))

	shift 2
	in_netns bench-b timeout "$limit" sockperf server --tcp -i "$B" -p "$port" >/dev/null 2>&1 &
	sleep 1
	out=$(in_netns bench-a timeout "$limit" sockperf ping-pong --tcp -i "$B" -p "$port" \
		"$@" -t "$SECONDS_EACH" 2>&1 | tee /tmp/sockperf.log |
		sed -n 's/.*50.000 = *\([0-9.]*\).*/\1/p' | head -n 1)
	[ -n "$out" ] || sed "s/^/bench: sockperf $*: /" /tmp/sockperf.log >&2
	wait
	[ -n "$out" ] && emit "\"workload\": \"$name\", \"kind\": \"limit\", \"result\": {\"p50_us\": $(awk -v h="$out" 'BEGIN { printf "%.3f", 2 * h }'), \"half_rtt_p50_us\": $out}"
}

# The link's own limits, with the RDS modules out of the way. Each tool gets
# a hard time limit: a hung one must not hold the benchmark.
limits() {
	local out limit=$((SECONDS_EACH + 20))
	# Streams of 64 KiB and of 1 MiB writes, the sizes the issue sets
	# RDS/TCP against, copied in and out as RDS's messages are (-Z,
	# sendfile, copies nothing: 2 to 3 times faster here, and no peer
	# for RDS).
	if command -v iperf3 >/dev/null; then
		for len in 64K 1M; do
			in_netns bench-b timeout "$limit" iperf3 -s -1 -B "$B" >/dev/null 2>&1 &
			sleep 1
			out=$(in_netns bench-a timeout "$limit" iperf3 -c "$B" -l "$len" -t "$SECONDS_EACH" -J 2>/dev/null |
				python3 -c 'import json,sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"])' 2>/dev/null)
			wait
			[ -n "$out" ] && emit "\"workload\": \"tcp-stream-$len\", \"kind\": \"limit\", \"result\": {\"bytes_per_sec\": $(awk -v b="$out" 'BEGIN { printf "%.0f", b / 8 }')}"
		done
	fi
	if command -v sockperf >/dev/null; then
		sockperf_pingpong tcp-pingpong 11111
		# The same paced as rds-ping is (90 a second): between two
		# round trips the guest goes idle, and waking costs what a
		# back-to-back ping-pong never pays.
		sockperf_pingpong tcp-pingpong-paced 11112 --mps 90
	fi
	return 0
}

# --- RDS/IB over two rxe devices ---------------------------------------------

# gid_index DEV ADDR: the index of DEV's RoCE v2 GID for IPv4 ADDR, which
# rxe routes as the IPv4 address itself (through the policy rules), where
# perftest's default, GID 0, is the link-local IPv6 one.
gid_index() {
	local dir=/sys/class/infiniband/$1/ports/1 want f i
	# shellcheck disable=SC2086 # the address's four bytes, split
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${2//./ })
	for f in "$dir"/gids/*; do
		i=${f##*/}
		[ "$(cat "$f" 2>/dev/null)" = "$want" ] &&
			[ "$(cat "$dir/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ] &&
			{ echo "$i"; return 0; }
	done
	return 1
}

# perftest_ns TOOL SIZE ITERS: nanoseconds of ITERS iterations of an
# ib_send_* client, rxe0 to rxe1, against a fresh server. perftest's own
# figures come from the cycle counter, which TCG does not give it (it
# prints inf), so the wall clock times it: from rxe0's first packet
# (hw_counters/sent_pkts; the QP numbers go over TCP on lo, not rxe) to
# the client's exit, which leaves out the set-up (process start, the
# exchange, QP transitions), seconds under TCG and never the same.
# -e: both ends sleep on completion events; polling, each would spin
# through its time slice while the other waits for the one CPU, and a
# round trip would take two slices.
perftest_ns() {
	local tool=$1 size=$2 iters=$3 port=$((18000 + RANDOM % 1000)) i t0 t1 rc
	local cnt=/sys/class/infiniband/rxe0/ports/1/hw_counters/sent_pkts pid base v

	timeout 120 "$tool" -d rxe1 -x "$gid_b" -p "$port" -s "$size" -n "$iters" -e -F \
		>/tmp/perftest-server.log 2>&1 &
	for i in $(seq 100); do
		[ -n "$(ss -Hltn "sport = :$port")" ] && break
		sleep 0.1
	done
	read -r base <"$cnt"
	timeout 120 "$tool" -d rxe0 -x "$gid_a" -p "$port" -s "$size" -n "$iters" -e -F $IB \
		>/tmp/perftest-client.log 2>&1 &
	pid=$!
	t0=
	while kill -0 "$pid" 2>/dev/null; do
		read -r v <"$cnt"
		[ "$v" != "$base" ] && { t0=$(date +%s%N); break; }
		sleep 0.01
	done
	wait "$pid"
	rc=$?
	t1=$(date +%s%N)
	wait
	if [ $rc != 0 ] || [ -z "$t0" ]; then
		echo "bench: $tool -s $size -n $iters failed ($rc):" >&2
		sed 's/^/bench:   /' /tmp/perftest-client.log /tmp/perftest-server.log | tail -n 20 >&2
		return 1
	fi
	echo "bench: $tool -s $size: $iters iterations in $((t1 - t0)) ns" >&2
	echo $((t1 - t0))
}

# ib_limits: ib_send_bw at 64 KiB and ib_send_lat at 64 B over the rxe
# pair.
ib_limits() {
	local d
	command -v ib_send_bw >/dev/null || return 0
	if ! gid_a=$(gid_index rxe0 $IA) || ! gid_b=$(gid_index rxe1 $IB); then
		echo "bench: no RoCE v2 GID for $IA on rxe0 or $IB on rxe1" >&2
		return 0
	fi
	d=$(perftest_ns ib_send_bw 65536 "$IB_BW_ITERS") &&
		emit "\"workload\": \"ib-send-bw\", \"kind\": \"limit\", \"result\": {\"bytes_per_sec\": $(awk -v n="$IB_BW_ITERS" -v d="$d" 'BEGIN { printf "%.0f", n * 65536 / (d / 1e9) }')}"
	d=$(perftest_ns ib_send_lat 64 "$IB_LAT_ITERS") &&
		emit "\"workload\": \"ib-send-lat\", \"kind\": \"limit\", \"result\": {\"rtt_us\": $(awk -v n="$IB_LAT_ITERS" -v d="$d" 'BEGIN { printf "%.1f", d / 1e3 / n }')}"
	return 0
}

mem_avail_kib() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	awk '$1 == "MemAvailable:" { print $2 }' /proc/meminfo
}

# ib_memory N [NAME]: what N idle RDS/IB connections more pin (TOS
# mem_tos on, IA -> IB, both ends in this guest), from MemAvailable
# before and after: per connection (its two ends) and in all, and how many
# came up (ours admits rings against max_ring_memory and refuses what is
# over it); the row NAME-N (ib-mem-N). In-tree stops at IB_MEM_INTREE_MAX
# connections (default 10): past some 60 between two addresses of one TCG
# guest its two ends race to connect and rxe's retries run out ("rejected,
# dropping connection", "transport retry counter exceeded" in a stream),
# its idle connections reset and reconnect for minutes, and the guest's
# tasks barely run; its memory is a ring per connection, linear in them.
mem_tos=1
ib_memory() {
	local n=$1 name=${2:-ib-mem} before after up

	[ -n "$n" ] && [ "$n" -gt 0 ] || return 0
	if [ "$stack" = intree ] && [ "$n" -gt "${IB_MEM_INTREE_MAX:-10}" ]; then
		echo "bench: in-tree: no $name-$n (over IB_MEM_INTREE_MAX)" >&2
		return 0
	fi
	before=$(mem_avail_kib)
	# Two minutes in all; a stuck stack cannot hold the guest past a few
	# more.
	up=$(timeout 300 \
		python3 "$RDS_ROOT/bench/rds_conns.py" $IA $IB $mem_tos "$n" 120) ||
		return 1
	mem_tos=$((mem_tos + n))
	sleep 2
	after=$(mem_avail_kib)
	[ "$up" -gt 0 ] || { echo "bench: no connection of $name-$n came up" >&2; return 1; }
	emit "\"workload\": \"$name-$n\", \"kind\": \"memory\", \"result\": {\"kib_per_conn\": $(((before - after) / up)), \"mib_total\": $(((before - after) / 1024)), \"conns_up\": $up}"
}

# ib_stress_all WORKLOAD...: each "NAME REQ DEPTH TASKS [ARGS]" between
# the rxe pair's addresses; fails when any of them did.
ib_stress_all() {
	local fails=0 w name req depth tasks args

	for w in "$@"; do
		read -r name req depth tasks args <<<"$w"
		# shellcheck disable=SC2086 # args: options, split
		stress "$name" "$req" "$depth" "$tasks" - $IA - $IB $args ||
			fails=$((fails + 1))
	done
	[ $fails = 0 ]
}

# ib_rings_phase: the rows of ours with a receive ring per connection
# (srq 0; *-rings, ib-mem-rings-N) against ours on the shared receive
# queue (the default) and in-tree (which has rings only: its rows are the
# same workloads again). rds_rdma is loaded anew after them, so that the
# memory rows that follow start with no connection but the warm one.
ib_rings_phase() {
	local fails=0 n

	[ ${#IB_RINGS_WORKLOADS[@]} -gt 0 ] ||
		[ ${#IB_MEM_RINGS_CONNS[@]} -gt 0 ] || return 0
	# Under ours' ring memory bound (an eighth of memory): a hundred
	# connections' full rings would take half the guest's.
	if [ "$stack" = ours ]; then
		sysctl -qw net.rds.ib.srq=0 || return 1
	fi
	ib_warm $IA $IB || return 1
	ib_stress_all "${IB_RINGS_WORKLOADS[@]}" || fails=$((fails + 1))
	for n in "${IB_MEM_RINGS_CONNS[@]}"; do
		ib_memory "$n" ib-mem-rings || fails=$((fails + 1))
	done
	if [ "$stack" = ours ]; then
		rds_rmmod rds_rdma || return 1
	else
		modprobe -r rds_rdma || return 1
	fi
	load_rdma && ib_warm $IA $IB || return 1
	[ $fails = 0 ]
}

# ib_sysctl_phase SYSCTL=VALUE WORKLOAD...: rows of ours with one of
# rds_rdma's sysctls set (some apply only to connections made after
# them, so rds_rdma is loaded anew around the rows), against the same
# workloads with the default (issue 38); in-tree has no such sysctl and
# runs them plain.
#   IB_COPY_WORKLOADS, *-copy: net.rds.ib.send_zerocopy 0, copied sends
#   IB_PC_WORKLOADS, *-pc: net.rds.ib.recv_page_cache 1, recycled pages
ib_sysctl_phase() {
	local fails=0 set=$1

	shift
	[ $# -gt 0 ] || return 0
	if [ "$stack" = ours ]; then
		rds_rmmod rds_rdma && load_rdma && sysctl -qw "$set" || return 1
	fi
	ib_warm $IA $IB || return 1
	ib_stress_all "$@" || fails=$((fails + 1))
	if [ "$stack" = ours ]; then
		rds_rmmod rds_rdma && load_rdma && ib_warm $IA $IB || return 1
	fi
	[ $fails = 0 ]
}

# ib_phase: the IB workloads, after the TCP ones; nothing to do without rxe.
ib_phase() {
	local rc fails=0 half

	[ ${#IB_WORKLOADS[@]} -gt 0 ] || [ ${#IB_COPY_WORKLOADS[@]} -gt 0 ] ||
		[ ${#IB_PC_WORKLOADS[@]} -gt 0 ] ||
		[ -n "$(dp_rows ib)" ] || return 0
	ib_link_setup
	rc=$?
	if [ $rc = 4 ]; then
		echo "bench: no rdma_rxe or no rdma tool: no IB workloads" >&2
		ib_cleanup
		return 0
	fi
	[ $rc = 0 ] || { echo "bench: the rxe pair did not come up" >&2; ib_cleanup; return 1; }
	[ "$stack" = ours ] && ib_limits
	load_rdma || { ib_cleanup; return 1; }
	if ! ib_warm $IA $IB; then
		echo "bench: no RDS/IB connection $IA -> $IB" >&2
		ib_diag >&2
		ib_cleanup
		return 1
	fi
	ib_stress_all "${IB_WORKLOADS[@]}" || fails=$((fails + 1))
	ping_lat ib-rds-ping "$PINGS" - $IA $IB || fails=$((fails + 1))
	ping_lat_busy ib-rds-ping-busy "$PINGS" - $IA $IB || fails=$((fails + 1))
	ib_sysctl_phase net.rds.ib.send_zerocopy=0 "${IB_COPY_WORKLOADS[@]}" ||
		fails=$((fails + 1))
	ib_sysctl_phase net.rds.ib.recv_page_cache=1 "${IB_PC_WORKLOADS[@]}" ||
		fails=$((fails + 1))
	ib_rings_phase || fails=$((fails + 1))
	# Ours' bound counts a connection's whole send ring (2 MiB, both
	# ends), which it pins only once busy: in a 2 GiB guest a netns's
	# share (128 MiB) admits some 60 idle connections on the SRQ.  The
	# rows ask what idle connections pin, so the bound is lifted to half
	# the guest's memory for them (the rings' rows above keep it: a
	# hundred connections of full rings would take most of the guest).
	if [ "$stack" = ours ]; then
		half=$(awk '$1 == "MemTotal:" { print $2 * 512 }' /proc/meminfo)
		sysctl -qw net.rds.ib.max_ring_memory="$half" \
			net.rds.ib.max_ring_memory_per_netns="$half"
	fi
	for n in "${IB_MEM_CONNS[@]}"; do
		ib_memory "$n" || fails=$((fails + 1))
	done
	dp_ib_phase || fails=$((fails + 1))
	ib_cleanup
	[ $fails = 0 ]
}

# The latencies are only as fine as the clock: the TSC, or 4 ms jiffies
# when the kernel could not calibrate it (bench.sh passes tsc_early_khz).
emit "\"workload\": \"clock\", \"kind\": \"info\", \"result\": {\"clocksource\": \"$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)\"}"
netns_pair bench-a bench-b "$A" "$B" || exit 1
[ "$stack" = ours ] && limits
load || exit 1
# Which build of the modules ran: the build tree is shared, and a make
# in the checkout meanwhile changes what the next guest loads. Neither
# stack's rds_tcp has a srcversion: the file's digest, just loaded.
ko_sum() {
	local f
	if [ "$stack" = intree ]; then
		f=$(modinfo -n "$1" 2>/dev/null)
	else
		f=$RDS_MODDIR/$1.ko
	fi
	md5sum "$f" 2>/dev/null | cut -c1-12
}
emit "\"workload\": \"modules\", \"kind\": \"info\", \"result\": {\"rds_md5\": \"$(ko_sum rds)\", \"rds_tcp_md5\": \"$(ko_sum rds_tcp)\", \"rds_rdma_md5\": \"$(ko_sum rds_rdma)\"}"
# Warm up: the first message sets up the connection and its paths.
ping_lat warm 5 bench-a "$A" "$B" >/dev/null
fails=0
for w in "${WORKLOADS[@]}" "${MP_WORKLOADS[@]}"; do
	read -r name req depth tasks args <<<"$w"
	# shellcheck disable=SC2086 # args: options, split
	stress "$name" "$req" "$depth" "$tasks" bench-a "$A" bench-b "$B" $args ||
		fails=$((fails + 1))
done
ping_lat rds-ping "$PINGS" bench-a "$A" "$B" || fails=$((fails + 1))
ping_lat_busy rds-ping-busy "$PINGS" bench-a "$A" "$B" || fails=$((fails + 1))
cleanup_netns
dp_tcp_phase || fails=$((fails + 1))
ib_phase || fails=$((fails + 1))
exit $((fails > 0))
