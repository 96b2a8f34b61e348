#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot two guests joined by one network link and run a command in each, for
# tests between two machines (our stack against the in-tree one, say).
#
#   selftests/vm/run-pair.sh [--kver KVER] [--timeout S] --a "CMD A" --b "CMD B"
#
# The link is a QEMU socket netdev over UDP on the host's loopback, each
# guest sending its frames to the other's port: nothing to connect, so a
# guest that run-guest.sh boots again (a debug kernel's boot that hangs)
# finds the link as it was, and neither waits for the other to start. Each
# CMD is a bash command line run
# like run-guest.sh runs one (as root, in the checkout), with:
#
#   RDS_PAIR_ROLE   a or b
#   RDS_PAIR_ADDR   this guest's address, 192.0.2.1 (a) or 192.0.2.2 (b)
#   RDS_PAIR_PEER   the other guest's address
#
# pair_link_up (selftests/lib.sh) configures the link from these. The logs are
# in build/vm/<run>-a/ and build/vm/<run>-b/. Fails unless both commands
# succeed and both guests stay free of splats.

set -u
vm_dir=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$vm_dir/../.." && pwd)

args=()
cmd_a= cmd_b=
while [ $# -gt 0 ]; do
	case "$1" in
	--kver | --timeout) args+=("$1" "$2"); shift 2 ;;
	--a) cmd_a=$2; shift 2 ;;
	--b) cmd_b=$2; shift 2 ;;
	*) echo "usage: $0 [--kver K] [--timeout S] --a 'CMD A' --b 'CMD B'" >&2; exit 2 ;;
	esac
done
[ -n "$cmd_a" ] && [ -n "$cmd_b" ] || { echo "$0: need --a and --b" >&2; exit 2; }

# guest ROLE ADDR PEER NETDEV CMD: one guest in the background, its output
# prefixed with its role (and kept whole in $run-ROLE.out).
guest() {
	local role=$1 mac=52:54:00:00:00:0$((${2##*.}))

	RDS_PAIR_ROLE=$role RDS_PAIR_ADDR=$2 RDS_PAIR_PEER=$3 \
		"$vm_dir/run-guest.sh" "${args[@]}" --out "$run-$role" \
		--qemu-args "-netdev socket,id=n0,$4 -device virtio-net-pci,netdev=n0,mac=$mac" \
		-- bash -c "$5" > >(tee "$run-$role.out" | sed -u "s/^/[$role] /") 2>&1 &
}

# pair: both guests, once.
pair() {
	local ports port_a port_b pid_a pid_b rc_a rc_b

	# Two free UDP ports, one each (held together, so they differ).
	ports=$(python3 -c '
import socket
s = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(2)]
for x in s:
    x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))')
	read -r port_a port_b <<<"$ports"
	guest a 192.0.2.1 192.0.2.2 \
		"udp=127.0.0.1:$port_b,localaddr=127.0.0.1:$port_a" "$cmd_a"
	pid_a=$!
	guest b 192.0.2.2 192.0.2.1 \
		"udp=127.0.0.1:$port_a,localaddr=127.0.0.1:$port_b" "$cmd_b"
	pid_b=$!

	wait $pid_a
	rc_a=$?
	wait $pid_b
	rc_b=$?
	sleep 0.2 # let the prefixing sed processes finish their output

	echo "run-pair: a exit $rc_a, b exit $rc_b, logs in build/vm/$(basename "$run")-{a,b}"
	[ "$rc_a" = 0 ] && [ "$rc_b" = 0 ]
}

# The two guests share one guest slot (slots.sh): they must run together,
# and a pair test is mostly each waiting for the other.
. "$vm_dir/slots.sh"
vm_slot_take
run=$root/build/vm/$(date +%Y%m%d-%H%M%S)-$$
pair
