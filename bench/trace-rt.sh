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
	echo "usage: $0 tcp|ib|tcp-d1 [COUNT]" >&2
	exit 2
	;;
esac
