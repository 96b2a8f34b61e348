# SPDX-License-Identifier: GPL-2.0
#
# The counter names of the in-tree 6.1 RDS_INFO_COUNTERS (net/rds/stats.c),
# which scripts reading `rds-info -c` look for. selftests/abi/test_counters.sh
# checks that ours has every one, selftests/intree/test_counters.sh that the
# list is in-tree's. Source it after lib.sh; rds.ko must be loaded.

INTREE_COUNTERS="conn_reset recv_drop_bad_checksum recv_drop_old_seq
recv_drop_no_sock recv_drop_dead_sock recv_deliver_raced recv_delivered
recv_queued recv_immediate_retry recv_delayed_retry recv_ack_required
recv_rdma_bytes recv_ping send_queue_empty send_queue_full
send_lock_contention send_lock_queue_raced send_immediate_retry
send_delayed_retry send_drop_acked send_ack_required send_queued send_rdma
send_rdma_bytes send_pong page_remainder_hit page_remainder_miss copy_to_user
copy_from_user cong_update_queued cong_update_received cong_send_error
cong_send_blocked recv_bytes_added_to_sock recv_bytes_freed_fromsock
send_stuck_rm"

counters_have_intree_names() {
	local names name rc=0
	names=$("$BIN/rds-info" -c | awk 'NF == 2 { print $1 }') || return 1
	for name in $INTREE_COUNTERS; do
		if ! echo "$names" | grep -qx "$name"; then
			echo "no counter $name"
			rc=1
		fi
	done
	return $rc
}

# counters_count_bytes: over the loopback, three messages of 1000 bytes to
# a socket that reads one, peeks at one and closes with two unread. In
# bytes, as in-tree counts them: copy_to_user grows by the 2000 read and
# peeked, recv_bytes_freed_fromsock by all 3000, the two thrown away at
# close included. An RDS/TCP module must be loaded (it takes 127.0.0.1).
counters_count_bytes() {
	python3 - "$BIN/rds-info" <<-'EOF'
	import socket, subprocess, sys, time
	def counters():
	    out = subprocess.run([sys.argv[1], "-c"], capture_output=True, text=True).stdout
	    return {l.split()[0]: int(l.split()[1]) for l in out.splitlines()
	            if len(l.split()) == 2 and l.split()[1].isdigit()}
	s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
	r = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
	s.bind(("127.0.0.1", 4900))
	r.bind(("127.0.0.1", 4901))
	before = counters()
	for _ in range(3):
	    s.sendto(b"x" * 1000, ("127.0.0.1", 4901))
	r.settimeout(5)
	r.recv(2000)
	r.recv(2000, socket.MSG_PEEK)
	end = time.time() + 5
	while counters()["recv_queued"] - before["recv_queued"] < 3 and time.time() < end:
	    time.sleep(0.05)
	r.close()
	after = counters()
	d = {k: after[k] - before[k] for k in ("copy_to_user", "recv_bytes_freed_fromsock",
	                                       "recv_queued")}
	print("# counters grew by", d)
	sys.exit(0 if d == {"copy_to_user": 2000, "recv_bytes_freed_fromsock": 3000,
	                    "recv_queued": 3} else 1)
	EOF
}
