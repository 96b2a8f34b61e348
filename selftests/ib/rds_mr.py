#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# RDS_GET_MR, RDS_GET_MR_FOR_DEST and RDS_FREE_MR from user space, for
# test_ib_mr.sh: rds_mr.py CASE ADDR [PEER]. Each case prints what it
# checked and exits 1 on the first thing that is not as expected.

import ctypes
import errno
import mmap
import os
import pwd
import resource
import socket
import struct
import subprocess
import sys
import time

SOL_RDS = 276
RDS_GET_MR, RDS_FREE_MR, RDS_GET_MR_FOR_DEST, SO_RDS_TRANSPORT = 2, 3, 7, 8
RDS_TRANS_IB, RDS_TRANS_TCP = 0, 2
RDS_CMSG_RDMA_ARGS, RDS_CMSG_RDMA_MAP = 1, 3
RDS_RDMA_READWRITE = 0x1
RDS_RDMA_INVALIDATE, RDS_RDMA_USE_ONCE = 0x4, 0x8
PAGE = mmap.PAGESIZE


class Fail(Exception):
    pass


def rds_socket(addr, trans=RDS_TRANS_IB, port=0):
    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
    if trans is not None:
        s.setsockopt(SOL_RDS, SO_RDS_TRANSPORT, trans)
    if addr:
        s.bind((addr, port))
    return s


LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
LIBC.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


class Buffer:
    """An anonymous mapping and its user address."""

    def __init__(self, pages):
        self.map = mmap.mmap(-1, pages * PAGE)
        buf = (ctypes.c_char * 1).from_buffer(self.map)
        self.addr = ctypes.addressof(buf)
        del buf

    def unmap_page(self, i):
        """A hole: the page is no longer mapped at all."""
        if LIBC.munmap(self.addr + i * PAGE, PAGE):
            raise Fail("munmap: %s" % os.strerror(ctypes.get_errno()))
        return self.addr + i * PAGE

    def protect_page(self, i, prot):
        if LIBC.mprotect(self.addr + i * PAGE, PAGE, prot):
            raise Fail("mprotect: %s" % os.strerror(ctypes.get_errno()))
        return self.addr + i * PAGE


COOKIE = ctypes.c_uint64()
COOKIE_ADDR = ctypes.addressof(COOKIE)


def mr_args(addr, length, flags=0, cookie_addr=None):
    return struct.pack("=QQQQ", addr, length,
                       COOKIE_ADDR if cookie_addr is None else cookie_addr,
                       flags)


def mr_dest_args(dest, addr, length, flags=0):
    ss = struct.pack("=HH4s", socket.AF_INET, 0,
                     socket.inet_aton(dest)).ljust(128, b"\0")
    return ss + mr_args(addr, length, flags)


def get_mr(s, addr, length, flags=0):
    COOKIE.value = 0
    s.setsockopt(SOL_RDS, RDS_GET_MR, mr_args(addr, length, flags))
    return COOKIE.value


def free_mr(s, cookie, flags=0):
    s.setsockopt(SOL_RDS, RDS_FREE_MR, struct.pack("=QQ", cookie, flags))


def expect_errno(what, want, fn, *args):
    try:
        fn(*args)
    except OSError as e:
        if e.errno != want:
            raise Fail("%s: %s, not %s" % (what, e, errno.errorcode[want]))
        print("%s: %s" % (what, errno.errorcode[want]))
        return
    raise Fail("%s succeeded, not %s" % (what, errno.errorcode[want]))


def pins():
    """FOLL_PIN pins held in the whole system."""
    with open("/proc/sys/vm/stat_refresh", "w") as f:
        f.write("1")
    stat = {}
    with open("/proc/vmstat") as f:
        for line in f:
            k, v = line.split()
            stat[k] = int(v)
    return stat["nr_foll_pin_acquired"] - stat["nr_foll_pin_released"]


def check(cond, what):
    if not cond:
        raise Fail(what)
    print(what)


def case_basic(addr, peer):
    """Register, register for a destination, free with and without
    invalidation, flush: on a socket that never sent anything, so no
    connection exists."""
    base = pins()
    s = rds_socket(addr)
    buf = Buffer(4)
    c1 = get_mr(s, buf.addr + 100, 2 * PAGE)
    check(c1 & 0xffffffff and c1 >> 32 == 100,
          "GET_MR: cookie %#x, offset 100 in it" % c1)
    check(pins() - base == 3, "GET_MR: 3 pages pinned")

    COOKIE.value = 0
    s.setsockopt(SOL_RDS, RDS_GET_MR_FOR_DEST,
                 mr_dest_args(peer, buf.addr, PAGE))
    c2 = COOKIE.value
    check(c2 & 0xffffffff and c2 >> 32 == 0 and
          c2 & 0xffffffff != c1 & 0xffffffff,
          "GET_MR_FOR_DEST: cookie %#x, a key of its own" % c2)

    c3 = get_mr(s, buf.addr, 4 * PAGE, RDS_RDMA_INVALIDATE)
    c4 = get_mr(s, buf.addr + PAGE, PAGE, RDS_RDMA_USE_ONCE)
    check(len({c1, c2, c3, c4}) == 4, "four regions, four cookies")

    free_mr(s, c1)
    expect_errno("FREE_MR of a freed cookie", errno.EINVAL, free_mr, s, c1)
    free_mr(s, c2, RDS_RDMA_INVALIDATE)
    print("FREE_MR with RDS_RDMA_INVALIDATE: ok")
    free_mr(s, c3)
    print("FREE_MR of a region registered with RDS_RDMA_INVALIDATE: ok")
    free_mr(s, 0)
    print("FREE_MR of cookie 0 (flush): ok")
    check(pins() - base == 1, "one region left, one page pinned")
    s.close()
    check(pins() == base, "close: every pin back")


def case_errnos(addr, peer):
    """In-tree's errnos for what is wrong with a request."""
    base = pins()
    buf = Buffer(4)
    good = mr_args(buf.addr, PAGE)

    u = rds_socket(None, None)
    expect_errno("GET_MR unbound", errno.ENOTCONN,
                 u.setsockopt, SOL_RDS, RDS_GET_MR, good)
    expect_errno("FREE_MR flush unbound, no transport", errno.EINVAL,
                 free_mr, u, 0)
    u.setsockopt(SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_IB)
    expect_errno("GET_MR unbound, transport IB", errno.ENOTCONN,
                 u.setsockopt, SOL_RDS, RDS_GET_MR, good)
    free_mr(u, 0)
    print("FREE_MR flush unbound, transport IB: ok (as in-tree)")
    expect_errno("FREE_MR of a cookie, unbound", errno.EINVAL, free_mr, u, 7)
    u.close()

    s = rds_socket(addr)
    for name, opt, size in (("GET_MR", RDS_GET_MR, 32),
                            ("GET_MR_FOR_DEST", RDS_GET_MR_FOR_DEST, 160),
                            ("FREE_MR", RDS_FREE_MR, 16)):
        expect_errno("%s optlen %d" % (name, size - 1), errno.EINVAL,
                     s.setsockopt, SOL_RDS, opt, bytes(size - 1))
        expect_errno("%s optlen %d" % (name, size + 8), errno.EINVAL,
                     s.setsockopt, SOL_RDS, opt, bytes(size + 8))

    def bad(what, want, args):
        expect_errno(what, want, s.setsockopt, SOL_RDS, RDS_GET_MR, args)

    bad("length 0", errno.EINVAL, mr_args(buf.addr, 0))
    bad("addr + length wraps", errno.EINVAL, mr_args(buf.addr, 2**64 - 16))
    bad("addr + length at the top page", errno.EINVAL,
        mr_args(2**64 - 100, 50))
    bad("length 4 GiB", errno.EINVAL, mr_args(buf.addr, 2**32))
    bad("length 2 MiB", errno.EMSGSIZE, mr_args(buf.addr, 2 << 20))
    bad("address 0", errno.EFAULT, mr_args(0, PAGE))
    odd = Buffer(8)
    hole_addr = odd.unmap_page(2)
    ro_addr = odd.protect_page(4, mmap.PROT_READ)
    bad("unmapped address", errno.EFAULT, mr_args(hole_addr, PAGE))
    bad("kernel address", errno.EFAULT, mr_args(0xffff888000000000, PAGE))
    bad("read-only mapping", errno.EFAULT, mr_args(ro_addr, PAGE))
    bad("partly unmapped", errno.EFAULT, mr_args(odd.addr + PAGE, 2 * PAGE))
    bad("cookie_addr unmapped", errno.EFAULT,
        mr_args(buf.addr, PAGE, cookie_addr=hole_addr))
    check(pins() == base, "no pin left behind by the failures")

    expect_errno("FREE_MR of an unknown cookie", errno.EINVAL,
                 free_mr, s, 0x1234567800abcdef)
    other = rds_socket(addr)
    theirs = get_mr(other, buf.addr, PAGE)
    expect_errno("FREE_MR of another socket's cookie", errno.EINVAL,
                 free_mr, s, theirs)
    free_mr(other, theirs)
    print("...which its own socket frees")
    other.close()

    # Send side (test_ib_rdma.sh has the rest): a short RDMA_ARGS cmsg.
    expect_errno("RDMA_ARGS cmsg shorter than the struct", errno.EINVAL,
                 s.sendmsg, [b"x"], [(SOL_RDS, RDS_CMSG_RDMA_ARGS, bytes(8))],
                 0, (peer, 4001))
    s.close()
    check(pins() == base, "every pin back")


def case_notsupp(addr, peer):
    """Transports without RDMA: in-tree's EOPNOTSUPP and EINVAL."""
    buf = Buffer(1)
    for name, a, t in (("TCP", addr, RDS_TRANS_TCP),
                       ("loopback", "127.0.0.1", None)):
        s = rds_socket(a, t)
        expect_errno("GET_MR on %s" % name, errno.EOPNOTSUPP,
                     get_mr, s, buf.addr, PAGE)
        COOKIE.value = 0
        expect_errno("GET_MR_FOR_DEST on %s" % name, errno.EOPNOTSUPP,
                     s.setsockopt, SOL_RDS, RDS_GET_MR_FOR_DEST,
                     mr_dest_args(peer, buf.addr, PAGE))
        expect_errno("FREE_MR flush on %s" % name, errno.EINVAL,
                     free_mr, s, 0)
        expect_errno("FREE_MR on %s" % name, errno.EINVAL, free_mr, s, 7)
        s.close()


def case_many(addr, n):
    """N regions over 64 pages, then close: all of them go."""
    n = int(n)
    base = pins()
    s = rds_socket(addr)
    buf = Buffer(64)
    keys = set()
    for i in range(n):
        keys.add(get_mr(s, buf.addr + (i % 64) * PAGE, PAGE) & 0xffffffff)
    check(len(keys) == n, "%d regions, %d keys" % (n, len(keys)))
    check(pins() - base == n, "%d pins" % n)
    s.close()
    check(pins() == base, "close: every pin back")


def rdma_write(s, peer, port, cookie, addr, length):
    """sendmsg with an RDMA WRITE of [addr, addr + length) to @cookie."""
    vec = ctypes.create_string_buffer(struct.pack("=QQ", addr, length))
    args = struct.pack("=QQQQQQQ", cookie, 0, length, ctypes.addressof(vec),
                       1, RDS_RDMA_READWRITE, 1)
    s.sendmsg([b"w"], [(SOL_RDS, RDS_CMSG_RDMA_ARGS, args)], 0,
              (peer, port))


def rdma_map(s, peer, port, addr, length):
    """sendmsg with RDS_CMSG_RDMA_MAP of [addr, addr + length)."""
    s.sendmsg([b"m"], [(SOL_RDS, RDS_CMSG_RDMA_MAP, mr_args(addr, length))],
              0, (peer, port))


def wait_pins(want, what):
    """Pins of a message go when the peer acknowledged it."""
    for i in range(100):
        if pins() == want:
            break
        time.sleep(0.1)
    check(pins() == want, what)


def as_nobody(memlock_pages, fn, *args):
    """Runs fn(sync, *args) in a child as nobody, without capabilities,
    with RLIMIT_MEMLOCK at @memlock_pages. sync(what, n), in the child,
    has the parent (root: pins() needs it) check that n pages more than
    before the child are pinned."""
    base = pins()
    nobody = pwd.getpwnam("nobody")
    up_r, up_w = os.pipe()          # child -> parent: "N what"
    down_r, down_w = os.pipe()      # parent -> child: 1 (as said) or 0
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(up_r)
            os.close(down_w)
            lim = memlock_pages * PAGE
            resource.setrlimit(resource.RLIMIT_MEMLOCK, (lim, lim))
            os.setgroups([])
            os.setresgid(nobody.pw_gid, nobody.pw_gid, nobody.pw_gid)
            os.setresuid(nobody.pw_uid, nobody.pw_uid, nobody.pw_uid)
            with open("/proc/self/status") as f:
                eff = [ln for ln in f if ln.startswith("CapEff:")][0]
            check(int(eff.split()[1], 16) == 0,
                  "uid %d, no capability, RLIMIT_MEMLOCK %d pages" %
                  (os.getuid(), memlock_pages))

            def sync(what, n):
                sys.stdout.flush()
                os.write(up_w, ("%d %s\n" % (n, what)).encode())
                if os.read(down_r, 1) != b"1":
                    raise Fail("%s: not %d pages pinned" % (what, n))

            fn(sync, *args)
            code = 0
        except Exception as e:
            # Whatever it is, the child must not go on as the parent.
            print("FAIL:", e)
        finally:
            sys.stdout.flush()
            os._exit(code)
    os.close(up_w)
    os.close(down_r)
    with os.fdopen(up_r) as f:
        while True:
            line = f.readline()
            if not line:
                break
            n, what = line.rstrip("\n").split(" ", 1)
            got = pins() - base
            print("%s: %d pages pinned" % (what, got))
            os.write(down_w, b"1" if got == int(n) else b"0")
    os.close(down_w)
    _, status = os.waitpid(pid, 0)
    if status:
        raise Fail("the child as nobody failed")


MEMLOCK = 16


def memlock_regions(sync, addr, peer, port, cookie):
    """Regions up to RLIMIT_MEMLOCK, then one region, one RDMA WRITE and
    one RDMA_MAP beyond it: ENOMEM, nothing pinned; a free gives its pages'
    worth back. Last, a WRITE that fits, and the socket closed at once."""
    s = rds_socket(addr)
    buf = Buffer(2 * MEMLOCK)
    c1 = get_mr(s, buf.addr, 10 * PAGE)
    sync("a region of 10 pages", 10)
    expect_errno("7 pages more", errno.ENOMEM,
                 get_mr, s, buf.addr + 10 * PAGE, 7 * PAGE)
    sync("after it", 10)
    c2 = get_mr(s, buf.addr + 10 * PAGE + 100, 5 * PAGE)
    sync("6 pages more (unaligned): at the limit", 16)
    expect_errno("one page more", errno.ENOMEM, get_mr, s, buf.addr, 1)
    expect_errno("RDMA WRITE of one page", errno.ENOMEM,
                 rdma_write, s, peer, port, cookie, buf.addr, PAGE)
    expect_errno("RDMA_MAP of one page", errno.ENOMEM,
                 rdma_map, s, peer, port, buf.addr, PAGE)
    sync("after them", 16)
    free_mr(s, c1)
    sync("FREE_MR of the 10 pages", 6)
    c1 = get_mr(s, buf.addr + PAGE, 10 * PAGE)
    sync("10 pages again", 16)
    free_mr(s, c1)
    free_mr(s, c2)
    sync("both freed", 0)
    # Unpinned when the peer acknowledged it, or when the socket's close
    # drops it: either way the charge must go back once.
    rdma_write(s, peer, port, cookie, buf.addr, 4 * PAGE)
    print("RDMA WRITE of 4 pages: sent")
    s.close()


def memlock_again(sync, addr):
    """The whole allowance is there again, not a page more."""
    s = rds_socket(addr)
    buf = Buffer(MEMLOCK + 1)
    # The WRITE's pages are unpinned a moment before their charge goes.
    for i in range(20):
        try:
            c = get_mr(s, buf.addr, MEMLOCK * PAGE)
            break
        except OSError as e:
            if e.errno != errno.ENOMEM or i == 19:
                raise
            time.sleep(0.1)
    sync("a region of %d pages" % MEMLOCK, MEMLOCK)
    expect_errno("one page more", errno.ENOMEM,
                 get_mr, s, buf.addr + MEMLOCK * PAGE, PAGE)
    free_mr(s, c)
    sync("freed", 0)
    s.close()


def case_memlock(addr, peer):
    """RLIMIT_MEMLOCK of a user without CAP_IPC_LOCK: the pages of regions
    and RDMA operations are charged while pinned, ENOMEM beyond it with
    nothing left pinned, and every charge goes back exactly once (a second
    child gets the whole allowance, and not a page more)."""
    base = pins()
    owner = rds_socket(peer, port=4311)
    obuf = Buffer(4)
    cookie = get_mr(owner, obuf.addr, 4 * PAGE)
    as_nobody(MEMLOCK, memlock_regions, addr, peer, 4311, cookie)
    wait_pins(base + 4, "the WRITE's pages unpinned")
    as_nobody(MEMLOCK, memlock_again, addr)
    owner.close()
    check(pins() == base, "every pin back")


def sysctl(path, value=None):
    path = "/proc/sys/net/rds/" + path
    with open(path) as f:
        old = f.read().strip()
    if value is not None:
        with open(path, "w") as f:
            f.write(str(value))
    return old


def case_caps(addr, peer):
    """net.rds.max_mrs_per_socket and net.rds.ib.max_mrs_per_device: one
    region beyond either is EAGAIN (RDS_GET_MR and RDS_CMSG_RDMA_MAP) and
    pins nothing; a free makes room for one."""
    base = pins()
    per_sock = sysctl("max_mrs_per_socket", 4)
    per_dev = sysctl("ib/max_mrs_per_device")
    try:
        buf = Buffer(8)
        s = rds_socket(addr)
        cs = [get_mr(s, buf.addr + i * PAGE, PAGE) for i in range(4)]
        check(pins() - base == 4, "max_mrs_per_socket 4: 4 regions")
        expect_errno("a 5th", errno.EAGAIN, get_mr, s, buf.addr, PAGE)
        expect_errno("RDMA_MAP", errno.EAGAIN,
                     rdma_map, s, peer, 4311, buf.addr, PAGE)
        check(pins() - base == 4, "nothing pinned by them")
        other = rds_socket(addr)
        c = get_mr(other, buf.addr, PAGE)
        print("another socket: GET_MR ok")
        free_mr(s, cs.pop())
        cs.append(get_mr(s, buf.addr + 4 * PAGE, PAGE))
        print("FREE_MR of one, GET_MR again: ok")

        sysctl("max_mrs_per_socket", per_sock)
        sysctl("ib/max_mrs_per_device", 6)
        cs.append(get_mr(s, buf.addr + 5 * PAGE, PAGE))
        check(pins() - base == 6, "max_mrs_per_device 6: 6 regions")
        expect_errno("a 7th, other socket", errno.EAGAIN,
                     get_mr, other, buf.addr, PAGE)
        expect_errno("a 7th", errno.EAGAIN, get_mr, s, buf.addr, 2 * PAGE)
        check(pins() - base == 6, "nothing pinned by them")
        free_mr(other, c)
        c = get_mr(s, buf.addr + 6 * PAGE, PAGE)
        print("FREE_MR on the other socket, GET_MR: ok")
        other.close()
        s.close()
        check(pins() == base, "close: every pin back")
        s = rds_socket(addr)
        cs = [get_mr(s, buf.addr + i * PAGE, PAGE) for i in range(6)]
        print("after close: 6 regions again")
        s.close()
    finally:
        sysctl("max_mrs_per_socket", per_sock)
        sysctl("ib/max_mrs_per_device", per_dev)
    check(pins() == base, "every pin back")


def case_cookie_fault(addr, peer):
    """CVE-2026-46053: the cookie cannot be written back (cookie_addr
    unmapped, read-only, in the kernel) for RDS_GET_MR, RDS_GET_MR_FOR_DEST
    and RDS_CMSG_RDMA_MAP: EFAULT each time, and the region made before
    the write is gone with it, nobody having been told of it. In-tree
    kept it in the socket's tree, or freed it with the key still there.
    With room for 2 regions per socket and per device, the socket then
    still registers 2 (a 3rd is EAGAIN): nothing failed holds a place;
    no page stays pinned; the failed sends never reach the peer, whose
    first message is the one sent after them. The debug kernel's
    kmemleak and KASAN see to the rest."""
    base = pins()
    per_sock = sysctl("max_mrs_per_socket", 2)
    per_dev = sysctl("ib/max_mrs_per_device", 2)
    port = 4321
    try:
        buf = Buffer(4)
        odd = Buffer(4)
        bad = {"unmapped": odd.unmap_page(1),
               "read-only": odd.protect_page(2, mmap.PROT_READ),
               "kernel": 0xffff888000000000}
        r = rds_socket(peer, port=port)
        r.settimeout(30)
        s = rds_socket(addr)
        for rnd in range(3):
            for where, cookie_addr in bad.items():
                a = mr_args(buf.addr, PAGE, cookie_addr=cookie_addr)
                expect_errno("GET_MR, cookie_addr %s" % where, errno.EFAULT,
                             s.setsockopt, SOL_RDS, RDS_GET_MR, a)
                d = mr_dest_args(peer, buf.addr, PAGE)[:128] + a
                expect_errno("GET_MR_FOR_DEST, cookie_addr %s" % where,
                             errno.EFAULT, s.setsockopt, SOL_RDS,
                             RDS_GET_MR_FOR_DEST, d)
                expect_errno("RDMA_MAP, cookie_addr %s" % where,
                             errno.EFAULT, s.sendmsg, [b"mapped"],
                             [(SOL_RDS, RDS_CMSG_RDMA_MAP, a)], 0,
                             (peer, port))
        check(pins() == base, "27 failures: nothing pinned")
        cs = [get_mr(s, buf.addr + i * PAGE, PAGE) for i in range(2)]
        check(len(set(cs)) == 2, "then 2 regions on the socket")
        expect_errno("a 3rd", errno.EAGAIN, get_mr, s, buf.addr, PAGE)
        for c in cs:
            free_mr(s, c)
        s.sendto(b"after", (peer, port))
        data, _ = r.recvfrom(100)
        check(data == b"after", "the peer's first message: %r" % data)
        s.close()
        r.close()
    finally:
        sysctl("max_mrs_per_socket", per_sock)
        sysctl("ib/max_mrs_per_device", per_dev)
    check(pins() == base, "every pin back")


def rdma_link(*args):
    subprocess.run(["rdma", "link"] + list(args), check=True)


def case_linkdel(addr, dev, netdev):
    """The device goes while regions exist: they stay, pinned, until freed
    or closed; new ones get ENODEV; the device back, registration works
    again on the same socket, its old regions still there."""
    base = pins()
    s = rds_socket(addr)
    closing = rds_socket(addr)
    buf = Buffer(8)
    cookies = [get_mr(s, buf.addr + i * PAGE, PAGE) for i in range(8)]
    for i in range(8):
        get_mr(closing, buf.addr + i * PAGE, 2 * PAGE if i < 7 else PAGE)
    check(pins() - base == 8 + 15, "23 pins")
    rdma_link("del", dev)
    print("rdma link del %s: done" % dev)
    check(pins() - base == 8 + 15, "the pages stay pinned")
    expect_errno("GET_MR without a device", errno.ENODEV,
                 get_mr, s, buf.addr, PAGE)
    free_mr(s, cookies[0])
    free_mr(s, cookies[1], RDS_RDMA_INVALIDATE)
    free_mr(s, 0)
    print("FREE_MR after the device went: ok")
    closing.close()
    check(pins() - base == 6, "closed a socket with regions: 6 pins left")

    rdma_link("add", dev, "type", "rxe", "netdev", netdev)
    print("rdma link add %s: done" % dev)
    # The new device gets its GIDs from a work item: ENODEV until then.
    for i in range(100):
        try:
            first = get_mr(s, buf.addr, PAGE)
            break
        except OSError as e:
            if e.errno != errno.ENODEV:
                raise
            time.sleep(0.1)
    else:
        raise Fail("GET_MR: still ENODEV 10 s after the device came back")
    old = set(c & 0xffffffff for c in cookies[2:])
    new = {first & 0xffffffff}
    for i in range(63):
        new.add(get_mr(s, buf.addr, PAGE) & 0xffffffff)
    check(len(new) == 64 and not new & old,
          "64 regions on the new device, no key of the dead ones")
    for c in cookies[2:]:
        free_mr(s, c)
    print("the dead device's regions freed")
    s.close()
    check(pins() == base, "every pin back")


def case_hold(addr, secret):
    """A region of a page at ADDR holding SECRET (repeated): prints its
    cookie, keeps it until standard input closes (for another netns's
    peer to try)."""
    s = rds_socket(addr)
    buf = mmap.mmap(-1, PAGE)
    data = secret.encode()
    buf[:] = (data * (PAGE // len(data) + 1))[:PAGE]
    addr_of = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    print("%#x" % get_mr(s, addr_of, PAGE), flush=True)
    sys.stdin.read()
    s.close()


def case_share(addr, netns, ns_addr):
    """net.rds.ib.max_mrs_per_netns: a netns holding its share of the
    device's regions gets EAGAIN for one more, and another netns still
    registers on the same device; a free makes room again."""
    base = pins()
    old = sysctl("ib/max_mrs_per_netns", 2)
    try:
        buf = Buffer(4)
        s = rds_socket(addr)
        cs = [get_mr(s, buf.addr + i * PAGE, PAGE) for i in range(2)]
        expect_errno("a 3rd in this netns", errno.EAGAIN,
                     get_mr, s, buf.addr + 2 * PAGE, PAGE)
        check(pins() - base == 2, "nothing pinned by it")
        out = subprocess.run(["ip", "netns", "exec", netns, sys.executable,
                              os.path.abspath(__file__), "one", ns_addr],
                             capture_output=True, text=True, check=False)
        print(out.stdout.strip())
        check(out.returncode == 0, "netns %s: RDS_GET_MR with this one's "
              "share taken (%s)" % (netns, out.stdout.strip()))
        free_mr(s, cs.pop())
        cs.append(get_mr(s, buf.addr + 2 * PAGE, PAGE))
        print("FREE_MR of one, GET_MR again: ok")
        s.close()
    finally:
        sysctl("ib/max_mrs_per_netns", old)
    check(pins() == base, "every pin back")


def case_one(addr):
    """One region of a page at ADDR, then freed."""
    s = rds_socket(addr)
    buf = Buffer(1)
    free_mr(s, get_mr(s, buf.addr, PAGE))
    print("%s: RDS_GET_MR ok" % addr)
    s.close()


CASES = {
    "basic": case_basic,
    "errnos": case_errnos,
    "notsupp": case_notsupp,
    "many": case_many,
    "hold": case_hold,
    "linkdel": case_linkdel,
    "memlock": case_memlock,
    "caps": case_caps,
    "cookie_fault": case_cookie_fault,
    "share": case_share,
    "one": case_one,
}

def main(cases):
    """Runs the case argv[1] names with the rest as its arguments; on the
    first thing not as expected, says what and exits 1.
    """
    try:
        cases[sys.argv[1]](*sys.argv[2:])
    except (Fail, OSError, subprocess.CalledProcessError) as e:
        print("FAIL:", e)
        sys.exit(1)


if __name__ == "__main__":
    main(CASES)
