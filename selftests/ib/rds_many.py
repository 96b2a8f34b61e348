#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Many RDS/IB connections against the ring memory bound, for
# test_ib_memory.sh: rds_many.py ADDR PEER N EXTRA_BYTES [netns].
#
# N sockets on ADDR, each with its own TOS (1..N), so each a connection of
# its own, send one message to a socket on PEER, while max_ring_memory is
# what the rings pinned before plus EXTRA_BYTES (with "netns", the netns's
# share max_ring_memory_per_netns is, and the host's bound is far above
# it, so that the share alone binds): the bound is never passed
# (sampled all along), some connections get smaller rings and some are
# refused (ib_ring_shrunk, ib_ring_refused).  Then the bound is raised (to
# RAISED, room for them all):
# every message arrives, exactly once, from the connections refused
# before too.  Exits 1 on the first thing not as expected.

import os
import select
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rds_budget import set_tos  # noqa
from rds_mr import Fail, check, rds_socket  # noqa
from rdmacm_peer import counters, sysctl  # noqa

PORT_RX, PORT_TX = 4600, 4601
RAISED = 1 << 30


def ring_memory():
    return sysctl("ring_memory")


def check_each_once(got, n):
    """Every TOS of 1..N in @got (TOS -> count), once."""
    missing = [t for t in range(1, n + 1) if t not in got]
    check(not missing, "every message came (missing TOS %s)" %
          missing[:10])
    dup = [t for t, c in got.items() if c != 1]
    check(not dup, "each once (TOS %s more)" % dup[:10])


def bound_set(value):
    """Sets the ring memory bound, host and netns, to @value (a pair:
    each its own); returns the old pair."""
    if not isinstance(value, tuple):
        value = (value, value)
    old = (sysctl("max_ring_memory"), sysctl("max_ring_memory_per_netns"))
    sysctl("max_ring_memory_per_netns", value[1])
    sysctl("max_ring_memory", value[0])
    return old


def wait_and_sample(rx, want, seconds, bound, got):
    """Reads into @got (TOS -> count) until @want messages came or
    @seconds passed, checking the bound at every turn: the highest
    ring_memory seen."""
    end = time.time() + seconds
    high = 0
    while sum(got.values()) < want and time.time() < end:
        used = ring_memory()
        high = max(high, used)
        if bound is not None and used > bound:
            raise Fail("ring_memory %d over the bound %d" % (used, bound))
        if select.select([rx], [], [], 0.2)[0]:
            data = rx.recv(64)
            tos = struct.unpack("=H", data[:2])[0]
            got[tos] = got.get(tos, 0) + 1
    return high


def main(addr, peer, n, extra, which="both"):
    n, extra = int(n), int(extra)
    names = ("ib_ring_shrunk", "ib_ring_refused")
    old = (sysctl("max_ring_memory"), sysctl("max_ring_memory_per_netns"))
    rx = rds_socket(peer, port=PORT_RX)
    txs = []
    try:
        base = ring_memory()
        bound = base + extra
        # This netns holds every RDS/IB ring of the guest (6.1's rxe
        # connects in init_net only): ring_memory is its share's use too.
        sysctl("max_ring_memory_per_netns", bound)
        sysctl("max_ring_memory", RAISED if which == "netns" else bound)
        before = counters(*names)
        print("rings pin %d bytes; the %s bound is %d" % (
            base, "netns's" if which == "netns" else "host's and netns's",
            bound))
        for tos in range(1, n + 1):
            s = rds_socket(addr, port=PORT_TX if tos == 1 else 0)
            set_tos(s, tos)
            s.sendto(struct.pack("=H", tos) + b"x" * 62, (peer, PORT_RX))
            txs.append(s)
        got = {}
        high = wait_and_sample(rx, n, 20, bound, got)
        after = counters(*names)
        print("under the bound: %d of %d messages came, ring_memory at "
              "most %d, shrunk %d, refused %d" % (
                  sum(got.values()), n, high,
                  after["ib_ring_shrunk"] - before["ib_ring_shrunk"],
                  after["ib_ring_refused"] - before["ib_ring_refused"]))
        check(after["ib_ring_shrunk"] > before["ib_ring_shrunk"],
              "some rings were shrunk")
        check(after["ib_ring_refused"] > before["ib_ring_refused"],
              "some connections were refused")
        check(sum(got.values()) < n, "not every connection came up")

        # Room for all: both ends of each are ours, 2 * N small rings.
        sysctl("max_ring_memory", RAISED)
        sysctl("max_ring_memory_per_netns", RAISED)
        wait_and_sample(rx, n, 240, None, got)
        check_each_once(got, n)
        print("bound raised: all %d messages came, once each" % n)
    finally:
        for s in txs:
            s.close()
        rx.close()
        bound_set(old)


if __name__ == "__main__":
    try:
        main(*sys.argv[1:])
    except Fail as e:
        print("FAIL: %s" % e)
        sys.exit(1)
