#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 90
# rds-ci-debug: run: pongs sent from the IB receive softirq (lockdep)
#
# Pongs over RDS/IB go out from the receive completion that took the ping,
# not from the send work (issue #27): rds-ping is answered and
# send_pong_direct counts each pong. Then a socket floods the other side
# with pings and never reads a pong, while messages of up to 1 MiB go
# both ways on the same connection: the flood is rate limited as over TCP
# (recv_ping_ratelimited), every message arrives exactly once and in
# order, and once the flood ends rds-ping is answered again.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ib_lib.sh"

N=$(ib_count 5000 1000)
cnt=$(mktemp)
trap 'rm -f "$cnt"' EXIT

# flood SRC DST N: N pings from one non-blocking socket pinned to IB that
# never reads; a full send buffer is waited out (POLLOUT), 60 s at most.
flood() {
	python3 - "$@" <<-'EOF'
	import select, socket, sys, time
	SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_IB = 276, 8, 0
	src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
	s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
	s.setsockopt(SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_IB)
	s.bind((src, 0))
	p = select.poll()
	p.register(s, select.POLLOUT)
	sent, end = 0, time.monotonic() + 60
	while sent < n and time.monotonic() < end:
	    try:
	        s.sendto(b'', socket.MSG_DONTWAIT, (dst, 0))
	        sent += 1
	    except (BlockingIOError, InterruptedError):
	        p.poll(100)
	    except OSError as e:
	        if e.errno != 105:	# ENOBUFS: the send buffer, as EAGAIN
	            raise
	        p.poll(100)
	print(f'pings sent: {sent} of {n}')
	sys.exit(sent != n)
	EOF
}

pong_direct() {
	local d0 p0 out

	d0=$(ib_counter send_pong_direct)
	p0=$(ib_counter send_pong)
	out=$("$BIN/rds-ping" -c 20 -i 0.05 -I $IA $IB) || return 1
	tail -n 2 <<<"$out"
	echo "send_pong: +$(($(ib_counter send_pong) - p0)), send_pong_direct: +$(($(ib_counter send_pong_direct) - d0))"
	[ $(($(ib_counter send_pong_direct) - d0)) -ge 20 ]
}

flood_beside_traffic() {
	local traffic ok=0

	echo "$(ib_counter recv_ping) $(ib_counter recv_ping_ratelimited)" >"$cnt"
	"$BIN/rds_traffic" -T ib -a $IA -b $IB -p 6100 -n "$(ib_count 2000 400)" \
		-m 32768 -M 1048576 -t 300 &
	traffic=$!
	flood $IA $IB "$N" || ok=1
	wait $traffic || { echo "rds_traffic failed"; ok=1; }
	echo "$(ib_counter recv_ping) $(ib_counter recv_ping_ratelimited)" >>"$cnt"
	return $ok
}

rate_limited() {
	local pings limited

	pings=$(($(awk 'NR == 2 { print $1 }' "$cnt") - $(awk 'NR == 1 { print $1 }' "$cnt")))
	limited=$(($(awk 'NR == 2 { print $2 }' "$cnt") - $(awk 'NR == 1 { print $2 }' "$cnt")))
	echo "pings received: $pings of $N, rate limited: $limited"
	[ "$pings" -ge "$N" ] && [ "$limited" -gt 0 ]
}

ktap_plan 5
ib_start "rxe pair and rds_rdma set up"
ib_first_ping "rds-ping over IB" 5 $IA $IB
ktap_test "each pong goes out from the receive path (send_pong_direct)" pong_direct
ktap_test "$N pings never read, beside messages of up to 1 MiB: nothing lost" \
	flood_beside_traffic || ib_diag
ktap_test "the flood was rate limited; rds-ping is answered after it" \
	bash -c "$(declare -f rate_limited ib_counter); cnt='$cnt' N=$N BIN='$BIN';
		 rate_limited && sleep 1 && '$BIN/rds-ping' -c 3 -i 0.2 -I $IA $IB"
ib_cleanup
ktap_finished
