#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The header checksum is verified: a message whose header does not match
# its checksum is dropped and counted (recv_drop_bad_checksum) and its path
# starts over; a header without a checksum (0, what in-tree RDS/TCP sends)
# and one with a good checksum are delivered.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../tcp/tcp_lib.sh"
. "$(dirname "$0")/sec_lib.sh"

log=$(mktemp)
peer=$(mktemp)
cnt=$(mktemp)
trap 'rm -f "$log" "$peer" "$cnt"' EXIT

run_case() {
	local pid
	# Two should arrive, zero and good: a loaded debug guest has taken
	# more than 12 s to see them after the path started over.
	listen $B $B4 4000 60 2 >"$log" 2>&1 &
	pid=$!
	wait_bound "$log" || return 1
	counter recv_drop_bad_checksum >"$cnt"
	rawpeer csum 4000 >"$peer" 2>&1
	counter recv_drop_bad_checksum >>"$cnt"
	wait $pid
	cat "$peer"
	echo "received:"
	grep -v '^bound$' "$log"
	echo "recv_drop_bad_checksum:" $(cat "$cnt")
}

counted() {
	[ "$(tail -n 1 "$cnt")" -gt "$(head -n 1 "$cnt")" ]
}

# The raw peer borrows rds-a's address, where our own stack listens too.
# After the reset rds-b reconnects to that listener (it tries even as the
# larger address), and rds-a's stack then connects back and takes the path
# the raw peer wants, over and over. Keep rds-b's connects from reaching
# 192.0.2.1:16385, so that only the raw peer speaks for that address.
raw_peer_alone() {
	sec_setup && ip -n $B rule add ipproto tcp dport 16385 to $A4 prohibit
}

ktap_plan 6
ktap_test "load rds_tcp, netns pair" raw_peer_alone || ktap_finished
ktap_test "raw peer sends bad, zero and good checksums" run_case
ktap_test "bad checksum: not delivered" bash -c "! grep -qx bad '$log'"
ktap_test "bad checksum: counted" counted
ktap_test "bad checksum: the path started over" \
	grep -q "connection reset after the bad header" "$peer"
ktap_test "no checksum (0) and good checksum: delivered" \
	bash -c "grep -qx zero '$log' && grep -qx good '$log'"
cleanup_netns
ktap_finished
