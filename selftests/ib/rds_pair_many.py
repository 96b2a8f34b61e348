#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Many RDS/IB connections from another machine, for pair_ib_many.sh.
#
#   rds_pair_many.py serve ADDR N EXTRA UNDER
#   rds_pair_many.py send ADDR PEER N
#
# The server sets its ring memory bound EXTRA bytes above what it pins,
# answers every message on ADDR:4800 with an echo, and checks the bound at
# every turn; after UNDER seconds it raises the bound.  The sender opens N
# sockets on ADDR, each with its own TOS (1..N), so each a connection of
# its own, sends one message from each to PEER:4800 and waits for every
# echo.  The server must have refused or shrunk some connections under the
# bound, and both must see every message exactly once, those of the
# refused connections too once the bound is up.  Exits 1 on the first
# thing not as expected.

import os
import select
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rds_budget import set_tos  # noqa
from rds_mr import Fail, check, rds_socket  # noqa
from rdmacm_peer import counters, sysctl  # noqa
from rds_many import bound_set, check_each_once  # noqa

PORT = 4800
RAISED = 1 << 30
LIMIT_S = 420


def serve(addr, n, extra, under):
    n, extra, under = int(n), int(extra), float(under)
    names = ("ib_ring_shrunk", "ib_ring_refused", "ib_srq_qp")
    rx = rds_socket(addr, port=PORT)
    old = None
    try:
        bound = sysctl("ring_memory") + extra
        old = bound_set(bound)
        before = counters(*names)
        print("bound %d bytes above what the rings pin: %d" % (extra, bound))
        got = {}
        start = time.time()
        high = 0
        raised = False
        while sum(got.values()) < n and time.time() < start + LIMIT_S:
            if not raised:
                used = sysctl("ring_memory")
                high = max(high, used)
                if used > bound:
                    raise Fail("ring_memory %d over the bound %d" %
                               (used, bound))
                if time.time() > start + under:
                    mid = counters(*names)
                    print("under the bound for %.0f s: %d of %d came, "
                          "ring_memory at most %d, %s" % (
                              under, sum(got.values()), n, high,
                              {k: mid[k] - before[k] for k in names}))
                    check(mid["ib_ring_refused"] > before["ib_ring_refused"]
                          or mid["ib_ring_shrunk"] > before["ib_ring_shrunk"],
                          "the bound refused or shrank some connections")
                    bound_set(RAISED)
                    raised = True
            if select.select([rx], [], [], 0.2)[0]:
                data, src = rx.recvfrom(64)
                tos = struct.unpack("=H", data[:2])[0]
                got[tos] = got.get(tos, 0) + 1
                rx.sendto(data, src)
        check(raised, "the bound held until raised")
        check_each_once(got, n)
        after = counters(*names)
        print("%s in all" % {k: after[k] - before[k] for k in names})
        # Let the last echoes go out before the socket closes.
        time.sleep(5)
    finally:
        rx.close()
        if old:
            bound_set(old)


def send(addr, peer, n):
    n = int(n)
    txs = {}
    try:
        for tos in range(1, n + 1):
            s = rds_socket(addr)
            set_tos(s, tos)
            s.sendto(struct.pack("=H", tos) + b"x" * 62, (peer, PORT))
            txs[s.fileno()] = (tos, s)
        echoed = {}
        end = time.time() + LIMIT_S
        socks = [s for _, s in txs.values()]
        while len(echoed) < n and time.time() < end:
            for s in select.select(socks, [], [], 0.5)[0]:
                tos = struct.unpack("=H", s.recv(64)[:2])[0]
                echoed[tos] = echoed.get(tos, 0) + 1
        missing = [t for t in range(1, n + 1) if t not in echoed]
        check(not missing, "every echo came (missing TOS %s)" %
              missing[:10])
        check(all(c == 1 for c in echoed.values()), "each once")
    finally:
        for _, s in txs.values():
            s.close()


if __name__ == "__main__":
    try:
        {"serve": serve, "send": send}[sys.argv[1]](*sys.argv[2:])
    except Fail as e:
        print("FAIL: %s" % e)
        sys.exit(1)
