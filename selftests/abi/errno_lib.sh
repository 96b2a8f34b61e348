# SPDX-License-Identifier: GPL-2.0
#
# Runs build/bin/rds_errno (selftests/abi/rds_errno.c) and diffs its output
# against the golden file made from the in-tree modules,
# selftests/abi/rds_errno.golden. selftests/abi/test_errno.sh runs it on our
# stack, selftests/intree/test_errno.sh on the in-tree one: a change of
# either side's errnos fails one of them.
#
# rds.ko must be loaded and rds_tcp not: the program's first case loads it
# through SO_RDS_TRANSPORT. Source it after lib.sh and modprobe_lib.sh.

ERRNO_GOLDEN=$RDS_ROOT/selftests/abi/rds_errno.golden
ERRNO_OURS=$RDS_ROOT/selftests/abi/rds_errno.ours

# This namespace's end of a veth pair has 192.0.2.1 and fd00::1, the other end
# (in netns rds-peer) 192.0.2.2 and fd00::2: a TCP capable local address.
errno_link() {
	ip netns add rds-peer || return 1
	ip link add rdse0 type veth peer name veth0 netns rds-peer || return 1
	ip addr add 192.0.2.1/24 dev rdse0
	ip addr add fd00::1/64 dev rdse0 nodad
	ip -n rds-peer addr add 192.0.2.2/24 dev veth0
	ip -n rds-peer addr add fd00::2/64 dev veth0 nodad
	ip link set rdse0 up
	ip -n rds-peer link set veth0 up
	ip -n rds-peer link set lo up
}

# The golden file with our deliberate differences (rds_errno.ours) in
# place of in-tree's lines; a difference naming no case of the golden
# file is stale and fails.
errno_expected_ours() {
	awk 'NR == FNR { if (NF && $1 !~ /^#/) { k = $1; $1 = ""; d[k] = substr($0, 2) } next }
	     $1 in d { print $1, d[$1]; seen[$1] = 1; next }
	     { print }
	     END { for (k in d) if (!(k in seen)) { print "stale difference " k > "/dev/stderr"; exit 1 } }' \
		"$ERRNO_OURS" "$ERRNO_GOLDEN"
}

# errno_compare OUT [--ours]: diff OUT against the golden file (with our
# deliberate differences applied, --ours); print OUT whole when there is
# no golden file yet (to make one from an in-tree run).
errno_compare() {
	local want rc=0
	if [ ! -e "$ERRNO_GOLDEN" ]; then
		echo "no $ERRNO_GOLDEN; this run's output:"
		sed 's/^/golden: /' "$1"
		return 1
	fi
	want=$(mktemp)
	if [ "$2" = --ours ]; then
		errno_expected_ours >"$want" || rc=1
	else
		cp "$ERRNO_GOLDEN" "$want"
	fi
	diff -u "$want" "$1" || rc=1
	rm -f "$want"
	return $rc
}

# errno_run [--ours]
errno_run() {
	local out rc=0
	out=$(mktemp)
	timeout 60 "$BIN/rds_errno" 192.0.2.1 192.0.2.2 fd00::1 fd00::2 >"$out" 2>&1 ||
		{ echo "rds_errno failed or hung (exit $?)"; rc=1; }
	errno_compare "$out" "$1" || rc=1
	rm -f "$out"
	return $rc
}

# SO_RDS_TRANSPORT asked for rds_tcp, which is loaded now, and for
# rds_rdma, which could not be.
errno_requests() {
	local log
	log=$(modprobe_wrap_log | tr '\n' ';')
	echo "module requests: $log"
	case $log in *rds_tcp*) ;; *) echo "no request for rds_tcp"; return 1 ;; esac
	case $log in *rds_rdma*) ;; *) echo "no request for rds_rdma"; return 1 ;; esac
	[ -e /sys/module/rds_tcp ] || { echo "rds_tcp not loaded"; return 1; }
	[ ! -e /sys/module/rds_rdma ] || { echo "rds_rdma loaded"; return 1; }
}
