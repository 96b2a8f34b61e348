#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 85
#
# Trinity, Debian's syscall fuzzer, on AF_RDS sockets only (-P RDS) and the
# socket calls, as root and as nobody, with a fixed seed printed so that a
# failure can be run again. A generic fuzzer finds other things than
# rds_fuzz: flags and argument shapes nobody thought of. Skipped when
# trinity is not installed (apt-get install trinity).
#
#   RDS_TRINITY_SEED  the seed (default: the time)
#   RDS_TRINITY_OPS   syscalls per run (default 1000, 300 with
#                     RDS_PROFILE=short)

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../tcp/tcp_lib.sh"

command -v trinity >/dev/null || { echo "trinity not installed"; exit $KSFT_SKIP; }

if [ "$RDS_PROFILE" = short ]; then
	ops=${RDS_TRINITY_OPS:-300}
else
	ops=${RDS_TRINITY_OPS:-1000}
fi
seed=${RDS_TRINITY_SEED:-$(date +%s)}
calls=(socket bind connect sendto recvfrom sendmsg recvmsg sendmmsg recvmmsg
	setsockopt getsockopt getsockname getpeername shutdown poll ioctl close)

# trinity_run USER SEED: trinity in rds-a, in a scratch directory (it
# writes its logs and a socket cache into the current one); with
# --dangerous for root. Only a dead kernel taints it: ours is out of tree.
trinity_run() {
	local user=$1 seed=$2 dir rc c args=() as=()

	for c in "${calls[@]}"; do
		args+=(-c "$c")
	done
	[ "$user" = root ] && args+=(--dangerous) ||
		as=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
	dir=$(mktemp -d)
	chmod 777 "$dir"
	mkdir "$dir/victims"
	# The bound is for a call that never returns, not for a slow run: on
	# the debug kernel beside CI's other guests 300 calls as root took
	# over 120 s (the bound was 90 s then).
	(cd "$dir" && timeout -s KILL $((ops / 3 + 120)) ip netns exec $A "${as[@]}" trinity -P RDS \
		-s "$seed" -N "$ops" -C 2 -T DIE,WARN,BAD_PAGE -V "$dir/victims" \
		--disable-fds=pipes,perf,epoll,eventfd,pseudo,timerfd,testfile,memfd,drm \
		"${args[@]}" 2>&1 | tail -n 25; exit "${PIPESTATUS[0]}")
	rc=$?
	rm -rf "$dir"
	return "$rc"
}

echo "seed $seed (RDS_TRINITY_SEED=$seed to run it again), $ops calls per run"
ktap_plan 4
ktap_test "load rds_tcp, netns pair" tcp_setup || ktap_finished
ktap_test "trinity -P RDS as root, seed $seed" trinity_run root "$seed"
ktap_test "trinity -P RDS as nobody, seed $((seed + 1))" trinity_run nobody "$((seed + 1))"
ktap_test "a message still gets through afterwards" \
	rds_exchange $A $A4 $B $B4 4100 after-trinity
cleanup_netns
ktap_finished
