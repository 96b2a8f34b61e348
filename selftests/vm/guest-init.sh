#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of the test guest, started by the initramfs on the host's root (read-only
# 9p). $RDSVM_OUT is the per-run directory, writable, shared with the host: it
# holds the command to run (cmd, written by run-guest.sh) and receives its
# output (output.log), its exit code (exit_code), dmesg and the kmemleak report.
# RDSVM_OUT and RDSVM_TIMEOUT come from the kernel command line.

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp
out=$RDSVM_OUT

mount -t debugfs debugfs /sys/kernel/debug
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
ln -sf /proc/self/fd /dev/fd
hostname rdsvm
ip link set lo up
# kmemleak's own thread scans all of memory every ten minutes, a minute of
# the one CPU each time under TCG. The two scans at the end find whatever
# is still unreferenced then, which is what a leak is: the thread adds
# nothing but time.
[ -e /sys/kernel/debug/kmemleak ] && echo scan=off >/sys/kernel/debug/kmemleak

# A splat before the command runs comes from booting, not from us: say so
# and stop, and run-guest.sh boots again.
if dmesg | grep -E -f "$RDSVM_ROOT/selftests/vm/splat-patterns" >"$out/boot_splat"; then
	echo "guest: the kernel splatted while booting; not running the command"
	dmesg >"$out/dmesg"
	sync
	umount "$out"
	reboot -f
fi
rm -f "$out/boot_splat"

# Fewer CPUs than run-guest.sh asked for (RDSVM_CPUS): the run would test
# a uniprocessor again without saying so. Booted again, then a failure.
if [ "$(nproc)" -lt "${RDSVM_CPUS:-1}" ]; then
	echo "guest: $(nproc) CPU(s) up, $RDSVM_CPUS asked; not running the command"
	{ echo "$(nproc) CPU(s) up of $RDSVM_CPUS:"; dmesg | grep -i -E 'smp|cpu' | tail -n 5; } >"$out/boot_cpus"
	sync
	umount "$out"
	reboot -f
fi
rm -f "$out/boot_cpus"

# On 6.12 under multi-threaded TCG, patching a static key's jump sites
# while the other vCPU runs through one can end in "Oops: int3" (seen at
# netstamp_needed_key's sites in netif_rx_internal and
# __netif_receive_skb_core, reproduced with no RDS module loaded: UDP
# sockets toggling SO_TIMESTAMP beside iperf3 on lo; 6.1 and a
# single-threaded TCG took as many toggles clean). Every socket that asks
# for timestamps flips that key when the count goes 0 -> 1 -> 0, as the
# fuzzers' and tools' sockets do all the time. One socket holding
# SO_TIMESTAMP (29) from boot to reboot patches it once, before anything
# runs, and never again.
if [ "$(printf '%s\n' 6.12 "$(uname -r)" | sort -V | head -n 1)" = 6.12 ]; then
	python3 -c 'import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 29, 1)
time.sleep(1 << 30)' </dev/null >/dev/null 2>&1 &
	# The key is enabled from a work item: let it run before the tests do.
	sleep 1
fi

echo "guest: up after $(cut -d' ' -f1 /proc/uptime) s, $(nproc) CPUs, running: $(sed -n 's/^# command: //p' "$out/cmd")"
# The command gets RDSVM_TIMEOUT seconds, less than run-guest.sh's own limit,
# so that a hang still leaves dmesg behind, with the blocked tasks in it.
timeout -k 10 "$RDSVM_TIMEOUT" bash "$out/cmd" </dev/null 2>&1 | tee "$out/output.log"
rc=${PIPESTATUS[0]}
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	echo "guest: the command did not finish within $RDSVM_TIMEOUT s"
	echo w >/proc/sysrq-trigger
fi
echo "$rc" >"$out/exit_code"

# Unreferenced objects are only reported after two scans a few seconds apart.
if [ -e /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak
	sleep 5
	echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak >"$out/kmemleak"
fi

dmesg >"$out/dmesg"
sync
umount "$out"
reboot -f
