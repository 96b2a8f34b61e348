# SPDX-License-Identifier: GPL-2.0
#
# The sysctls under /proc/sys/net/rds, checked against the defaults and
# ranges of the in-tree 6.1 net/rds/sysctl.c. selftests/socket/test_socket.sh
# runs them on our rds.ko and selftests/intree/test_sysctl.sh on the in-tree
# one, so that both stacks are held to the same expectations.
#
# Source it after lib.sh; rds.ko (ours or in-tree) must be loaded.

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

# One jiffy in ms as the ms_jiffies handlers print it: the reconnect floor.
sysctl_jiffy_ms() {
	local hz
	hz=$(sed -n 's/^CONFIG_HZ=//p' "/boot/config-$(uname -r)" 2>/dev/null)
	hz=${hz:-250}
	echo $(((1000 + hz - 1) / hz))
}

sysctl_defaults() {
	sysctl_is reconnect_min_delay_ms "$(sysctl_jiffy_ms)" &&
		sysctl_is reconnect_max_delay_ms 1000 &&
		sysctl_is max_unacked_packets 8 &&
		sysctl_is max_unacked_bytes 16777216 &&
		sysctl_is ping_enable 1
}

# In-tree takes any int for the unacked limits and ping_enable.
sysctl_writes() {
	sysctl_set reconnect_max_delay_ms 5000 && sysctl_set reconnect_min_delay_ms 200 &&
		sysctl_set reconnect_min_delay_ms "$(sysctl_jiffy_ms)" &&
		sysctl_set max_unacked_packets 16 && sysctl_set max_unacked_packets 0 &&
		sysctl_set max_unacked_packets -1 &&
		sysctl_set max_unacked_bytes 65536 && sysctl_set max_unacked_bytes 0 &&
		sysctl_set max_unacked_bytes -1 &&
		sysctl_set ping_enable 0 && sysctl_set ping_enable 2 &&
		sysctl_set ping_enable 1
}

# The reconnect delays: min >= one jiffy, min <= max, never negative.
sysctl_bad_values() {
	sysctl_set reconnect_min_delay_ms 200 &&
		sysctl_refused reconnect_min_delay_ms 6000 &&	# above max
		sysctl_refused reconnect_max_delay_ms 100 &&	# below min
		sysctl_refused reconnect_min_delay_ms 0 &&
		sysctl_refused reconnect_min_delay_ms -5 &&
		sysctl_refused reconnect_max_delay_ms -5 &&
		sysctl_refused max_unacked_packets abc &&
		sysctl_refused max_unacked_bytes 4294967296 &&
		sysctl_refused ping_enable abc
}

sysctl_restore() {
	echo "$(sysctl_jiffy_ms)" >"$SYS/reconnect_min_delay_ms"
	echo 1000 >"$SYS/reconnect_max_delay_ms"
	echo 8 >"$SYS/max_unacked_packets"
	echo 16777216 >"$SYS/max_unacked_bytes"
	echo 1 >"$SYS/ping_enable"
	sysctl_defaults
}
