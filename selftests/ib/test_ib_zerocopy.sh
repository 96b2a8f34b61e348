#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-ci-612: run: fragments gathered from the messages' pages on 6.12's rxe
# rds-cost: 150
#
# Zero-copy sends over RDS/IB (net.rds.ib.send_zerocopy 1, the default):
# the fragments of a message of 4 KiB or more point into its own pages,
# mapped for the device from its first fragment to its last one's
# completion, instead of copies in the send ring. The connections carry
# the integrity run of test_ib_traffic.sh (1 B .. 1 MiB, both ways, each
# message once and in order) with the big messages from their pages
# (ib_tx_zerocopy grows, nothing is copied), copy the small ones without
# counting them, then survive their device's removal mid-stream (messages
# still mapped when the queue pair goes) and rds_rdma's unload, with
# nothing lost and nothing leaked (kmemleak). A connection made with the
# sysctl off copies again.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ib_lib.sh"

zc_on() {
	[ "$(sysctl -n net.rds.ib.send_zerocopy)" = 1 ] &&
		! sysctl -qw net.rds.ib.send_zerocopy=2 2>/dev/null &&
		sysctl -qw net.rds.ib.send_zerocopy=0 &&
		sysctl -qw net.rds.ib.send_zerocopy=1
}

# The counters' growth over CMD...: "ZEROCOPY COPIED".
zc_grew() {
	local z0 c0 rc
	z0=$(ib_counter ib_tx_zerocopy) c0=$(ib_counter ib_tx_zerocopy_copied)
	"$@"
	rc=$?
	ZC_GREW="$(($(ib_counter ib_tx_zerocopy) - z0)) $(($(ib_counter ib_tx_zerocopy_copied) - c0))"
	echo "# fragments from the messages' pages, copied: $ZC_GREW"
	return $rc
}

integrity() {
	zc_grew "$BIN/rds_traffic" -T ib -a $IA -b $IB -n "$(ib_count 8000 1000)" \
		-m 32768 -M 1048576 -t 600 || return 1
	# Our pages are whole or carved at cache-line offsets: never copied.
	[ "${ZC_GREW% *}" -gt 0 ] && [ "${ZC_GREW#* }" = 0 ]
}

# Under a fragment (4 KiB) the copy is cheaper: neither counter moves.
small_copied() {
	zc_grew "$BIN/rds_traffic" -T ib -a $IA -b $IB -p 6000 -n "$(ib_count 2000 500)" \
		-m 4095 -t 300 || return 1
	[ "$ZC_GREW" = "0 0" ]
}

link_bounce() {
	sleep 3
	rdma link del rxe1 || return 1
	sleep 2
	rdma link add rxe1 type rxe netdev rv1
}

removal() {
	local traffic bounced ok
	"$BIN/rds_traffic" -T ib -a $IA -b $IB -p 7000 -n "$(ib_count 10000 3000)" \
		-m 16384 -M 262144 -t 300 &
	traffic=$!
	link_bounce
	bounced=$?
	wait $traffic
	ok=$?
	ib_both_ok "rxe1 removed and added back mid-stream, zero-copy" $bounced $ok
}

# rds_rdma anew, the sysctl on again, then off: the next connections copy.
copies_again() {
	rds_rmmod rds_rdma && rds_load rdma || return 1
	[ "$(sysctl -n net.rds.ib.send_zerocopy)" = 1 ] &&
		sysctl -qw net.rds.ib.send_zerocopy=0 || return 1
	ib_warm $IA $IB || return 1
	zc_grew "$BIN/rds_traffic" -T ib -a $IA -b $IB -p 8000 -n 200 -m 65536 -t 120 ||
		return 1
	[ "$ZC_GREW" = "0 0" ]
}

ktap_plan 7
ib_start "rxe pair and rds_rdma set up"
ktap_test "send_zerocopy: on by default, 0 or 1" zc_on || ib_diag
ib_first_ping "rds-ping over IB, both ways" 6 $IA $IB $IB $IA
ktap_test "1 B .. 1 MiB both ways from the messages' pages: nothing lost, none copied" \
	integrity || ib_diag
ktap_test "1 B .. 4 KiB - 1 both ways, copied, not counted" small_copied || ib_diag
removal
ktap_test "rds_rdma reloaded, sysctl on again; off: copies again" copies_again || ib_diag
ib_cleanup
ktap_finished
