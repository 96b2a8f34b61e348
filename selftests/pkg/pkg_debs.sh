#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages as a user gets them: installs rds-dkms and rds-oot-tools
# (built on the host into build/pkg/ by selftests/pkg/build-debs.sh) with
# dpkg, lets DKMS build for the running kernel, shows that modprobe then
# loads ours and that rds-ping works; then removes the packages while an RDS
# socket is open, which the package scripts must report (the modules stay
# loaded) without leaving dpkg half-done, and shows that once the socket is
# closed the in-tree modules are back. Only in a guest started with
# run-guest.sh --overlay, whose root is writable (check.sh does that); it
# is not a test_*.sh for that reason.

. "$(dirname "$0")/../lib.sh"

A=192.0.2.1
B=192.0.2.2
debs=$RDS_ROOT/build/pkg
log=/tmp/pkg-dpkg.log
holder=

# The module file modprobe would load for $1.
modfile() {
	modinfo -n "$1" 2>/dev/null
}

# The loaded $1 is the one modinfo names (not some other build of it).
loaded_is_modinfo() {
	[ "$(cat "/sys/module/$1/srcversion")" = "$(modinfo -F srcversion "$1")" ]
}

# Only the guest's kernel gets the headers DKMS looks for. Its postinst
# builds for the running kernel and for the newest one installed; on the
# host that may be another series, and compiling everything twice under TCG
# would only double the wait. This is the guest's throwaway root.
only_this_kernel() {
	local dir

	for dir in /lib/modules/*/build; do
		[ "$dir" = "/lib/modules/$(uname -r)/build" ] || rm -f "$dir"
	done
	[ -e "/lib/modules/$(uname -r)/build/include" ] || {
		echo "no headers for $(uname -r)"
		return 1
	}
	# man-db's trigger rebuilds the whole man index for our three pages:
	# a minute or more under TCG, for nothing this test looks at.
	rm -f /var/lib/man-db/auto-update
}

# DKMS compiles from the cache build-debs.sh filled for this kernel, when
# there is one (see there): a copy, as the guest may not write build/.
install_debs() {
	local start=$SECONDS rc cache=()

	if [ -d "$debs/ccache" ]; then
		cp -r "$debs/ccache" /tmp/ccache
		cache=(LC_ALL=C LANG=C DEBIAN_KERNEL_USE_CCACHE=1 CCACHE_DIR=/tmp/ccache)
	fi
	# Each line with the seconds since the start: where the time goes.
	env "${cache[@]}" dpkg -i "$debs"/rds-dkms_*_all.deb "$debs"/rds-oot-tools_*_amd64.deb 2>&1 |
		while IFS= read -r line; do echo "$((SECONDS - start)) $line"; done >"$log"
	rc=${PIPESTATUS[0]}
	cat "$log"
	echo "dpkg -i: $((SECONDS - start)) s"
	[ ${#cache[@]} = 0 ] || CCACHE_DIR=/tmp/ccache ccache -s | grep -iE 'hits|misses'
	[ $rc = 0 ] || tail -n 40 /var/lib/dkms/rds/*/build/make.log 2>/dev/null
	return $rc
}

is_ours() {
	local m

	for m in rds rds_tcp rds_rdma; do
		echo "$m: $(modfile $m)"
		case "$(modfile $m)" in
		*/updates/dkms/$m.ko*) ;;
		*) return 1 ;;
		esac
	done
	modprobe rds_tcp || return 1
	loaded_is_modinfo rds && loaded_is_modinfo rds_tcp
}

# Our tools package stands in for the distributions' rds-tools, whose
# commands it installs too, and brings rds(7).
tools_package() {
	local rel

	rel=$(dpkg-query -W -f='${Conflicts} | ${Replaces} | ${Provides}' rds-oot-tools) || return 1
	echo "rds-oot-tools: $rel"
	[ "$rel" = "rds-tools | rds-tools | rds-tools" ] || return 1
	[ -e /usr/share/man/man7/rds.7.gz ] || { echo "no rds.7"; return 1; }
	[ -x /usr/bin/rds-info ] && rds-info --version
}

ping_works() {
	netns_pair rds-a rds-b $A $B || return 1
	ip netns exec rds-a rds-ping -c 2 -i 0.2 $B
}

# An RDS socket bound in rds-a, open until killed: it holds rds and rds_tcp.
hold_socket() {
	ip netns exec rds-a python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
s.bind((sys.argv[1], 4000))
print("bound", flush=True)
time.sleep(3600)
' $A >/tmp/pkg-holder.log 2>&1 &
	holder=$!
	for _ in $(seq 50); do
		grep -q bound /tmp/pkg-holder.log && return 0
		sleep 0.1
	done
	cat /tmp/pkg-holder.log
	return 1
}

# dpkg -r with the socket open: it completes, the prerm says why the modules
# stay, and no package is left half-installed or half-configured.
remove_while_open() {
	local rc

	dpkg -r rds-oot-tools rds-dkms >"$log" 2>&1
	rc=$?
	cat "$log"
	[ $rc = 0 ] || return 1
	grep -q 'rds-dkms: cannot unload the RDS modules' "$log" || {
		echo "the refusal to unload was not reported"
		return 1
	}
	[ -z "$(dpkg --audit)" ] || { dpkg --audit; return 1; }
	if dpkg-query -W -f='${db:Status-Abbrev}\n' rds-dkms rds-oot-tools 2>/dev/null | grep -v '^[ur][nc]'; then
		echo "a package is still (partly) installed"
		return 1
	fi
	# Ours still runs: nothing was unloaded under the open socket.
	grep -q O /sys/module/rds/taint
}

# The socket closed, the unload the prerm advised works. (ktap_test runs
# this in a subshell, which cannot wait for the holder: poll for it.)
unload_after_close() {
	kill "$holder"
	for _ in $(seq 50); do
		kill -0 "$holder" 2>/dev/null || break
		sleep 0.1
	done
	cleanup_netns
	# The last reference to a closed socket may go a moment later.
	for _ in $(seq 10); do
		modprobe -r rds_tcp rds 2>/dev/null && return 0
		sleep 0.5
	done
	modprobe -r rds_tcp rds
}

is_intree() {
	local m

	for m in rds rds_tcp; do
		echo "$m: $(modfile $m)"
		case "$(modfile $m)" in
		*/kernel/net/rds/$m.ko*) ;;
		*) return 1 ;;
		esac
	done
	[ ! -e /usr/bin/rds-ping ] || return 1
	[ -z "$(ls /lib/modules/"$(uname -r)"/updates/dkms/rds* 2>/dev/null)" ] || return 1
	modprobe rds_tcp || return 1
	loaded_is_modinfo rds && loaded_is_modinfo rds_tcp && ! grep -q O /sys/module/rds/taint
}

if ! touch /usr/.rds-writable 2>/dev/null; then
	ktap_plan 0
	echo "# the root is read-only: run in a guest started with --overlay"
	exit "$KSFT_SKIP"
fi
ktap_plan 8
ktap_test "only $(uname -r) has headers in this guest" only_this_kernel || ktap_finished
ktap_test "dpkg -i rds-dkms rds-oot-tools (DKMS builds for $(uname -r))" install_debs ||
	ktap_finished
ktap_test "modprobe rds_tcp loads ours, from updates/dkms" is_ours
ktap_test "rds-oot-tools replaces rds-tools, brings rds(7)" tools_package
ktap_test "rds-ping from the package works" ping_works
if hold_socket; then
	ktap_test "dpkg -r with an RDS socket open: reported, completed" remove_while_open
	ktap_test "closed, modprobe -r unloads ours" unload_after_close
else
	ktap_fail "an RDS socket to hold the modules"
	ktap_fail "closed, modprobe -r unloads ours"
	dpkg -r rds-oot-tools rds-dkms
	modprobe -r rds_tcp rds
fi
[ -z "$holder" ] || kill "$holder" 2>/dev/null
cleanup_netns
ktap_test "the in-tree modules are back" is_intree
ktap_finished
