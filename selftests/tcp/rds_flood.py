#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# A peer that ignores congestion, for test_rcvmem.sh.
#
#   rds_flood.py hold ADDR PORT RCVBUF
#       an RDS socket bound to ADDR:PORT with SO_RCVBUF RCVBUF that never
#       reads; prints "ready", then waits until stdin closes
#   rds_flood.py flood SRC DST DPORT COUNT SIZE [BIGEVERY BIGSIZE]
#       a plain TCP connection from SRC to DST:16385 that speaks the RDS
#       wire format: COUNT messages of SIZE bytes to DPORT (every BIGEVERY-th
#       one BIGSIZE bytes instead), as fast as TCP takes them, whatever
#       congestion map the receiver sends back (read and thrown away)

import socket
import struct
import sys
import threading

RDS_TCP_PORT = 16385
# struct rds_header: sequence, ack, len, sport, dport, flags, credit,
# padding[4], csum, exthdr[16]: 48 bytes, big endian.
HDR = struct.Struct('>QQIHHBB4sH16s')


def hold(addr, port, rcvbuf):
    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.bind((addr, port))
    print('ready', flush=True)
    sys.stdin.read()
    s.close()


def discard(sock):
    try:
        while sock.recv(65536):
            pass
    except OSError:
        pass


def flood(src, dst, dport, count, size, big_every=0, big_size=0):
    sock = socket.create_connection((dst, RDS_TCP_PORT), timeout=30,
                                    source_address=(src, 0))
    threading.Thread(target=discard, args=(sock,), daemon=True).start()
    sent = 0
    batch = []
    for seq in range(1, count + 1):
        n = big_size if big_every and seq % big_every == 0 else size
        batch.append(HDR.pack(seq, 0, n, 4000, dport, 0, 0, bytes(4), 0,
                              bytes(16)))
        batch.append(bytes([seq & 0xff]) * n)
        if len(batch) >= 64 or seq == count:
            sock.sendall(b''.join(batch))
            sent += len(batch) // 2
            batch = []
    print('sent %d messages' % sent, flush=True)
    # Keep the connection until the receiver has read it all.
    sock.shutdown(socket.SHUT_WR)
    discard(sock)
    sock.close()


def main(argv):
    if len(argv) == 5 and argv[1] == 'hold':
        hold(argv[2], int(argv[3]), int(argv[4]))
    elif len(argv) in (7, 9) and argv[1] == 'flood':
        flood(argv[2], argv[3], *[int(a) for a in argv[4:]])
    else:
        sys.exit(__doc__ if __doc__ else 'usage: see the header')


if __name__ == '__main__':
    main(sys.argv)
