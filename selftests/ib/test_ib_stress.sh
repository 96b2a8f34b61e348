#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 180
#
# rds-stress in RDMA mode (-D) over the rxe pair: a passive instance on IB,
# an active one on IA, every ack doing an RDMA READ or WRITE on the buffer
# its request lent. Both JSON summaries must show RDMAs done both ways,
# every status a success, the data verified (-v) and nothing stray: with
# the classic defaults (RDS_CMSG_RDMA_MAP, use-once regions, fenced
# READs), with regions freed by RDS_FREE_MR, registered by RDS_GET_MR,
# cached for the whole run (several vectors, unaligned), READs only and
# WRITEs only; the passive instance on CPU 1, the active one on CPU 0.
# Then the classic columns, and -D on a transport without RDMA: one clear
# line, EOPNOTSUPP.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ib_lib.sh"

if [ "$RDS_PROFILE" = short ]; then
	SECS=2
else
	SECS=5
fi

listens() {
	[ -n "$(ss -Hltn "sport = :$1")" ]
}

wait_listen() {
	local i
	for i in $(seq 100); do
		listens "$1" && return 0
		sleep 0.1
	done
	echo "nobody listens on $1"
	return 1
}

# check_json WHO [MODE]: the JSON summary on stdin shows RDMA both ways
# (or MODE's only), all successful, verified, nothing stray or failed.
check_json() {
	python3 -c '
import json, sys
who, mode = sys.argv[1], sys.argv[2]
lines = [l for l in sys.stdin if l.startswith("{")]
if len(lines) != 1:
    sys.exit("%s: no JSON summary" % who)
j = json.loads(lines[0])
zero = ["verify_errors", "rdma_verify_errors", "rdma_status_remote_error",
        "rdma_status_canceled", "rdma_status_dropped",
        "rdma_status_other_error", "rdma_stray_statuses", "rdma_bad"]
some = ["rx_msgs", "rdma_acked", "rdma_status_success", "rdma_verified",
        "rdma_in_bytes", "rdma_out_bytes", "rdma_mrs"]
some += {"both": ["rdma_reads", "rdma_writes"], "read": ["rdma_reads"],
         "write": ["rdma_writes"]}[mode]
if mode == "read":
    zero.append("rdma_writes")
if mode == "write":
    zero.append("rdma_reads")
bad = [k for k in zero if j[k]] + [k for k in some if not j[k]]
print("%s: %d READs, %d WRITEs, %d acked, %d verified, %d regions" % (
    who, j["rdma_reads"], j["rdma_writes"], j["rdma_acked"],
    j["rdma_verified"], j["rdma_mrs"]))
if bad:
    sys.exit("%s: wrong: %s" % (who, ", ".join(
        "%s=%s" % (k, j[k]) for k in bad)))
' "$@"
}

# stress PORT MODE ARGS...: a passive rds-stress and an active one with
# -v --json and ARGS; both must pass check_json.
stress() {
	local port=$1 mode=$2 log out rc pid
	shift 2
	log=$(mktemp)
	$ON_CPU1 "$BIN/rds-stress" -r $IB -p "$port" --json >"$log" 2>&1 &
	pid=$!
	wait_listen "$port" || { kill $pid; rm -f "$log"; return 1; }
	out=$($ON_CPU0 timeout 120 "$BIN/rds-stress" -s $IB -r $IA -p "$port" -T $SECS -v --json \
	      "$@" 2>&1)
	rc=$?
	wait $pid || rc=1
	echo "$out" | grep -v '^{' | sed 's/^/active: /'
	grep -v '^{' "$log" | sed 's/^/passive: /'
	echo "$out" | check_json active "$mode" || rc=1
	check_json passive "$mode" <"$log" || rc=1
	[ $rc = 0 ] || { echo "$out"; cat "$log"; }
	rm -f "$log"
	return $rc
}

# The per-second lines and the summary: RDMA in and out are not 0.
columns() {
	local out rc
	"$BIN/rds-stress" -r $IB -p 4700 -z >/dev/null 2>&1 &
	wait_listen 4700 || return 1
	out=$("$BIN/rds-stress" -s $IB -r $IA -p 4700 -T $SECS -D 32K --rdma-key-o-meter 2>&1)
	rc=$?
	wait $! || rc=1
	echo "$out"
	echo "$out" | tail -n 1 |
		awk '{ exit !($5 > 0 && $6 > 0) }' || { echo "mbi or mbo is 0"; rc=1; }
	return $rc
}

# Without rds_rdma the sockets are on TCP: both sides say why, once.
no_rdma() {
	local out rc log
	rds_unload && rds_load tcp || return 1
	log=$(mktemp)
	"$BIN/rds-stress" -r $IB -p 4800 >"$log" 2>&1 &
	wait_listen 4800 || return 1
	out=$("$BIN/rds-stress" -s $IB -r $IA -p 4800 -T 1 -D 4K 2>&1)
	rc=$?
	wait $!
	rc="$rc $?"
	echo "active: $out"
	echo "passive: $(cat "$log")"
	[ "$rc" = "1 1" ] && [ "$(echo "$out" | wc -l)" = 1 ] &&
		echo "$out" | grep -q 'TCP.*EOPNOTSUPP' &&
		grep -q 'TCP.*EOPNOTSUPP' "$log"
	rc=$?
	rm -f "$log"
	return $rc
}

ktap_plan 11
ib_start "rxe pair and rds_rdma set up"

if ! ktap_test "rds-ping over IB, both ways" ib_both_warm; then
	ib_diag
	ib_cleanup
	while [ $ktap_num -lt 11 ]; do
		ktap_fail "not run: no RDS/IB connection"
	done
	ktap_finished
fi

ktap_test "-D 64K: RDMA_MAP, use-once, fenced READs" \
	stress 4100 both -D 64K || ib_diag
ktap_test "--rdma-use-once 0: RDS_FREE_MR after each ack" \
	stress 4150 both -D 64K -t 2 -d 2 --rdma-use-once 0 || ib_diag
ktap_test "--rdma-use-get-mr 1: RDS_GET_MR and RDMA_DEST" \
	stress 4200 both -D 64K --rdma-use-get-mr 1 || ib_diag
ktap_test "--rdma-use-get-mr 1 --rdma-use-once 0" \
	stress 4250 both -D 16K -d 4 --rdma-use-get-mr 1 --rdma-use-once 0 || ib_diag
ktap_test "--rdma-cache-mrs 1, -I 4, --rdma-alignment 100, 2 tasks" \
	stress 4300 both -D 10000 -I 4 -t 2 -d 4 --rdma-cache-mrs 1 \
	--rdma-alignment 100 || ib_diag
ktap_test "-M 1: 1M READs only" stress 4400 read -D 1M -M 1 || ib_diag
ktap_test "-M 2: WRITEs only, 3 vectors of 1 byte" \
	stress 4500 write -D 1 -I 3 -M 2 -d 8 || ib_diag
ktap_test "classic columns: RDMA in and out" columns || ib_diag
ktap_test "-D on TCP: one line each side, EOPNOTSUPP" no_rdma

ib_cleanup
ktap_finished
