#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Round trips with blocking receives, for test_busypoll.sh: busy polling
# (SO_BUSY_POLL) must not change what arrives.
#
#   rds_busypoll.py serve ADDR PORT BUSY_US TRANSPORT
#       bound to ADDR:PORT; takes each message with a blocking recvfrom()
#       and sends it back. A message's first 8 bytes are its sequence
#       number, from 0 up per sender: one out of order ends the run with
#       exit 1. "bye" ends it: the answer is "ok N", N the messages taken
#   rds_busypoll.py ping SRC DST PORT COUNT BUSY_US TRANSPORT WAIT
#       bound to SRC:PORT: COUNT round trips of 8 B .. 8 KiB, each answer
#       the same bytes; then COUNT messages in bursts of 32, each burst
#       sent before its answers are read. WAIT is recv (a blocking
#       recvfrom()) or poll (poll() first). Prints one JSON line: the
#       round trips, the p50 and p99 of the first COUNT in microseconds,
#       the server's count; exit 0 when everything came back once, in
#       order and intact, and nothing more within a second.
#   rds_busypoll.py gro IFACE on|off
#       GRO of IFACE (what ethtool -K IFACE gro does; no ethtool here):
#       on a veth it gives the receiving side a NAPI context to busy-poll
#
# TRANSPORT is tcp, ib or any (SO_RDS_TRANSPORT, before bind).

import array
import fcntl
import json
import select
import socket
import struct
import sys
import time

SOL_RDS = 276
SO_RDS_TRANSPORT = 8
SO_BUSY_POLL = 46  # <asm-generic/socket.h>; Python's socket lacks it
TRANSPORTS = {'ib': 0, 'tcp': 2}
BURST = 32
SIOCETHTOOL = 0x8946
ETHTOOL_SGRO = 0x2c


def rds_socket(addr, port, busy_us, transport):
    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
    if transport in TRANSPORTS:
        s.setsockopt(SOL_RDS, SO_RDS_TRANSPORT, TRANSPORTS[transport])
    s.setsockopt(socket.SOL_SOCKET, SO_BUSY_POLL, busy_us)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    # Not settimeout(): Python makes such a socket non-blocking and waits
    # in poll(), and recvmsg would never block, nor busy-poll.
    rcvtimeo(s, 30)
    s.bind((addr, port))
    return s


def rcvtimeo(s, secs):
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, struct.pack('ll', secs, 0))


def payload(seq):
    size = 8 + (seq * 613) % 8185
    body = bytes((seq + i) & 0xff for i in range(min(size - 8, 256)))
    return struct.pack('!Q', seq) + (body * (size // 256 + 1))[:size - 8]


def serve(addr, port, busy_us, transport):
    s = rds_socket(addr, int(port), int(busy_us), transport)
    want = {}
    n = 0
    print('ready', flush=True)
    while True:
        data, peer = s.recvfrom(65536)
        if data == b'bye':
            s.sendto(b'ok %d' % n, peer)
            return 0
        seq = struct.unpack('!Q', data[:8])[0]
        if seq != want.get(peer, 0):
            print('from %s: %d where %d was next' % (peer, seq, want.get(peer, 0)))
            return 1
        want[peer] = seq + 1
        n += 1
        s.sendto(data, peer)


def wait_recv(s, how):
    if how == 'poll':
        p = select.poll()
        p.register(s, select.POLLIN)
        if not p.poll(30000):
            raise TimeoutError('poll: nothing in 30 s')
    return s.recvfrom(65536)


def ping(src, dst, port, count, busy_us, transport, how):
    port, count = int(port), int(count)
    s = rds_socket(src, port, int(busy_us), transport)
    peer = (dst, port)
    lat = []
    seq = 0
    for _ in range(count):
        msg = payload(seq)
        t = time.monotonic()
        s.sendto(msg, peer)
        data, _ = wait_recv(s, how)
        lat.append((time.monotonic() - t) * 1e6)
        if data != msg:
            print('round trip %d: %d bytes back, not the %d sent' % (seq, len(data), len(msg)))
            return 1
        seq += 1
    while seq < 2 * count:
        burst = [payload(i) for i in range(seq, min(seq + BURST, 2 * count))]
        for msg in burst:
            s.sendto(msg, peer)
        for msg in burst:
            data, _ = wait_recv(s, how)
            if data != msg:
                print('burst message %d: not what was sent' % seq)
                return 1
            seq += 1
    s.sendto(b'bye', peer)
    data, _ = wait_recv(s, how)
    rcvtimeo(s, 1)
    try:
        extra = s.recv(65536)
        print('one more message after the last: %r' % extra[:16])
        return 1
    except OSError:
        pass
    lat.sort()
    print(json.dumps({'round_trips': seq, 'p50_us': round(lat[len(lat) // 2]),
                      'p99_us': round(lat[len(lat) * 99 // 100]),
                      'server': data.decode()}), flush=True)
    return 0 if data == b'ok %d' % seq else 1


def gro(iface, how):
    val = array.array('I', [ETHTOOL_SGRO, 1 if how == 'on' else 0])
    ifr = struct.pack('16sP', iface.encode(), val.buffer_info()[0])
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        fcntl.ioctl(s.fileno(), SIOCETHTOOL, ifr)
    return 0


if __name__ == '__main__':
    if len(sys.argv) == 4 and sys.argv[1] == 'gro':
        sys.exit(gro(*sys.argv[2:]))
    if len(sys.argv) == 6 and sys.argv[1] == 'serve':
        sys.exit(serve(*sys.argv[2:]))
    if len(sys.argv) == 9 and sys.argv[1] == 'ping':
        sys.exit(ping(*sys.argv[2:]))
    print(__doc__ or 'see the comment at the top', file=sys.stderr)
    sys.exit(2)
