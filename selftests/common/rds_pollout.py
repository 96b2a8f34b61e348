#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Poll-driven senders for pollout_lib.sh: does every wait for POLLOUT end
# once the peers' acknowledgments have made room?
#
#   rds_pollout.py recv PORT ADDR...
#       one socket bound to each ADDR:PORT, reading everything; prints
#       "ready", stops on SIGTERM
#   rds_pollout.py send SRC PORT SNDBUF SIZE SECS MODE DEST...
#       one non-blocking socket bound to SRC (any port), SO_SNDBUF
#       SNDBUF, sends SIZE-byte messages to PORT of each DEST in turn for
#       SECS seconds. MODE is how it waits for POLLOUT, before each send: poll,
#       select, epoll (level-triggered), or epoll-et (edge-triggered, and
#       so, as such a sender must, only after a send was refused). A wait
#       gives up after WAIT seconds. Prints one JSON line: the sends, the
#       refusals, the waits, those that lasted WAIT ("timeouts"), and of
#       those the ones after which POLLOUT was on at once ("lost": the room
#       came while the task slept and did not wake it), the longest wait.
#   rds_pollout.py rounds SRC PORT SNDBUF SIZE SECS ORDER LIVE DEAD
#       an event loop's sender: sends one message to each of LIVE and DEAD
#       (DEAD answers nothing) in turn (ORDER live-first or dead-first),
#       then polls for POLLOUT with a WAIT timeout, for SECS seconds.
#       Prints one JSON line: messages to LIVE per second ("rate", and
#       "steady" without the time of the polls that timed out), the polls,
#       and those that timed out: each one a round in which the live
#       peer's room was not reported.
#   rds_pollout.py quiet SRC PORT SNDBUF SIZE ROUNDS DEST
#       a reader that also sends: each round fills the send buffer to
#       DEST, then polls for POLLIN alone (nothing comes) for QUIET
#       seconds, while DEST's acknowledgments make room. Prints one JSON
#       line: the rounds whose poll saw nothing and the times the task
#       slept in them (its voluntary context switches): one a round when
#       only POLLIN wakes it, more when the room woke it for nothing; and
#       the events of the other rounds.

import errno
import json
import select
import signal
import socket
import sys
import time

# A wait that has seen nothing for this long gave up: ten round trips of
# the test's link (netem 50 ms each way), and acknowledgments come within
# one or two.
WAIT = 1.5


def recv(port, addrs):
    socks = []
    for a in addrs:
        s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        s.bind((a, port))
        s.setblocking(False)
        socks.append(s)
    done = []
    signal.signal(signal.SIGTERM, lambda *a: done.append(1))
    print('ready', flush=True)
    while not done:
        try:
            r, _, _ = select.select(socks, [], [], 0.2)
        except InterruptedError:
            continue
        for s in r:
            while True:
                try:
                    s.recv(65536)
                except (BlockingIOError, InterruptedError):
                    break


class Waiter:
    """Waits for POLLOUT on @s the way MODE says; True when it came."""

    def __init__(self, s, mode):
        self.s = s
        self.mode = mode
        if mode.startswith('epoll'):
            self.ep = select.epoll()
            flags = select.EPOLLOUT
            if mode == 'epoll-et':
                flags |= select.EPOLLET
            self.ep.register(s.fileno(), flags)

    def wait(self, timeout):
        if self.mode == 'poll':
            p = select.poll()
            p.register(self.s.fileno(), select.POLLOUT)
            return bool(p.poll(timeout * 1000))
        if self.mode == 'select':
            return bool(select.select([], [self.s], [], timeout)[1])
        return bool(self.ep.poll(timeout))


def pollout_now(s):
    p = select.poll()
    p.register(s.fileno(), select.POLLOUT)
    return bool(p.poll(0))


# Bound to any port: the senders of a point share SRC, and PORT is the
# receivers' (port 0 would make every message a ping, answered by a pong).
def sock(src, sndbuf):
    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, sndbuf)
    s.bind((src, 0))
    s.setblocking(False)
    return s


def try_send(s, msg, dest):
    """True when sent, False when refused (no room)."""
    try:
        s.sendto(msg, dest)
        return True
    except BlockingIOError:
        return False
    except OSError as e:
        if e.errno != errno.ENOBUFS:
            raise
        return False


def send(src, port, sndbuf, size, secs, mode, dests):
    s = sock(src, sndbuf)
    w = Waiter(s, mode)
    msg = b'x' * size
    r = {'mode': mode, 'dests': len(dests), 'sent': 0, 'refused': 0,
         'waits': 0, 'timeouts': 0, 'lost': 0, 'longest': 0.0}
    refused = True
    end = time.monotonic() + secs
    i = 0
    while time.monotonic() < end:
        if mode != 'epoll-et' or refused:
            t = time.monotonic()
            came = w.wait(WAIT)
            took = time.monotonic() - t
            r['waits'] += 1
            r['longest'] = max(r['longest'], round(took, 3))
            # poll() and select() look once more when their time is up,
            # and may then report the room that never woke them.
            if not came or took >= WAIT:
                r['timeouts'] += 1
                if pollout_now(s):
                    r['lost'] += 1
                continue
        if try_send(s, msg, (dests[i % len(dests)], port)):
            r['sent'] += 1
            refused = False
        else:
            r['refused'] += 1
            refused = True
        i += 1
    print(json.dumps(r), flush=True)


def rounds(src, port, sndbuf, size, secs, order, live, dead):
    s = sock(src, sndbuf)
    p = select.poll()
    p.register(s.fileno(), select.POLLOUT)
    msg = b'x' * size
    peers = [live, dead] if order == 'live-first' else [dead, live]
    r = {'order': order, 'live': 0, 'polls': 0, 'timeouts': 0}
    start = time.monotonic()
    lost = 0.0
    while time.monotonic() - start < secs:
        for d in peers:
            if try_send(s, msg, (d, port)) and d == live:
                r['live'] += 1
        r['polls'] += 1
        t = time.monotonic()
        came = p.poll(WAIT * 1000)
        if not came or time.monotonic() - t >= WAIT:
            r['timeouts'] += 1
            lost += time.monotonic() - t
    took = time.monotonic() - start
    r['rate'] = round(r['live'] / took, 1)
    # Without the polls that timed out: the rate the loop keeps.
    r['steady'] = round(r['live'] / (took - lost), 1)
    print(json.dumps(r), flush=True)


# Long enough for the acknowledgments of a full buffer (two round trips
# of the link) to come while the reader polls.
QUIET = 0.4


def sleeps():
    with open('/proc/thread-self/status') as f:
        for line in f:
            if line.startswith('voluntary_ctxt_switches:'):
                return int(line.split()[1])
    return 0


def quiet(src, port, sndbuf, size, nrounds, dest):
    s = sock(src, sndbuf)
    p = select.poll()
    p.register(s.fileno(), select.POLLIN)
    msg = b'x' * size
    r = {'rounds': nrounds, 'sent': 0, 'sleeps': 0, 'events': []}
    for _ in range(nrounds):
        while try_send(s, msg, (dest, port)):
            r['sent'] += 1
        before = sleeps()
        ev = p.poll(QUIET * 1000)
        if ev:
            # Congestion news (POLLIN | POLLWRBAND after a refusal for a
            # congested port) is a wakeup the reader asked for: such a
            # round does not count.
            r['events'].append(ev[0][1])
            r['rounds'] -= 1
            continue
        r['sleeps'] += sleeps() - before
    print(json.dumps(r), flush=True)


def main():
    a = sys.argv
    if a[1] == 'recv':
        recv(int(a[2]), a[3:])
    elif a[1] == 'send':
        send(a[2], int(a[3]), int(a[4]), int(a[5]), float(a[6]), a[7], a[8:])
    elif a[1] == 'rounds':
        rounds(a[2], int(a[3]), int(a[4]), int(a[5]), float(a[6]), a[7],
               a[8], a[9])
    elif a[1] == 'quiet':
        quiet(a[2], int(a[3]), int(a[4]), int(a[5]), int(a[6]), a[7])
    else:
        sys.exit('usage: see the head of ' + a[0])


if __name__ == '__main__':
    main()
