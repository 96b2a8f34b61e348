# SPDX-License-Identifier: GPL-2.0
#
# A stand-in for modprobe while a test runs: the kernel's module requests
# (request_module(), /proc/sys/kernel/modprobe) go to a wrapper that logs
# them and resolves them with the real modprobe against a module tree in
# /tmp holding only our build's .ko files, as if `make install` had put
# them on the system. The distribution's in-tree modules are out of reach,
# so a request can only load ours or fail.
#
#   modprobe_wrap_start     install the wrapper (needs our modules built)
#   modprobe_wrap_start --intree
#                           for the in-tree stack: requests go to the real
#                           modprobe, but rds_rdma is refused as if absent
#                           (RDS over IB is no concern of these tests; our
#                           own rds_rdma is kept out of the tree too)
#   modprobe_wrap_log       the requests so far, one "ARGS" line each
#   modprobe_wrap_stop      put the real modprobe back
#
# Source it after lib.sh.

WRAP_DIR=/tmp/rds-modprobe
WRAP_SAVED=

modprobe_wrap_start() {
	local kver tree real
	kver=$(uname -r)
	tree=$WRAP_DIR/root/lib/modules/$kver
	real=$(command -v modprobe)
	rm -rf "$WRAP_DIR"
	mkdir -p "$tree/extra" || return 1
	: >"$WRAP_DIR/log"
	if [ "${1:-}" = --intree ]; then
		cat >"$WRAP_DIR/modprobe" <<-WRAPPER
		#!/bin/sh
		echo "\$*" >>$WRAP_DIR/log
		case " \$* " in *" rds_rdma "*) exit 1 ;; esac
		exec $real "\$@"
		WRAPPER
	else
		cp "$RDS_MODDIR"/*.ko "$tree/extra/" || return 1
		# These tests are about a machine without RDS/IB (the golden
		# errnos were made on one): our rds_rdma loads whenever an
		# earlier test left ib_core and rdma_cm loaded, so keep it out
		# of reach. selftests/ib/ tests SO_RDS_TRANSPORT over IB.
		rm -f "$tree/extra/rds_rdma.ko"
		depmod -b "$WRAP_DIR/root" "$kver" 2>/dev/null || return 1
		cat >"$WRAP_DIR/modprobe" <<-WRAPPER
		#!/bin/sh
		echo "\$*" >>$WRAP_DIR/log
		exec $real -d $WRAP_DIR/root "\$@"
		WRAPPER
	fi
	chmod +x "$WRAP_DIR/modprobe" || return 1
	WRAP_SAVED=$(cat /proc/sys/kernel/modprobe)
	echo "$WRAP_DIR/modprobe" >/proc/sys/kernel/modprobe
}

modprobe_wrap_log() {
	cat "$WRAP_DIR/log" 2>/dev/null
}

modprobe_wrap_stop() {
	[ -n "$WRAP_SAVED" ] && echo "$WRAP_SAVED" >/proc/sys/kernel/modprobe
	WRAP_SAVED=
}
