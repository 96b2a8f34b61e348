#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Bursts to two sockets for test_wakeups.sh (and selftests/ib's
# test_ib_wakeups.sh): a reader woken once a read of the transport (or a
# run of the receive CQ's poller), not once a message, must still get
# every message. The sockets are pinned to RDS/TCP, or with --ib first to
# RDS/IB.
#
#   rds_wakeups.py [--ib] recv ADDR PORT MODE COUNT
#       sockets R1 at ADDR:PORT and R2 at ADDR:PORT+1. MODE et: one epoll
#       set, edge-triggered, each socket read until EAGAIN on its event;
#       MODE block: a thread a socket, blocking recvfrom(). Expects COUNT
#       messages from each sender to each socket it writes to (below),
#       each once and in order; prints "ready", then one JSON line of what
#       came; exit 1 on anything else, or when a message is missing after
#       20 s without one (a message queued without a wakeup after it)
#   rds_wakeups.py [--ib] send SRC DST PORT COUNT
#       S1 at SRC:PORT+2 sends COUNT messages to each of R1 and R2, one to
#       each in turn (one path, the destination changing a message);
#       S2 at SRC:PORT+3 sends COUNT to R1. 64 B each, as fast as the
#       send buffers let them go; then each waits for R1's "done" (sent
#       when all came), since closing would drop what is still queued.
#
# A message is: sender id (1 byte), receiver id (1 byte), sequence number
# (8 bytes, from 0 up per pair), padding to 64 bytes.

import json
import os
import select
import socket
import struct
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'ib'))
sys.path.insert(0, os.path.join(HERE, '..', 'socket'))
from rds_mr import RDS_TRANS_IB, RDS_TRANS_TCP, rds_socket  # noqa
from rds_busypoll import rcvtimeo  # noqa

SIZE = 64
TRANS = RDS_TRANS_TCP
QUIET = 20
# The pairs (sender, receiver) the senders write to.
PAIRS = [(1, 1), (1, 2), (2, 1)]


def pack(snd, rcv, seq):
    return struct.pack('=BBQ', snd, rcv, seq).ljust(SIZE, b'x')


class Tally:
    """What one receiving socket got, checked as it comes."""

    def __init__(self, rid, count):
        self.rid = rid
        self.count = count
        self.next = {s: 0 for s, r in PAIRS if r == rid}
        self.bad = []
        self.peers = set()

    def take(self, data_from):
        data = data_from[0]
        self.peers.add(data_from[1])
        if len(data) != SIZE:
            self.bad.append('length %d' % len(data))
            return
        snd, rcv, seq = struct.unpack_from('=BBQ', data)
        if rcv != self.rid or snd not in self.next or \
           data != pack(snd, rcv, seq):
            self.bad.append('foreign or damaged message')
        else:
            if seq != self.next[snd]:
                self.bad.append('from S%d to R%d: %d, %d expected' %
                                (snd, rcv, seq, self.next[snd]))
            self.next[snd] = seq + 1

    def done(self):
        return all(n >= self.count for n in self.next.values())


def drain(sock, tally):
    while True:
        try:
            tally.take(sock.recvfrom(65536, socket.MSG_DONTWAIT))
        except BlockingIOError:
            return


def recv_et(socks, tallies):
    ep = select.epoll()
    for s in socks:
        ep.register(s.fileno(), select.EPOLLIN | select.EPOLLET)
    by_fd = {s.fileno(): (s, t) for s, t in zip(socks, tallies)}
    # Whatever came before the registration has had its edge.
    for s, t in zip(socks, tallies):
        drain(s, t)
    while not all(t.done() for t in tallies):
        events = ep.poll(QUIET)
        if not events:
            return
        for fd, _ in events:
            drain(*by_fd[fd])


def recv_block(socks, tallies):
    def one(sock, tally):
        rcvtimeo(sock, QUIET)
        while not tally.done():
            try:
                tally.take(sock.recvfrom(65536))
            except BlockingIOError:     # SO_RCVTIMEO ran out
                return

    threads = [threading.Thread(target=one, args=st)
               for st in zip(socks, tallies)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def recv(addr, port, mode, count):
    socks = []
    for i in range(2):
        s = rds_socket(addr, TRANS, port + i)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        socks.append(s)
    tallies = [Tally(1, count), Tally(2, count)]
    print('ready', flush=True)
    start = time.monotonic()
    (recv_et if mode == 'et' else recv_block)(socks, tallies)
    out = {'mode': mode, 'secs': round(time.monotonic() - start, 2),
           'got': {'S%d->R%d' % (s, t.rid): n
                   for t in tallies for s, n in t.next.items()},
           'bad': [b for t in tallies for b in t.bad][:5]}
    print(json.dumps(out))
    ok = all(t.done() and not t.bad for t in tallies)
    if ok:
        # The senders may close now: everything they sent is here.
        for peer in tallies[0].peers:
            socks[0].sendto(b'done', peer)
    return 0 if ok else 1


def send(src, dst, port, count):
    s1 = rds_socket(src, TRANS, port + 2)
    s2 = rds_socket(src, TRANS, port + 3)
    for s in (s1, s2):
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
    for seq in range(count):
        s1.sendto(pack(1, 1, seq), (dst, port))
        s1.sendto(pack(1, 2, seq), (dst, port + 1))
        s2.sendto(pack(2, 1, seq), (dst, port))
    # Closing drops what is not sent yet: wait for the receiver's word.
    for s in (s1, s2):
        rcvtimeo(s, QUIET + 10)
        s.recv(16)
    return 0


def main(argv):
    global TRANS
    if argv and argv[0] == '--ib':
        TRANS = RDS_TRANS_IB
        argv = argv[1:]
    if len(argv) == 5 and argv[0] == 'recv':
        return recv(argv[1], int(argv[2]), argv[3], int(argv[4]))
    if len(argv) == 5 and argv[0] == 'send':
        return send(argv[1], argv[2], int(argv[3]), int(argv[4]))
    sys.stderr.write('usage: see the head of %s\n' % sys.argv[0])
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
