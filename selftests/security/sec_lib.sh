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

