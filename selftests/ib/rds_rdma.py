#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# RDMA operations through RDS/IB sockets, for test_ib_rdma.sh:
# rds_rdma.py CASE ADDR PEER [ARGS]. The "owner" socket on PEER registers
# a region (RDS_GET_MR) and sends its cookie; the "user" socket on ADDR
# reads and writes it with RDS_CMSG_RDMA_ARGS and gets its statuses as
# RDS_CMSG_RDMA_STATUS. Each case prints what it checked and exits 1 on
# the first thing that is not as expected.

import ctypes
import errno
import mmap
import os
import socket
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rds_mr import (Buffer, Fail, LIBC, PAGE, SOL_RDS,  # noqa
                    RDS_CMSG_RDMA_ARGS, RDS_GET_MR, RDS_RDMA_INVALIDATE,
                    RDS_RDMA_USE_ONCE, RDS_TRANS_TCP, check, expect_errno,
                    free_mr, get_mr, main, pins, rdma_link, rds_socket)

RDS_CMSG_RDMA_DEST = 2
RDS_CMSG_RDMA_MAP, RDS_CMSG_RDMA_STATUS = 3, 4
RDS_CMSG_ATOMIC_FADD, RDS_CMSG_ATOMIC_CSWP = 6, 7
RDS_CMSG_MASKED_ATOMIC_FADD, RDS_CMSG_MASKED_ATOMIC_CSWP = 8, 9
RDS_CANCEL_SENT_TO, RDS_RECVERR = 1, 5
RDS_RDMA_READWRITE, RDS_RDMA_FENCE = 0x1, 0x2
RDS_RDMA_NOTIFY_ME, RDS_RDMA_SILENT = 0x20, 0x40
SUCCESS, REMOTE_ERROR, CANCELED, DROPPED, OTHER_ERROR = range(5)
NAMES = {SUCCESS: "SUCCESS", REMOTE_ERROR: "REMOTE_ERROR",
         CANCELED: "CANCELED", DROPPED: "DROPPED",
         OTHER_ERROR: "OTHER_ERROR"}
PORT_USER, PORT_OWNER = 4300, 4301
# No route, no neighbour: a connection to it never comes up.
FAR = "10.77.0.9"
SHORT = os.environ.get("RDS_PROFILE") == "short"
MIB = 1 << 20
RDS_INFO = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "..", "..", "build", "bin", "rds-info")


def vecs(*pairs):
    """An array of struct rds_iovec in memory, and its address."""
    raw = b"".join(struct.pack("=QQ", a, n) for a, n in pairs)
    arr = ctypes.create_string_buffer(raw, max(len(raw), 1))
    return arr, ctypes.addressof(arr)


def rdma_args(cookie, raddr, rbytes, local, flags, token):
    """RDS_CMSG_RDMA_ARGS for the local (addr, bytes) pairs in @local."""
    arr, addr = vecs(*local)
    data = struct.pack("=QQQQQQQ", cookie, raddr, rbytes, addr, len(local),
                       flags, token)
    return (SOL_RDS, RDS_CMSG_RDMA_ARGS, data), arr


def atomic_args(typ, cookie, raddr, local, flags, token, ops=()):
    """RDS_CMSG_*ATOMIC_*: @ops are the union's operands, in its order."""
    ops = (list(ops) + [0, 0, 0, 0])[:4]
    return (SOL_RDS, typ, struct.pack("=QQQQQQQQQ", cookie, local, raddr,
                                      *ops, flags, token))


def status_of(s, token, timeout=20):
    """Reads @s until the status of @token comes; messages are dropped."""
    end = time.time() + timeout
    while True:
        s.settimeout(max(end - time.time(), 0.1))
        try:
            _, anc, _, _ = s.recvmsg(MIB, 4096)
        except socket.timeout:
            raise Fail("no status for operation %d" % token) from None
        for level, typ, d in anc:
            if level == SOL_RDS and typ == RDS_CMSG_RDMA_STATUS:
                t, status = struct.unpack("=Qi", d[:12])
                if t == token:
                    return status


class Pair:
    """A user socket on ADDR and a region owner's socket on PEER."""

    def __init__(self, addr, peer):
        self.addr, self.peer = addr, peer
        self.user = rds_socket(addr, port=PORT_USER)
        self.owner = rds_socket(peer, port=PORT_OWNER)
        for s in (self.user, self.owner):
            s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
            s.settimeout(20)
        self.statuses = {}
        self.data = []

    def close(self):
        self.user.close()
        self.owner.close()

    def owner_send(self, payload, anc=()):
        self.owner.sendmsg([payload], list(anc), 0, (self.addr, PORT_USER))

    def user_recv(self, timeout=20):
        """The next message for the user: (payload, {cmsg type: data})."""
        while not self.data:
            self.poll_user(timeout)
        return self.data.pop(0)

    def poll_user(self, timeout=20):
        self.user.settimeout(timeout)
        data, anc, flags, _ = self.user.recvmsg(MIB, 4096)
        got = {}
        for level, typ, d in anc:
            if level == SOL_RDS and typ == RDS_CMSG_RDMA_STATUS:
                token, status = struct.unpack("=Qi", d[:12])
                self.statuses.setdefault(token, []).append(status)
            else:
                got[typ] = d
        if RDS_CMSG_RDMA_STATUS not in [t for _, t, _ in anc]:
            self.data.append((data, got))

    def owner_recv(self):
        data, anc, flags, _ = self.owner.recvmsg(MIB, 4096)
        return data, {t: d for _, t, d in anc}

    def share(self, cookie):
        """The owner tells the user its cookie, as an application would.
        Often the first message after a reset: the reconnect may take
        more than 20 s on the debug kernel under load."""
        self.owner_send(struct.pack("=Q", cookie))
        data, _ = self.user_recv(60)
        check(struct.unpack("=Q", data)[0] == cookie,
              "the user has cookie %#x" % cookie)

    def rdma(self, cookie, raddr, rbytes, local, flags, token, payload=b""):
        anc, arr = rdma_args(cookie, raddr, rbytes, local, flags, token)
        self.user.sendmsg([payload], [anc], 0, (self.peer, PORT_OWNER))
        del arr

    def wait_status(self, token, timeout=60):
        end = time.time() + timeout
        while token not in self.statuses:
            if time.time() > end:
                raise Fail("no status for operation %d" % token)
            self.poll_user(max(end - time.time(), 0.1))
        return self.statuses[token][0]

    def no_more_statuses(self):
        """Nothing left: every status came once."""
        self.user.setblocking(False)
        try:
            while True:
                self.poll_user(0)
        except (BlockingIOError, socket.timeout):
            pass
        self.user.setblocking(True)
        twice = {t: s for t, s in self.statuses.items() if len(s) != 1}
        check(not twice, "every status exactly once (%d operations)" %
              len(self.statuses))


def wait_pins(want, what):
    """Pins of messages go when the peer acknowledged them."""
    for i in range(100):
        if pins() == want:
            break
        time.sleep(0.1)
    got = pins()
    check(got == want, "%s (%d pins, want %d)" % (what, got, want))


def fill(buf, off, n, seed):
    pat = bytes((seed + i * 7 + (i >> 8)) & 0xff for i in range(min(n, 65536)))
    data = (pat * (n // len(pat) + 1))[:n]
    buf.map[off:off + n] = data
    return data


def sizes():
    if SHORT:
        return [1, 4097, 65536 + 5, MIB]
    return [1, 100, 4095, 4096, 4097, 65536 + 5, 300000, MIB - 1, MIB]


def case_data(addr, peer):
    """WRITE and READ of 1 B .. 1 MiB, unaligned on both sides, one local
    vector and three, the data checked; every status once; all pins
    back at the end."""
    base = pins()
    p = Pair(addr, peer)
    region = Buffer(MIB // PAGE + 2)
    cookie = get_mr(p.owner, region.addr + 1, MIB)
    p.share(cookie)
    local = Buffer(MIB // PAGE + 2)
    token = 0
    for n in sizes():
        for nvec in (1, 3):
            for write in (True, False):
                token += 1
                roff = (token * 13) % PAGE if n <= MIB - PAGE else 0
                loff = 3 + (token * 29) % 512
                if write:
                    want = fill(local, loff, n, token)
                else:
                    want = fill(region, 1 + roff, n, token)
                cuts = [0, n // 3, 2 * n // 3, n] if nvec == 3 and n >= 3 \
                    else [0, n]
                lv = [(local.addr + loff + a, b - a)
                      for a, b in zip(cuts, cuts[1:])]
                flags = RDS_RDMA_NOTIFY_ME | \
                    (RDS_RDMA_READWRITE if write else 0)
                p.rdma(cookie, roff, MIB - roff, lv, flags, token,
                       b"op %d" % token)
                status = p.wait_status(token)
                if status != SUCCESS:
                    raise Fail("%s of %d B: %s" % (
                        "WRITE" if write else "READ", n, NAMES[status]))
                # The owner hears of it after the data moved.
                data, anc = p.owner_recv()
                if data != b"op %d" % token:
                    raise Fail("owner got %r" % data)
                got = region.map[1 + roff:1 + roff + n] if write else \
                    local.map[loff:loff + n]
                if got != want:
                    raise Fail("%s of %d B in %d vectors: data differs" % (
                        "WRITE" if write else "READ", n, nvec))
        print("%d B: WRITE and READ, 1 and 3 local vectors: data ok" % n)
    p.no_more_statuses()
    # No NOTIFY_ME: no status at all.
    p.rdma(cookie, 0, PAGE, [(local.addr, PAGE)], RDS_RDMA_READWRITE, 999)
    p.owner_recv()
    p.no_more_statuses()
    check(999 not in p.statuses, "without NOTIFY_ME: no status")
    wait_pins(base + MIB // PAGE + 1,
              "acknowledged: only the region's pages are pinned")
    p.close()
    check(pins() == base, "close: every pin back")


def case_vectors(addr, peer, nvec="100"):
    """READ and WRITE into and from @nvec local vectors of a page each,
    every other page (so that no two merge), more than a work request
    takes: the operation is split, the data checked."""
    nvec = int(nvec)
    p = Pair(addr, peer)
    region = Buffer(nvec)
    cookie = get_mr(p.owner, region.addr, nvec * PAGE)
    p.share(cookie)
    local = Buffer(2 * nvec)
    lv = [(local.addr + 2 * i * PAGE, PAGE) for i in range(nvec)]
    for token, write in ((1, True), (2, False)):
        want = b""
        for i in range(nvec):
            if write:
                want += fill(local, 2 * i * PAGE, PAGE, token + i)
            else:
                want += fill(region, i * PAGE, PAGE, token + i)
        flags = RDS_RDMA_NOTIFY_ME | (RDS_RDMA_READWRITE if write else 0)
        p.rdma(cookie, 0, nvec * PAGE, lv, flags, token, b"op %d" % token)
        status = p.wait_status(token)
        what = "%s of %d vectors" % ("WRITE" if write else "READ", nvec)
        check(status == SUCCESS, "%s: %s" % (what, NAMES[status]))
        data, _ = p.owner_recv()
        check(data == b"op %d" % token, "the owner heard of it after")
        if write:
            got = region.map[:nvec * PAGE]
        else:
            got = b"".join(local.map[2 * i * PAGE:(2 * i + 1) * PAGE]
                           for i in range(nvec))
        check(got == want, "%s: data ok" % what)
    p.no_more_statuses()
    free_mr(p.owner, cookie)
    p.close()


def case_once(addr, peer):
    """RDS_RDMA_USE_ONCE: the owner's region goes when the user's message
    about the RDMA arrives; RDS_FREE_MR with RDS_RDMA_INVALIDATE: the key
    is dead; an RDMA to a dead key fails with REMOTE_ERROR, once, and the
    connection comes back."""
    base = pins()
    p = Pair(addr, peer)
    region = Buffer(4)
    local = Buffer(4)
    once = get_mr(p.owner, region.addr, 2 * PAGE, RDS_RDMA_USE_ONCE)
    keep = get_mr(p.owner, region.addr + 2 * PAGE, PAGE)
    p.share(once)
    fill(local, 0, PAGE, 1)
    p.rdma(once, 0, PAGE, [(local.addr, PAGE)],
           RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 1, b"used")
    check(p.wait_status(1) == SUCCESS, "WRITE to a use-once region: SUCCESS")
    check(p.owner_recv()[0] == b"used", "the owner got the message")
    expect_errno("FREE_MR of the used use-once region", errno.EINVAL,
                 free_mr, p.owner, once)
    wait_pins(base + 1, "its pages are unpinned, the message's too")

    p.rdma(once, 0, PAGE, [(local.addr, PAGE)],
           RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 2)
    check(p.wait_status(2) == REMOTE_ERROR,
          "WRITE to it again: REMOTE_ERROR")

    p.share(keep)		# the connection is back
    free_mr(p.owner, keep, RDS_RDMA_INVALIDATE)
    p.rdma(keep, 0, PAGE, [(local.addr, PAGE)], RDS_RDMA_NOTIFY_ME, 3)
    check(p.wait_status(3) == REMOTE_ERROR,
          "READ from a region freed with RDS_RDMA_INVALIDATE: REMOTE_ERROR")
    p.share(7)
    p.no_more_statuses()
    p.close()
    check(pins() == base, "close: every pin back")


def case_dest(addr, peer):
    """RDS_CMSG_RDMA_DEST and RDS_CMSG_RDMA_MAP on the owner's send: the
    user's message carries the cookie; the user writes there."""
    base = pins()
    p = Pair(addr, peer)
    region = Buffer(4)
    local = Buffer(1)
    c1 = get_mr(p.owner, region.addr + 8, PAGE)
    p.owner_send(b"dest", [(SOL_RDS, RDS_CMSG_RDMA_DEST,
                            struct.pack("=Q", c1))])
    data, anc = p.user_recv()
    check(data == b"dest" and
          struct.unpack("=Q", anc[RDS_CMSG_RDMA_DEST])[0] == c1,
          "RDMA_DEST: the user got cookie %#x with the message" % c1)

    cookie = ctypes.c_uint64()
    args = struct.pack("=QQQQ", region.addr + 2 * PAGE + 5, PAGE,
                       ctypes.addressof(cookie), 0)
    p.owner_send(b"map", [(SOL_RDS, RDS_CMSG_RDMA_MAP, args)])
    data, anc = p.user_recv()
    c2 = struct.unpack("=Q", anc[RDS_CMSG_RDMA_DEST])[0]
    check(data == b"map" and c2 == cookie.value and c2 >> 32 == 5,
          "RDMA_MAP: registered, cookie %#x written and sent" % c2)
    want = fill(local, 0, 100, 9)
    p.rdma(c2, 10, PAGE - 10, [(local.addr, 100)],
           RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 1)
    check(p.wait_status(1) == SUCCESS, "WRITE into the mapped region")
    p.owner_recv()
    off = 2 * PAGE + 5 + 10
    check(region.map[off:off + 100] == want, "the data is there")

    expect_errno("RDMA_DEST of an unknown cookie", errno.EINVAL,
                 p.owner.sendmsg, [b"x"],
                 [(SOL_RDS, RDS_CMSG_RDMA_DEST, struct.pack("=Q", 0x1234))],
                 0, (addr, PORT_USER))
    theirs = get_mr(p.user, local.addr, PAGE)
    expect_errno("RDMA_DEST of another socket's cookie", errno.EINVAL,
                 p.owner.sendmsg, [b"x"],
                 [(SOL_RDS, RDS_CMSG_RDMA_DEST, struct.pack("=Q", theirs))],
                 0, (addr, PORT_USER))
    free_mr(p.owner, c1)
    expect_errno("RDMA_DEST of a freed cookie", errno.EINVAL,
                 p.owner.sendmsg, [b"x"],
                 [(SOL_RDS, RDS_CMSG_RDMA_DEST, struct.pack("=Q", c1))],
                 0, (addr, PORT_USER))
    p.no_more_statuses()
    p.close()
    check(pins() == base, "close: every pin back")

    # A send that fails after RDMA_MAP registered its region (here its
    # socket's buffer is full, MSG_DONTWAIT): the region goes with it, as
    # in-tree, its cookie dead and its pages unpinned.
    s = rds_socket(peer, port=PORT_OWNER + 10)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 << 10)
    far = (FAR, PORT_OWNER)
    while True:
        try:
            s.sendmsg([bytes(8192)], [], socket.MSG_DONTWAIT, far)
        except (BlockingIOError, OSError) as e:
            if e.errno in (errno.EAGAIN, errno.ENOBUFS):
                break
            raise
    full = pins()
    cookie.value = 0
    args = struct.pack("=QQQQ", region.addr, PAGE,
                       ctypes.addressof(cookie), 0)
    expect_errno("RDMA_MAP on a send that cannot go", errno.EAGAIN,
                 s.sendmsg, [b"x"], [(SOL_RDS, RDS_CMSG_RDMA_MAP, args)],
                 socket.MSG_DONTWAIT, far)
    check(pins() == full, "its region unpinned (%d pins, want %d)" %
          (pins(), full))
    if cookie.value:
        expect_errno("FREE_MR of its cookie", errno.EINVAL, free_mr, s,
                     cookie.value)
    s.close()
    check(pins() == base, "close: every pin back")


def rds_conns(a, b):
    """The rows of rds-info -n that connect @a and @b, either way."""
    out = subprocess.run([RDS_INFO, "-n"], check=True, capture_output=True,
                         text=True).stdout
    return [line for line in out.splitlines()
            if set(line.split()[:2]) == {a, b}]


def case_mapnew(addr, peer):
    """RDS_CMSG_RDMA_MAP on the first send of a fresh socket on @addr to
    @peer, an address nothing has sent to yet: no RDS/IB connection
    exists, MSG_DONTWAIT. In-tree registers through the socket's
    connection, so it failed with ENODEV, and since its 2026 fix returns
    EAGAIN and starts a connect. Ours registers through the device behind
    the bound address and needs no connection: the send returns its byte
    count and writes the cookie. That difference is deliberate, not one to
    align with in-tree (an application gets its region at once instead of
    retrying). The message then reaches @peer with RDMA_DEST equal to the
    cookie, a WRITE through it lands in the region, and closing unpins
    it."""
    base = pins()
    # Binding waits for rxe to take the new address into its GID table,
    # which it does from a work item after `ip addr add`.
    end = time.time() + 30
    while True:
        try:
            rds_socket(peer).close()
            break
        except OSError as e:
            if e.errno != errno.EADDRNOTAVAIL or time.time() > end:
                raise
            time.sleep(0.2)
    check(not rds_conns(addr, peer),
          "no connection between %s and %s yet" % (addr, peer))
    p = Pair(peer, addr)	# the owner, whose send maps, on @addr
    region = Buffer(1)
    local = Buffer(1)
    cookie = ctypes.c_uint64()
    # Page offset 5, to the end of the page: one page pinned.
    args = struct.pack("=QQQQ", region.addr + 5, PAGE - 5,
                       ctypes.addressof(cookie), 0)
    try:
        n = p.owner.sendmsg([b"map"], [(SOL_RDS, RDS_CMSG_RDMA_MAP, args)],
                            socket.MSG_DONTWAIT, (peer, PORT_USER))
    except OSError as e:
        raise Fail("RDMA_MAP before the connection: %s (in-tree's answer, "
                   "not ours)" % e) from None
    c = cookie.value
    check(n == 3, "RDMA_MAP before the connection: sent, %d B" % n)
    check(c >> 32 == 5 and c & 0xffffffff != 0,
          "cookie %#x written: a key, page offset 5" % c)
    check(pins() == base + 1, "the region's page pinned (%d pins, want %d)"
          % (pins(), base + 1))
    # The first connection can take long on the debug kernel (share()).
    data, anc = p.user_recv(60)
    dest = anc.get(RDS_CMSG_RDMA_DEST)
    got = struct.unpack("=Q", dest)[0] if dest else None
    check(data == b"map" and got == c,
          "%s got the message, RDMA_DEST %s" %
          (peer, "%#x" % got if got is not None else "missing"))
    check(rds_conns(addr, peer), "the send made the connection")
    want = fill(local, 0, 100, 11)
    p.rdma(c, 10, PAGE - 15, [(local.addr, 100)],
           RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 1)
    check(p.wait_status(1) == SUCCESS, "WRITE through the cookie: SUCCESS")
    p.owner_recv()
    check(region.map[15:115] == want, "the data is in the region")
    p.no_more_statuses()
    wait_pins(base + 1, "acknowledged: only the region's page pinned")
    p.close()
    check(pins() == base, "close: every pin back")


def case_errnos(addr, peer):
    """Bad RDMA requests (those of the golden file, whose errnos
    test_ib_golden.sh compares with in-tree's): nothing pinned after."""
    p = Pair(addr, peer)
    region = Buffer(1)
    cookie = get_mr(p.owner, region.addr, PAGE)
    base = pins()
    bad_requests(p, cookie)
    check(pins() == base, "no pin left behind by the failures")
    p.close()


def case_atomic(addr, peer):
    """FADD and CSWP on the owner's region: 4 user sockets add at once,
    every old value comes back once and the sum is right; CSWP swaps only
    on a match; masked variants, which rxe lacks, fail with OTHER_ERROR;
    bad requests get in-tree's errnos; every pin back."""
    base = pins()
    p = Pair(addr, peer)
    region = Buffer(1)
    cookie = get_mr(p.owner, region.addr, PAGE)
    p.share(cookie)
    n = 25 if SHORT else 100
    users = [rds_socket(addr, port=PORT_USER + 10 + k) for k in range(4)]
    olds, errors = [], []
    F, N = RDS_CMSG_ATOMIC_FADD, RDS_RDMA_NOTIFY_ME

    def adder(k):
        s, buf = users[k], Buffer(1)
        try:
            for i in range(n):
                token = k * 1000 + i
                slot = buf.addr + 8 * (i % 512)
                s.sendmsg([b""], [atomic_args(F, cookie, 0, slot, N, token,
                                              [1])], 0, (peer, PORT_OWNER))
                st = status_of(s, token)
                if st != SUCCESS:
                    raise Fail("FADD %d: %s" % (token, NAMES[st]))
                olds.append(struct.unpack_from("=Q", buf.map,
                                               8 * (i % 512))[0])
        except (Fail, OSError) as e:
            errors.append("sender %d: %s" % (k, e))

    threads = [threading.Thread(target=adder, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise Fail("; ".join(errors))
    total = struct.unpack_from("=Q", region.map, 0)[0]
    check(sorted(olds) == list(range(4 * n)) and total == 4 * n,
          "4 senders x %d FADD +1: each old value once, sum %d" % (n, total))
    # Each atomic's message reached the owner, empty.
    got = 0
    p.owner.settimeout(5)
    try:
        while got < 4 * n:
            data, _ = p.owner_recv()
            got += data == b""
    except socket.timeout:
        pass
    check(got == 4 * n, "the owner got the %d empty messages" % (4 * n))

    local = Buffer(1)
    C = RDS_CMSG_ATOMIC_CSWP
    dst = (peer, PORT_OWNER)
    struct.pack_into("=Q", region.map, 8, 0x1111)
    p.user.sendmsg([b""], [atomic_args(C, cookie, 8, local.addr, N, 1,
                                       [0x1111, 0x2222])], 0, dst)
    check(p.wait_status(1) == SUCCESS and
          struct.unpack_from("=Q", local.map, 0)[0] == 0x1111 and
          struct.unpack_from("=Q", region.map, 8)[0] == 0x2222,
          "CSWP 0x1111 -> 0x2222 on a match: old 0x1111, swapped")
    p.user.sendmsg([b""], [atomic_args(C, cookie, 8, local.addr + 8, N, 2,
                                       [0x1111, 0x3333])], 0, dst)
    check(p.wait_status(2) == SUCCESS and
          struct.unpack_from("=Q", local.map, 8)[0] == 0x2222 and
          struct.unpack_from("=Q", region.map, 8)[0] == 0x2222,
          "CSWP on a mismatch: old 0x2222, not swapped")
    for t, typ in ((3, RDS_CMSG_MASKED_ATOMIC_FADD),
                   (4, RDS_CMSG_MASKED_ATOMIC_CSWP)):
        p.user.sendmsg([b""], [atomic_args(typ, cookie, 8, local.addr, N, t,
                                           [1, 2, ~0 & (2**64 - 1), 0])],
                       0, dst)
        st = p.wait_status(t)
        check(st == OTHER_ERROR, "masked atomic %d on rxe: %s" %
              (typ, NAMES[st]))
    check(struct.unpack_from("=Q", region.map, 8)[0] == 0x2222,
          "the masked ones changed nothing")
    p.user.sendmsg([b""], [atomic_args(F, cookie, PAGE, local.addr, N, 5,
                                       [1])], 0, dst)
    check(p.wait_status(5) == REMOTE_ERROR,
          "FADD past the end of the region: REMOTE_ERROR")
    p.share(9)		# the connection is back

    expect_errno("ATOMIC cmsg shorter than the struct", errno.EINVAL,
                 p.user.sendmsg, [b""], [(SOL_RDS, F, bytes(71))], 0, dst)
    expect_errno("local address not 8-aligned", errno.EFAULT,
                 p.user.sendmsg, [b""],
                 [atomic_args(F, cookie, 0, local.addr + 4, N, 6, [1])],
                 0, dst)
    expect_errno("local address 0", errno.EFAULT, p.user.sendmsg, [b""],
                 [atomic_args(F, cookie, 0, 0, N, 6, [1])], 0, dst)
    # Ours: in-tree sends it, and the peer's remote access error resets
    # the connection.
    expect_errno("remote address not 8-aligned", errno.EINVAL,
                 p.user.sendmsg, [b""],
                 [atomic_args(F, cookie, 12, local.addr, N, 6, [1])],
                 0, dst)
    expect_errno("two atomics", errno.EINVAL, p.user.sendmsg, [b""],
                 [atomic_args(F, cookie, 0, local.addr, N, 6, [1]),
                  atomic_args(C, cookie, 0, local.addr, N, 7, [1])], 0, dst)
    anc, arr = rdma_args(cookie, 0, PAGE, [(local.addr, 8)], N, 8)
    expect_errno("an atomic and RDMA_ARGS", errno.EINVAL, p.user.sendmsg,
                 [b""], [atomic_args(F, cookie, 0, local.addr, N, 6, [1]),
                         anc], 0, dst)
    expect_errno("an atomic and RDMA_DEST", errno.EINVAL, p.user.sendmsg,
                 [b""], [atomic_args(F, cookie, 0, local.addr, N, 6, [1]),
                         (SOL_RDS, RDS_CMSG_RDMA_DEST,
                          struct.pack("=Q", cookie))], 0, dst)
    del arr
    p.no_more_statuses()
    for s in users:
        s.close()
    p.close()
    check(pins() == base, "close: every pin back")


def case_silent(addr, peer):
    """RDS_RDMA_SILENT: a WRITE or an atomic with no payload reaches the
    peer's memory and gives its status, but no message reaches the peer;
    with a payload, or without SILENT, the message comes as usual."""
    base = pins()
    p = Pair(addr, peer)
    region = Buffer(2)
    local = Buffer(2)
    cookie = get_mr(p.owner, region.addr, 2 * PAGE)
    p.share(cookie)
    S, N, W = RDS_RDMA_SILENT, RDS_RDMA_NOTIFY_ME, RDS_RDMA_READWRITE
    want = fill(local, 0, PAGE, 5)
    p.rdma(cookie, 0, PAGE, [(local.addr, PAGE)], S | N | W, 1)
    check(p.wait_status(1) == SUCCESS and region.map[:PAGE] == want,
          "silent WRITE: SUCCESS, the data is there")
    p.user.sendmsg([b""], [atomic_args(RDS_CMSG_ATOMIC_FADD, cookie, PAGE,
                                       local.addr + PAGE, S | N, 2, [5])],
                   0, (peer, PORT_OWNER))
    check(p.wait_status(2) == SUCCESS and
          struct.unpack_from("=Q", region.map, PAGE)[0] == 5,
          "silent FADD: SUCCESS, added")
    p.rdma(cookie, 0, 8, [(local.addr, 8)], S | N | W, 3, b"loud")
    check(p.wait_status(3) == SUCCESS, "silent WRITE with a payload")
    p.owner.settimeout(10)
    check(p.owner_recv()[0] == b"loud",
          "the owner's first message is the one with a payload")
    for i in range(20):		# skipped sequence numbers in a row
        p.rdma(cookie, 0, 8, [(local.addr, 8)], S | W, 10 + i)
    p.rdma(cookie, 0, 8, [(local.addr, 8)], N | W, 4)
    check(p.wait_status(4) == SUCCESS, "a WRITE that is not silent")
    check(p.owner_recv()[0] == b"", "its message comes, and nothing else")
    p.owner.settimeout(1)
    try:
        extra = p.owner_recv()
        raise Fail("the owner got one more message: %r" % (extra[0],))
    except socket.timeout:
        pass
    p.no_more_statuses()
    wait_pins(base + 2, "nothing pinned but the region")
    p.close()
    check(pins() == base, "close: every pin back")


def case_notsupp(addr, peer):
    """Transports without RDMA: a well-formed request is EOPNOTSUPP, a
    malformed one EINVAL, nothing pinned."""
    base = pins()
    buf = Buffer(1)
    for name, a, t, dst in (("TCP", addr, RDS_TRANS_TCP, (peer, 4999)),
                            ("loopback", "127.0.0.1", None,
                             ("127.0.0.1", 4999))):
        s = rds_socket(a, t)
        anc, arr = rdma_args(0x1234, 0, PAGE, [(buf.addr, PAGE)],
                             RDS_RDMA_READWRITE, 1)
        expect_errno("RDMA_ARGS on %s" % name, errno.EOPNOTSUPP,
                     s.sendmsg, [b"x"], [anc], 0, dst)
        expect_errno("short RDMA_ARGS on %s" % name, errno.EINVAL,
                     s.sendmsg, [b"x"], [(SOL_RDS, RDS_CMSG_RDMA_ARGS,
                                          bytes(8))], 0, dst)
        expect_errno("RDMA_DEST on %s" % name, errno.EINVAL,
                     s.sendmsg, [b"x"], [(SOL_RDS, RDS_CMSG_RDMA_DEST,
                                          struct.pack("=Q", 7))], 0, dst)
        expect_errno("RDMA_MAP on %s" % name, errno.EOPNOTSUPP,
                     s.sendmsg, [b"x"], [(SOL_RDS, RDS_CMSG_RDMA_MAP,
                                          bytes(32))], 0, dst)
        expect_errno("ATOMIC_FADD on %s" % name, errno.EOPNOTSUPP,
                     s.sendmsg, [b"x"], [(SOL_RDS, RDS_CMSG_ATOMIC_FADD,
                                          bytes(72))], 0, dst)
        s.close()
    check(pins() == base, "nothing pinned")


def case_freed(addr, peer):
    """The owner frees its region while WRITEs to it are in flight: each
    operation gets one status, SUCCESS until the key died and an error
    after; the connection comes back and nothing stays pinned."""
    base = pins()
    p = Pair(addr, peer)
    region = Buffer(MIB // PAGE)
    local = Buffer(MIB // PAGE)
    cookie = get_mr(p.owner, region.addr, MIB)
    p.share(cookie)
    n = 4 if SHORT else 16
    for t in range(1, n + 1):
        p.rdma(cookie, 0, MIB, [(local.addr, MIB)],
               RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, t)
        if t == n // 2:
            free_mr(p.owner, cookie)
    for t in range(1, n + 1):
        p.wait_status(t)
    got = [p.statuses[t][0] for t in range(1, n + 1)]
    print("statuses: %s" % " ".join(NAMES[s] for s in got))
    check(all(s in (SUCCESS, REMOTE_ERROR, CANCELED, DROPPED)
              for s in got) and
          got[-1] != SUCCESS, "the last ones failed, none oddly")
    p.share(5)
    p.no_more_statuses()
    p.close()
    check(pins() == base, "close: every pin back")


def counters(*names):
    """The RDS counters NAMES, as rds-info -c prints them."""
    out = subprocess.run([RDS_INFO, "-c"], check=True, capture_output=True,
                         text=True).stdout
    got = dict(line.split()[:2] for line in out.splitlines()
               if len(line.split()) >= 2)
    return [int(got.get(n, 0)) for n in names]


def case_pool(addr, peer):
    """Regions freed with a connection up are invalidated (LOCAL_INV) and
    their MRs registered again for the next regions: the MR count stays
    put; a key of a region freed before reaches nothing, though its MR
    maps another region now; a socket closed with thousands of regions
    has them invalidated together."""
    names = ("ib_rdma_mr_8k_alloc", "ib_rdma_mr_8k_reused",
             "ib_rdma_mr_invalidate", "ib_rdma_mr_1m_alloc",
             "ib_rdma_mr_1m_reused")
    base = pins()
    p = Pair(addr, peer)
    region = Buffer(4)
    local = Buffer(4)
    p.share(1)			# the connection is up
    before = counters(*names)
    rounds = 20 if SHORT else 100
    for r in range(1, rounds + 1):
        cookie = get_mr(p.owner, region.addr, 2 * PAGE)
        p.share(cookie)
        want = fill(local, 0, 2 * PAGE, r)
        p.rdma(cookie, 0, 2 * PAGE, [(local.addr, 2 * PAGE)],
               RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, r)
        if p.wait_status(r) != SUCCESS or region.map[:2 * PAGE] != want:
            raise Fail("round %d: WRITE to a reused MR failed" % r)
        free_mr(p.owner, cookie)
    alloc, reused, inv, _, _ = (a - b for a, b in
                                zip(counters(*names), before))
    print("%d regions: %d MRs allocated, %d reused, %d invalidated" %
          (rounds, alloc, reused, inv))
    check(alloc <= 2 and reused >= rounds - 2 and inv >= rounds - 1,
          "the regions took turns on the pool's MRs")

    # An MR maps region after region, each time under a key whose
    # changing byte is random (in-tree: the last one plus one), never the
    # one before; and the pool hands out the MR freed longest ago.
    last, steps, same, n = {}, 0, 0, 0
    old = get_mr(p.owner, region.addr, 2 * PAGE)
    free_mr(p.owner, old)
    for _ in range(64):
        key = get_mr(p.owner, region.addr, 2 * PAGE) & 0xffffffff
        free_mr(p.owner, key)
        idx = key >> 8
        if idx in last:
            n += 1
            steps += (last[idx] + 1) & 0xff == key & 0xff
            same += last[idx] == key & 0xff
        last[idx] = key & 0xff
    print("64 regions on %d MRs: %d keys one after the MR's last, "
          "%d the same" % (len(last), steps, same))
    check(n >= 32 and same == 0 and steps <= n // 4,
          "an MR's next key is not its last one plus one")
    new = get_mr(p.owner, region.addr + 2 * PAGE, PAGE)
    check(new & 0xffffffff != old & 0xffffffff,
          "the next region has another key (%#x after %#x)" %
          (new & 0xffffffff, old & 0xffffffff))
    p.share(new)
    region.map[2 * PAGE:3 * PAGE] = bytes(PAGE)
    fill(local, 0, PAGE, 9)
    p.rdma(old, 0, PAGE, [(local.addr, PAGE)],
           RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 1000)
    check(p.wait_status(1000) == REMOTE_ERROR and
          region.map[2 * PAGE:3 * PAGE] == bytes(PAGE),
          "WRITE with the old key: REMOTE_ERROR, nothing written")
    p.share(new)		# the connection is back
    want = fill(local, 0, PAGE, 10)
    p.rdma(new, 0, PAGE, [(local.addr, PAGE)],
           RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 1001)
    check(p.wait_status(1001) == SUCCESS and
          region.map[2 * PAGE:3 * PAGE] == want,
          "WRITE with the new key: SUCCESS")
    free_mr(p.owner, new)

    # Thousands of regions, then close: invalidated as one batch.
    n = 2000 if SHORT else 10000
    buf = Buffer(64)
    before = counters(*names)
    for i in range(n):
        get_mr(p.owner, buf.addr + (i % 64) * PAGE, PAGE)
    p.share(2)
    t = time.time()
    p.owner.close()
    took = time.time() - t
    inv = counters(*names)[2] - before[2]
    print("%d regions closed in %.1f s, %d invalidated" % (n, took, inv))
    check(inv >= n // 2, "close invalidated the regions")
    p.user.close()
    check(pins() == base, "close: every pin back")


def case_linkdel(addr, peer, dev, netdev):
    """rdma link del under WRITEs in flight, sent on until after it:
    every operation gets one status, some an error; RDS_CANCEL_SENT_TO
    cancels what never went; nothing stays pinned; the device back, RDMA
    works again."""
    p = Pair(addr, peer)
    region = Buffer(MIB // PAGE)
    local = Buffer(MIB // PAGE)
    cookie = get_mr(p.owner, region.addr, MIB)
    p.share(cookie)
    base = pins()
    deleter = threading.Timer(1.0, rdma_link, ("del", dev))
    deleter.start()
    n = 0
    while n < 64 and (deleter.is_alive() or n < 2):
        n += 1
        p.rdma(cookie, 0, MIB, [(local.addr, MIB)],
               RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, n)
    deleter.join()
    after = 0
    for i in range(4):		# and some after it, which cannot succeed
        try:
            p.rdma(cookie, 0, MIB, [(local.addr, MIB)],
                   RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, n + 1)
        except OSError as e:
            print("a WRITE after the device went: %s" % e)
            break
        n += 1
        after += 1
    print("rdma link del %s under %d WRITEs, %d after it: done" %
          (dev, n - after, after))
    time.sleep(1)
    p.user.setsockopt(SOL_RDS, RDS_CANCEL_SENT_TO,
                      struct.pack("=HH4s8x", socket.AF_INET,
                                  socket.htons(PORT_OWNER),
                                  socket.inet_aton(peer)))
    for t in range(1, n + 1):
        p.wait_status(t)
    got = [p.statuses[t][0] for t in range(1, n + 1)]
    print("statuses: %s" % " ".join(NAMES[s] for s in got))
    check(all(s in (SUCCESS, CANCELED, DROPPED, REMOTE_ERROR,
                        OTHER_ERROR) for s in got) and got[-1] != SUCCESS,
          "the last ones did not succeed")
    p.no_more_statuses()
    wait_pins(base, "the operations' pages are unpinned")
    rdma_link("add", dev, "type", "rxe", "netdev", netdev)
    print("rdma link add %s: done" % dev)
    end = time.time() + 60
    token = 1000
    while True:
        token += 1
        p.rdma(cookie, 0, MIB, [(local.addr, PAGE)],
               RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, token)
        try:
            status = p.wait_status(token, 10)
        except Fail:
            p.user.setsockopt(SOL_RDS, RDS_CANCEL_SENT_TO,
                              struct.pack("=HH4s8x", socket.AF_INET,
                                          socket.htons(PORT_OWNER),
                                          socket.inet_aton(peer)))
            status = p.wait_status(token, 10)
        if status == SUCCESS:
            break
        if time.time() > end:
            raise Fail("no successful WRITE 60 s after the device came back")
        time.sleep(0.5)
    print("a WRITE after the device came back: SUCCESS")
    p.close()


def case_dropped(addr, peer):
    """Statuses of failures as in-tree gives them: with SO_RECVERR alone
    a WRITE to a dead key says nothing when it fails, and RDS_RDMA_DROPPED
    once its message is dropped at the reconnect; with NOTIFY_ME it is
    REMOTE_ERROR, and the WRITEs queued behind it, flushed with the
    connection, are each SUCCESS or DROPPED, never CANCELED."""
    base = pins()
    p = Pair(addr, peer)
    for s in (p.user, p.owner):
        s.settimeout(60)
    region = Buffer(1)
    local = Buffer(MIB // PAGE)
    W, N = RDS_RDMA_READWRITE, RDS_RDMA_NOTIFY_ME
    dead = get_mr(p.owner, region.addr, PAGE)
    free_mr(p.owner, dead, RDS_RDMA_INVALIDATE)
    live = get_mr(p.owner, local.addr, MIB)
    p.share(live)

    p.user.setsockopt(SOL_RDS, RDS_RECVERR, 1)
    p.rdma(dead, 0, PAGE, [(local.addr, PAGE)], W, 1)
    got = p.wait_status(1, 60)
    check(got == DROPPED, "SO_RECVERR alone, a dead key: %s" % NAMES[got])
    p.user.setsockopt(SOL_RDS, RDS_RECVERR, 0)
    p.share(live)

    p.rdma(dead, 0, PAGE, [(local.addr, PAGE)], W | N, 2)
    for t in range(3, 9):
        p.rdma(live, 0, MIB, [(local.addr, MIB)], W | N, t)
    got = [p.wait_status(t, 60) for t in range(2, 9)]
    print("statuses: %s" % " ".join(NAMES[s] for s in got))
    check(got[0] == REMOTE_ERROR, "NOTIFY_ME, a dead key: REMOTE_ERROR")
    check(all(s in (SUCCESS, DROPPED) for s in got[1:]),
          "behind it: SUCCESS or DROPPED")
    p.share(live)
    p.no_more_statuses()
    p.close()
    wait_pins(base, "close: every pin back")


def case_neighbour(addr, peer):
    """One socket's WRITE to a dead key puts the connection's queue pair in
    error; the WRITEs another socket queued behind it on that connection,
    without a status asked for, are flushed: they go again on the next
    connection, every message arrives, in order (in-tree drops them
    without a word)."""
    base = pins()
    p = Pair(addr, peer)
    for s in (p.user, p.owner):
        s.settimeout(60)
    other = rds_socket(addr, port=PORT_USER + 10)
    other.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 16 << 20)
    region = Buffer(1)
    local = Buffer(MIB // PAGE)
    live = get_mr(p.owner, local.addr, MIB)
    dead = get_mr(p.owner, region.addr, PAGE)
    free_mr(p.owner, dead, RDS_RDMA_INVALIDATE)
    p.share(live)
    dst = (peer, PORT_OWNER)
    W, N = RDS_RDMA_READWRITE, RDS_RDMA_NOTIFY_ME
    n = 6 if SHORT else 12

    def write(k):
        anc, arr = rdma_args(live, 0, MIB, [(local.addr, MIB)], W, 100 + k)
        other.sendmsg([b"n%d" % k], [anc], 0, dst)
        del arr

    # A 1 MiB WRITE ahead keeps the bad one waiting on the queue pair
    # while those behind it are posted.
    write(0)
    anc, arr = rdma_args(dead, 0, PAGE, [(local.addr, PAGE)], W | N, 1)
    p.user.sendmsg([b"bad"], [anc], 0, dst)
    del arr
    for k in range(1, n):
        write(k)
    got = []
    while len(got) < n:
        data, _ = p.owner_recv()
        if data.startswith(b"n"):
            got.append(data)
    check(got == [b"n%d" % k for k in range(n)],
          "the other socket's %d messages all arrived, in order" % n)
    check(p.wait_status(1) == REMOTE_ERROR, "the bad WRITE: REMOTE_ERROR")
    out = subprocess.run([RDS_INFO, "-c"], capture_output=True, text=True)
    print("\n".join(line for line in out.stdout.splitlines()
                    if "conn_reset" in line))
    other.close()
    p.close()
    wait_pins(base, "close: every pin back")


SYS_USERFAULTFD = 323		# x86_64
UFFDIO_API = (3 << 30) | (24 << 16) | (0xAA << 8) | 0x3F
UFFDIO_REGISTER = (3 << 30) | (32 << 16) | (0xAA << 8) | 0x00
LIBC.syscall.restype = ctypes.c_long
LIBC.setsockopt.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int,
                            ctypes.c_void_p, ctypes.c_uint]
LIBC.ioctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p]
LIBC.mmap.restype = ctypes.c_void_p
LIBC.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                      ctypes.c_int, ctypes.c_int, ctypes.c_long]


class NoUffd(Exception):
    """The kernel has no userfaultfd (the debug build has none)."""


def stalled_page():
    """A page whose first touch, the kernel's put_user() included, waits
    for us (userfaultfd, missing mode): (its address, the uffd)."""
    addr = LIBC.mmap(None, PAGE, mmap.PROT_READ | mmap.PROT_WRITE,
                     mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
    uffd = LIBC.syscall(SYS_USERFAULTFD, os.O_CLOEXEC)
    if uffd < 0 and ctypes.get_errno() == errno.ENOSYS:
        raise NoUffd()
    if uffd < 0:
        raise Fail("userfaultfd: %s" % os.strerror(ctypes.get_errno()))
    api = ctypes.create_string_buffer(struct.pack("=QQQ", 0xAA, 0, 0), 24)
    reg = ctypes.create_string_buffer(struct.pack("=QQQQ", addr, PAGE, 1, 0),
                                      32)
    if LIBC.ioctl(uffd, UFFDIO_API, api) or \
       LIBC.ioctl(uffd, UFFDIO_REGISTER, reg):
        raise Fail("userfaultfd ioctl: %s" %
                   os.strerror(ctypes.get_errno()))
    return addr, uffd


def mr_keys():
    """The rkeys of rds_rdma's MRs, as `rdma resource show mr` lists them
    (to root): a test's way to a key no peer can guess."""
    out = subprocess.run(["rdma", "resource", "show", "mr"],
                         capture_output=True, text=True).stdout
    keys = set()
    for line in out.splitlines():
        f = line.split()
        if "rds_rdma" in line and "rkey" in f:
            keys.add(int(f[f.index("rkey") + 1], 16))
    return keys


def case_cookie_race(addr, peer):
    """RDS_GET_MR whose cookie cannot be written while a peer's use-once
    WRITE releases the region it just made (finding 1 of the tenant
    review): the cookie's page is held by userfaultfd, so put_user()
    waits while the user's WRITE to the region's key (read from `rdma
    resource show mr`: keys are random) arrives and its message releases
    it; then the page goes and put_user() fails (EFAULT). The region must
    be let go of once, not twice (a double rb_erase and put before the
    fix): the debug kernel's KASAN sees to that. Nothing stays pinned."""
    try:
        os.close(stalled_page()[1])
    except NoUffd:
        print("no userfaultfd in this kernel (CONFIG_USERFAULTFD)")
        sys.exit(4)
    base = pins()
    p = Pair(addr, peer)
    for s in (p.user, p.owner):
        s.settimeout(60)
    region = Buffer(1)
    local = Buffer(1)
    rounds = 2 if SHORT else 5
    hits = 0
    p.share(1)
    for r in range(rounds):
        before = mr_keys()
        page, uffd = stalled_page()
        got = []
        key = []

        def handler():
            os.read(uffd, 32)		# put_user() of the cookie waits
            try:
                new = mr_keys() - before
                key.extend(new)
                if len(new) != 1:
                    return
                k1 = new.pop()
                p.rdma(k1, 0, 8, [(local.addr, 8)],
                       RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 10 + r,
                       b"race")
                got.append(p.wait_status(10 + r, 60))
                if got[0] == SUCCESS:
                    got.append(p.owner_recv()[0])
            finally:
                LIBC.munmap(page, PAGE)
                os.close(uffd)

        t = threading.Thread(target=handler)
        t.start()
        args = ctypes.create_string_buffer(
            struct.pack("=QQQQ", region.addr, PAGE, page, RDS_RDMA_USE_ONCE),
            32)
        # Through libc, which lets go of the GIL (socket.setsockopt()
        # keeps it, and the handler could never run).
        ret = LIBC.setsockopt(p.owner.fileno(), SOL_RDS, RDS_GET_MR, args,
                              32)
        err = ctypes.get_errno() if ret else 0
        t.join()
        check(err == errno.EFAULT,
              "GET_MR, released by the peer under put_user(): %s" %
              errno.errorcode.get(err, err))
        print("round %d: keys %s: %s" % (r, [hex(k) for k in key], got))
        if got == [SUCCESS, b"race"]:
            hits += 1
        else:
            p.share(2)		# a wrong guess: the connection is back
    check(hits, "the release raced put_user() in %d of %d rounds" %
          (hits, rounds))
    p.close()
    wait_pins(base, "close: every pin back")

def case_notify_race(addr, peer):
    """RDS_CANCEL_SENT_TO and close() racing the completions of RDMA
    operations whose statuses they would report (finding 5): sockets with
    SO_RECVERR send WRITEs, half of them NOTIFY_ME, and are cancelled and
    closed while the completions come in, round after round; then the
    connection still works and nothing stays pinned."""
    base = pins()
    p = Pair(addr, peer)
    local = Buffer((64 << 10) // PAGE)
    region = Buffer((64 << 10) // PAGE)
    live = get_mr(p.owner, region.addr, 64 << 10)
    p.share(live)
    dst = (peer, PORT_OWNER)
    cancel = struct.pack("=HH4s8x", socket.AF_INET, socket.htons(PORT_OWNER),
                         socket.inet_aton(peer))
    rounds = 5 if SHORT else 30
    for r in range(rounds):
        u = rds_socket(addr, port=PORT_USER + 20)
        u.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
        u.setsockopt(SOL_RDS, RDS_RECVERR, 1)
        for k in range(16):
            flags = RDS_RDMA_READWRITE | (RDS_RDMA_NOTIFY_ME if k & 1 else 0)
            anc, arr = rdma_args(live, 0, 64 << 10, [(local.addr, 64 << 10)],
                                 flags, k)
            u.sendmsg([b""], [anc], socket.MSG_DONTWAIT, dst)
            del arr
        if r & 1:
            u.setsockopt(SOL_RDS, RDS_CANCEL_SENT_TO, cancel)
        u.close()
    print("%d rounds of 16 WRITEs cancelled or closed under their "
          "completions" % rounds)
    p.share(live)
    p.close()
    wait_pins(base, "every pin back")


def outcome(fn, *args):
    """What a call came to, as a line of the golden file: ok or an errno."""
    try:
        fn(*args)
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
    return "ok"


def bad_requests(p, cookie):
    """The errno of each malformed or oversized RDMA request from @p's
    user to its owner, one line each, for the golden file."""
    buf = Buffer(MIB // PAGE + 2)
    odd = Buffer(4)
    hole = odd.unmap_page(1)
    ro = odd.protect_page(2, mmap.PROT_READ)
    dst = (p.peer, PORT_OWNER)
    W = RDS_RDMA_READWRITE

    def send(what, local, rbytes=PAGE, flags=W, nr=None, extra=(),
             payload=b"", token=1, cookie=cookie):
        anc, arr = rdma_args(cookie, 0, rbytes, local, flags, token)
        if nr is not None:
            d = bytearray(anc[2])
            struct.pack_into("=Q", d, 32, nr)
            anc = (SOL_RDS, RDS_CMSG_RDMA_ARGS, bytes(d))
        print("%s: %s" % (what, outcome(p.user.sendmsg, [payload],
                                        [anc] + list(extra), 0, dst)))
        del arr

    print("RDMA_ARGS shorter than the struct: %s" %
          outcome(p.user.sendmsg, [b""],
                  [(SOL_RDS, RDS_CMSG_RDMA_ARGS, bytes(55))], 0, dst))
    send("nr_local 0", [(buf.addr, 8)], nr=0)
    send("nr_local 0, remote 2 MiB", [(buf.addr, 8)], nr=0,
         rbytes=2 * MIB)
    send("nr_local 1025", [(buf.addr, 8)], nr=1025)
    send("a local vector of 0 bytes", [(buf.addr, 0)])
    send("a local vector that wraps", [(buf.addr, 2**64 - 8)],
         rbytes=2**64 - 1)
    send("a local vector of 4 GiB", [(buf.addr, 2**32)], rbytes=2**33)
    send("two local vectors whose sum overflows",
         [(buf.addr, 2**63), (buf.addr, 2**63)], rbytes=2**64 - 1)
    send("a local vector that wraps, remote 1 page",
         [(buf.addr, 2**64 - 8)])
    send("a local vector of 4 GiB, remote 1 page", [(buf.addr, 2**32)])
    send("two local vectors whose sum overflows, remote 1 page",
         [(buf.addr, 2**63), (buf.addr, 2**63)])
    send("local 1 MiB + 1, remote 2 MiB",
         [(buf.addr, MIB // 2), (buf.addr, MIB // 2 + 1)], rbytes=2 * MIB)
    send("local 1 MiB + 1, remote 1 MiB",
         [(buf.addr, MIB // 2), (buf.addr, MIB // 2 + 1)], rbytes=MIB)
    send("local 4 KiB, remote 1 TiB", [(buf.addr, PAGE)], rbytes=1 << 40)
    send("local 4 KiB, remote 1 MiB + 1", [(buf.addr, PAGE)],
         rbytes=MIB + 1)
    send("local 2 pages, remote 1 page", [(buf.addr, 2 * PAGE)])
    send("local vectors at address 0", [(0, 8)])
    send("an unmapped local page", [(buf.addr, PAGE), (hole, 8)])
    send("READ into a read-only page", [(ro, 8)], flags=0)
    anc2, arr2 = rdma_args(cookie, 0, PAGE, [(buf.addr, 8)], W, 2)
    send("two RDMA_ARGS", [(buf.addr, 8)], extra=[anc2])
    send("RDMA_ARGS and RDMA_DEST", [(buf.addr, 8)],
         extra=[(SOL_RDS, RDS_CMSG_RDMA_DEST, struct.pack("=Q", cookie))])
    print("a payload of 1 MiB + 1: %s" %
          outcome(p.user.sendmsg, [bytes(MIB + 1)], [], 0, dst))
    print("FADD to a local address not 8-aligned: %s" %
          outcome(p.user.sendmsg, [b""],
                  [atomic_args(RDS_CMSG_ATOMIC_FADD, cookie, 0,
                               buf.addr + 4, 0, 3, (1,))], 0, dst))


def case_golden(addr, peer):
    """What an application sees, one line per request, for the golden
    file rds_rdma.golden made from the in-tree modules: the errno of each
    malformed or oversized RDMA request (no check of its own, the
    comparison is the check), then the status of each operation, none
    where there is none.  Run on the in-tree modules by
    intree/test_rdma.sh and on ours by ib/test_ib_golden.sh."""
    p = Pair(addr, peer)
    for s in (p.user, p.owner):
        s.settimeout(60)
    region = Buffer(MIB // PAGE + 1)
    buf = Buffer(MIB // PAGE)

    # In-tree 6.1 registers only on a connection (fast registration
    # through its QP): RDS_GET_MR is EOPNOTSUPP there, RDS_CMSG_RDMA_MAP
    # on a send is how a region comes to be, its cookie going along.
    def mapped(addr, length):
        c = ctypes.c_uint64()
        p.owner_send(b"map", [(SOL_RDS, RDS_CMSG_RDMA_MAP,
                               struct.pack("=QQQQ", addr, length,
                                           ctypes.addressof(c), 0))])
        _, anc = p.user_recv()
        return struct.unpack("=Q", anc[RDS_CMSG_RDMA_DEST])[0]

    cookie = mapped(region.addr, MIB)
    dst = (peer, PORT_OWNER)
    W, N = RDS_RDMA_READWRITE, RDS_RDMA_NOTIFY_ME

    bad_requests(p, cookie)

    def status(what, token, timeout=60):
        """The status of @token, or none if a later one came first."""
        try:
            got = NAMES[p.wait_status(token, timeout)]
        except (Fail, socket.timeout):
            got = "none"
        print("%s: %s" % (what, got))

    # A marker with NOTIFY_ME after an operation without: once its status
    # is in, the first one's would have been too.
    def marker(token):
        p.rdma(cookie, 0, 8, [(buf.addr, 8)], W | N, token)
        p.wait_status(token, 60)

    p.rdma(cookie, 0, MIB, [(buf.addr, MIB)], W | N, 10)
    status("WRITE of 1 MiB, NOTIFY_ME", 10)
    p.rdma(cookie, 0, MIB, [(buf.addr, MIB)], N, 11)
    status("READ of 1 MiB, NOTIFY_ME", 11)
    p.rdma(cookie, 0, PAGE, [(buf.addr, PAGE)], W, 12)
    marker(13)
    status("WRITE without NOTIFY_ME", 12, 0)

    # SO_RECVERR: failures only.
    p.user.setsockopt(SOL_RDS, RDS_RECVERR, 1)
    p.rdma(cookie, 0, PAGE, [(buf.addr, PAGE)], W, 14)
    marker(15)
    status("WRITE with RDS_RECVERR, no NOTIFY_ME", 14, 0)
    p.user.setsockopt(SOL_RDS, RDS_RECVERR, 0)

    # To an address nobody answers at: queued until cancelled.
    far = (FAR, PORT_OWNER)
    anc, arr = rdma_args(cookie, 0, PAGE, [(buf.addr, PAGE)], W | N, 16)
    print("WRITE to an address nobody answers at: %s" %
          outcome(p.user.sendmsg, [b""], [anc], 0, far))
    del arr
    time.sleep(1)
    p.user.setsockopt(SOL_RDS, RDS_CANCEL_SENT_TO,
                      struct.pack("=HH4s8x", socket.AF_INET,
                                  socket.htons(PORT_OWNER),
                                  socket.inet_aton(FAR)))
    status("the same, RDS_CANCEL_SENT_TO", 16, 20)

    p.close()


def case_exact(addr, peer):
    """A region exposes the bytes its owner named, not the rest of the
    pages they lie in (in-tree and we before: whole pages, up to 4095
    bytes either side): the peer's WRITE of exactly the region succeeds,
    one byte more or one byte past its end is REMOTE_ERROR and writes
    nothing; the same for a region across a page boundary."""
    base = pins()
    p = Pair(addr, peer)
    region = Buffer(4)
    local = Buffer(1)
    token = 0
    for start, size in ((100, 200), (2 * PAGE - 50, 100)):
        cookie = get_mr(p.owner, region.addr + start, size)
        p.share(cookie)
        region.map[:] = bytes(len(region.map))
        for off, n, ok in ((0, size, True), (0, size + 1, False),
                           (size, 1, False), (size - 1, 1, True)):
            token += 1
            fill(local, 0, n, token)
            p.rdma(cookie, off, n, [(local.addr, n)],
                   RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, token)
            st = p.wait_status(token)
            check(st == (SUCCESS if ok else REMOTE_ERROR),
                  "region of %d B at %d: WRITE of %d B at %d: %s" %
                  (size, start, n, off, "SUCCESS" if ok else
                   "REMOTE_ERROR"))
            if not ok:
                p.share(cookie)		# the connection is back
        outside = region.map[:start] + region.map[start + size:]
        check(outside == bytes(len(outside)),
              "nothing written outside the region of %d B at %d" %
              (size, start))
        free_mr(p.owner, cookie)
    p.no_more_statuses()
    p.close()
    check(pins() == base, "close: every pin back")


CASES = {
    "data": case_data,
    "once": case_once,
    "vectors": case_vectors,
    "dest": case_dest,
    "mapnew": case_mapnew,
    "errnos": case_errnos,
    "notsupp": case_notsupp,
    "atomic": case_atomic,
    "silent": case_silent,
    "freed": case_freed,
    "pool": case_pool,
    "exact": case_exact,
    "linkdel": case_linkdel,
    "golden": case_golden,
    "dropped": case_dropped,
    "neighbour": case_neighbour,
    "cookie_race": case_cookie_race,
    "notify_race": case_notify_race,
}

if __name__ == "__main__":
    main(CASES)
