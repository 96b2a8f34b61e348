# SPDX-License-Identifier: GPL-2.0
#
# The checks of rds-ping, rds-info and rds-stress, shared by
# selftests/tools/test_tools.sh (our modules) and
# selftests/intree/test_tools.sh (the distribution's): both stacks must give
# the same results to the same tools. Source it after lib.sh, then call
# tools_tests with the command that loads the stack.

A=192.0.2.1
B=192.0.2.2
A6=fd00::1
B6=fd00::2
NOBODY=192.0.2.99
TOOLS_DIR=$(dirname "${BASH_SOURCE[0]}")

# in_a/in_b CMD...: run in one of the two namespaces.
in_a() { ip netns exec rds-a "$@"; }
in_b() { ip netns exec rds-b "$@"; }

# wait_for CMD...: retry CMD for up to 10 s (debug kernels start slowly).
wait_for() {
	local i
	for i in $(seq 100); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "timed out waiting for: $*"
	return 1
}

# The passive rds-stress in b listens on TCP port $1.
b_listens() {
	[ -n "$(in_b ss -Hltn "sport = :$1")" ]
}

# expect_exit CODE CMD...: CMD must exit with CODE.
expect_exit() {
	local want=$1 rc
	shift
	"$@"
	rc=$?
	[ "$rc" = "$want" ] || { echo "exit $rc, expected $want"; return 1; }
}

# Prints the output, then checks it against extended regexps, one per line.
output_has() {
	local out=$1 re
	shift
	echo "$out"
	for re in "$@"; do
		echo "$out" | grep -qE -- "$re" || { echo "missing: $re"; return 1; }
	done
}

check_ping() {
	local out
	out=$(in_a "$BIN/rds-ping" -c 3 -i 0.2 "$@" 2>&1) || { echo "$out"; return 1; }
	output_has "$out" '^ +1: [0-9]+ usec$' '^ +3: [0-9]+ usec$' \
		'^3 packets transmitted, 3 received, 0% packet loss$' \
		'^rtt min/avg/max/mdev = [0-9]+/[0-9]+/[0-9]+/[0-9]+ usec$'
}

# Nobody answers: a summary, a failure exit, and no hang.
check_ping_nobody() {
	local out start=$SECONDS
	out=$(in_a "$BIN/rds-ping" -c 2 -i 0.2 "$NOBODY" 2>&1)
	[ $? != 0 ] || { echo "$out"; echo "exit 0 without replies"; return 1; }
	output_has "$out" '^2 packets transmitted, 0 received, 100% packet loss$' || return 1
	[ $((SECONDS - start)) -lt 10 ] || { echo "took $((SECONDS - start)) s"; return 1; }
}

check_info_conns() {
	local out
	out=$(in_a "$BIN/rds-info" -n) || return 1
	output_has "$out" '^RDS Connections:$' 'LocalAddr +RemoteAddr +Tos +NextTX +NextRX +Flgs' \
		"^ *$A +$B +0 +[0-9]+ +[0-9]+ +--C$"
}

check_info_tables() {
	local out i pid
	out=$(in_a "$BIN/rds-info" -c) || return 1
	output_has "$out" '^Counters:$' 'CounterName +Value' '^ *[a-z_]+ +[0-9]+$' >/dev/null || return 1
	# The IPv4 table lists only sockets bound to an IPv4 address: have some.
	ip netns exec rds-a "$BIN/rds-ping" -i 0.1 "$B" >/dev/null &
	pid=$!
	for i in $(seq 100); do
		out=$(in_a "$BIN/rds-info" -k)
		echo "$out" | grep -q "^ *$A " && break
		sleep 0.1
	done
	kill -INT $pid
	wait $pid	# its replies are checked elsewhere
	output_has "$out" '^RDS Sockets:$' 'BoundAddr +BPort +ConnAddr +CPort +SndBuf +RcvBuf +Inode' \
		"^ *$A +[0-9]+ +0\.0\.0\.0 +0 +[0-9]+ +[0-9]+ +[0-9]+$" || return 1
	out=$(in_a "$BIN/rds-info" -T) || return 1
	output_has "$out" '^TCP Connections:$' \
		"^ *$A +[0-9]+ +$B +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+$" || return 1
	out=$(in_a "$BIN/rds-info" -s -r -t) || return 1
	output_has "$out" '^Send Message Queue:$' '^Receive Message Queue:$' \
		'^Retransmit Message Queue:$'
}

check_info_v6() {
	local out
	in_a "$BIN/rds-ping" -c 1 "$B6" >/dev/null || { echo "IPv6 ping failed"; return 1; }
	out=$(in_a "$BIN/rds-info" -a -n -k) || return 1
	output_has "$out" '^RDS IPv6 Connections:$' "^ *$A6 +$B6 +[0-9]+ +[0-9]+ +--C$" \
		'^RDS IPv6 Sockets:$'
}

# Our own tables (rds-info -p, -d, -C): the path up, on its home carrier;
# a socket whose messages to nobody were taken back with
# RDS_CANCEL_SENT_TO counts them, while it is open. The in-tree modules
# have none of these tables, and rds-info leaves them out.
check_info_own() {
	local out
	out=$(in_a "$BIN/rds-info" -p) || return 1
	output_has "$out" '^RDS Paths:$' \
		'LocalAddr +RemoteAddr +Tos +Path +Trans +State +Attempts +Fails +Resets +LastReset +Reason' \
		"^ *$A +$B +0 +0 +tcp +up +[0-9]+ +[0-9]+ +[0-9]+ +[-0-9dhms]+  " || return 1
	out=$(in_a "$BIN/rds-info" -C) || return 1
	output_has "$out" '^RDS Carriers:$' \
		'LocalAddr +RemoteAddr +Tos +Path +Trans +Carrier +Device +Home +Moves +LastMove' \
		"^ *$A +$B +0 +0 +tcp +tcp +- +yes +0 +-$" || return 1
	in_a python3 - "$A" "$NOBODY" "$BIN/rds-info" <<-'EOF'
	import socket, struct, subprocess, sys
	SOL_RDS, RDS_CANCEL_SENT_TO = 276, 1
	s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
	s.bind((sys.argv[1], 4700))
	for _ in range(3):
	    s.sendto(b"to nobody", socket.MSG_DONTWAIT, (sys.argv[2], 4700))
	s.setsockopt(SOL_RDS, RDS_CANCEL_SENT_TO, struct.pack(
	    "=H2s4s8x", socket.AF_INET, struct.pack("!H", 4700),
	    socket.inet_aton(sys.argv[2])))
	out = subprocess.run([sys.argv[3], "-d"], capture_output=True, text=True).stdout
	print(out)
	mine = [l.split() for l in out.splitlines() if l.split()[:2] == [sys.argv[1], "4700"]]
	# BoundAddr BPort Inode RcvBuf SendReset Purged Canceled
	sys.exit(0 if mine and mine[0][3:] == ["0", "0", "0", "3"] else 1)
	EOF
}

# Every table as JSON, and a single one; the text output is checked above.
check_info_json() {
	local out
	out=$(in_a "$BIN/rds-info" --json -a) || return 1
	echo "$out" | python3 "$TOOLS_DIR/check_export.py" json "$A" "$B" || return 1
	out=$(in_a "$BIN/rds-info" --json -n) || return 1
	echo "$out" | python3 -c 'import json, sys; assert list(json.load(sys.stdin)) == ["connections"]'
}

check_info_prom() {
	in_a "$BIN/rds-info" --prometheus | python3 "$TOOLS_DIR/check_export.py" prom "$A" "$B"
}

# stress_pair PORT PASSIVE_ADDR ACTIVE_ARGS...: a passive rds-stress in b,
# bound to PASSIVE_ADDR (dual-stack when it is ""), and an active one in a
# with ACTIVE_ARGS, both --json. Sets the caller's out (the active side's
# output) and plog (the passive side's); fails when either side does.
stress_pair() {
	local port=$1 paddr=$2 log rc=0

	shift 2
	log=$(mktemp)
	in_b "$BIN/rds-stress" ${paddr:+-r "$paddr"} -p "$port" --json >"$log" 2>&1 &
	wait_for b_listens "$port"
	out=$(in_a "$BIN/rds-stress" -p "$port" "$@" --json 2>&1) || rc=1
	wait $! || rc=1
	plog=$(cat "$log")
	rm -f "$log"
	return $rc
}

# A passive rds-stress in b, an active one in a; both must report traffic.
check_stress() {
	local out plog rc=0

	stress_pair 4100 "$B" -s "$B" -r "$A" -t 2 -d 4 -q 2K -a 256 -T 3 -v || rc=1
	output_has "$out" '"role": "active"' '"tasks": 2' '"verify_errors": 0' \
		'"rx_msgs": [1-9]' '"rtt_us": [0-9.]+' || rc=1
	output_has "$plog" '"role": "passive"' '"rx_msgs": [1-9]' || rc=1
	return $rc
}

# Over IPv6, with the passive side listening dual-stack (no -r).
check_stress_v6() {
	local out plog rc=0

	stress_pair 4300 "" -s "$B6" -T 2 || rc=1
	output_has "$out" '"role": "active"' '"rx_msgs": [1-9]' || rc=1
	output_has "$plog" '"role": "passive"' '"rx_msgs": [1-9]' || rc=1
	return $rc
}

# --one-way: the passive side only acks. It measures no round trip of its
# own, and only requests (64 B) go one way and only acks (32 B) the
# other, where both ends' requests and acks would make the two equal. By
# bytes, not by round-trip times: without a TSC the guest's clock ticks
# in jiffies and most round trips measure 0.
check_stress_one_way() {
	local out plog rc=0

	# -o: the classic tool's spelling of --one-way
	stress_pair 4400 "$B" -s "$B" -r "$A" -q 64 -T 2 -o || rc=1
	output_has "$out" '"role": "active"' '"one_way": true' '"rx_msgs": [1-9]' || rc=1
	output_has "$plog" '"role": "passive"' '"one_way": true' '"rtt_us": 0[,.]' || rc=1
	python3 -c '
import json, sys
a, p = (json.loads([l for l in s.splitlines() if l.startswith("{")][-1])
        for s in sys.argv[1:3])
# Acks of 32 B for requests of 64 B: the active side takes in half what it
# sends, the passive side sends half what it takes.
ok = 0 < 3 * a["rx_bytes"] < 2 * a["tx_bytes"] and 0 < 3 * p["tx_bytes"] < 2 * p["rx_bytes"]
sys.exit(0 if ok else 1)' "$out" "$plog" || {
		echo "requests went both ways:"; echo "$plog"; rc=1; }
	return $rc
}

# The classic per-second and summary columns.
check_stress_lines() {
	local out rc
	in_b "$BIN/rds-stress" -p 4200 -z >/dev/null 2>&1 &
	wait_for b_listens 4200
	out=$(in_a "$BIN/rds-stress" -s "$B" -p 4200 -T 2 2>&1)
	rc=$?
	wait $! || rc=1
	output_has "$out" '^tsks +tx/s +rx/s +tx\+rx K/s +mbi K/s +mbo K/s +tx us/c +rtt us +cpu %$' \
		'^-+$' '^ +1 +[0-9]+ +[0-9]+ +[0-9.]+ +0\.00 +0\.00 +[0-9.]+ +[0-9.]+ +[-0-9.]+$' || rc=1
	return $rc
}

check_stress_nobody() {
	local out start=$SECONDS
	out=$(in_a "$BIN/rds-stress" -s "$NOBODY" -T 1 2>&1)
	[ $? = 1 ] || { echo "$out"; echo "expected exit 1"; return 1; }
	[ "$(echo "$out" | wc -l)" = 1 ] || { echo "$out"; echo "not one line"; return 1; }
	echo "$out"
	[ $((SECONDS - start)) -lt 10 ]
}

check_usage() {
	local t
	for t in rds-ping rds-info rds-stress; do
		expect_exit 0 "$BIN/$t" --help >/dev/null &&
			expect_exit 0 "$BIN/$t" -h >/dev/null || return 1
	done
	expect_exit 2 "$BIN/rds-ping" 2>/dev/null &&
	expect_exit 2 "$BIN/rds-ping" -c x "$B" 2>/dev/null &&
	expect_exit 2 "$BIN/rds-info" -x 2>/dev/null &&
	expect_exit 2 "$BIN/rds-info" --prometheus -n 2>/dev/null &&
	expect_exit 2 "$BIN/rds-stress" -t 0 2>/dev/null &&
	expect_exit 2 "$BIN/rds-stress" --bogus 2>/dev/null
}

# check_version WANT: every tool's --version exits 0 and says rds and
# rds_tcp are loaded, and WANT: "out-of-tree" (ours, which has a module
# version) or "the kernel's own".
check_version() {
	local t out
	for t in rds-ping rds-info rds-stress; do
		out=$("$BIN/$t" --version) || { echo "$t --version failed"; return 1; }
		echo "$out"
		echo "$out" | grep -q "^rds: loaded, $1" &&
			echo "$out" | grep -q "^rds_tcp: loaded, $1" || return 1
	done
}

# tools_tests LOAD_CMD...: the whole scenario.
tools_tests() {
	local t
	for t in rds-ping rds-info rds-stress; do
		[ -x "$BIN/$t" ] || { ktap_plan 0; echo "# $BIN/$t not built"; exit "$KSFT_SKIP"; }
	done
	ktap_plan 20
	ktap_test "load the RDS/TCP modules" "$@" || ktap_finished
	ktap_test "two netns joined by veth" netns_pair rds-a rds-b $A $B $A6 $B6
	ktap_test "bad command lines exit 2, --help 0" check_usage
	if [ "$1" = intree_load ]; then
		ktap_test "--version: the kernel's own modules" check_version "the kernel's own"
	else
		ktap_test "--version: our modules" check_version out-of-tree
	fi
	ktap_test "rds-ping: 3 replies and a summary" check_ping "$B"
	ktap_test "rds-ping -Q 3 -I $A" check_ping -Q 3 -I "$A" "$B"
	ktap_test "rds-ping localhost: a host name, resolved" check_ping localhost
	ktap_test "rds-ping: nobody there fails fast" check_ping_nobody
	ktap_test "rds-info -n: the connection is up" check_info_conns
	ktap_test "rds-info -c -k -T -s -r -t" check_info_tables
	ktap_test "rds-info -a: IPv6 tables" check_info_v6
	if [ "$1" = intree_load ]; then
		ktap_test "rds-info -p -d -C: no such tables in-tree, left out" \
			bash -c "[ -z \"\$(ip netns exec rds-a '$BIN/rds-info' -p -d -C)\" ]"
	else
		ktap_test "rds-info -p -d -C: the path and its carrier, a socket's cancelled messages" \
			check_info_own
	fi
	ktap_test "rds-info: every table, verbose" in_a "$BIN/rds-info" -v -a
	ktap_test "rds-info --json: every table, documented fields" check_info_json
	ktap_test "rds-info --prometheus: a valid exposition" check_info_prom
	ktap_test "rds-stress: 2 tasks, depth 4, verified, JSON" check_stress
	ktap_test "rds-stress: IPv6" check_stress_v6
	ktap_test "rds-stress: classic columns" check_stress_lines
	ktap_test "rds-stress -o (--one-way): the passive side only acks" check_stress_one_way
	ktap_test "rds-stress: unreachable peer is one error line" check_stress_nobody
	cleanup_netns
	ktap_finished
}
