#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Idle RDS/IB connections for the memory rows of guest-bench.sh:
# rds_conns.py ADDR PEER FIRST N SECONDS. N sockets on ADDR, each with its
# own TOS (FIRST..FIRST+N-1), so each its own connection, send one message to a socket on
# PEER; prints how many arrived within SECONDS (a stack may refuse
# connections it has no memory for). The sockets close; the connections
# stay, idle, as RDS keeps them.

import fcntl
import select
import socket
import struct
import sys
import time

SOL_RDS = 276
SO_RDS_TRANSPORT = 8
RDS_TRANS_IB = 0
SIOCRDSSETTOS = 0x89E0
PORT = 4700


def rds_socket(addr, port=0):
    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
    s.setsockopt(SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_IB)
    s.bind((addr, port))
    return s


def main(addr, peer, first, n, seconds):
    first, n, seconds = int(first), int(n), float(seconds)
    rx = rds_socket(peer, PORT)
    txs = []
    for tos in range(first, first + n):
        s = rds_socket(addr)
        fcntl.ioctl(s.fileno(), SIOCRDSSETTOS, struct.pack("B", tos))
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
