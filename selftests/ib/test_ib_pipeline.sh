#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 25
#
# selftests/tcp/test_pipeline.sh over RDS/IB (the rxe pair of ib_lib.sh):
# buffers of 2 KiB, 8 messages of 64 bytes in flight to an echoing peer,
# blocking, with poll and with epoll; no wait over 100 ms after an
# answer (500 in the short profile), no send refused.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ib_lib.sh"

n=$(ib_count 2000 500)
port=4600
# The debug kernel (the short profile) takes tens of ms for one send.
bound=$([ "$RDS_PROFILE" = short ] && echo 500 || echo 100)

pipeline() {
	port=$((port + 2))
	"$BIN/rds_pipeline" -T ib -a $IA -b $IB -p $port -n "$n" -d 8 -s 64 -S 2048 -w "$bound" \
		-W $((n / 1000)) "$@" ||
		{ ib_diag; return 1; }
}

ktap_plan 5
ib_start "rxe pair and rds_rdma set up"
if ! ktap_test "rds-ping over IB, both ways" ib_both_warm; then
	ib_diag
	ib_cleanup
	ktap_finished
fi
ktap_test "non-blocking, poll" pipeline -m poll
ktap_test "non-blocking, epoll" pipeline -m epoll
ktap_test "blocking" pipeline -m block
"$BIN/rds-info" -c | grep -E '^ *(cong_update_queued|cong_send_error|send_queue_full) ' |
	sed 's/^ */# /'
ib_cleanup
ktap_finished
