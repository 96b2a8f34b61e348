#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Idle RDS/IB connections for the memory rows of guest-bench.sh:
# rds_conns.py ADDR PEER FIRST N SECONDS. N sockets on ADDR, each with its
# own TOS (FIRST..FIRST+N-1), so each its own connection, send one message to a socket on
# PEER; prints how many arrived within SECONDS (a stack may refuse
# connections it has no memory for). The sockets close; the connections
# stay, idle, as RDS keeps them.

import os
import select
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "selftests", "ib"))
from rds_budget import set_tos  # noqa
from rds_mr import rds_socket  # noqa

PORT = 4700


def main(addr, peer, first, n, seconds):
    first, n, seconds = int(first), int(n), float(seconds)
    rx = rds_socket(peer, port=PORT)
    txs = []
    for tos in range(first, first + n):
        s = rds_socket(addr)
        set_tos(s, tos)
        s.sendto(b"m" * 64, (peer, PORT))
        txs.append(s)
    got = 0
    end = time.time() + seconds
    while got < n and time.time() < end:
        if select.select([rx], [], [], 0.2)[0]:
            rx.recv(128)
            got += 1
    print(got)
    for s in txs:
        s.close()
    rx.close()


if __name__ == "__main__":
    main(*sys.argv[1:])
