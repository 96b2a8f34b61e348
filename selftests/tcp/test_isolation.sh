#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 230
#
# Network namespaces isolate RDS: two netns pairs with the same addresses
# (rds-a/rds-b and rds-c/rds-d, 192.0.2.1 and 192.0.2.2 in both) and a
# socket on 192.0.2.2:4000 in rds-b and in rds-d. A message from rds-a
# reaches rds-b's socket only, one from rds-c rds-d's only: the bound-socket
# lookup never crosses netns (an in-tree bug class). Over the loopback
# transport too: rds-b's messages to its own 192.0.2.2:4100 and to
# 127.0.0.1:4100 reach its sockets there, never rds-d's on the same address
# and port. Each netns' RDS_INFO tables list its own connections, sockets,
# queued messages and TCP sockets, nothing of another's; in a netns that
# never used RDS they are empty. Then every table there is read raw, our
# own RDS_INFO_PATHS, RDS_INFO_SOCKET_DROPS and RDS_INFO_CARRIERS and
# those rds-info has no option for (RDS_INFO_CONNECTION_STATS) included:
# in-tree filtered them by the caller's netns only in 2026, table by table.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tcp_lib.sh"

C=rds-c
D=rds-d
E=rds-e
dir=$(mktemp -d)

setup() {
	tcp_setup || return 1
	netns_pair $C $D $A4 $B4 $A6 $B6 || return 1
	ip netns add $E || return 1
	# rds-c connects over IPv4 only: rds-a over both.
	ip netns exec $C "$BIN/rds-ping" -c 2 -i 0.2 -I $A4 $B4 >/dev/null
}

# only_to FROM TO OTHER TEXT: TEXT sent from FROM to 192.0.2.2:4000 reaches
# the socket there in TO, and nothing reaches the one in OTHER.
only_to() {
	local other rc=0

	rds_recv "$3" $B4 4000 1 5 >"$dir/other" 2>&1 &
	other=$!
	rds_exchange "$1" $A4 "$2" $B4 4000 "$4" || rc=1
	wait $other
	if grep -q '^from' "$dir/other"; then
		echo "$3 got it too:"
		cat "$dir/other"
		rc=1
	fi
	return $rc
}

# only_to_self ADDR: rds-b sends from its ADDR to ADDR:4100, a local
# address of its own, so over the loopback transport, while rds-d has a
# socket on the same ADDR:4100 (CVE-2026-68335: in-tree's loopback could
# hand a message to another netns' socket). rds-b's socket gets it, rds-d's
# nothing. Loopback delivers synchronously, before rds-b's receiver can
# answer, so a stray would be on rds-d's queue (rds-info -r) by the time the
# exchange ends; then rds-d sends its own message to its socket, which
# ends its receiver and would come after a stray: the socket is shown to
# have been live and reachable, and its first message is rds-d's.
#
# That receiver waits through the whole point: the bind wait (10 s), the
# exchange (its receiver's 40 s), two rds-info and rds_send's 30 s for its
# answer. rds-d's "end" ends it, so a limit covering all that costs nothing
# when all goes well; 30 s did not cover a loaded debug guest.
SELF_WAIT=120
only_to_self() {
	local addr=$1 re other rc=0 looped queued

	re="${addr//./\\.}"
	# rds-d's socket first, bound before anything is sent.
	rds_recv $D "$addr" 4100 1 $SELF_WAIT >"$dir/self" 2>&1 &
	other=$!
	for _ in $(seq 100); do
		grep -q '^bound' "$dir/self" && break
		sleep 0.1
	done
	if ! grep -q '^bound' "$dir/self"; then
		echo "rds-d: no socket on $addr:4100"
		rc=1
	fi
	rds_exchange $B "$addr" $B "$addr" 4100 "self-$addr" || rc=1
	# The loopback transport carried it: nothing else connects these.
	looped=$(rows $B "$re  *$re .*loopback" -n -v)
	queued=$(rows $D ' 4100 ' -r)
	if ! rds_send $D "$addr" "$addr" 4100 "end" >/dev/null; then
		echo "rds-d's \"end\" to its own $addr:4100 got no answer"
		rc=1
	fi
	if ! wait $other; then
		echo "rds-d's socket on $addr:4100 did not get rds-d's \"end\"" \
			"within ${SELF_WAIT} s of its bind"
		rc=1
	fi
	expect "rds-b's loopback connections $addr -> $addr: $looped" \
		$((looped > 0)) || rc=1
	expect "queued on rds-d's $addr:4100: $queued" $((queued == 0)) || rc=1
	if [[ "$(grep '^from' "$dir/self")" != "from $addr:"*": end" ]] ||
		grep -q 'self-' "$dir/self"; then
		echo "rds-d's socket got:"
		cat "$dir/self"
		rc=1
	fi
	return $rc
}

# rows NS TEXT OPTIONS...: how many rows of NS's rds-info OPTIONS hold TEXT.
rows() {
	ip netns exec "$1" "$BIN/rds-info" "${@:3}" | grep -c -- "$2"
}

# expect WHAT COUNT: print what was counted; fail unless COUNT holds.
expect() {
	echo "$1"
	[ "$2" = 1 ]
}

info_isolated() {
	local a6 c6 bk dk dr br
	a6=$(rows $A fd00::2 -a -n)
	c6=$(rows $C fd00::2 -a -n)
	bk=$(rows $B ' 7000 ' -k)
	dk=$(rows $D ' 7000 ' -k)
	br=$(rows $B ' 7001 ' -r)
	dr=$(rows $D ' 7001 ' -r)
	expect "IPv6 connections: rds-a $a6, rds-c $c6" $((a6 > 0 && c6 == 0)) &&
	expect "sockets on port 7000: rds-d $dk, rds-b $bk" $((dk > 0 && bk == 0)) &&
	expect "queued to 7001: rds-d $dr, rds-b $br" $((dr > 0 && br == 0))
}

empty_netns() {
	local rows

	rows=$(ip netns exec $E "$BIN/rds-info" -a -n -k -r -s -t -T |
		grep -E '192\.0\.2\.|fd00:|127\.0\.0\.|::1')
	[ -z "$rows" ] || echo "$rows"
	expect "$(echo -n "$rows" | grep -c .) rows in rds-e" $((${#rows} == 0))
}

# tables NS ADDR...: rds_info_tables.py's lines in NS.
tables() {
	ip netns exec "$1" python3 "$RDS_ROOT/selftests/common/rds_info_tables.py" "${@:2}"
}

# rows_of TABLES NAME [FIELD]: the rows of table NAME in TABLES (FIELD 3),
# or its count of the first address (FIELD 4, "ADDR:N"); 0 when absent.
rows_of() {
	awk -v n="$2" -v f="${3:-3}" '$2 == n { v = $f; sub(/.*:/, "", v); print v + 0 }' <<<"$1"
}

# Every table of every netns, raw: rds-e's are empty; rds-a's IPv6
# connection to fd00::2 is in its connections, TCP sockets, paths and
# carriers and in no table of rds-c, which has the same address but never
# used IPv6; rds_hold's sockets and queued messages in rds-d are in its
# sockets, socket drops and receive queues, and rds-b, whose sockets are
# all closed, has none there.
tables_isolated() {
	local e a c b d t rc=0

	e=$(tables $E) && a=$(tables $A $B6) && c=$(tables $C $B6) &&
		b=$(tables $B) && d=$(tables $D) || return 1
	t=$(awk '$3 != "absent" && $3 != 0' <<<"$e")
	expect "rds-e: $(grep -c . <<<"$t") tables with rows ${t//$'\n'/; }" \
		$((${#t} == 0)) || rc=1
	t=$(awk '$3 != "absent" && $4 != "'$B6':0"' <<<"$c")
	expect "rds-c: $(grep -c . <<<"$t") tables with $B6 ${t//$'\n'/; }" \
		$((${#t} == 0)) || rc=1
	for t in connections6 tcp_sockets6 paths carriers; do
		expect "rds-a: $t with $B6: $(rows_of "$a" $t 4)" \
			$(($(rows_of "$a" $t 4) > 0)) || rc=1
	done
	for t in sockets socket_drops recv_messages; do
		expect "$t: rds-d $(rows_of "$d" $t), rds-b $(rows_of "$b" $t)" \
			$(($(rows_of "$d" $t) > 0 && $(rows_of "$b" $t) == 0)) || rc=1
	done
	[ $rc = 0 ] || printf '%s\n' "rds-a:" "$a" "rds-b:" "$b" "rds-c:" "$c" "rds-d:" "$d" "rds-e:" "$e"
	return $rc
}

ktap_plan 8
ktap_test "load rds_tcp; rds-a/rds-b and rds-c/rds-d with the same addresses" \
	setup || ktap_finished
ktap_test "rds-a -> 192.0.2.2:4000 reaches rds-b, not rds-d" only_to $A $B $D to-b
ktap_test "rds-c -> 192.0.2.2:4000 reaches rds-d, not rds-b" only_to $C $D $B to-d
ktap_test "loopback: rds-b -> own 192.0.2.2:4100 reaches rds-b, not rds-d" \
	only_to_self $B4
ktap_test "loopback: rds-b -> 127.0.0.1:4100 reaches rds-b, not rds-d" \
	only_to_self 127.0.0.1

# Sockets, one message queued, on loopback in rds-d, held until fd 5 closes.
exec 5> >(ip netns exec $D "$BIN/rds_hold" 127.0.0.1 >"$dir/hold" 2>&1)
for i in $(seq 100); do
	grep -q ready "$dir/hold" && break
	sleep 0.1
done
ktap_test "RDS_INFO: connections, sockets, queues of each netns only" info_isolated
ktap_test "RDS_INFO in a netns that never used RDS: no rows" empty_netns
ktap_test "every RDS_INFO table, paths and socket drops too: each netns its own" \
	tables_isolated
exec 5>&-
sleep 1
cleanup_netns
rm -rf "$dir"
ktap_finished
