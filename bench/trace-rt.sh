#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where one round trip goes (issue #27): ftrace of round trips in a
# guest, printed for the one in the middle of the run from its send to
# its answer's receive, each line with the microseconds since the send.
#
#   selftests/vm/run-guest.sh -- bench/trace-rt.sh WHAT [COUNT]
#
# WHAT: tcp, rds-ping over RDS/TCP between two netns, COUNT pings 11 ms
# apart (default 5), as make bench's rds-ping row; ib, the same over two
# rxe devices; tcp-d1, rds-stress 64 B at depth 1 --one-way back to back
# for a second (the 64B-d1-1w row: one message each way, as a TCP
# ping-pong). Traced: the RDS and TCP or rxe functions a
# round trip passes, the scheduler's switches and wakeups, cpu_idle (a
# CPU halting and coming back) and the returns of recvfrom and recvmsg.
#
# profile: not a trace but perf (cpu-clock, the whole guest) over the
# 64B-d1-1w run and then over sockperf's TCP ping-pong, COUNT seconds
# each (default 5), in the same guest: for each function, microseconds a
# round trip in the RDS run and in the ping-pong, with its callees
# (children) and without (self).  Where an RDS round trip spends what
# the raw link's does not.  Needs perf (Debian: linux-perf).

. "$(dirname "$0")/../selftests/lib.sh"
. "$RDS_ROOT/selftests/ib/ib_lib.sh"

what=$1
count=${2:-5}
A=192.0.2.1
B=192.0.2.2
T=/sys/kernel/tracing

TCP_FUNCS="tcp_sendmsg tcp_v4_rcv tcp_recvmsg veth_xmit net_rx_action"
RDS_FUNCS="rds_sendmsg rds_recvmsg rds_poll rds_send_xmit rds_recv_incoming
	rds_control_pong rds_send_worker"
RDS_TCP_FUNCS="rds_tcp_xmit rds_tcp_data_ready"
RXE_FUNCS="rds_ib_xmit rds_ib_recv_done rds_ib_send_done rxe_post_send
	rxe_requester rxe_responder rxe_completer rxe_udp_encap_recv veth_xmit"

trace_start() {
	local f

	mountpoint -q $T || mount -t tracefs none $T || return 1
	echo 0 >$T/tracing_on
	echo >$T/trace
	echo 8192 >$T/buffer_size_kb
	: >$T/set_ftrace_filter
	for f in "$@"; do
		echo "$f" >>$T/set_ftrace_filter 2>/dev/null || echo "# no $f"
	done
	echo function >$T/current_tracer
	echo 1 >$T/events/sched/sched_switch/enable
	echo 1 >$T/events/sched/sched_wakeup/enable
	echo 1 >$T/events/power/cpu_idle/enable
	echo 1 >$T/events/syscalls/sys_exit_recvfrom/enable
	echo 1 >$T/events/syscalls/sys_exit_recvmsg/enable
	echo 1 >$T/tracing_on
}

# trace_show COMM FIRST: the middle round trip of task COMM, from its
# call of FIRST (the send) to the same thread's next receive that did not
# fail (a pong is empty), microseconds from the send first.
trace_show() {
	echo 0 >$T/tracing_on
	grep -v '^#' $T/trace >/tmp/trace-rt.txt
	echo "# $(wc -l </tmp/trace-rt.txt) trace lines"
	awk -v comm="$1" -v first="$2" '
		{ line[NR] = $0
		  for (i = 1; i <= NF; i++)
			if ($i ~ /^[0-9]+\.[0-9]+:$/) { ts[NR] = $i + 0; break } }
		index($1, comm "-") == 1 && $0 ~ (" " first "( |$)") {
			starts[++nstarts] = NR
		}
		END {
			if (!nstarts) { print "no round trip found"; exit 1 }
			start = starts[int((nstarts + 1) / 2)]
			# The same thread, by pid: the threads of a task share its name.
			split(line[start], f, " ")
			who = f[1]
			for (n = start; n <= NR; n++) {
				printf "%8.1f  %s\n", (ts[n] - ts[start]) * 1e6, line[n]
				split(line[n], f, " ")
				if (n > start && f[1] == who &&
				    line[n] ~ / sys_recv(from|msg) -> / &&
				    line[n] !~ /-> 0xffffffff/)
					exit 0
			}
		}' /tmp/trace-rt.txt
}

PROF_HZ=4000

# profile_ns DATA: the nanoseconds DATA's samples stand for, from perf's
# event count (cpu-clock counts nanoseconds), not from the samples: under
# TCG the kernel lowers perf's rate as it likes.
profile_ns() {
	perf report -i "$1" --no-children --sort comm --stdio 2>/dev/null |
		awk '/^# Event count/ { print $NF; exit }'
}

# profile_us DATA NS MODE ROUND_TRIPS: "function us" for each function of
# DATA's report in MODE (--children or --no-children), in microseconds a
# round trip, NS being profile_ns DATA.
profile_us() {
	perf report -i "$1" "$3" --sort sym --stdio -g none 2>/dev/null |
		awk -v n="$4" -v ns="$2" '
			/%/ && !/^#/ { printf "%s %.2f\n", $NF, $1 / 100 * ns / 1e3 / n }' |
		sort -k1,1
}

# profile_table MODE: both runs side by side, the costliest (in either)
# first (rds_* and tcp_* set by the profile branch below).
profile_table() {
	echo "# $1: us a round trip, 64B-d1-1w | ping-pong | function"
	join -a1 -a2 -e 0 -o 0,1.2,2.2 \
		<(profile_us /tmp/prof-rds.data "$rds_ns" "$1" "$rds_rt") \
		<(profile_us /tmp/prof-tcp.data "$tcp_ns" "$1" "$tcp_rt") |
		awk '{ printf "%.2f %8.2f %8.2f  %s\n", ($2 > $3 ? $2 : $3), $2, $3, $1 }' |
		sort -rn | cut -d" " -f2-
}

case $what in
tcp)
	netns_pair trace-a trace-b $A $B || exit 1
	rds_load tcp || exit 1
	in_netns trace-a "$BIN/rds-ping" -c 5 -i 0.011 -I $A $B >/dev/null
	# shellcheck disable=SC2086 # word lists
	trace_start $RDS_FUNCS $RDS_TCP_FUNCS $TCP_FUNCS || exit 1
	in_netns trace-a "$BIN/rds-ping" -c "$count" -i 0.011 -I $A $B
	trace_show rds-ping rds_sendmsg
	;;
tcp-d1)
	netns_pair trace-a trace-b $A $B || exit 1
	rds_load tcp || exit 1
	in_netns trace-a "$BIN/rds-ping" -c 5 -i 0.011 -I $A $B >/dev/null
	# A name of its own, to tell the active side from the passive one.
	cp "$BIN/rds-stress" /tmp/rds-active
	in_netns trace-b "$BIN/rds-stress" -r $B -p 4000 >/dev/null 2>&1 &
	sleep 0.5
	# shellcheck disable=SC2086
	trace_start $RDS_FUNCS $RDS_TCP_FUNCS $TCP_FUNCS || exit 1
	in_netns trace-a /tmp/rds-active -s $B -r $A -p 4000 -q 64 -d 1 -t 1 \
		-T 1 --one-way --json | grep '^{' | cut -c1-300
	trace_show rds-active rds_sendmsg
	wait
	;;
profile)
	command -v perf >/dev/null || { echo "no perf (linux-perf)" >&2; exit 1; }
	command -v sockperf >/dev/null || { echo "no sockperf" >&2; exit 1; }
	netns_pair trace-a trace-b $A $B || exit 1
	rds_load tcp || exit 1
	in_netns trace-a "$BIN/rds-ping" -c 5 -i 0.011 -I $A $B >/dev/null
	in_netns trace-b "$BIN/rds-stress" -r $B -p 4000 >/dev/null 2>&1 &
	sleep 0.5
	perf record -q -o /tmp/prof-rds.data -a -g -e cpu-clock -F $PROF_HZ -- \
		ip netns exec trace-a "$BIN/rds-stress" -s $B -r $A -p 4000 -q 64 \
		-d 1 -t 1 -T "$count" --one-way --json >/tmp/prof-rds.json
	wait
	in_netns trace-b timeout $((count + 10)) sockperf server --tcp -i $B \
		-p 11111 >/dev/null 2>&1 &
	sleep 0.5
	perf record -q -o /tmp/prof-tcp.data -a -g -e cpu-clock -F $PROF_HZ -- \
		ip netns exec trace-a sockperf ping-pong --tcp -i $B -p 11111 \
		-t "$count" >/tmp/prof-tcp.log 2>&1
	kill %1 2>/dev/null
	wait
	rds_rt=$(grep -o '"rx_msgs": [0-9]*' /tmp/prof-rds.json | grep -o '[0-9]*$')
	tcp_rt=$(grep -o 'ReceivedMessages=[0-9]*' /tmp/prof-tcp.log | head -1 |
		grep -o '[0-9]*$')
	rds_ns=$(profile_ns /tmp/prof-rds.data)
	tcp_ns=$(profile_ns /tmp/prof-tcp.data)
	echo "# round trips: 64B-d1-1w $rds_rt, sockperf ping-pong $tcp_rt" \
		"(perf slows both)"
	profile_table --children | head -90
	profile_table --no-children | head -45
	;;
ib)
	ib_link_setup || exit 1
	rds_load rdma || exit 1
	ib_warm $IA $IB || exit 1
	# shellcheck disable=SC2086
	trace_start $RDS_FUNCS $RXE_FUNCS || exit 1
	"$BIN/rds-ping" -c "$count" -i 0.011 -I $IA $IB
	trace_show rds-ping rds_sendmsg
	ib_cleanup
	;;
*)
	echo "usage: $0 tcp|ib|tcp-d1|profile [COUNT]" >&2
	exit 2
	;;
esac
