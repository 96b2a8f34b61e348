#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# One socket, two peers, one of which dies: for deadpeer_lib.sh.
#
#   rds_deadpeer.py recv ADDR PORT
#       bound to ADDR:PORT; each message is "SENDER SEQ" padded; prints
#       "ready", then on SIGTERM one JSON line: per sender the messages,
#       the last SEQ, and the ones out of order (a SEQ other than the last
#       one plus 1: a gap, a duplicate or a reordering)
#   rds_deadpeer.py send SRC PORT SIZE X Y
#       one non-blocking socket bound to SRC:PORT sends SIZE-byte messages
#       to X:PORT and Y:PORT in turn, as fast as they are taken. Each
#       SIGUSR1 starts the next phase; the third stops sending and prints
#       one JSON line: per phase its seconds, and per peer the messages sent
#       and the sends refused (EAGAIN, ENOBUFS); then keeps the socket open
#       (what it queued is still delivered) until SIGTERM. SIGUSR2 (while X
#       is silent) checks the blocking side once: a send to X with a 0.5 s
#       SO_SNDTIMEO waits that long and fails with ETIMEDOUT, poll() gives no
#       POLLOUT meanwhile (X was refused last), a blocking send to Y goes at
#       once; the JSON line says what happened as "blocking"

import errno
import json
import select
import signal
import socket
import struct
import sys
import time

phase = 0
PORT = [0]
# Turns of the send loop a peer sits out after a refusal.
SKIP = 20


def recv(addr, port):
    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind((addr, port))
    peers = {}
    done = []
    signal.signal(signal.SIGTERM, lambda *a: done.append(1))
    print('ready', flush=True)
    while not done:
        try:
            r, _, _ = select.select([s], [], [], 0.2)
        except InterruptedError:
            continue
        if not r:
            continue
        while True:
            try:
                data = s.recv(65536, socket.MSG_DONTWAIT)
            except (BlockingIOError, InterruptedError):
                break
            name, seq = data.split()[:2]
            p = peers.setdefault(name.decode(), {'n': 0, 'last': 0, 'disorder': 0})
            seq = int(seq)
            p['n'] += 1
            if seq != p['last'] + 1:
                p['disorder'] += 1
            p['last'] = seq
    print(json.dumps(peers), flush=True)


def next_phase(*_):
    global phase
    phase += 1


check_blocking = []


def blocking(s, msg, x):
    """One blocking send of @msg to X (full), with SO_SNDTIMEO."""
    res = {}
    s.setblocking(True)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO,
                 struct.pack('ll', 0, 500000))
    t = time.monotonic()
    try:
        s.sendto(msg, (x, PORT[0]))
        res['x'] = 'sent'
    except OSError as e:
        res['x'] = errno.errorcode.get(e.errno, str(e.errno))
    res['x_waited'] = round(time.monotonic() - t, 2)
    # poll() for POLLOUT alone: select() counts POLLWRBAND as writable,
    # which a congestion map update gives a socket once refused for
    # congestion (as in-tree's rds_poll does), Y's port included.
    p = select.poll()
    p.register(s, select.POLLOUT)
    ev = p.poll(200)
    res['pollout'] = bool(ev and ev[0][1] & select.POLLOUT)
    s.setblocking(False)
    return res


def send(src, port, size, x, y):
    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
    s.bind((src, port))
    s.setblocking(False)
    signal.signal(signal.SIGUSR1, next_phase)
    signal.signal(signal.SIGUSR2, lambda *a: check_blocking.append(1))
    PORT[0] = port
    blocked = {}
    peers = {x: 'x', y: 'y'}
    seq = {x: 0, y: 0}
    skip = {x: 0, y: 0}
    phases = []
    stats = None
    start = None
    print('ready', flush=True)
    while phase < 3:
        if len(phases) <= phase:
            now = time.monotonic()
            if phases:
                phases[-1]['secs'] = round(now - start, 3)
            start = now
            stats = {'x': [0, 0, 0], 'y': [0, 0, 0]}
            phases.append(stats)
        if check_blocking and not blocked:
            msg = ('%s %d ' % (src, seq[x] + 1)).encode().ljust(size, b'.')
            blocked = blocking(s, msg, x)
            if blocked['x'] == 'sent':
                seq[x] += 1
                stats['x'][0] += 1
            # Then Y, blocking too: it goes at once.
            s.setblocking(True)
            t = time.monotonic()
            msg = ('%s %d ' % (src, seq[y] + 1)).encode().ljust(size, b'.')
            try:
                s.sendto(msg, (y, port))
                seq[y] += 1
                stats['y'][0] += 1
                blocked['y'] = 'sent'
            except OSError as e:
                blocked['y'] = errno.errorcode.get(e.errno, str(e.errno))
            blocked['y_waited'] = round(time.monotonic() - t, 2)
            s.setblocking(False)
        refused = 0
        for dest in (x, y):
            # As an application would: a refused peer is left alone for a
            # while, rather than asked again between every two sends to
            # the other (an exception costs as much as a send here).
            if skip[dest]:
                skip[dest] -= 1
                refused += 1
                continue
            msg = ('%s %d ' % (src, seq[dest] + 1)).encode().ljust(size, b'.')
            st = stats[peers[dest]]
            try:
                s.sendto(msg, (dest, port))
                seq[dest] += 1
                st[0] += 1
            except BlockingIOError:
                st[1] += 1
                refused += 1
                skip[dest] = SKIP
            except OSError as e:
                if e.errno != errno.ENOBUFS:
                    raise
                st[2] += 1
                refused += 1
                skip[dest] = SKIP
            except InterruptedError:
                pass
        if refused == 2:
            try:
                select.select([], [s], [], 0.002)
            except InterruptedError:
                pass
    phases[-1]['secs'] = round(time.monotonic() - start, 3)
    print(json.dumps({'phases': phases, 'sent': {'x': seq[x], 'y': seq[y]},
                      'blocking': blocked}), flush=True)
    while True:
        signal.pause()


def main():
    if sys.argv[1] == 'recv':
        recv(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == 'send':
        send(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5],
             sys.argv[6])
    else:
        sys.exit('usage: see the head of ' + sys.argv[0])


if __name__ == '__main__':
    main()
