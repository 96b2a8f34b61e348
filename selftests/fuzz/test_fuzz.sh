#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 115
#
# rds_fuzz over loopback and RDS/TCP: its threads split between netns rds-a
# and rds-b, sharing their sockets, as root; then a shorter run as nobody.
# What fails the test is the kernel (run-guest.sh checks dmesg and
# kmemleak, run_tests.sh that the modules still unload) or a stack that no
# longer carries a message afterwards.
#
#   RDS_FUZZ_SEED     the seed (default: the time); printed either way
#   RDS_FUZZ_SECONDS  the root run's length (default 30, 15 with
#                     RDS_PROFILE=short); the nobody run gets a quarter

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../tcp/tcp_lib.sh"

if [ "$RDS_PROFILE" = short ]; then
	secs=${RDS_FUZZ_SECONDS:-15}
else
	secs=${RDS_FUZZ_SECONDS:-30}
fi
seed=${RDS_FUZZ_SEED:-$(date +%s)}
addrs=(-a $A4 -a $B4 -a $A6 -a $B6 -a 127.0.0.1 -a ::1 -a 0.0.0.0)

fuzz_root() {
	"$BIN/rds_fuzz" -s "$seed" -t "$secs" -j 4 \
		-N /run/netns/$A -N /run/netns/$B "${addrs[@]}"
}

# As nobody the threads cannot change netns: all of them in rds-a.
fuzz_nobody() {
	ip netns exec $A setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$BIN/rds_fuzz" -s "$((seed + 1))" -t "$((secs / 4 + 1))" -j 3 "${addrs[@]}"
}

# after_fuzz: an exchange over IPv4 and a ping over IPv6 between rds-a
# and rds-b, tried three times 10 s apart. On failure, the connection and
# queue tables of both sides, for the report.
after_fuzz() {
	local ns try

	for try in 1 2 3; do
		rds_exchange $A $A4 $B $B4 4100 "after-fuzz-$try" &&
			ip netns exec $A "$BIN/rds-ping" -c 2 -i 0.2 -I $A6 $B6 >/dev/null &&
			{ echo "traffic works (try $try)"; return 0; }
		sleep 10
	done
	for ns in $A $B; do
		echo "--- $ns"
		ip netns exec $ns "$BIN/rds-info" -a -n -s -T | grep -v "127.0.0.1\|::1"
		ip netns exec $ns "$BIN/rds-info" -c | awk '$2 != 0'
	done
	return 1
}

echo "seed $seed (RDS_FUZZ_SEED=$seed to run it again)"
ktap_plan 4
ktap_test "load rds_tcp, netns pair" tcp_setup || ktap_finished
ktap_test "rds_fuzz as root, seed $seed, ${secs}s, two netns" fuzz_root
ktap_test "rds_fuzz as nobody, seed $((seed + 1))" fuzz_nobody
ktap_test "messages still get through afterwards, IPv4 and IPv6" after_fuzz
cleanup_netns
ktap_finished
