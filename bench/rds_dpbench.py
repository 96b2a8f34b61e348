#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# What a dead peer costs a sender's rate to a live one (issue 36): the
# dead-peer rows of make bench, run by bench/guest-bench.sh.
#
#   rds_dpbench.py recv ADDR PORT
#       bound to ADDR:PORT, reads everything as fast as it comes; prints
#       "ready", and on SIGTERM the messages it read
#   rds_dpbench.py send SRC PORT X Y STYLE [SIZE [SNDBUF]]
#       one socket bound to SRC:PORT, SO_SNDBUF SNDBUF (default 64 KiB),
#       sends SIZE-byte messages (default 1 KiB) to X:PORT and Y:PORT, the
#       way STYLE says:
#         poll      non-blocking, X then Y in turn; a refused send is
#                   followed by poll() for POLLOUT, at most WAIT_MS
#         epoll     the same, waiting in epoll_wait() (level-triggered)
#         blocking  blocking, two threads, one per peer, each sending to
#                   its own peer back to back
#       Prints "ready" and starts at once. Each SIGUSR1 starts the next
#       phase: warm-up, healthy, gap, dead, end. At the end one JSON line:
#       per counted phase (healthy, dead) its seconds, the messages sent
#       to and refused by each peer, the waits for POLLOUT and how many
#       of those timed out, the errors by name; and the rates to Y in
#       both phases and their ratio.
#
# The warm-up lets both peers' shares of the send buffer fill before
# anything is counted; the gap is the time the caller takes to silence X,
# counted in neither phase, so that each rate is of one state only.

import errno
import json
import os
import select
import signal
import socket
import sys
import threading
import time

# An event loop's poll timeout: short enough that a sender stuck on it
# still makes some progress, long enough that each timeout shows.
WAIT_MS = 10
PHASES = ('warmup', 'healthy', 'gap', 'dead')
COUNTED = ('healthy', 'dead')


def recv(addr, port):
    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
    # Room for a burst: the receiver must not be what limits the sender
    # (a full receive queue congests the port, and RDS then holds every
    # sender to it).
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind((addr, port))
    count = [0]

    def done(*_):
        print(json.dumps({'received': count[0]}), flush=True)
        os._exit(0)

    signal.signal(signal.SIGTERM, done)
    print('ready', flush=True)
    while True:
        s.recv(65536)
        count[0] += 1


class Phases:
    """The phase a sender is in, and per phase what it did."""

    def __init__(self):
        self.cur = 0
        self.start = [None] * (len(PHASES) + 1)
        self.start[0] = time.monotonic()
        self.stats = [{'sent': [0, 0], 'refused': [0, 0], 'waits': 0,
                       'wait_timeouts': 0, 'errors': {}}
                      for _ in PHASES]

    def next(self):
        self.cur += 1
        self.start[self.cur] = time.monotonic()

    def done(self):
        return self.cur >= len(PHASES)

    def refused(self, peer, err):
        st = self.stats[min(self.cur, len(PHASES) - 1)]
        st['refused'][peer] += 1
        name = errno.errorcode.get(err, str(err))
        st['errors'][name] = st['errors'].get(name, 0) + 1
        return st

    def result(self):
        out = {}
        for name in COUNTED:
            i = PHASES.index(name)
            st = dict(self.stats[i])
            st['secs'] = round(self.start[i + 1] - self.start[i], 3)
            out[name] = st
        rate = {}
        for name in COUNTED:
            secs = out[name]['secs']
            rate[name] = [n / secs if secs > 0 else 0.0 for n in out[name]['sent']]
        res = {'phases': out,
               'x_healthy_per_sec': round(rate['healthy'][0], 1),
               'x_dead_per_sec': round(rate['dead'][0], 1),
               'y_healthy_per_sec': round(rate['healthy'][1], 1),
               'y_dead_per_sec': round(rate['dead'][1], 1)}
        if rate['healthy'][1] > 0:
            res['dead_over_healthy'] = round(rate['dead'][1] / rate['healthy'][1], 3)
        return res


def send_polled(s, peers, msg, style, ph):
    """poll and epoll: one task, both peers in turn, as an event loop."""
    s.setblocking(False)
    if style == 'epoll':
        ep = select.epoll()
        ep.register(s.fileno(), select.EPOLLOUT)

        def wait():
            return ep.poll(WAIT_MS / 1000)
    else:
        p = select.poll()
        p.register(s.fileno(), select.POLLOUT)

        def wait():
            return p.poll(WAIT_MS)

    def next_phase(*_):
        ph.next()

    signal.signal(signal.SIGUSR1, next_phase)
    print('ready', flush=True)
    while not ph.done():
        for i, dest in enumerate(peers):
            try:
                s.sendto(msg, dest)
                # Counted in the phase it returned in, as the blocking
                # style's are.
                ph.stats[min(ph.cur, len(PHASES) - 1)]['sent'][i] += 1
            except OSError as e:
                # EAGAIN (no room) and ENOBUFS (a congested port) are
                # what a sender waits out; anything else is counted too,
                # by name, rather than ending the run.
                st = ph.refused(i, e.errno)
                st['waits'] += 1
                if not wait():
                    st['wait_timeouts'] += 1


def send_blocking(s, peers, msg, ph):
    """blocking: one thread per peer on the one socket."""
    # The threads inherit the blocked signal; the main thread takes it
    # with sigwait(), so that no handler has to run while both senders
    # sit in the kernel.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})

    def sender(i):
        while not ph.done():
            try:
                s.sendto(msg, peers[i])
                ph.stats[min(ph.cur, len(PHASES) - 1)]['sent'][i] += 1
            except OSError as e:
                ph.refused(i, e.errno)
                # Without SO_SNDTIMEO a blocking send is not refused for
                # room; whatever else it is, do not spin on it.
                time.sleep(WAIT_MS / 1000)

    for i in range(len(peers)):
        threading.Thread(target=sender, args=(i,), daemon=True).start()
    print('ready', flush=True)
    while not ph.done():
        signal.sigwait({signal.SIGUSR1})
        ph.next()


def send(src, port, x, y, style, size, sndbuf):
    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
    # Small, so that X's share fills within the first milliseconds of its
    # silence, as any buffer would in the end.
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, sndbuf)
    s.bind((src, port))
    peers = [(x, port), (y, port)]
    msg = b'.' * size
    ph = Phases()
    if style == 'blocking':
        send_blocking(s, peers, msg, ph)
    else:
        send_polled(s, peers, msg, style, ph)
    res = {'style': style, 'size': size,
           'sndbuf': s.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)}
    res.update(ph.result())
    print(json.dumps(res), flush=True)
    # A blocking thread may sit in sendmsg() to X for good; leave without
    # joining it (closing the socket drops what X never acknowledged).
    os._exit(0)


def main():
    a = sys.argv[1:]
    if len(a) == 3 and a[0] == 'recv':
        recv(a[1], int(a[2]))
    elif 6 <= len(a) <= 8 and a[0] == 'send' and a[5] in ('poll', 'epoll', 'blocking'):
        send(a[1], int(a[2]), a[3], a[4], a[5],
             int(a[6]) if len(a) > 6 else 1024,
             int(a[7]) if len(a) > 7 else 64 << 10)
    else:
        sys.exit('usage: see the head of ' + sys.argv[0])


if __name__ == '__main__':
    main()
