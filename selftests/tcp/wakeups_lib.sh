# SPDX-License-Identifier: GPL-2.0
#
# One burst of rds_wakeups.py and its checks, for test_wakeups.sh (RDS/TCP)
# and selftests/ib/test_ib_wakeups.sh (RDS/IB).

WAKEUPS_TOOL=$(dirname "${BASH_SOURCE[0]}")/rds_wakeups.py
wakeups_port=4700

# wakeups_run COUNTER RECV_NS SEND_NS MODE SRC DST COUNT [TOOL_ARGS...]:
# a burst of COUNT messages a pair from SRC to DST, read the MODE way,
# the receiver in netns RECV_NS and the sender in SEND_NS ("-": the
# current one); TOOL_ARGS go before the tool's command (--ib). COUNTER
# is the function that reads an RDS counter. Leaves the counters' moves
# in queued and woken. Fails when either side does, when fewer messages
# were queued than sent, or when there were more wakeups than messages.
wakeups_run() {
	local counter=$1 rns=$2 sns=$3 mode=$4 src=$5 dst=$6 count=$7
	local q0 w0 server rc=0 log=/tmp/wakeups-recv.log

	shift 7
	wakeups_port=$((wakeups_port + 4))
	q0=$($counter recv_queued)
	w0=$($counter recv_wakeups)
	in_netns "$rns" python3 "$WAKEUPS_TOOL" "$@" recv "$dst" $wakeups_port \
		"$mode" "$count" >$log 2>&1 &
	server=$!
	for _ in $(seq 50); do
		grep -q ready $log && break
		sleep 0.2
	done
	in_netns "$sns" python3 "$WAKEUPS_TOOL" "$@" send "$src" "$dst" \
		$wakeups_port "$count" || rc=1
	wait $server || rc=1
	grep -v '^ready$' $log | sed 's/^/# /'
	queued=$(($($counter recv_queued) - q0))
	woken=$(($($counter recv_wakeups) - w0))
	echo "# recv_queued +$queued, recv_wakeups +$woken"
	if [ "$queued" -lt $((3 * count)) ] || [ "$woken" -gt "$queued" ]; then
		echo "# fewer messages than sent, or more wakeups than messages"
		rc=1
	fi
	return $rc
}
