#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One benchmark guest: one RDS stack, every workload of a profile, one JSON
# object a line on stdout, each prefixed "BENCH ". Run by bench/bench.sh.
#
#   bench/guest-bench.sh intree|ours PROFILE
#
# Two network namespaces joined by veth, as in the selftests: rds-stress's
# passive side in b, the active side in a. The limits of the same link come
# from iperf3 (a TCP stream) and sockperf (TCP ping-pong), when installed.

. "$(dirname "$0")/../selftests/lib.sh"

stack=$1
profile=$2
. "$RDS_ROOT/bench/profiles/$profile" || exit 1

A=192.0.2.1
B=192.0.2.2
ncpu=$(nproc)

emit() {
	echo "BENCH {\"stack\": \"$stack\", \"ncpu\": $ncpu, $1}"
}

load() {
	if [ "$stack" = intree ]; then
		intree_load
	else
		rds_load tcp
	fi
}

# stress NAME REQ DEPTH TASKS: one rds-stress run; its summary as a BENCH line.
stress() {
	local name=$1 req=$2 depth=$3 tasks=$4 port=$((4000 + RANDOM % 20000)) out

	# The passive side gets a deadline too: if the active side fails to
	# start, nothing would ever tell it to stop and wait would hang.
	in_netns bench-b timeout $((SECONDS_EACH + 90)) "$BIN/rds-stress" -r "$B" -p "$port" \
		--json >/dev/null 2>&1 &
	sleep 0.5
	out=$(in_netns bench-a timeout $((SECONDS_EACH + 60)) "$BIN/rds-stress" -s "$B" -r "$A" \
		-p "$port" -q "$req" -d "$depth" -t "$tasks" -T "$SECONDS_EACH" --json 2>&1 |
		grep '^{' | tail -n 1)
	wait
	if [ -z "$out" ]; then
		echo "bench: $name gave no result" >&2
		return 1
	fi
	emit "\"workload\": \"$name\", \"kind\": \"stress\", \"result\": $out"
}

# ping COUNT: rds-ping round trips, p50 and p99 in microseconds.
ping_lat() {
	local out
	out=$(in_netns bench-a "$BIN/rds-ping" -c "$1" -i 0.002 -I "$A" "$B" 2>/dev/null |
		sed -n 's/^ *[0-9]*: \([0-9]*\) usec$/\1/p' | sort -n)
	[ -n "$out" ] || { echo "bench: rds-ping gave nothing" >&2; return 1; }
	emit "\"workload\": \"rds-ping\", \"kind\": \"ping\", \"result\": $(pct_json <<<"$out")"
}

# pct_json: sorted numbers on stdin -> {"count", "mean_us", "p50_us", "p99_us"}.
pct_json() {
	awk '{ v[NR] = $1; sum += $1 } END {
		i50 = int(NR * 0.50 + 0.5); if (i50 < 1) i50 = 1
		i99 = int(NR * 0.99 + 0.5); if (i99 < 1) i99 = 1; if (i99 > NR) i99 = NR
		printf "{\"count\": %d, \"mean_us\": %.1f, \"p50_us\": %s, \"p99_us\": %s}", NR, sum / NR, v[i50], v[i99]
	}'
}

# The link's own limits, with the RDS modules out of the way. Each tool gets
# a hard time limit: a hung one must not hold the benchmark.
limits() {
	local out limit=$((SECONDS_EACH + 20))
	if command -v iperf3 >/dev/null; then
		in_netns bench-b timeout "$limit" iperf3 -s -1 -B "$B" >/dev/null 2>&1 &
		sleep 1
		out=$(in_netns bench-a timeout "$limit" iperf3 -c "$B" -t "$SECONDS_EACH" -J 2>/dev/null |
			python3 -c 'import json,sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"])' 2>/dev/null)
		wait
		[ -n "$out" ] && emit "\"workload\": \"tcp-stream\", \"kind\": \"limit\", \"result\": {\"bytes_per_sec\": $(awk -v b="$out" 'BEGIN { printf "%.0f", b / 8 }')}"
	fi
	if command -v sockperf >/dev/null; then
		in_netns bench-b timeout "$limit" sockperf server --tcp -i "$B" -p 11111 >/dev/null 2>&1 &
		sleep 1
		out=$(in_netns bench-a timeout "$limit" sockperf ping-pong --tcp -i "$B" -p 11111 \
			-t "$SECONDS_EACH" 2>&1 | tee /tmp/sockperf.log |
			sed -n 's/.*50.000 = *\([0-9.]*\).*/\1/p' | head -n 1)
		[ -n "$out" ] || sed 's/^/bench: sockperf: /' /tmp/sockperf.log >&2
		wait
		[ -n "$out" ] && emit "\"workload\": \"tcp-pingpong\", \"kind\": \"limit\", \"result\": {\"p50_us\": $out}"
	fi
	return 0
}

netns_pair bench-a bench-b "$A" "$B" || exit 1
[ "$stack" = ours ] && limits
load || exit 1
# Warm up: the first message sets up the connection and its paths.
ping_lat 5 >/dev/null
fails=0
for w in "${WORKLOADS[@]}"; do
	read -r name req depth tasks <<<"$w"
	stress "$name" "$req" "$depth" "$tasks" || fails=$((fails + 1))
done
ping_lat "$PINGS" || fails=$((fails + 1))
cleanup_netns
exit $((fails > 0))
