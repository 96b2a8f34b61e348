#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# RDMA between two guests, one running our RDS/IB and the other the
# in-tree one, for ib_interop_lib.sh:
#
#   rds_rdma_interop.py STACK ROLE ADDR PEER
#
# STACK is this guest's stack (ours or in-tree), ROLE its pair role (a or
# b). Both guests run it at once over their RDS/IB connection, each as the
# owner of a region the other writes and as the writer into the other's:
#
#   1. register the region and send its cookie in a message, so that it
#      travels as RDS_EXTHDR_RDMA_DEST and arrives as RDS_CMSG_RDMA_DEST.
#      Ours registers with RDS_GET_MR and sends the cookie with
#      RDS_CMSG_RDMA_DEST. In-tree's RDS_GET_MR fails with EOPNOTSUPP on
#      a fast-registration device like rxe (rds_ib_reg_frmr() has no
#      queue pair without a connection): checked, and then it registers
#      with RDS_CMSG_RDMA_MAP on that message, which has one.
#   2. RDMA WRITE 1 B .. 256 KiB into the peer's region, unaligned, from
#      one local vector and from three, each with RDS_RDMA_NOTIFY_ME and a
#      message saying what was written where: the status must be SUCCESS,
#      and the owner checks the data when the message arrives.
#   3. RDMA READ back what the last WRITE put there.
#
# The two sides meet on a TCP connection on the link (role a listens)
# once their sockets are bound and once both are done, so that no message
# goes to an unbound port and no region goes while the peer still uses it.

import ctypes
import errno
import os
import socket
import struct
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "ib"))
from rds_mr import (Buffer, Fail, PAGE, SOL_RDS, check, get_mr,  # noqa
                    rds_socket)
from rds_rdma import (NAMES, RDS_CMSG_RDMA_DEST, RDS_CMSG_RDMA_MAP,  # noqa
                      RDS_CMSG_RDMA_STATUS, RDS_RDMA_NOTIFY_ME,
                      RDS_RDMA_READWRITE, SUCCESS, rdma_args)

RDS_PORT = 4400
SYNC_PORT = 7472
TIMEOUT = 60			# for each step; twice that to meet the peer
REGION_PAGES = 96
REGION_OFF = 3			# the region starts 3 bytes into its first page
# (bytes, local vectors) of each WRITE; they land one after the other.
WRITES = [(1, 1), (4097, 3), (65536 + 5, 1), (262144 + 3, 3)]


def pattern(n, seed):
    pat = bytes((seed + i * 7 + (i >> 8)) & 0xff for i in range(min(n, 4096)))
    return (pat * (n // len(pat) + 1))[:n]


def layout():
    """Where each WRITE goes in the region: (bytes, vectors, offset)."""
    out, off = [], 0
    for n, nvec in WRITES:
        out.append((n, nvec, off))
        off += n + 13
    return out


class Sync:
    """A line exchanged over TCP: both sides reached the same point."""

    def __init__(self, role, peer):
        end = time.time() + 2 * TIMEOUT
        if role == "a":
            ls = socket.socket()
            ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            ls.bind(("", SYNC_PORT))
            ls.listen(1)
            ls.settimeout(2 * TIMEOUT)
            self.s = ls.accept()[0]
            ls.close()
        else:
            while True:
                try:
                    self.s = socket.create_connection((peer, SYNC_PORT), 2)
                    break
                except OSError:
                    if time.time() > end:
                        raise Fail("no sync connection to %s" % peer)
                    time.sleep(0.5)
        self.s.settimeout(TIMEOUT * 3)
        self.f = self.s.makefile("rw")

    def meet(self, word):
        self.f.write(word + "\n")
        self.f.flush()
        got = self.f.readline().strip()
        if got != word:
            raise Fail("sync: the peer said %r, not %r" % (got, word))


class Side:
    def __init__(self, stack, addr, peer):
        self.stack, self.peer = stack, peer
        self.s = rds_socket(addr, port=RDS_PORT)
        for opt in (socket.SO_SNDBUF, socket.SO_RCVBUF):
            self.s.setsockopt(socket.SOL_SOCKET, opt, 4 << 20)
        self.region = Buffer(REGION_PAGES)
        self.local = Buffer(REGION_PAGES)
        self.length = (REGION_PAGES - 1) * PAGE
        self.statuses = {}
        self.peer_cookie = None
        self.checked = 0

    def send(self, payload, anc=()):
        self.s.sendmsg([payload], list(anc), 0, (self.peer, RDS_PORT))

    def share_region(self):
        """Register the region and send its cookie to the peer."""
        start = self.region.addr + REGION_OFF
        try:
            cookie = get_mr(self.s, start, self.length)
        except OSError as e:
            if self.stack == "ours" or e.errno != errno.EOPNOTSUPP:
                raise
            print("%s RDS_GET_MR: EOPNOTSUPP, as rds_ib_reg_frmr() says "
                  "without a connection" % self.stack)
            cookie = None
        if cookie is not None:
            self.send(b"mr", [(SOL_RDS, RDS_CMSG_RDMA_DEST,
                               struct.pack("=Q", cookie))])
            how = "RDS_GET_MR, sent with RDS_CMSG_RDMA_DEST"
        else:
            c = ctypes.c_uint64()
            args = struct.pack("=QQQQ", start, self.length,
                               ctypes.addressof(c), 0)
            self.send(b"mr", [(SOL_RDS, RDS_CMSG_RDMA_MAP, args)])
            cookie = c.value
            how = "RDS_CMSG_RDMA_MAP"
        check(cookie >> 32 == REGION_OFF and cookie & 0xffffffff,
              "%s region registered with %s: cookie %#x" %
              (self.stack, how, cookie))

    def pump(self, timeout):
        """One message or status off the socket."""
        self.s.settimeout(max(timeout, 0.1))
        data, anc, _, _ = self.s.recvmsg(1 << 20, 4096)
        cmsgs = {t: d for lvl, t, d in anc if lvl == SOL_RDS}
        if RDS_CMSG_RDMA_STATUS in cmsgs:
            token, status = struct.unpack("=Qi",
                                          cmsgs[RDS_CMSG_RDMA_STATUS][:12])
            self.statuses.setdefault(token, []).append(status)
        elif data == b"mr":
            if RDS_CMSG_RDMA_DEST not in cmsgs:
                raise Fail("the peer's cookie came without RDS_CMSG_RDMA_DEST")
            self.peer_cookie = struct.unpack(
                "=Q", cmsgs[RDS_CMSG_RDMA_DEST][:8])[0]
        elif data[:1] == b"w":
            self.check_write(*struct.unpack("=IIII", data[1:]))
        elif data != b"r":
            raise Fail("unexpected message %r" % data[:32])

    def check_write(self, i, n, roff, seed):
        at = REGION_OFF + roff
        if self.region.map[at:at + n] != pattern(n, seed):
            raise Fail("the peer's WRITE %d of %d B at %d: data differs" %
                       (i, n, roff))
        self.checked += 1

    def until(self, cond, what):
        end = time.time() + TIMEOUT
        while not cond():
            if time.time() > end:
                raise Fail("timed out waiting for %s" % what)
            try:
                self.pump(end - time.time())
            except socket.timeout:
                pass

    def rdma(self, token, roff, local, write, payload):
        n = sum(b for _, b in local)
        flags = RDS_RDMA_NOTIFY_ME | (RDS_RDMA_READWRITE if write else 0)
        anc, arr = rdma_args(self.peer_cookie, roff, n, local, flags, token)
        self.send(payload, [anc])
        del arr
        self.until(lambda: token in self.statuses, "status %d" % token)
        status = self.statuses[token][0]
        if status != SUCCESS:
            raise Fail("%s of %d B: %s" % ("WRITE" if write else "READ", n,
                                           NAMES.get(status, status)))

    def write_all(self, seed0):
        loff = 5
        for i, (n, nvec, roff) in enumerate(layout()):
            self.local.map[loff:loff + n] = pattern(n, seed0 + i)
            cuts = [0, n // 3, 2 * n // 3, n] if nvec == 3 else [0, n]
            local = [(self.local.addr + loff + a, b - a)
                     for a, b in zip(cuts, cuts[1:])]
            self.rdma(i + 1, roff, local, True,
                      b"w" + struct.pack("=IIII", i, n, roff, seed0 + i))
            print("%s WRITE of %d B from %d vector(s): SUCCESS" %
                  (self.stack, n, nvec))

    def read_back(self, seed0):
        n, _, roff = layout()[-1]
        at = 2 * PAGE + 11
        self.local.map[at:at + n] = bytes(n)
        self.rdma(100, roff, [(self.local.addr + at, n)], False, b"r")
        if self.local.map[at:at + n] != pattern(n, seed0 + len(WRITES) - 1):
            raise Fail("READ of %d B: data differs" % n)
        print("%s READ of %d B back: SUCCESS, data ok" % (self.stack, n))

    def no_more_statuses(self):
        end = time.time() + 1
        while time.time() < end:
            try:
                self.pump(end - time.time())
            except socket.timeout:
                break
        twice = [t for t, s in self.statuses.items() if len(s) != 1]
        check(not twice and len(self.statuses) == len(WRITES) + 1,
              "%s: %d statuses, each once" % (self.stack,
                                               len(self.statuses)))


def both_ways(stack, role, addr, peer):
    side = Side(stack, addr, peer)
    sync = Sync(role, peer)
    sync.meet("bound")
    side.share_region()
    side.until(lambda: side.peer_cookie is not None, "the peer's cookie")
    print("%s got the peer's cookie %#x as RDS_CMSG_RDMA_DEST" %
          (stack, side.peer_cookie))
    seed0 = 1 if role == "a" else 101
    side.write_all(seed0)
    side.read_back(seed0)
    side.until(lambda: side.checked == len(WRITES), "the peer's WRITEs")
    print("%s region: the peer's %d WRITEs are there" % (stack, side.checked))
    sync.meet("done")
    side.no_more_statuses()
    side.s.close()


if __name__ == "__main__":
    if len(sys.argv) != 5 or sys.argv[1] not in ("ours", "in-tree"):
        sys.exit("usage: %s ours|in-tree a|b ADDR PEER" % sys.argv[0])
    try:
        both_ways(*sys.argv[1:])
    except (Fail, OSError) as e:
        print("FAIL:", e)
        sys.exit(1)
