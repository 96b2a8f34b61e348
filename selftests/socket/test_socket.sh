#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-ci-612: run: every socket call and option against 6.12's socket layer
# rds-ci-debug: run: every socket call and option, with KASAN
#
# The RDS socket API: errnos of bad input, bind/connect/getname, options,
# info tables, ioctl and poll (rds_sock_api), traffic over the loopback
# transport (rds_sock_msgs), regressions of in-tree bug classes (rds_regress)
# and the sysctls under /proc/sys/net/rds.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../abi/sysctl_lib.sh"
. "$(dirname "$0")/../abi/modprobe_lib.sh"

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

# Ours only (Documentation/rds.rst, "A dead or slow peer"): defaults,
# ranges, and the defaults back.
our_sysctls() {
	sysctl_is sndbuf_dests 4 && sysctl_is conn_heartbeat_interval_secs 0 &&
		sysctl_is conn_heartbeat_timeout_secs 10 &&
		sysctl_set sndbuf_dests 1 && sysctl_set sndbuf_dests 64 &&
		sysctl_refused sndbuf_dests 0 && sysctl_refused sndbuf_dests 65 &&
		sysctl_set conn_heartbeat_interval_secs 86400 &&
		sysctl_refused conn_heartbeat_interval_secs 86401 &&
		sysctl_refused conn_heartbeat_interval_secs -1 &&
		sysctl_set conn_heartbeat_interval_secs 0 &&
		sysctl_set conn_heartbeat_timeout_secs 1 &&
		sysctl_refused conn_heartbeat_timeout_secs 0 &&
		sysctl_refused conn_heartbeat_timeout_secs abc &&
		sysctl_set conn_heartbeat_timeout_secs 10 && sysctl_set sndbuf_dests 4
}

# A heartbeat interval shortened while paths are UP takes effect at once,
# not when the old interval's timer ends (a day's here): a loopback path
# (rds-ping to ourselves brings it up) then asks within seconds.
hb_shortened() {
	local ok=0

	sysctl_set conn_heartbeat_interval_secs 86400 || return 1
	hb_asks_soon || ok=1
	sysctl_set conn_heartbeat_interval_secs 0 && return $ok
}

# hb_asks_soon: the loopback path up (rds-ping to ourselves), the interval
# set to 1 s, and a heartbeat sent within 10 s.
hb_asks_soon() {
	local before

	"$BIN/rds-ping" -c 1 127.0.0.1 >/dev/null || return 1
	before=$(hb_sent)
	sysctl_set conn_heartbeat_interval_secs 1 || return 1
	for _ in $(seq 50); do
		[ "$(hb_sent)" -gt "$before" ] && break
		sleep 0.2
	done
	echo "conn_heartbeat_sent: $before, then $(hb_sent)"
	[ "$(hb_sent)" -gt "$before" ]
}

# A socket bound to the heartbeat's port (2) gets the pongs of its own
# pings while a heartbeat is outstanding on the path (issue #36): the
# timeout of 30 s keeps the one sent here outstanding for the rest of the
# point. Before, every pong to port 2 went to the heartbeat then.
hb_port_pongs() {
	local ok=0

	sysctl_set conn_heartbeat_timeout_secs 30 || return 1
	hb_asks_soon && python3 - <<-'PY' || ok=1
	import socket, sys
	s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
	s.bind(("127.0.0.1", 2))
	s.settimeout(2)
	got = 0
	try:
	    for _ in range(3):
	        s.sendto(b"", ("127.0.0.1", 0))
	        while True:
	            data, src = s.recvfrom(16)
	            if (data, src[1]) == (b"", 0):
	                got += 1
	                break
	except socket.timeout:
	    pass
	print("pongs to port 2 with a heartbeat outstanding: %d of 3" % got)
	sys.exit(0 if got == 3 else 1)
	PY
	sysctl_set conn_heartbeat_interval_secs 0 &&
	sysctl_set conn_heartbeat_timeout_secs 10 && return $ok
}

hb_sent() {
	rds_counter conn_heartbeat_sent
}

ktap_plan 12
if ! rds_load; then
	ktap_fail "load rds.ko"
	ktap_finished
fi
# SO_RDS_TRANSPORT asks for rds_rdma: only our modules may answer.
modprobe_wrap_start || ktap_fail "install the modprobe wrapper"
ktap_test "socket API errnos and calls (rds_sock_api)" "$BIN/rds_sock_api"
modprobe_wrap_stop
ktap_test "loopback traffic (rds_sock_msgs)" "$BIN/rds_sock_msgs"
ktap_test "no stray kernel bytes, small control buffers (rds_regress)" \
	"$BIN/rds_regress"
ktap_test "sysctls have their defaults" sysctl_defaults
ktap_test "sysctls take valid values" sysctl_writes
ktap_test "sysctls refuse bad values" sysctl_bad_values
ktap_test "ping_enable=0 silences pongs" ping_enable_works
ktap_test "sndbuf_dests and the heartbeat sysctls: defaults, ranges" our_sysctls
ktap_test "a shorter heartbeat interval takes effect at once" hb_shortened
ktap_test "a socket on the heartbeat's port gets its pongs" hb_port_pongs
ktap_test "sysctls restored" sysctl_restore
ktap_test "rds.ko unloads" rds_unload
ktap_finished
