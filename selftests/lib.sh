# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the test scripts, which run as root inside the test guest
# (selftests/vm/run-guest.sh). Source it:
#
#   . "$(dirname "$0")/../lib.sh"
#
# Paths:  RDS_ROOT (the checkout), RDS_MODDIR (our .ko files for the running
#         kernel), BIN (build/bin, the selftest programs and tools)
# TAP:    ktap_plan N; ktap_ok|ktap_fail|ktap_skip "desc"; ktap_test "desc" CMD...;
#         ktap_finished (prints the totals and exits 0, 1 on failures, 4 when all skipped)
# Stacks: rds_load [tcp] [rdma], rds_unload (ours); intree_load, intree_unload (the
#         distribution's). Never both in one guest.
# Netns:  netns_pair A B ADDR_A ADDR_B, cleanup_netns, in_netns NS CMD...
# CPUs:   $ON_CPU0 CMD..., $ON_CPU1 CMD... (the two sides of a race)
# Pair:   pair_link_up (in guests started by selftests/vm/run-pair.sh)
# RDS:    rds_exchange NS_A ADDR_A NS_B ADDR_B PORT MSG (A sends, B answers),
#         rds_recv NS ADDR PORT [COUNT], rds_send NS ADDR DST_ADDR DST_PORT MSG...
#
# RDS_PROFILE=short is set on slow (debug) kernels: use fewer iterations there.

RDS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# RDS_MODDIR may point elsewhere, e.g. at the modules of an older commit to
# show that a new test fails there.
RDS_MODDIR=${RDS_MODDIR:-$RDS_ROOT/build/$(uname -r)/modules}
BIN=$RDS_ROOT/build/bin
RDS_PROFILE=${RDS_PROFILE:-full}
export RDS_ROOT RDS_MODDIR BIN RDS_PROFILE

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

# --- TAP ---------------------------------------------------------------------

ktap_pass_count=0
ktap_fail_count=0
ktap_skip_count=0
ktap_num=0

ktap_plan() {
	echo "TAP version 13"
	echo "1..$1"
}

ktap_ok() {
	ktap_num=$((ktap_num + 1))
	ktap_pass_count=$((ktap_pass_count + 1))
	echo "ok $ktap_num $*"
}

ktap_fail() {
	ktap_num=$((ktap_num + 1))
	ktap_fail_count=$((ktap_fail_count + 1))
	echo "not ok $ktap_num $*"
}

ktap_skip() {
	ktap_num=$((ktap_num + 1))
	ktap_skip_count=$((ktap_skip_count + 1))
	echo "ok $ktap_num $* # SKIP"
}

# ktap_test "desc" CMD...: one test point, ok when CMD succeeds. CMD's output
# is shown as TAP comments.
ktap_test() {
	local desc=$1 out rc start=$SECONDS
	shift
	out=$("$@" 2>&1)
	rc=$?
	[ -z "$out" ] || echo "$out" | sed 's/^/# /'
	# Where a slow suite spends its time, for whoever has to shorten it.
	[ $((SECONDS - start)) -lt 5 ] || echo "# $((SECONDS - start)) s"
	if [ $rc = 0 ]; then
		ktap_ok "$desc"
	else
		ktap_fail "$desc (exit $rc)"
	fi
	return $rc
}

ktap_finished() {
	echo "# Totals: pass:$ktap_pass_count fail:$ktap_fail_count skip:$ktap_skip_count"
	if [ $ktap_fail_count -gt 0 ]; then
		exit $KSFT_FAIL
	elif [ $ktap_pass_count = 0 ] && [ $ktap_skip_count -gt 0 ]; then
		exit $KSFT_SKIP
	fi
	exit $KSFT_PASS
}

# --- module stacks -----------------------------------------------------------

# Our modules, in load order, for the transports asked for.
rds_modules() {
	local t
	echo rds
	for t in "$@"; do
		echo "rds_$t"
	done
}

# rds_load [tcp] [rdma]: insmod our rds.ko and the transports' modules, after
# the in-kernel modules they depend on (ib_core, rdma_cm...).
rds_load() {
	local mod ko dep
	if [ -e /sys/module/rds ] && ! grep -q O /sys/module/rds/taint; then
		echo "rds_load: the in-tree rds is loaded; not mixing the two stacks" >&2
		return 1
	fi
	for mod in $(rds_modules "$@"); do
		[ -e "/sys/module/$mod" ] && continue
		ko=$RDS_MODDIR/$mod.ko
		if [ ! -e "$ko" ]; then
			echo "rds_load: $ko not built" >&2
			return 1
		fi
		for dep in $(modinfo -F depends "$ko" | tr , ' '); do
			case $dep in
			rds | rds_*) ;;
			*) modprobe "$dep" || return 1 ;;
			esac
		done
		insmod "$ko" || return 1
	done
}

# rds_rmmod MOD: rmmod, given 10 s to succeed. The last references to a
# module can be a closed socket's messages whose completions another CPU
# is still processing (a send completion, an acknowledgement): those go
# within milliseconds, a leaked one never does.
rds_rmmod() {
	local i

	for i in $(seq 50); do
		rmmod "$1" 2>/dev/null && return 0
		sleep 0.2
	done
	rmmod "$1"
}

# rds_unload: remove whatever RDS modules are loaded, transports first.
rds_unload() {
	local mod
	for mod in rds_rdma rds_tcp rds; do
		if [ -e "/sys/module/$mod" ]; then
			rds_rmmod "$mod" || return 1
		fi
	done
}

# intree_load [tcp] [rdma]: the distribution's rds and the transports asked
# for (rds_tcp when none is).
intree_load() {
	local t

	if [ -e /sys/module/rds ] && grep -q O /sys/module/rds/taint; then
		echo "intree_load: our rds is loaded; not mixing the two stacks" >&2
		return 1
	fi
	modprobe rds || return 1
	for t in "${@:-tcp}"; do
		modprobe "rds_$t" || return 1
	done
	# `make install` puts ours where modprobe finds it first.
	if grep -q O /sys/module/rds/taint; then
		echo "intree_load: modprobe loaded our rds (installed in updates/?)" >&2
		return 1
	fi
}

intree_unload() {
	modprobe -r rds_rdma rds_tcp rds 2>/dev/null
	! [ -e /sys/module/rds ]
}

# --- CPUs --------------------------------------------------------------------

# $ON_CPU0 CMD... and $ON_CPU1 CMD...: CMD pinned to CPU 0 or 1 (0 where
# there is only one), so that the two sides of a race run at the same
# moment rather than by turns. Words, not a function: taskset execs CMD,
# so $! of "$ON_CPU0 CMD &" is CMD's own pid, which a function run in
# the background would not give (kill would miss CMD).
ON_CPU0="taskset -c 0"
ON_CPU1="taskset -c 1"
if ! read -r RDS_CPUS_ONLINE </sys/devices/system/cpu/online 2>/dev/null ||
	[ "$RDS_CPUS_ONLINE" = 0 ]; then
	ON_CPU1=$ON_CPU0
fi

# --- network namespaces ------------------------------------------------------

# netns_pair A B ADDR_A ADDR_B [ADDR6_A ADDR6_B]: namespaces A and B joined by a
# veth pair (veth0 in each), IPv4 ADDR/24 and IPv6 /64 (default fd00::<last
# IPv4 octet>), lo and veth0 up.
netns_pair() {
	local a=$1 b=$2 addr_a=$3 addr_b=$4
	local addr6_a=${5:-fd00::${3##*.}} addr6_b=${6:-fd00::${4##*.}}

	ip netns add "$a" || return 1
	ip netns add "$b" || return 1
	ip link add veth0 netns "$a" type veth peer name veth0 netns "$b" || return 1
	ip -n "$a" addr add "$addr_a/24" dev veth0
	ip -n "$b" addr add "$addr_b/24" dev veth0
	ip -n "$a" addr add "$addr6_a/64" dev veth0 nodad
	ip -n "$b" addr add "$addr6_b/64" dev veth0 nodad
	ip -n "$a" link set lo up
	ip -n "$b" link set lo up
	ip -n "$a" link set veth0 up
	ip -n "$b" link set veth0 up
}

cleanup_netns() {
	ip -all netns delete 2>/dev/null
	true
}

# --- sending and receiving RDS messages (python3's AF_RDS socket, IPv4 only) ---
#
# The receiver answers each message with "ack:MSG" and the sender waits for the
# answers: a sender that closed its socket at once would drop the messages still
# queued while the connection comes up. NS "-" is the guest's own namespace.

# in_netns NS CMD...: CMD in network namespace NS ("-": the current one).
in_netns() {
	local ns=$1
	shift
	if [ "$ns" = - ]; then
		"$@"
	else
		ip netns exec "$ns" "$@"
	fi
}

# rds_counter NAME [NS]: the RDS counter NAME (rds-info -c), read in NS
# ("-", the default: the current one); they are global, not per netns, but
# rds-info needs RDS in the netns it runs in.
rds_counter() {
	in_netns "${2:--}" "$BIN/rds-info" -c | awk -v n="$1" '$1 == n { print $2 }'
}

# rds_path_reset_seen REASON [NS]: rds-info -p --json, in NS ("-", the
# default: the current one), lists a path reset at least once whose last
# reset was for REASON (an extended regexp, the whole reason), in the last
# ten minutes; prints the paths otherwise.
rds_path_reset_seen() {
	in_netns "${2:--}" "$BIN/rds-info" --json -p | python3 -c '
import json, re, sys, time
paths = json.load(sys.stdin).get("paths", [])
for p in paths:
    if (p["resets"] > 0 and re.fullmatch(sys.argv[1], p["last_reset_reason"])
            and abs(time.time() - p["last_reset_time"]) < 600):
        print("# path %s->%s %s: %d resets, last: %s" % (
            p["local_addr"], p["remote_addr"], p["path"], p["resets"],
            p["last_reset_reason"]))
        sys.exit(0)
print("# no path reset for \"%s\" in rds-info -p:" % sys.argv[1])
for p in paths:
    print("#  ", p)
sys.exit(1)' "$1"
}

# rds_queues_empty [NS...]: no message on a send or retransmit queue in
# any NS ("-", the default: the current one), within 10 s.
rds_queues_empty() {
	local left ns

	[ $# -gt 0 ] || set -- -
	for _ in $(seq 50); do
		left=0
		for ns in "$@"; do
			left=$((left + $(in_netns "$ns" "$BIN/rds-info" -s -t |
				grep -c -E '^ *[0-9a-f.:]+ +[0-9]+ ')))
		done
		[ $left = 0 ] && return 0
		sleep 0.2
	done
	echo "$left messages still queued 10 s after the traffic ended"
	for ns in "$@"; do
		in_netns "$ns" "$BIN/rds-info" -n -s -t | sed 's/^/# /'
	done
	return 1
}

# rds_recv NS ADDR PORT [COUNT [TIMEOUT]]: bind in NS, print "bound", then COUNT
# (default 1) messages as "from ADDR:PORT: TEXT". Fails after TIMEOUT s (10)
# without a message, saying which one it waited for.
rds_recv() {
	in_netns "$1" python3 - "$2" "$3" "${4:-1}" "${5:-10}" <<-'EOF'
	import socket, sys, time
	addr, port = sys.argv[1], int(sys.argv[2])
	count, timeout = int(sys.argv[3]), float(sys.argv[4])
	s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
	s.bind((addr, port))
	s.settimeout(timeout)
	print("bound", flush=True)
	for i in range(count):
	    try:
	        data, src = s.recvfrom(65536)
	    except socket.timeout:
	        print("rds_recv on %s:%d: no message %d of %d within %g s" %
	              (addr, port, i + 1, count, timeout), flush=True)
	        sys.exit(1)
	    print("from %s:%d: %s" % (src[0], src[1], data.decode(errors="replace")), flush=True)
	    s.sendto(b"ack:" + data, src)
	# Closing the socket would drop the last answer if it is still queued.
	time.sleep(1)
	EOF
}

# rds_send NS ADDR DST_ADDR DST_PORT MSG...: send each MSG from ADDR (any port)
# and wait up to 30 s for its answer: the first message after a module
# reload or a netns's churn waits for a connection, which on the debug
# kernel under CI's load took more than 10.
rds_send() {
	in_netns "$1" python3 - "$2" "$3" "$4" "${@:5}" <<-'EOF'
	import socket, sys
	addr, dst, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
	s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
	s.bind((addr, 0))
	s.settimeout(30)
	for msg in sys.argv[4:]:
	    s.sendto(msg.encode(), (dst, port))
	    data, src = s.recvfrom(65536)
	    print("answer from %s:%d: %s" % (src[0], src[1], data.decode(errors="replace")))
	EOF
}

# rds_exchange NS_A ADDR_A NS_B ADDR_B PORT MSG: send MSG from A to B:PORT and
# check that it arrives. Prints the receiver's output.
rds_exchange() {
	local log rc i pid

	log=$(mktemp)
	rds_recv "$3" "$4" "$5" 1 40 >"$log" 2>&1 &
	pid=$!
	for i in $(seq 100); do
		grep -q '^bound' "$log" && break
		sleep 0.1
	done
	rds_send "$1" "$2" "$4" "$5" "$6"
	rc=$?
	wait $pid || rc=1
	grep -v "^bound$" "$log"
	grep -q -F "from $2:" "$log" && grep -q -F ": $6" "$log" || rc=1
	rm -f "$log"
	return $rc
}

# --- two guests (selftests/vm/run-pair.sh) ------------------------------------

# pair_link_up: give this guest's link its address (RDS_PAIR_ADDR/24, set by
# run-pair.sh), bring it up and wait until the peer answers a ping: up to
# 300 s, as the peer may be booting a second time (run-guest.sh kills a
# debug kernel's boot that hangs, after 120 s, and boots it again).
pair_link_up() {
	local dev start=$SECONDS

	modprobe virtio_net 2>/dev/null # built in on some kernels
	dev=$(ls /sys/class/net | grep -v '^lo$' | head -n 1)
	[ -n "$dev" ] || { echo "pair_link_up: no network device" >&2; return 1; }
	ip addr add "$RDS_PAIR_ADDR/24" dev "$dev" || return 1
	ip link set "$dev" up || return 1
	while [ $((SECONDS - start)) -lt 300 ]; do
		ping -c 1 -W 1 "$RDS_PAIR_PEER" >/dev/null 2>&1 && return 0
		sleep 1 # not a busy loop where ping fails at once
	done
	echo "pair_link_up: no answer from $RDS_PAIR_PEER on $dev in $((SECONDS - start)) s" >&2
	return 1
}
