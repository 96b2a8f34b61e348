# SPDX-License-Identifier: GPL-2.0
#
# A dead peer costs only its own traffic (issue 26), on any transport:
# tcp/test_deadpeer.sh and ib/test_ib_deadpeer.sh set up A, X and Y, then
# call deadpeer_tests. One socket on A sends to X and Y; then every packet
# to and from X is dropped (both ways: X's process lives, its host is
# silent) and later let through again:
#  - while X is silent, the socket's rate to Y keeps at least half of what
#    it was with X healthy (a stall is 0/s; see dp_rate_to_y_kept for why
#    not 10%); its sends to X are refused (EAGAIN, non-blocking)
#    once X holds its share of the send buffer, and at most one in a
#    hundred to Y is (see dp_refusals); a blocking send to X waits
#    (SO_SNDTIMEO), one to Y does not;
#  - a path of X is declared down within interval + timeout + one
#    interval: by heartbeats (1 s interval, 2 s timeout, counted in
#    conn_heartbeat_timeout) or, over RDS/IB, by the QP's own retries
#    when they end first (rxe's do on 6.12), counted in conn_reset;
#  - X back, the path reconnects and every message sent to X and to Y
#    arrives exactly once and in order;
#  - with net.rds.sndbuf_dests at 1 (in-tree's one sum per socket) the same
#    silence stops the sends to Y: the test sees the harm it guards against.
#
# The test sets DP_NS_A, DP_NS_X, DP_NS_Y (netns names, "-" for the
# guest's own), DP_A, DP_X, DP_Y (their addresses) and defines
# dp_silence_x add|del. Source after ../lib.sh.

DP_PORT=4000
DP_SIZE=1024
DP_INTERVAL=1
DP_TIMEOUT=2
DP_TOOL=$(dirname "${BASH_SOURCE[0]}")/rds_deadpeer.py
dp_dir=$(mktemp -d)
dp_old_sysctls=

dp_sysctl() {
	dp_old_sysctls+=" $1=$(sysctl -n "$1")"
	sysctl -qw "$1=$2"
}

# dp_heartbeats_on: what deadpeer_tests expects of the heartbeats.
dp_heartbeats_on() {
	dp_sysctl net.rds.conn_heartbeat_interval_secs $DP_INTERVAL &&
	dp_sysctl net.rds.conn_heartbeat_timeout_secs $DP_TIMEOUT
}

dp_restore() {
	local s f

	# Whatever a failed point left running holds sockets, and so rds.ko.
	for f in "$dp_dir"/*.pid; do
		[ -e "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	wait
	for s in $dp_old_sysctls net.rds.sndbuf_dests=4; do
		sysctl -qw "$s"
	done
	rm -rf "$dp_dir"
}

# dp_counter NAME: an RDS counter (they are global, not per netns).
dp_counter() {
	rds_counter "$1" "$DP_NS_A"
}

# dp_downs: paths declared down so far, by heartbeats or by resets; one
# rds-info, which takes a second or more on the debug kernel.
dp_downs() {
	in_netns "$DP_NS_A" "$BIN/rds-info" -c |
		awk '$1 == "conn_heartbeat_timeout" || $1 == "conn_reset" { n += $2 } END { print n + 0 }'
}

# dp_ns NS: the words that run a command in NS, for one put in the
# background, whose $! must be the command itself (a function's would be
# a subshell, which a signal kills).
dp_ns() {
	[ "$1" = - ] || echo "ip netns exec $1"
}

dp_start_receivers() {
	# shellcheck disable=SC2046 # dp_ns gives words
	$(dp_ns "$DP_NS_X") python3 "$DP_TOOL" recv "$DP_X" $DP_PORT >"$dp_dir/recv-x" 2>&1 &
	echo $! >"$dp_dir/recv-x.pid"
	# shellcheck disable=SC2046
	$(dp_ns "$DP_NS_Y") python3 "$DP_TOOL" recv "$DP_Y" $DP_PORT >"$dp_dir/recv-y" 2>&1 &
	echo $! >"$dp_dir/recv-y.pid"
	for _ in $(seq 100); do
		grep -q ready "$dp_dir/recv-x" && grep -q ready "$dp_dir/recv-y" && return 0
		sleep 0.1
	done
	cat "$dp_dir"/recv-*
	return 1
}

# dp_run_phases HEALTHY SILENT BACK: the sender's three phases, X silent
# in the second (the blocking check halfway through it); the time from
# the silence to the first path declared down goes to $dp_dir/declared
# (or "never") as two figures: when the last poll that saw none began,
# and when the one that saw it ended; the path went down between them.
dp_run_phases() {
	local before t0 now prev mid='' pid

	# shellcheck disable=SC2046
	$(dp_ns "$DP_NS_A") python3 "$DP_TOOL" send "$DP_A" $DP_PORT $DP_SIZE "$DP_X" "$DP_Y" \
		>"$dp_dir/send" 2>&1 &
	pid=$!
	echo $pid >"$dp_dir/send.pid"
	for _ in $(seq 100); do
		grep -q ready "$dp_dir/send" && break
		sleep 0.1
	done
	sleep "$1"
	before=$(dp_downs)
	dp_silence_x add || return 1
	kill -USR1 $pid
	t0=$(date +%s%N)
	prev=$t0
	echo never >"$dp_dir/declared"
	while now=$(date +%s%N); [ $(((now - t0) / 1000000)) -lt $(($2 * 1000)) ]; do
		if [ -z "$mid" ] && [ $(((now - t0) / 1000000)) -ge $(($2 * 500)) ]; then
			kill -USR2 $pid
			mid=1
		fi
		if [ "$(cat "$dp_dir/declared")" = never ]; then
			if [ "$(dp_downs)" -gt "$before" ]; then
				echo "$(((prev - t0) / 1000000)) $((($(date +%s%N) - t0) / 1000000))" \
					>"$dp_dir/declared"
			fi
			prev=$now
		fi
		sleep 0.2
	done
	# An iteration that began before the halfway mark and ended after the
	# silence (a slow kernel) left the blocking check out.
	if [ -z "$mid" ]; then
		kill -USR2 $pid
		sleep 1
	fi
	dp_silence_x del || return 1
	kill -USR1 $pid
	sleep "$3"
	kill -USR1 $pid
	for _ in $(seq 100); do
		grep -q phases "$dp_dir/send" && break
		sleep 0.1
	done
	grep phases "$dp_dir/send" >"$dp_dir/result" || { cat "$dp_dir/send"; return 1; }
	cat "$dp_dir/result"
}

# dp_drained: the sender's socket has nothing queued (what X missed went
# again once it was back), within 90 s; then everyone stops and the
# receivers report.
dp_drained() {
	local n rc=1

	for _ in $(seq 450); do
		if ! in_netns "$DP_NS_A" "$BIN/rds-info" -s -t | grep -qwF -e "$DP_X" -e "$DP_Y"; then
			rc=0
			break
		fi
		sleep 0.2
	done
	kill "$(cat "$dp_dir/send.pid")"
	for n in x y; do
		kill "$(cat "$dp_dir/recv-$n.pid")"
	done
	wait
	if [ $rc != 0 ]; then
		echo "messages still queued after 90 s"
		in_netns "$DP_NS_A" "$BIN/rds-info" -n -v
		in_netns "$DP_NS_A" "$BIN/rds-info" -s -t | head -n 12
		in_netns "$DP_NS_A" "$BIN/rds-info" -c | grep -E 'conn_|send_|ib_' | grep -v ' 0$'
		dmesg | grep -i rds | tail -n 20
	fi
	return $rc
}

# dp_py EXPR: EXPR over the sender's result (r) and the receivers' (x, y).
dp_py() {
	python3 - "$dp_dir" "$1" <<-'EOF'
	import json, sys
	d = sys.argv[1]
	def load(f):
	    for line in open(d + '/' + f):
	        if line.startswith('{'):
	            return json.loads(line)
	    return {}
	r, x, y = load('result'), load('recv-x'), load('recv-y')
	x, y = next(iter(x.values()), {}), next(iter(y.values()), {})
	def rate(p, who):
	    return r['phases'][p][who][0] / r['phases'][p]['secs']
	def refused_share(p, who):
	    sent, refused = r['phases'][p][who][0], sum(r['phases'][p][who][1:])
	    return refused / max(1, sent + refused)
	print(eval(sys.argv[2]))
	EOF
}

# The two rates come from phases seconds apart, and a guest's share of a
# busy host moves more than 10% between them: in a CI-like run (6.12,
# short profile, five guests on two cores) 669/s fell to 596/s with no
# refusal to Y at all. What the silence must not do is stall Y (with one
# sum per socket it goes to 0/s, the last point); half tells the two apart
# on any host. dp_refusals shows that no send to Y waited.
dp_rate_to_y_kept() {
	echo "to Y: $(dp_py 'round(rate(0, "y"))')/s with X healthy, $(dp_py 'round(rate(1, "y"))')/s with X silent"
	[ "$(dp_py 'rate(1, "y") >= 0.5 * rate(0, "y")')" = True ]
}

# Y is healthy, but the sender is faster than Y's acks now and then, as
# it is X's with X healthy (a few refusals in the first phase): Y's own
# share of the send buffer full for a moment is Y's back-pressure, not
# X's harm. One refusal to Y in 5,658 sends failed a CI run that asked
# for none. X's harm would show as Y refused again and again: more often
# than with X healthy. On a loaded host (two make checks side by side,
# rxe's softirq slow to ack) Y saw 0.7 % refused with X healthy and 1.1 %
# with X silent, and on the debug kernel 3.0 % and 1.4 %, then 0.2 % and
# 1.5 % (Y ran at 85 msg/s with X silent against 59 with X healthy: the
# sender, free of X, filled Y's share more often). A shared budget, the
# harm this guards against, refuses nearly every send to Y (the last
# point: Y's rate falls below a tenth): the bound is 5 % or twice what Y
# saw with X healthy, whichever is more.
dp_refusals() {
	echo "refused with X healthy: to Y $(dp_py 'r["phases"][0]["y"][1:]') of $(dp_py 'r["phases"][0]["y"][0]') sent to Y"
	echo "refused while X was silent: to X $(dp_py 'r["phases"][1]["x"][1:]'), to Y $(dp_py 'r["phases"][1]["y"][1:]') (EAGAIN, ENOBUFS) of $(dp_py 'r["phases"][1]["y"][0]') sent to Y"
	[ "$(dp_py 'r["phases"][1]["x"][1] > 0 and refused_share(1, "y") <= max(0.05, 2 * refused_share(0, "y"))')" = True ]
}

# Halfway through the silence: a send to X waits its SO_SNDTIMEO (0.5 s)
# and fails with ETIMEDOUT, POLLOUT stays off meanwhile (X was refused last),
# and a blocking send to Y goes at once.
dp_blocking_waits_for_x_only() {
	echo "blocking: $(dp_py 'r["blocking"]')"
	[ "$(dp_py 'r["blocking"]["x"] == "ETIMEDOUT" and r["blocking"]["x_waited"] >= 0.45 and not r["blocking"]["pollout"] and r["blocking"]["y"] == "sent" and r["blocking"]["y_waited"] < 0.45')" = True ]
}

# A poll is one rds-info, a fraction of a second on a loaded guest (CI
# saw 4,032 ms against the bound of 4,000 when the poll that found the
# path down began): the path is in time if it may have gone down by the
# bound, that is, if the last poll that saw it up began by then.
dp_declared_in_time() {
	local after by bound=$(((2 * DP_INTERVAL + DP_TIMEOUT) * 1000))

	read -r after by <"$dp_dir/declared"
	if [ "$after" = never ]; then
		echo "never declared down (bound ${bound} ms)"
		return 1
	fi
	echo "declared down between ${after} and ${by} ms after the silence began (bound ${bound} ms)"
	[ "$after" -le $bound ]
}

dp_exactly_once() {
	echo "X got $(dp_py 'x') of $(dp_py 'r["sent"]["x"]'), Y got $(dp_py 'y') of $(dp_py 'r["sent"]["y"]')"
	[ "$(dp_py 'all(p["n"] == p["last"] == r["sent"][k] and not p["disorder"] for k, p in (("x", x), ("y", y)))')" = True ]
}

# With one sum per socket, X's backlog stops Y too: in the silent phase Y
# gets less than a tenth of its healthy rate.
dp_one_sum_stalls() {
	sysctl -qw net.rds.sndbuf_dests=1
	dp_start_receivers && dp_run_phases 3 4 1 >/dev/null && dp_drained || return 1
	echo "sndbuf_dests=1: to Y $(dp_py 'round(rate(0, "y"))')/s with X healthy, $(dp_py 'round(rate(1, "y"))')/s with X silent"
	[ "$(dp_py 'rate(1, "y") < 0.1 * rate(0, "y")')" = True ]
}

# deadpeer_tests: the six points after the test's setup.
deadpeer_tests() {
	if dp_start_receivers && dp_run_phases 5 8 3 && dp_drained; then
		ktap_test "X silent: the rate to Y keeps at least half" dp_rate_to_y_kept
		ktap_test "X silent: sends to X refused, to Y hardly any" dp_refusals
		ktap_test "X silent: a blocking send waits for X only; no POLLOUT" \
			dp_blocking_waits_for_x_only
		ktap_test "X's path declared down in time" dp_declared_in_time
		ktap_test "X back: every message to X and Y once, in order" dp_exactly_once
	else
		for _ in 1 2 3 4 5; do
			ktap_fail "the sender and receivers ran"
		done
	fi
	ktap_test "in-tree's accounting (sndbuf_dests=1): X stalls Y" dp_one_sum_stalls
	dp_restore
}
