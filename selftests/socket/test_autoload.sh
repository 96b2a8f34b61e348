#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 20
#
# socket(AF_RDS) must not load rds.ko: any unprivileged user could pull the
# whole RDS stack into the kernel, as Debian's in-tree rds.ko prevents by
# having no net-pf-21 alias. With the kernel's module requests going to a
# modprobe that sees only our modules (as installed), the request for
# net-pf-21 must find nothing, and socket() fails with EAFNOSUPPORT.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../abi/modprobe_lib.sh"

no_alias() {
	local alias
	alias=$(modinfo -F alias "$RDS_MODDIR/rds.ko") || return 1
	if echo "$alias" | grep -q 'net-pf-21'; then
		echo "rds.ko has alias $alias"
		return 1
	fi
}

# Prints the errno name socket(AF_RDS) fails with, or "ok".
rds_socket() {
	python3 - <<-'PY'
	import errno, socket
	try:
	    socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0).close()
	    print("ok")
	except OSError as e:
	    print(errno.errorcode[e.errno])
	PY
}

socket_does_not_load() {
	local got rc=0
	rds_unload
	modprobe_wrap_start || { echo "cannot install the modprobe wrapper"; return 1; }
	got=$(rds_socket)
	echo "socket(AF_RDS): $got; module requests: $(modprobe_wrap_log | tr '\n' ';')"
	[ "$got" = EAFNOSUPPORT ] || rc=1
	[ -e /sys/module/rds ] && { echo "rds.ko was loaded"; rc=1; }
	modprobe_wrap_stop
	rds_unload
	return $rc
}

ktap_plan 2
ktap_test "rds.ko has no net-pf-21 alias" no_alias
ktap_test "socket(AF_RDS) does not load rds.ko" socket_does_not_load
ktap_finished
