#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Idle RDS/IB connections for the memory rows of guest-bench.sh:
# rds_conns.py ADDR PEER FIRST N SECONDS. N sockets on ADDR, each with its
# own TOS (FIRST..FIRST+N-1), so each its own connection, send one message
# to a socket on PEER; prints how many arrived within SECONDS (a stack may
# refuse connections it has no memory for). The sockets close; the
# connections stay, idle, as RDS keeps them.
#
# They are opened BATCH at a time, each batch's messages awaited before
# the next starts (at most BATCH_SECONDS; a batch none of whose messages
# came ends the row), so that the row measures connections, not a storm of
# requests. Sends never block: a stuck connection must not hold the guest.

import os
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "selftests", "ib"))
from rds_budget import recv_n, set_tos  # noqa
from rds_mr import rds_socket  # noqa

PORT = 4700
BATCH = 10
BATCH_SECONDS = 30


def main(addr, peer, first, n, seconds):
    first, n = int(first), int(n)
    end = time.time() + float(seconds)
    rx = rds_socket(peer, port=PORT)
    txs = []
    got = 0
    for start in range(first, first + n, BATCH):
        sent = 0
        for tos in range(start, min(start + BATCH, first + n)):
            s = rds_socket(addr)
            set_tos(s, tos)
            txs.append(s)
            try:
                s.sendto(b"m" * 64, socket.MSG_DONTWAIT, (peer, PORT))
                sent += 1
            except OSError:
                pass
        left = min(end - time.time(), BATCH_SECONDS)
        came = recv_n(rx, sent, left) if left > 0 else 0
        got += came
        if not came or time.time() >= end:
            break
    print(got)
    for s in txs:
        s.close()
    rx.close()


if __name__ == "__main__":
    main(*sys.argv[1:])
