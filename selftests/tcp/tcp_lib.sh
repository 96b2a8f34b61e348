# SPDX-License-Identifier: GPL-2.0
#
# Shared by the RDS/TCP tests. Source after ../lib.sh.
#
#   RDS_TCP_INTREE=1  run against the distribution's in-tree rds_tcp instead
#                     of ours (the reference behaviour)
#
# tcp_setup [ADDR_A ADDR_B]: load the stack, netns rds-a and rds-b on a veth
# pair with 192.0.2.1/.2 and fd00::1/::2.

A=rds-a
B=rds-b
A4=192.0.2.1
B4=192.0.2.2
A6=fd00::1
B6=fd00::2

# tcp_count N [SHORT]: message counts, N in the default profile, SHORT
# (a tenth of N unless given) on slow kernels.
tcp_count() {
	if [ "$RDS_PROFILE" = short ]; then
		echo "${2:-$(($1 / 10))}"
	else
		echo "$1"
	fi
}

tcp_load() {
	if [ "${RDS_TCP_INTREE:-0}" = 1 ]; then
		intree_load
	else
		rds_load tcp
	fi
}

tcp_setup() {
	tcp_load || return 1
	netns_pair $A $B $A4 $B4 $A6 $B6 || return 1
	tcp_warm $A4 $B4 && tcp_warm $A6 $B6
}

# counter NAME: in rds-a, an RDS counter (they are global, not per netns).
counter() {
	rds_counter "$1" $A
}

# tcp_warm ADDR_A ADDR_B: ping both ways, which connects and finishes the
# multipath handshake. Until then a nonblocking sender uses path 0 and only
# later its own path, so its first messages could pass each other.
tcp_warm() {
	local try

	# A few tries: on a guest sharing its core with two others, the first
	# connection can take longer than one rds-ping waits (2.4 s).
	for try in 1 2 3 4; do
		ip netns exec $A "$BIN/rds-ping" -c 2 -i 0.2 -I "$1" "$2" >/dev/null &&
		ip netns exec $B "$BIN/rds-ping" -c 2 -i 0.2 -I "$2" "$1" >/dev/null &&
			return 0
	done
	echo "no pongs between $1 and $2 in $try tries"
	return 1
}

# traffic ARGS...: rds_traffic between rds-a and rds-b. In the background,
# use "$TRAFFIC" ARGS... & so that $! is the program itself.
TRAFFIC=$BIN/rds_traffic
traffic() {
	"$TRAFFIC" -A $A -B $B "$@"
}

# tcp_conns NS: the RDS/TCP sockets of NS (ss lines, port 16385 either end).
tcp_conns() {
	ip netns exec "$1" ss -tnH state established '( sport = :16385 or dport = :16385 )'
}

# sysctl_flapper NS...: rewrite the buffer sysctls every half second, which
# resets the connections, until killed.
sysctl_flapper() {
	local i=0 ns size
	while :; do
		i=$((i + 1))
		for ns in "$@"; do
			size=$(( (i % 2) ? 262144 : 0 ))
			ip netns exec "$ns" sysctl -qw net.rds.tcp.rds_tcp_sndbuf=$size
			ip netns exec "$ns" sysctl -qw net.rds.tcp.rds_tcp_rcvbuf=$size
		done
		sleep 0.5
	done
}
