#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Many RDS/IB connections on the shared receive queue, for
# test_ib_srq.sh: rds_srq.py ADDR PEER N.
#
# N sockets on ADDR, each with its own TOS (1..N), so each a connection of
# its own, send one message to a socket on PEER: every message arrives,
# once; no new SRQ is made (the connections join the SRQ of their end's
# domain), 2N queue pairs join one (both ends of each are ours), and what
# the rings pin grows by the send rings alone: at most N * 2 *
# max_send_wr pages, where rings of their own would have added
# max_recv_wr pages more at each end.  Exits 1 on the first thing not as
# expected.

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

PORT_RX, PORT_TX = 4700, 4701
PAGE = 4096
RAISED = 1 << 30


def main(addr, peer, n):
    n = int(n)
    names = ("ib_srq_created", "ib_srq_qp", "ib_ring_shrunk",
             "ib_ring_refused")
    send_wr, recv_wr = sysctl("max_send_wr"), sysctl("max_recv_wr")
    rx = rds_socket(peer, port=PORT_RX)
    txs = []
    old = None
    try:
        # Room for them all: the default bound (an eighth of memory,
        # half of it per netns) is some 110 MiB per netns on the debug
        # kernel's guest, less than 200 connections' send rings and two
        # SRQs; the bound is test_ib_memory.sh's and pair_ib_many.sh's.
        old = bound_set(RAISED)
        base = sysctl("ring_memory")
        before = counters(*names)
        for tos in range(1, n + 1):
            s = rds_socket(addr, port=PORT_TX if tos == 1 else 0)
            set_tos(s, tos)
            s.sendto(struct.pack("=H", tos) + b"x" * 62, (peer, PORT_RX))
            txs.append(s)
        got = {}
        end = time.time() + 240
        while sum(got.values()) < n and time.time() < end:
            if select.select([rx], [], [], 0.5)[0]:
                tos = struct.unpack("=H", rx.recv(64)[:2])[0]
                got[tos] = got.get(tos, 0) + 1
        grown = sysctl("ring_memory") - base
        after = counters(*names)
        delta = {k: after[k] - before[k] for k in names}
        print("%d connections: ring_memory +%d bytes (%.1f KiB each); "
              "rings of their own would add %d more; %s" % (
                  n, grown, grown / 1024.0 / n,
                  n * 2 * recv_wr * PAGE, delta))
        check_each_once(got, n)
        check(delta["ib_srq_created"] == 0,
              "no SRQ made: they joined their domain's")
        check(delta["ib_srq_qp"] >= 2 * n,
              "%d queue pairs joined an SRQ" % delta["ib_srq_qp"])
        check(delta["ib_ring_refused"] == 0, "none refused")
        # Slack for receive pages messages still hold (beyond an SRQ's
        # size, they count too), a page each at most.
        check(0 < grown <= (n * 2 * send_wr + 2 * n) * PAGE,
              "ring memory grew by send rings alone")
    finally:
        for s in txs:
            s.close()
        rx.close()
        if old:
            bound_set(old)


if __name__ == "__main__":
    try:
        main(*sys.argv[1:])
    except Fail as e:
        print("FAIL: %s" % e)
        sys.exit(1)
