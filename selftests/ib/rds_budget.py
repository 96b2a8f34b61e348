#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# One tenant that never reads next to one that does, over RDS/IB, for
# test_ib_budget.sh: rds_budget.py ADDR PEER N SECONDS.
#
# The hoarder: a socket on PEER that never reads (a big SO_RCVBUF, so its
# port does not congest before the receive pages run out), fed from ADDR
# over the TOS 0 connection until the sender's sends stop going out.  The
# victim: TOS 1 from ADDR, so a connection of its own, to a socket on PEER
# that reads; it must get its N messages of 4 KiB within SECONDS.  Then the
# hoarder reads: every message it was sent arrives.  Exits 1 on the first
# thing not as expected.

import errno
import fcntl
import os
import socket
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rds_mr import Fail, check, rds_socket  # noqa

SIOCRDSSETTOS = 0x89E0		# SIOCPROTOPRIVATE
PORT_HOARD, PORT_PROBE, PORT_VICTIM = 4500, 4501, 4502
MSG = 4096			# one fragment, one receive page
BUF = 4 << 20			# ib_lib.sh raises rmem_max and wmem_max to this


def set_tos(s, tos):
    fcntl.ioctl(s.fileno(), SIOCRDSSETTOS, struct.pack("B", tos))


def recv_n(s, n, timeout):
    """Reads until @n messages came or @timeout passed: how many came."""
    got = 0
    end = time.time() + timeout
    while got < n:
        left = end - time.time()
        if left <= 0:
            break
        s.settimeout(left)
        try:
            s.recv(65536)
        except socket.timeout:
            break
        got += 1
    return got


def send_until_stuck(s, dst, most, idle):
    """Non-blocking sends of MSG bytes until @idle seconds passed without
    one going out, or @most did: how many went out.
    """
    s.setblocking(False)
    sent = 0
    last = time.time()
    data = b"h" * MSG
    while sent < most and time.time() - last < idle:
        try:
            s.sendto(data, dst)
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.ENOBUFS):
                raise
            time.sleep(0.02)
            continue
        sent += 1
        last = time.time()
    return sent


def send_all(s, dst, n, end):
    """Sends @n messages of MSG bytes, retrying while the socket is full,
    until @end: how many went out.
    """
    s.setblocking(False)
    data = b"v" * MSG
    sent = 0
    while sent < n and time.time() < end:
        try:
            s.sendto(data, dst)
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.ENOBUFS):
                raise
            time.sleep(0.01)
            continue
        sent += 1
    return sent


def starve(addr, peer, n, seconds):
    n, seconds = int(n), float(seconds)
    hoard_rx = rds_socket(peer, port=PORT_HOARD)
    hoard_rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, BUF)
    probe_rx = rds_socket(peer, port=PORT_PROBE)
    victim_rx = rds_socket(peer, port=PORT_VICTIM)
    hoard_tx = rds_socket(addr)
    hoard_tx.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, BUF)
    victim_tx = rds_socket(addr)
    set_tos(victim_tx, 1)

    # Both connections up before the hoarding, with their rings posted:
    # rdma_cm takes a while under TCG.
    hoard_tx.sendto(b"probe", (peer, PORT_PROBE))
    victim_tx.sendto(b"probe", (peer, PORT_VICTIM))
    check(recv_n(probe_rx, 1, 60) == 1, "TOS 0 connection up")
    check(recv_n(victim_rx, 1, 60) == 1, "TOS 1 connection up")

    hoarded = send_until_stuck(hoard_tx, (peer, PORT_HOARD), 4000, 3)
    check(hoarded > 0, "the hoarder's sender got %d messages out before "
          "its sends stopped (nobody reads them)" % hoarded)

    got = [0]
    reader = threading.Thread(
        target=lambda: got.__setitem__(0, recv_n(victim_rx, n, seconds)))
    start = time.time()
    reader.start()
    sent = send_all(victim_tx, (peer, PORT_VICTIM), n, start + seconds)
    reader.join()
    took = time.time() - start
    print("victim: %d of %d messages sent, %d received in %.1f s"
          % (sent, n, got[0], took))
    check(got[0] == n, "victim: all %d messages of the other connection "
          "arrived within %d s" % (n, seconds))

    # What the hoarder's sender queued is still on its way: reading lets
    # it all in.
    late = recv_n(hoard_rx, hoarded, 120)
    probe = recv_n(hoard_rx, 1, 2)
    check(late == hoarded and probe == 0,
          "hoarder: all %d of its messages arrived once it read" % hoarded)


if __name__ == "__main__":
    try:
        starve(*sys.argv[1:])
    except (Fail, OSError) as e:
        print("FAIL:", e)
        sys.exit(1)
