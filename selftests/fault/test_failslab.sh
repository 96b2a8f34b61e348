#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-ci-debug: run: every allocation failure path, which only this kernel can inject
# rds-cost: 120
#
# Allocation failures injected into RDS's system calls (the debug kernel's
# failslab and fail_page_alloc; the test skips on kernels without them).
# Only the test's own processes fail (task-filter with make-it-fail), so
# what fails is what their calls allocate: messages, connections created
# by a first send, and, when a send transmits in the caller's context,
# TCP's own buffers under rds_tcp. Each failed allocation must give the
# caller an errno (ENOMEM: rds_traffic -R tries again) or be retried by
# the stack; traffic still arrives exactly once and in order, and the
# harness fails the run on any splat or kmemleak report.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../tcp/tcp_lib.sh"

dbg=/sys/kernel/debug
n=2000

# The programs that fail run from tmpfs (they are static): a failed
# allocation in the 9p client, which would serve their page faults from
# the shared root, leaves it broken for every process after.
tmpbin=$(mktemp -d)
cp "$BIN/rds_traffic" "$BIN/rds_fuzz" "$tmpbin/" || exit 1

# inject DIR PROBABILITY: fail that percentage of the allocations of tasks
# marked make-it-fail, sleeping ones too, silently, with no other limit.
# Counting down "times" from a known value is how we learn the failures.
inject() {
	echo Y >"$1/task-filter" &&
		echo "${inject_ignore_wait:-N}" >"$1/ignore-gfp-wait" &&
		echo 0 >"$1/verbose" &&
		echo 1 >"$1/interval" &&
		echo 1000000 >"$1/times" &&
		echo "$2" >"$1/probability"
}

# failures DIR: how many allocations it failed since inject; stops it.
failures() {
	echo 0 >"$1/probability"
	echo $((1000000 - $(cat "$1/times")))
}

# under DIR CMD...: CMD, with make-it-fail set, while DIR fails 5% of its
# allocations; CMD must succeed and some allocations must have failed
# (inject_ignore_wait=Y: atomic ones only, and maybe none).
# CMD's output goes to $under_out when set. What CMD sets up in its first
# second (sockets, the netns it joins) is not failed: what it does
# afterwards is what is tested.
under() {
	local dir=$dbg/$1 pid rc fails comm

	shift
	# CMD with make-it-fail set, so that inject hits it. Not through a
	# shell function: in the background that is a subshell of its own,
	# whose pid would never become the command's.
	bash -c 'echo 1 >/proc/self/make-it-fail && exec "$@"' failing "$@" \
		>"${under_out:-/dev/stdout}" &
	pid=$!
	# Not before the exec is done: under load it takes seconds on the
	# debug kernel, and a failed exec is no test of ours (ENOMEM).
	# read is a builtin: a process per look would cost seconds there.
	for _ in {1..150}; do
		read -r comm </proc/$pid/comm 2>/dev/null || break
		[ "$comm" = "${1##*/}" ] && break
		sleep 0.2
	done
	sleep 1
	inject "$dir" 5 || { kill $pid; return 1; }
	wait $pid
	rc=$?
	fails=$(failures "$dir")
	under_rc=$rc
	echo "${dir##*/}: $fails allocations failed"
	# Atomic ones alone may be too few to be sure of one.
	[ "$rc" = 0 ] && { [ "$fails" -gt 0 ] || [ "${inject_ignore_wait:-N}" = Y ]; }
}

# rds_traffic between the netns: exactly once and in order, ENOMEM retried.
traffic_under() {
	under "$1" "$tmpbin/rds_traffic" -R -A $A -B $B -a $A4 -b $B4 -n $n -m 16384 -t 300
}

# fail_page_alloc fails only allocations of order 1 and up (its min-order),
# which RDS's own calls never make (its pages are order 0): what fails is
# TCP's page fragments and the like, when they are taken while the test's
# task is current: from 7 to 39 a run in six debug runs here, and once none at
# all. A run in which nothing failed tested nothing: it runs again, three
# times at most; a run that fails is a failure at once.
traffic_under_until_failed() {
	local try

	for try in 1 2 3; do
		traffic_under "$1" && return 0
		[ "$under_rc" = 0 ] || return 1
		echo "none failed: again ($try of 3)"
	done
	return 1
}

# The socket API (rds_fuzz's random calls): any errno is fine, the kernel
# must stay whole. Atomic allocations only (the sleeping ones of the send
# path are the two points before): once, in CI on the debug kernel, a
# sleeping allocation the fuzzer's calls reached in the 9p client failed,
# and the guest's shared root answered EINVAL to every open after it.
fuzz_under_failslab() {
	inject_ignore_wait=Y under_out=/dev/null under failslab \
		"$tmpbin/rds_fuzz" -s 7 -t 15 -j 3 \
		-N /run/netns/$A -N /run/netns/$B -a $A4 -a $B4 -a 127.0.0.1 -a 0.0.0.0
}

if [ ! -d $dbg/failslab ] || [ ! -d $dbg/fail_page_alloc ]; then
	echo "no failslab or fail_page_alloc in this kernel (CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC)"
	exit "$KSFT_SKIP"
fi

ktap_plan 5
ktap_test "load rds_tcp, netns pair" tcp_setup || ktap_finished
ktap_test "failslab 5%: $n messages exactly once and in order" traffic_under failslab
ktap_test "fail_page_alloc 5%: $n messages exactly once and in order" \
	traffic_under_until_failed fail_page_alloc
ktap_test "failslab 5% under the socket API fuzzer" fuzz_under_failslab
# On every path, with time to spare: a path whose TCP socket had its
# allocations failed can sit in TCP's retransmission backoff for longer
# than rds_exchange's 10 s on a slow kernel.
ktap_test "messages still get through afterwards, on every path" \
	"$TRAFFIC" -A $A -B $B -a $A4 -b $B4 -n 200 -t 300
cleanup_netns
rm -rf "$tmpbin"
ktap_finished
