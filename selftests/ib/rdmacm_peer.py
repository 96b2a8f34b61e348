#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# A user-space RDS/IB peer over rdma_cm, for test_ib_compat.sh and
# test_ib_accept.sh: it sends the connect request an RDS/IB peer would,
# with the private data and RDMA depths a case asks for, and checks what
# our listener answers.
# rdmacm_peer.py CASE SRC DST. librdmacm and libibverbs are there on every
# machine (qemu needs them), their headers are not: the few structures
# used are declared here, as in <rdma/rdma_cma.h> and <infiniband/verbs.h>.

import ctypes
import os
import select
import socket
import struct
import subprocess
import sys
import time

RDS_IB_PORT = 18634
RDS_IB_PORT6 = 16385
RDMA_PS_TCP = 0x0106
IBV_QPT_RC = 2
IB_CM_REJ_CONSUMER_DEFINED = 28
RDS_RDMA_REJ_INCOMPAT = 1
RDS_IB_REJ_REFUSED = 2
(ADDR_RESOLVED, ADDR_ERROR, ROUTE_RESOLVED, ROUTE_ERROR, CONNECT_REQUEST,
 CONNECT_RESPONSE, CONNECT_ERROR, UNREACHABLE, REJECTED, ESTABLISHED,
 DISCONNECTED) = range(11)
EVENT_NAMES = ["ADDR_RESOLVED", "ADDR_ERROR", "ROUTE_RESOLVED",
               "ROUTE_ERROR", "CONNECT_REQUEST", "CONNECT_RESPONSE",
               "CONNECT_ERROR", "UNREACHABLE", "REJECTED", "ESTABLISHED",
               "DISCONNECTED"]
RDS_INFO = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "..", "..", "build", "bin", "rds-info")


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)
    print("ok:", what)


class ConnParam(ctypes.Structure):
    _fields_ = [("private_data", ctypes.c_void_p),
                ("private_data_len", ctypes.c_uint8),
                ("responder_resources", ctypes.c_uint8),
                ("initiator_depth", ctypes.c_uint8),
                ("flow_control", ctypes.c_uint8),
                ("retry_count", ctypes.c_uint8),
                ("rnr_retry_count", ctypes.c_uint8),
                ("srq", ctypes.c_uint8),
                ("qp_num", ctypes.c_uint32)]


class CmEvent(ctypes.Structure):
    # param is a union; the connection part is all we read.
    _fields_ = [("id", ctypes.c_void_p),
                ("listen_id", ctypes.c_void_p),
                ("event", ctypes.c_int),
                ("status", ctypes.c_int),
                ("conn", ConnParam)]


class QpCap(ctypes.Structure):
    _fields_ = [("max_send_wr", ctypes.c_uint32),
                ("max_recv_wr", ctypes.c_uint32),
                ("max_send_sge", ctypes.c_uint32),
                ("max_recv_sge", ctypes.c_uint32),
                ("max_inline_data", ctypes.c_uint32)]


class QpInitAttr(ctypes.Structure):
    _fields_ = [("qp_context", ctypes.c_void_p),
                ("send_cq", ctypes.c_void_p),
                ("recv_cq", ctypes.c_void_p),
                ("srq", ctypes.c_void_p),
                ("cap", QpCap),
                ("qp_type", ctypes.c_int),
                ("sq_sig_all", ctypes.c_int)]


class SockaddrIn(ctypes.Structure):
    _fields_ = [("family", ctypes.c_uint16),
                ("port", ctypes.c_uint16),
                ("addr", ctypes.c_uint32),  # network order
                ("zero", ctypes.c_uint8 * 8)]


class SockaddrIn6(ctypes.Structure):
    _fields_ = [("family", ctypes.c_uint16),
                ("port", ctypes.c_uint16),
                ("flowinfo", ctypes.c_uint32),
                ("addr", ctypes.c_uint8 * 16),
                ("scope_id", ctypes.c_uint32)]


def sockaddr6(addr, port):
    """ADDR%DEV and PORT as a struct sockaddr_in6."""
    ip, dev = addr.split("%")
    raw = socket.inet_pton(socket.AF_INET6, ip)
    return SockaddrIn6(socket.AF_INET6, socket.htons(port), 0,
                       (ctypes.c_uint8 * 16)(*raw), socket.if_nametoindex(dev))


def sockaddr(addr, port):
    return SockaddrIn(socket.AF_INET, socket.htons(port),
                      struct.unpack("=I", socket.inet_aton(addr))[0])


cm = ctypes.CDLL("librdmacm.so.1", use_errno=True)
verbs = ctypes.CDLL("libibverbs.so.1", use_errno=True)
P = ctypes.c_void_p
for name, args in (("rdma_create_event_channel", []),
                   ("rdma_bind_addr", [P, P]),
                   ("rdma_listen", [P, ctypes.c_int]),
                   ("rdma_accept", [P, P]),
                   ("rdma_create_id", [P, ctypes.POINTER(P), P, ctypes.c_int]),
                   ("rdma_resolve_addr", [P, P, P, ctypes.c_int]),
                   ("rdma_resolve_route", [P, ctypes.c_int]),
                   ("rdma_create_qp", [P, P, P]),
                   ("rdma_connect", [P, P]),
                   ("rdma_disconnect", [P]),
                   ("rdma_destroy_qp", [P]),
                   ("rdma_destroy_id", [P]),
                   ("rdma_get_cm_event", [P, ctypes.POINTER(P)]),
                   ("rdma_ack_cm_event", [P]),
                   ("rdma_destroy_event_channel", [P])):
    getattr(cm, name).argtypes = args
cm.rdma_create_event_channel.restype = P
verbs.ibv_reg_mr.argtypes = [P, P, ctypes.c_size_t, ctypes.c_int]
verbs.ibv_reg_mr.restype = P
verbs.ibv_dereg_mr.argtypes = [P]
verbs.ibv_alloc_pd.argtypes = [P]
verbs.ibv_alloc_pd.restype = P
verbs.ibv_dealloc_pd.argtypes = [P]


class Sge(ctypes.Structure):
    _fields_ = [("addr", ctypes.c_uint64),
                ("length", ctypes.c_uint32),
                ("lkey", ctypes.c_uint32)]


class RecvWr(ctypes.Structure):
    pass


RecvWr._fields_ = [("wr_id", ctypes.c_uint64),
                   ("next", ctypes.POINTER(RecvWr)),
                   ("sg_list", ctypes.POINTER(Sge)),
                   ("num_sge", ctypes.c_int)]
POST_RECV = ctypes.CFUNCTYPE(ctypes.c_int, P, ctypes.POINTER(RecvWr),
                             ctypes.POINTER(ctypes.POINTER(RecvWr)))
# ibv_post_recv() is inline: ibv_qp starts with its ibv_context, whose
# ops table (after the device pointer) has post_recv as entry 26.
POST_RECV_OFF = 8 + 26 * 8
# struct rdma_cm_id: verbs, channel, context, qp.
CM_ID_QP_OFF = 24
# struct ibv_mr: context, pd, addr, length, handle, lkey.
MR_LKEY_OFF = 36
RECVS, RECV_SIZE = 64, 8192
IBV_ACCESS_LOCAL_WRITE = 1


def ok(ret, what):
    if ret:
        err = ctypes.get_errno()
        raise Fail("%s: %s" % (what, os.strerror(err)))


def rds_priv(src, dst, major, minor, mask, credit=0, tos=0):
    """struct rds_ib_connect_private (IPv4, 32 bytes), or with IPv6
    addresses (a ":" in them; any "%dev" dropped) struct
    rds6_ib_connect_private (56 bytes)."""
    if ":" in src:
        fmt, fam = "!16s16s", socket.AF_INET6
    else:
        fmt, fam = "!4s4s", socket.AF_INET
    return struct.pack(fmt + "BBHBBHQI4x",
                       socket.inet_pton(fam, src.split("%")[0]),
                       socket.inet_pton(fam, dst.split("%")[0]), major,
                       minor, mask, tos, 0, 0, 0, credit)


def qp_of(cm_id):
    return ctypes.cast(cm_id.value + CM_ID_QP_OFF, ctypes.POINTER(P))[0]


def post_recvs(peer, recvs=RECVS):
    """Receives for whatever we send (the congestion map at least): an
    empty ring would be answered with RNR NAKs, which rxe on 6.12 does not
    always retry cleanly with our one transport retry."""
    peer.buf = ctypes.create_string_buffer(recvs * RECV_SIZE)
    peer.mr = verbs.ibv_reg_mr(peer.pd, ctypes.addressof(peer.buf),
                               recvs * RECV_SIZE, IBV_ACCESS_LOCAL_WRITE)
    if not peer.mr:
        raise Fail("ibv_reg_mr failed")
    lkey = ctypes.cast(peer.mr + MR_LKEY_OFF,
                       ctypes.POINTER(ctypes.c_uint32))[0]
    peer.sges = (Sge * recvs)()
    peer.wrs = (RecvWr * recvs)()
    for i in range(recvs):
        peer.sges[i] = Sge(ctypes.addressof(peer.buf) + i * RECV_SIZE,
                           RECV_SIZE, lkey)
        peer.wrs[i].wr_id = i
        peer.wrs[i].sg_list = ctypes.pointer(peer.sges[i])
        peer.wrs[i].num_sge = 1
        if i + 1 < recvs:
            peer.wrs[i].next = ctypes.pointer(peer.wrs[i + 1])
    qp = qp_of(peer.id)
    ctx = ctypes.cast(qp, ctypes.POINTER(P))[0]
    fn = POST_RECV(ctypes.cast(ctx + POST_RECV_OFF, ctypes.POINTER(P))[0])
    bad = ctypes.POINTER(RecvWr)()
    ok(fn(qp, ctypes.pointer(peer.wrs[0]), ctypes.byref(bad)),
       "ibv_post_recv")


def counters(*names):
    out = subprocess.run([RDS_INFO, "-c"], check=True, capture_output=True,
                         text=True).stdout
    got = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] in names:
            got[f[0]] = int(f[1])
    return got


class Peer:
    """One rdma_cm id connecting SRC -> DST:18634 with an RC QP, or to
    DST%DEV:16385 when the addresses are IPv6 (ADDR%DEV), with RECVS
    receives posted."""

    def __init__(self, src, dst, recvs=RECVS):
        self.src, self.dst, self.recvs = src, dst, recvs
        self.ch = cm.rdma_create_event_channel()
        if not self.ch:
            raise Fail("rdma_create_event_channel failed")
        self.fd = ctypes.cast(self.ch, ctypes.POINTER(ctypes.c_int))[0]
        os.set_blocking(self.fd, False)
        self.id = P()
        ok(cm.rdma_create_id(self.ch, ctypes.byref(self.id), None,
                             RDMA_PS_TCP), "rdma_create_id")
        self.pd = None
        self.mr = None
        self.qp = False
        self.priv = None
        self.post = recvs > 0

    def event(self, timeout=20):
        """The next event: (type, status, its conn param, private data)."""
        end = time.time() + timeout
        ev = P()
        while cm.rdma_get_cm_event(self.ch, ctypes.byref(ev)):
            left = end - time.time()
            if left <= 0:
                return None
            select.select([self.fd], [], [], left)
        e = ctypes.cast(ev, ctypes.POINTER(CmEvent))[0]
        conn = ConnParam.from_buffer_copy(e.conn)
        data = b""
        if conn.private_data and conn.private_data_len:
            data = ctypes.string_at(conn.private_data,
                                    conn.private_data_len)
        got = (e.event, e.status, conn, data, e.id)
        cm.rdma_ack_cm_event(ev)
        print("event %s status %d" % (name(got[0]), got[1]))
        return got

    def expect(self, want, timeout=20):
        got = self.event(timeout)
        if not got or got[0] != want:
            raise Fail("wanted %s, got %s" % (
                name(want), got and name(got[0])))
        return got

    def connect(self, priv, resp, init):
        if ":" in self.dst:
            src = sockaddr6(self.src, 0)
            dst = sockaddr6(self.dst, RDS_IB_PORT6)
        else:
            src = sockaddr(self.src, 0)
            dst = sockaddr(self.dst, RDS_IB_PORT)
        ok(cm.rdma_resolve_addr(self.id, ctypes.byref(src),
                                ctypes.byref(dst), 5000), "resolve_addr")
        self.expect(ADDR_RESOLVED)
        ok(cm.rdma_resolve_route(self.id, 5000), "resolve_route")
        self.expect(ROUTE_RESOLVED)
        # struct rdma_cm_id starts with its ibv_context.
        ctx = ctypes.cast(self.id, ctypes.POINTER(P))[0]
        self.pd = verbs.ibv_alloc_pd(ctx)
        if not self.pd:
            raise Fail("ibv_alloc_pd failed")
        attr = QpInitAttr(cap=QpCap(16, max(self.recvs, 1), 1, 1, 0),
                          qp_type=IBV_QPT_RC)
        ok(cm.rdma_create_qp(self.id, self.pd, ctypes.byref(attr)),
           "rdma_create_qp")
        self.qp = True
        if self.post:
            post_recvs(self, self.recvs)
        self.priv = ctypes.create_string_buffer(priv, len(priv))
        param = ConnParam(ctypes.addressof(self.priv), len(priv), resp, init,
                          0, 7, 7, 0, 0)
        ok(cm.rdma_connect(self.id, ctypes.byref(param)), "rdma_connect")
        return self.event()

    def close(self):
        if self.qp:
            cm.rdma_disconnect(self.id)
            cm.rdma_destroy_qp(self.id)
        cm.rdma_destroy_id(self.id)
        if self.mr:
            verbs.ibv_dereg_mr(self.mr)
        if self.pd:
            verbs.ibv_dealloc_pd(self.pd)
        cm.rdma_destroy_event_channel(self.ch)


def name(event):
    return EVENT_NAMES[event] if event < len(EVENT_NAMES) else str(event)


def reply_version(data):
    check(len(data) >= 32, "the reply has RDS private data (%d B)" %
          len(data))
    return data[8], data[9]


def case_depths(src, dst):
    """We ask for one READ each way; the accept must not offer more."""
    p = Peer(src, dst)
    try:
        got = p.connect(rds_priv(src, dst, 4, 1, 3), 1, 1)
        check(got and got[0] == ESTABLISHED, "connected")
        conn = got[2]
        print("accept: responder_resources %d initiator_depth %d" % (
            conn.responder_resources, conn.initiator_depth))
        check(conn.responder_resources <= 1 and conn.initiator_depth <= 1,
              "the accept's depths are within the 1 and 1 asked for")
        check(reply_version(got[3]) == (4, 1), "the reply speaks 4.1")
    finally:
        p.close()


def case_v40(src, dst, hold="4"):
    """A 4.0-only peer is accepted and kept as 4.0, as in-tree."""
    names = ("conn_up", "conn_reset")
    before = counters(*names)
    p = Peer(src, dst)
    try:
        got = p.connect(rds_priv(src, dst, 4, 0, 1), 1, 1)
        check(got and got[0] == ESTABLISHED, "a 4.0 offer is accepted")
        check(reply_version(got[3]) == (4, 0), "the reply speaks 4.0")
        later = p.event(float(hold))
        check(later is None, "no event in %s s: the connection is kept" %
              hold)
        after = counters(*names)
        print("counters before %s, after %s" % (before, after))
        check(after["conn_up"] - before["conn_up"] == 1,
              "one connection came up")
        check(after["conn_reset"] == before["conn_reset"],
              "and none was reset")
    finally:
        p.close()


def case_incompat(src, dst, hold="3"):
    """An offer we cannot speak is rejected once, as incompatible, and
    leaves no connection behind to retry."""
    names = ("conn_up", "conn_reset", "conn_connect_attempts")
    before = counters(*names)
    p = Peer(src, dst)
    try:
        got = p.connect(rds_priv(src, dst, 5, 0, 1), 1, 1)
        check(got and got[0] == REJECTED, "a 5.0 offer is rejected")
        check(got[1] == IB_CM_REJ_CONSUMER_DEFINED,
              "by us (consumer defined)")
        check(len(got[3]) >= 4 and struct.unpack("=i", got[3][:4])[0] ==
              RDS_RDMA_REJ_INCOMPAT, "as incompatible")
        check(p.event(float(hold)) is None, "and nothing more")
    finally:
        p.close()
    after = counters(*names)
    print("counters before %s, after %s" % (before, after))
    check(after == before, "no connection came up or was tried")


def refused(got):
    """A reject of ours that no peer takes for a version problem."""
    return (got and got[0] == REJECTED and
            got[1] == IB_CM_REJ_CONSUMER_DEFINED and len(got[3]) >= 4 and
            struct.unpack("=i", got[3][:4])[0] == RDS_IB_REJ_REFUSED)


def case_forged(src, dst):
    """Private data naming other addresses than the request's own is
    rejected and counted, and does not touch the connection it names.
    SRC -> DST (our listener) claims to come from 10.77.0.77 (fe80::77 for
    IPv6, where the addresses are link-local ADDR%DEV); then to be our
    DST -> SRC connection's request arriving at SRC (which would drop that
    connection, if rds-ping made it); then to be for SRC itself.  Last,
    naming its own addresses (TOS 7), it is accepted."""
    bogus = "fe80::77" if ":" in src else "10.77.0.77"
    claims = [(bogus, dst), (dst, src), (src, src)]
    names = ("ib_accept_addr_mismatch", "conn_reset")
    before = counters(*names)
    for psrc, pdst in claims:
        p = Peer(src, dst, 4)
        try:
            got = p.connect(rds_priv(psrc, pdst, 4, 1, 3), 1, 1)
            check(refused(got), "naming %s -> %s: refused" % (psrc, pdst))
        finally:
            p.close()
    after = counters(*names)
    print("counters before %s, after %s" % (before, after))
    check(after["ib_accept_addr_mismatch"] -
          before["ib_accept_addr_mismatch"] == len(claims),
          "ib_accept_addr_mismatch counted each")
    # Over IPv4 only: the connection rds-ping made is there, and a case
    # before leaves no path of its own to go down meanwhile (the IPv6 run
    # follows the IPv4 one's TOS 7 connection, which reconnects).
    if ":" not in src:
        check(after["conn_reset"] == before["conn_reset"],
              "no connection was reset")
    p = Peer(src, dst, 4)
    try:
        got = p.connect(rds_priv(src, dst, 4, 1, 3, tos=7), 1, 1)
        check(got and got[0] == ESTABLISHED,
              "naming its own addresses (TOS 7), it is accepted")
    finally:
        p.close()


SYSCTL_IB = "/proc/sys/net/rds/ib/"


def sysctl(name, value=None):
    with open(SYSCTL_IB + name, "r+" if value is not None else "r") as f:
        old = int(f.read())
        if value is not None:
            f.seek(0)
            f.write("%d\n" % value)
    return old


def request_each(src, dst, tos_list, peers, after_each=None):
    """One request per TOS, each accepted (its Peer kept in PEERS) or
    refused as over a limit; AFTER_EACH(tos), if given, runs after each
    answer.  Returns (accepted, refused)."""
    accepted = refused_n = 0
    for tos in tos_list:
        p = Peer(src, dst, 4)
        got = p.connect(rds_priv(src, dst, 4, 1, 3, tos=tos), 1, 1)
        if after_each:
            after_each(tos)
        if got and got[0] == ESTABLISHED:
            accepted += 1
            peers.append(p)
            continue
        p.close()
        if not refused(got):
            raise Fail("TOS %d: neither accepted nor refused" % tos)
        refused_n += 1
    return accepted, refused_n


def flood(src, dst, tos_list, want, peers):
    """One request per TOS: exactly WANT accepted (kept in PEERS), the rest
    refused and counted as over a limit."""
    before = counters("ib_accept_over_limit")["ib_accept_over_limit"]
    accepted, refused_n = request_each(src, dst, tos_list, peers)
    after = counters("ib_accept_over_limit")["ib_accept_over_limit"]
    print("%d requests: %d accepted, %d refused, over_limit %d -> %d" % (
        len(tos_list), accepted, refused_n, before, after))
    check(accepted == want, "%d accepted" % want)
    check(after - before == refused_n,
          "ib_accept_over_limit counted the %d others" % refused_n)


def case_limits(src, dst, n="200"):
    """N requests from SRC with distinct TOS under max_accepted_per_peer 8:
    8 accepted.  Then 40 more under max_accepted 12 (per peer 1000): 4 of
    them.  Last, a request over the limit for the path of an accepted
    connection says the peer lost its side: refused, and that connection
    is dropped."""
    n = int(n)
    old = (sysctl("max_accepted_per_peer"), sysctl("max_accepted"))
    peers = []
    try:
        sysctl("max_accepted_per_peer", 8)
        sysctl("max_accepted", 1000)
        flood(src, dst, range(1, n + 1), 8, peers)
        sysctl("max_accepted_per_peer", 1000)
        sysctl("max_accepted", 12)
        flood(src, dst, range(n + 1, n + 41), 4, peers)
        p = Peer(src, dst, 4)
        try:
            got = p.connect(rds_priv(src, dst, 4, 1, 3, tos=1), 1, 1)
            check(refused(got), "TOS 1 again, over the limit: refused")
        finally:
            p.close()
        got = peers[0].event(20)
        check(got and got[0] == DISCONNECTED,
              "and the TOS 1 connection was dropped")
    finally:
        for p in peers:
            p.close()
        sysctl("max_accepted_per_peer", old[0])
        sysctl("max_accepted", old[1])


def dmesg_mark():
    """A line of our own in the kernel log, to read it from: a line
    count would shift once the ring is full and drops its oldest lines
    (rds_rdma's pr_debug fills it fast while a peer is rejected)."""
    mark = "rdmacm_peer: mark %d.%d" % (os.getpid(), time.monotonic_ns())
    with open("/dev/kmsg", "w") as f:
        f.write("<7>" + mark + "\n")
    return mark


def last_version(mark, nth=1, timeout=20):
    """The version of the @nth "up" line rds_rdma's pr_debug logged
    after the line @mark, once there is one (rdma_cm's work logs it
    after the peer saw ESTABLISHED, late on a busy host), or None."""
    end = time.time() + timeout
    while True:
        out = subprocess.run(["dmesg"], check=True, capture_output=True,
                             text=True).stdout.splitlines()
        at = [i for i, line in enumerate(out) if line.endswith(mark)]
        out = out[at[-1] + 1:] if at else []
        found = [line.split(" up, version ")[1].split(",")[0].strip()
                 for line in out if " up, version " in line]
        if len(found) >= nth or time.time() > end:
            return found[nth - 1] if len(found) >= nth else None
        time.sleep(0.5)


# ibv_post_send() and ibv_poll_cq() are inline too: entries 25 and 11 of
# the ops table.  struct ibv_qp: context, qp_context, pd, send_cq.
POST_SEND_OFF = 8 + 25 * 8
POLL_CQ_OFF = 8 + 11 * 8
QP_SEND_CQ_OFF = 24
IBV_WR_RDMA_READ, IBV_SEND_SIGNALED = 4, 2
IBV_WC_SUCCESS, IBV_WC_REM_ACCESS_ERR = 0, 10


def rdma_read(peer, cookie, length=64, timeout=10):
    """An RDMA READ of @length bytes at @cookie's offset with its key,
    from @peer's queue pair: (work completion status, the bytes)."""
    buf = ctypes.create_string_buffer(length)
    mr = verbs.ibv_reg_mr(peer.pd, ctypes.addressof(buf), length,
                          IBV_ACCESS_LOCAL_WRITE)
    if not mr:
        raise Fail("ibv_reg_mr failed")
    try:
        lkey = ctypes.cast(mr + MR_LKEY_OFF,
                           ctypes.POINTER(ctypes.c_uint32))[0]
        sge = Sge(ctypes.addressof(buf), length, lkey)
        # struct ibv_send_wr: wr_id, next, sg_list, num_sge, opcode,
        # send_flags, imm_data, then wr.rdma: remote_addr, rkey.
        wr = ctypes.create_string_buffer(256)
        struct.pack_into("=QQQiIIIQI", wr, 0, 1, 0, ctypes.addressof(sge),
                         1, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, 0,
                         cookie >> 32, cookie & 0xffffffff)
        qp = qp_of(peer.id)
        ctx = ctypes.cast(qp, ctypes.POINTER(P))[0]
        fn = ctypes.CFUNCTYPE(ctypes.c_int, P, P, P)(
            ctypes.cast(ctx + POST_SEND_OFF, ctypes.POINTER(P))[0])
        bad = P()
        ok(fn(qp, ctypes.addressof(wr), ctypes.addressof(bad)),
           "ibv_post_send")
        cq = ctypes.cast(qp + QP_SEND_CQ_OFF, ctypes.POINTER(P))[0]
        poll = ctypes.CFUNCTYPE(ctypes.c_int, P, ctypes.c_int, P)(
            ctypes.cast(ctx + POLL_CQ_OFF, ctypes.POINTER(P))[0])
        wc = ctypes.create_string_buffer(64)
        end = time.time() + timeout
        while poll(cq, 1, ctypes.addressof(wc)) < 1:
            if time.time() > end:
                return None, buf.raw
            time.sleep(0.05)
        return struct.unpack_from("=Qi", wc, 0)[1], buf.raw
    finally:
        verbs.ibv_dereg_mr(mr)


RDS_MR = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                      "rds_mr.py")


def hold(secret, addr, ns=None):
    """A process holding a region at ADDR (in netns NS) filled with
    SECRET, and its cookie."""
    cmd = ["python3", RDS_MR, "hold", addr, secret]
    if ns:
        cmd = ["ip", "netns", "exec", ns] + cmd
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    if not line.startswith("0x"):
        proc.kill()
        raise Fail("no region at %s%s: %r" % (addr, ns and " in " + ns or "",
                                            line))
    return proc, int(line, 16)


def case_crossns(src, dst, ns, ns_addr):
    """Regions of two network namespaces on one device (ours in init_net
    at DST, a netns NS's at NS_ADDR, a macvlan over the same netdev): a
    peer connected to init_net (SRC -> DST) reads init_net's region, and
    not NS's, whose key it was given: its queue pair is in init_net's
    protection domain, NS's region in NS's (one PD per device for all
    namespaces before: it read the secret)."""
    procs = []
    p = Peer(src, dst)
    try:
        proc, mine = hold("init-net-region", dst)
        procs.append(proc)
        proc, theirs = hold("other-netns-secret", ns_addr, ns)
        procs.append(proc)
        pds = subprocess.run(["rdma", "resource", "show", "pd"],
                             capture_output=True, text=True).stdout
        print(pds.strip())
        per_dev = {}
        for line in pds.splitlines():
            if "rds_rdma" in line:
                dev = line.split()[1]
                per_dev[dev] = per_dev.get(dev, 0) + 1
        most = max(per_dev.values(), default=0)
        check(most >= 2, "%d protection domains of rds_rdma on one device, "
              "one per netns" % most)
        got = p.connect(rds_priv(src, dst, 4, 1, 3, tos=3), 1, 1)
        check(got and got[0] == ESTABLISHED, "a peer of init_net is up")
        st, data = rdma_read(p, mine)
        check(st == IBV_WC_SUCCESS and data.startswith(b"init-net-region"),
              "it reads init_net's region (status %s)" % st)
        st, data = rdma_read(p, theirs)
        check(b"secret" not in data, "it does not read the other "
              "netns's region (status %s, %r)" % (st, data[:20]))
        check(st == IBV_WC_REM_ACCESS_ERR,
              "the device refused it: remote access error")
    finally:
        p.close()
        for proc in procs:
            proc.stdin.close()
            proc.wait()


def case_stall(src, dst, bound="12"):
    """A peer that connects (SRC -> DST, TOS 0) and never posts a receive:
    our sends to it stall on RNR retries for ever (in-tree's rnr_retry 7).
    Another tenant of the device, a socket at DST, registers and frees
    regions and closes with many: each call returns within BOUND seconds
    (registrations were posted on whichever path's sender ran, the
    stalled one included, and RDS_FREE_MR waited for them without
    bound)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from rds_mr import Buffer, rds_socket, get_mr, free_mr
    bound = float(bound)
    p = Peer(src, dst, 0)
    sender = None
    try:
        got = p.connect(rds_priv(src, dst, 4, 1, 3), 1, 1)
        check(got and got[0] == ESTABLISHED, "a peer that posts no "
              "receives is up")
        sender = rds_socket(dst)
        sender.setblocking(False)
        sent = 0
        try:
            for sent in range(1, 257):
                sender.sendto(bytes(4000), (src, 4000))
        except BlockingIOError:
            pass
        print("%d messages queued towards it" % sent)
        time.sleep(2)
        buf = Buffer(64)
        tenant = rds_socket(dst)
        worst = 0.0
        for i in range(32):
            t = time.time()
            cookie = get_mr(tenant, buf.addr + (i % 64) * 4096, 4096)
            free_mr(tenant, cookie)
            worst = max(worst, time.time() - t)
        check(worst < bound, "another tenant's GET_MR and FREE_MR: the "
              "slowest pair took %.2f s" % worst)
        for i in range(200):
            get_mr(tenant, buf.addr + (i % 64) * 4096, 4096)
        t = time.time()
        tenant.close()
        took = time.time() - t
        check(took < bound, "its close() with 200 regions took %.2f s" %
              took)
    finally:
        t = time.time()
        if sender:
            sender.close()
        p.close()
        print("the stalled peer's sender closed in %.2f s" %
              (time.time() - t))


class Listener(Peer):
    """rdma_cm listening on ADDR%DEV:16385, where our IPv6 listener
    would be: our connects over IPv6 come here."""

    def __init__(self, addr):
        super().__init__(None, None)
        sa = sockaddr6(addr, RDS_IB_PORT6)
        ok(cm.rdma_bind_addr(self.id, ctypes.byref(sa)), "rdma_bind_addr")
        ok(cm.rdma_listen(self.id, 4), "rdma_listen")
        self.child = None

    def accept(self, reply, timeout=40):
        """The next request, accepted with @reply as private data."""
        got = self.expect(CONNECT_REQUEST, timeout)
        req = got[3]
        child = Peer.__new__(Peer)
        child.ch, child.fd, child.id = self.ch, self.fd, P(got[4])
        ctx = ctypes.cast(child.id, ctypes.POINTER(P))[0]
        child.pd = verbs.ibv_alloc_pd(ctx)
        if not child.pd:
            raise Fail("ibv_alloc_pd failed")
        attr = QpInitAttr(cap=QpCap(16, RECVS, 1, 1, 0),
                          qp_type=IBV_QPT_RC)
        ok(cm.rdma_create_qp(child.id, child.pd, ctypes.byref(attr)),
           "rdma_create_qp")
        child.qp = True
        child.mr = None
        post_recvs(child)
        child.priv = ctypes.create_string_buffer(reply, max(len(reply), 1))
        param = ConnParam(ctypes.addressof(child.priv), len(reply),
                          got[2].responder_resources, got[2].initiator_depth,
                          0, 7, 7, 0, 0)
        ok(cm.rdma_accept(child.id, ctypes.byref(param)), "rdma_accept")
        self.expect(ESTABLISHED)
        self.child = child
        return req

    def drop_child(self):
        c = self.child
        self.child = None
        cm.rdma_disconnect(c.id)
        cm.rdma_destroy_qp(c.id)
        cm.rdma_destroy_id(c.id)
        if c.mr:
            verbs.ibv_dereg_mr(c.mr)
        verbs.ibv_dealloc_pd(c.pd)

    def close(self):
        if self.child:
            self.drop_child()
        cm.rdma_destroy_id(self.id)
        cm.rdma_destroy_event_channel(self.ch)


DYNDBG = "/sys/kernel/debug/dynamic_debug/control"


def case_noversion(addr, peer, own, ko):
    """With rds_rdma unloaded, listens on ADDR where our IPv6 listener
    would be, then loads KO (which serves IPv4 only then) and connects
    (rds-ping OWN -> PEER).  The first reply says 4.0; after that
    connection is dropped, the second names no version: it is what we
    offered (4.1), not what the first one spoke, and is kept.  The
    versions are read from rds_rdma's pr_debug where there is one."""
    lst = Listener(addr)
    subprocess.run(["insmod", ko], check=True)
    dbg = os.access(DYNDBG, os.W_OK)
    if dbg:
        with open(DYNDBG, "w") as f:
            f.write("module rds_rdma +p")
    else:
        print("no dynamic debug: the versions are not checked")
    mark = dmesg_mark()
    ping = subprocess.Popen([os.path.join(os.path.dirname(RDS_INFO),
                                          "rds-ping"), "-c", "30", "-i", "1",
                             "-I", own, peer], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        zero_addrs = bytes(32)
        req = lst.accept(zero_addrs + rds_priv("0.0.0.0", "0.0.0.0", 4, 0,
                                               1)[8:32])
        check(len(req) >= 56 and req[32:34] == b"\x04\x01",
              "our request offers 4.1")
        time.sleep(1)
        if dbg:
            check(last_version(mark, 1) == "4.0",
                  "the first connection is 4.0")
        lst.drop_child()
        req = lst.accept(bytes(56))
        check(req[32:34] == b"\x04\x01", "our next request offers 4.1")
        check(lst.event(3) is None, "the reply without a version: kept")
        if dbg:
            check(last_version(mark, 2) == "4.1",
                  "the second connection is 4.1, not the first one's 4.0")
    finally:
        ping.kill()
        ping.wait()
        lst.close()


def case_memory(src, dst, n="200", extra="4194304"):
    """N requests from SRC with distinct TOS while max_ring_memory is what
    the rings pin now plus EXTRA bytes: some accepted, on shrunk rings,
    the others refused as a limit is (not as a version problem), counted
    in ib_ring_refused; the bound never passed, nor after the peer let
    go of them."""
    n, extra = int(n), int(extra)
    names = ("ib_ring_shrunk", "ib_ring_refused")
    old = (sysctl("max_ring_memory"), sysctl("max_ring_memory_per_netns"))
    base = sysctl("ring_memory")
    bound = base + extra
    peers = []

    def within_bound(tos):
        used = sysctl("ring_memory")
        if used > bound:
            raise Fail("TOS %d: ring_memory %d over the bound %d" %
                       (tos, used, bound))

    try:
        sysctl("max_ring_memory_per_netns", bound)
        sysctl("max_ring_memory", bound)
        before = counters(*names)
        accepted, refused_n = request_each(src, dst, range(1, n + 1), peers,
                                           within_bound)
        after = counters(*names)
        print("%d requests: %d accepted, %d refused; shrunk %d, refused %d"
              % (n, accepted, refused_n,
                 after["ib_ring_shrunk"] - before["ib_ring_shrunk"],
                 after["ib_ring_refused"] - before["ib_ring_refused"]))
        check(accepted > 0 and refused_n > 0, "some accepted, some refused")
        # And more: the path each refused request made tries to
        # connect to the peer's address, whose listener is ours too.
        check(after["ib_ring_refused"] - before["ib_ring_refused"] >=
              refused_n, "ib_ring_refused counted each refusal")
        check(after["ib_ring_shrunk"] > before["ib_ring_shrunk"],
              "rings were shrunk before any was refused")
        # The paths the refused requests made keep trying to connect to
        # the peer's address (its listener is ours): under the bound too.
        for p in peers:
            p.close()
        del peers[:]
        time.sleep(2)
        used = sysctl("ring_memory")
        check(used <= bound, "with the peer gone, ring_memory %d <= %d" %
              (used, bound))
    finally:
        for p in peers:
            p.close()
        sysctl("max_ring_memory", old[0])
        sysctl("max_ring_memory_per_netns", old[1])


CASES = {"depths": case_depths, "v40": case_v40, "incompat": case_incompat,
         "noversion": case_noversion, "forged": case_forged,
         "limits": case_limits, "crossns": case_crossns,
         "stall": case_stall, "memory": case_memory}

if __name__ == "__main__":
    try:
        CASES[sys.argv[1]](*sys.argv[2:])
    except (Fail, OSError, subprocess.CalledProcessError) as e:
        print("FAIL:", e)
        sys.exit(1)
