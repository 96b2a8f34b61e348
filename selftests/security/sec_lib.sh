# SPDX-License-Identifier: GPL-2.0
#
# Shared by the security tests. Source after ../lib.sh and ../tcp/tcp_lib.sh.
# rds-a (192.0.2.1) plays the peer: a hand-made one (rds_rawpeer.py), which
# connects to rds-b since rds-b, with the larger address, accepts.

RAWPEER="python3 $(dirname "${BASH_SOURCE[0]}")/rds_rawpeer.py"

# sec_setup: our rds_tcp, the netns pair, no connection yet.
sec_setup() {
	rds_load tcp && netns_pair $A $B $A4 $B4 $A6 $B6
}

# rawpeer ARGS...: rds_rawpeer.py in rds-a, from 192.0.2.1 to 192.0.2.2.
rawpeer() {
	local cmd=$1
	shift
	timeout 60 ip netns exec $A $RAWPEER "$cmd" $A4 $B4 "$@"
}

# counter NAME: the value of an RDS_INFO_COUNTERS counter (0 if unknown).
counter() {
	"$BIN/rds-info" -c | awk -v n="$1" '$1 == n { v = $2 } END { print v + 0 }'
}

# listen NS ADDR PORT SECS [COUNT]: bind, print "bound", then every message
# that arrives within SECS seconds, one a line, until then or, given COUNT,
# until COUNT have arrived: a generous limit then costs nothing when all
# goes well. A message that brought an RDS_CMSG_RDMA_DEST (the sender's
# RDS_EXTHDR_RDMA_DEST) has " rdma_dest=COOKIE" after it.
listen() {
	ip netns exec "$1" python3 - "$2" "$3" "$4" "${5:-0}" <<-'PY'
	import socket, struct, sys, time
	SOL_RDS, RDS_CMSG_RDMA_DEST = 276, 2
	s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
	s.bind((sys.argv[1], int(sys.argv[2])))
	print("bound", flush=True)
	end = time.time() + float(sys.argv[3])
	left = int(sys.argv[4]) or -1
	while time.time() < end and left != 0:
	    left -= 1
	    s.settimeout(max(end - time.time(), 0.01))
	    try:
	        data, anc, _, _ = s.recvmsg(65536, socket.CMSG_SPACE(8))
	    except socket.timeout:
	        break
	    dest = "".join(" rdma_dest=%#x" % struct.unpack("=Q", d)[0]
	                   for level, kind, d in anc
	                   if (level, kind) == (SOL_RDS, RDS_CMSG_RDMA_DEST))
	    print(data.decode(errors="replace") + dest, flush=True)
	PY
}

# wait_bound LOG: until the listener writing LOG has bound (at most 10 s).
wait_bound() {
	local i
	for i in $(seq 100); do
		grep -q '^bound' "$1" && return 0
		sleep 0.1
	done
	return 1
}
