#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The RDS socket API: errnos of bad input, bind/connect/getname, options,
# info tables, ioctl and poll (rds_sock_api), traffic over the loopback
# transport (rds_sock_msgs) and the sysctls under /proc/sys/net/rds.

. "$(dirname "$0")/../lib.sh"

SYS=/proc/sys/net/rds

# sysctl_is NAME VALUE: NAME reads back VALUE
sysctl_is() {
	local v
	v=$(cat "$SYS/$1") || return 1
	[ "$v" = "$2" ] || { echo "$1 is '$v', expected '$2'"; return 1; }
}

sysctl_set() {
	echo "$2" >"$SYS/$1" && sysctl_is "$1" "$2"
}

# sysctl_refused NAME VALUE: the write fails and the value is unchanged
sysctl_refused() {
	local before
	before=$(cat "$SYS/$1")
	if echo "$2" 2>/dev/null >"$SYS/$1"; then
		echo "writing '$2' to $1 succeeded"
		return 1
	fi
	sysctl_is "$1" "$before"
}

sysctl_defaults() {
	sysctl_is reconnect_min_delay_ms 100 && sysctl_is reconnect_max_delay_ms 10000 &&
		sysctl_is max_unacked_packets 8 && sysctl_is max_unacked_bytes 16384 &&
		sysctl_is ping_enable 1
}

sysctl_writes() {
	sysctl_set reconnect_min_delay_ms 200 && sysctl_set reconnect_max_delay_ms 5000 &&
		sysctl_set max_unacked_packets 16 && sysctl_set max_unacked_bytes 65536 &&
		sysctl_set ping_enable 0 && sysctl_set ping_enable 1
}

sysctl_bad_values() {
	sysctl_refused reconnect_min_delay_ms 6000 &&	# above max
		sysctl_refused reconnect_max_delay_ms 100 &&	# below min
		sysctl_refused reconnect_min_delay_ms 0 &&
		sysctl_refused reconnect_min_delay_ms -5 &&
		sysctl_refused max_unacked_packets 0 &&
		sysctl_refused max_unacked_bytes -1 &&
		sysctl_refused max_unacked_bytes abc &&
		sysctl_refused ping_enable 2
}

# ping NOPONG: ping 127.0.0.1 port 0; expect a pong, or none with NOPONG=1.
ping_lo() {
	python3 - "$1" <<-'PY'
	import socket, sys
	s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
	s.bind(("127.0.0.1", 0))
	s.settimeout(1)
	s.sendto(b"", ("127.0.0.1", 0))
	try:
	    data, src = s.recvfrom(16)
	    got = (data, src[1]) == (b"", 0)
	except socket.timeout:
	    got = False
	sys.exit(0 if got != (sys.argv[1] == "1") else 1)
	PY
}

ping_enable_works() {
	ping_lo 0 || { echo "no pong with ping_enable=1"; return 1; }
	echo 0 >"$SYS/ping_enable"
	ping_lo 1 || { echo "a pong with ping_enable=0"; echo 1 >"$SYS/ping_enable"; return 1; }
	echo 1 >"$SYS/ping_enable"
}

sysctl_restore() {
	echo 100 >"$SYS/reconnect_min_delay_ms"
	echo 10000 >"$SYS/reconnect_max_delay_ms"
	echo 8 >"$SYS/max_unacked_packets"
	echo 16384 >"$SYS/max_unacked_bytes"
	echo 1 >"$SYS/ping_enable"
	sysctl_defaults
}

ktap_plan 8
if ! rds_load; then
	ktap_fail "load rds.ko"
	ktap_finished
fi
ktap_test "socket API errnos and calls (rds_sock_api)" "$BIN/rds_sock_api"
ktap_test "loopback traffic (rds_sock_msgs)" "$BIN/rds_sock_msgs"
ktap_test "sysctls have their defaults" sysctl_defaults
ktap_test "sysctls take valid values" sysctl_writes
ktap_test "sysctls refuse bad values" sysctl_bad_values
ktap_test "ping_enable=0 silences pongs" ping_enable_works
ktap_test "sysctls restored" sysctl_restore
ktap_test "rds.ko unloads" rds_unload
ktap_finished
