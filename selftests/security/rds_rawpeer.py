#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# A hand-made RDS/TCP peer: a plain TCP socket to port 16385 that writes RDS
# headers of its choosing, to test what our stack does with what a hostile
# or in-tree peer may send. Run it in the netns with the smaller address, so
# that the other side accepts its connections.
#
#   rds_rawpeer.py flood SRC DST COUNT HOLD    pings, never reading our socket
#   rds_rawpeer.py csum SRC DST DPORT          bad, zero and good checksums
#   rds_rawpeer.py forge SRC DST               probe, then a forged 1 -> 0
#   rds_rawpeer.py forge-sportidx SRC DST      the same after a probe with
#                                              SPORT_IDX, then path 0 again
#   rds_rawpeer.py chain SRC DST LAYOUT PORT [FIRST]  a probe (FIRST's
#                                              layout if given), one in
#                                              LAYOUT (see CHAINS), their
#                                              pongs, then path 0 again
#   rds_rawpeer.py wrong-lane SRC DST PORT     path 3 first, then path 0
#   rds_rawpeer.py lane-reconnect SRC DST PORT DPORT  path 3 again from
#                                              another port of its group
#   rds_rawpeer.py lanes SRC DST PORT DPORT N  an upstream 2026 client of
#                                              N paths, each sending once
#   rds_rawpeer.py serve ADDR PORT SECS N DIR  an upstream 2026 server of N
#                                              paths, the other side its
#                                              client, checking what it sends
#   rds_rawpeer.py feed SRC DST PORT DIR       serve's client: our sockets,
#                                              numbered messages until
#                                              DIR/stop appears
#   rds_rawpeer.py stale SRC DST PORT MODE SECS  a congestion map on path 1
#   rds_rawpeer.py hostile SRC DST DPORT CASE  one malformed input (see CASES)
#
# Exit status 0 when the scenario ran; what the other side did is printed
# and checked by the calling test.
import collections
import errno
import os
import selectors
import socket
import struct
import sys
import threading
import time

RDS_TCP_PORT = 16385
HDR = struct.Struct(">QQIHHBB4sH16s")	# struct rds_header, 48 bytes
FLAG_CONG_BITMAP = 0x01
FLAG_RETRANSMITTED = 0x04
FLAG_EXTHDR_EXTENSION = 0x20	# upstream 2026: several extensions
EXT_RDMA = 2
EXT_RDMA_DEST = 3
EXT_RDMA_BYTES = 4	# upstream 2026
EXT_NPATHS = 5
EXT_GEN_NUM = 6
EXT_UEK_CAP = 7		# UEK only
EXT_SPORT_IDX = 8
EXT_UEK_CSUM = 9	# UEK only
EXT_UNKNOWN = 0x0a	# the first type nobody defines
# Payload sizes of the types ours knows, for ext_types().
EXT_SIZES = {1: 4, EXT_RDMA: 4, EXT_RDMA_DEST: 8, EXT_RDMA_BYTES: 8,
	     EXT_NPATHS: 2, EXT_GEN_NUM: 4, EXT_UEK_CAP: 4, EXT_SPORT_IDX: 1,
	     EXT_UEK_CSUM: 8}
CONG_MAP_BYTES = 65536 // 8


def csum(data):
	"""The Internet checksum, as ip_fast_csum() computes it."""
	s = sum(struct.unpack(">%dH" % (len(data) // 2), data))
	while s >> 16:
		s = (s & 0xffff) + (s >> 16)
	return ~s & 0xffff


def header(seq, sport, dport, length=0, flags=0, ext=b"", check="good"):
	ext = ext.ljust(16, b"\0")
	raw = HDR.pack(seq, 0, length, sport, dport, flags, 0, b"\0" * 4, 0, ext)
	if check == "zero":
		c = 0
	elif check == "bad":
		c = csum(raw) ^ 0x5a5a
	else:
		c = csum(raw)
	return HDR.pack(seq, 0, length, sport, dport, flags, 0, b"\0" * 4, c, ext)


def probe_ext(npaths=8, gen=0x1234):
	return (struct.pack(">BH", EXT_NPATHS, npaths) +
		struct.pack(">BI", EXT_GEN_NUM, gen))


def ext(ext_type, fmt="", *vals):
	return struct.pack(">B" + fmt, ext_type, *vals)


# Probe extension chains, each ending in SPORT_IDX: a walk that finds it
# makes the acceptor map source ports to paths.
NPATHS_8 = ext(EXT_NPATHS, "H", 8)
SPORT_0 = ext(EXT_SPORT_IDX, "B", 0)
CHAINS = {
	# upstream's 2026 probe and pong, byte for byte
	"upstream-2026": NPATHS_8 + ext(EXT_GEN_NUM, "I", 0x1234) + SPORT_0,
	# UEK's: no generation
	"uek": NPATHS_8 + SPORT_0,
	"rdma-bytes-first": ext(EXT_RDMA_BYTES, "IB3x", 4096, 1) + NPATHS_8 + SPORT_0,
	"uek-cap-first": ext(EXT_UEK_CAP, "I", 1) + NPATHS_8 + SPORT_0,
	"uek-csum-first": ext(EXT_UEK_CSUM, "Q", 0x0123456789abcdef) + NPATHS_8 + SPORT_0,
	# all 16 bytes, no RDS_EXTHDR_NONE at the end
	"full-16": ext(EXT_GEN_NUM, "I", 0x1234) + NPATHS_8 * 3 + SPORT_0,
	# a type nobody defines, below 16: the walk cannot know its size
	"unknown-first": ext(EXT_UNKNOWN) + NPATHS_8 + SPORT_0,
	# the same after known ones: those count, the walk stops at it
	"known-then-unknown": NPATHS_8 + ext(EXT_GEN_NUM, "I", 0x1234) +
			      ext(EXT_UNKNOWN) + SPORT_0,
}


def ext_types(exthdr):
	"""The names of the extensions in @exthdr, walked as ours walks
	them: up to RDS_EXTHDR_NONE, the end, or a type of unknown size.
	"""
	names = {EXT_NPATHS: "NPATHS", EXT_GEN_NUM: "GEN_NUM",
		 EXT_SPORT_IDX: "SPORT_IDX"}
	pos, found = 0, []
	while pos < len(exthdr) and exthdr[pos]:
		size = EXT_SIZES.get(exthdr[pos])
		if size is None or pos + 1 + size > len(exthdr):
			break
		found.append(names.get(exthdr[pos], str(exthdr[pos])))
		pos += 1 + size
	return found


def connect(src, dst, sport=0):
	fam = socket.AF_INET6 if ":" in dst else socket.AF_INET
	s = socket.socket(fam, socket.SOCK_STREAM)
	s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
	s.bind((src, sport))
	s.connect((dst, RDS_TCP_PORT))
	return s


def drain(s, stop):
	"""Reads and throws away what the other side sends, until closed."""
	s.settimeout(0.2)
	while not stop.is_set():
		try:
			if not s.recv(65536):
				return
		except socket.timeout:
			continue
		except OSError:
			return


def reply_within(s, secs):
	"""True when a whole RDS header arrives on @s within @secs seconds."""
	end = time.time() + secs
	got = b""
	s.settimeout(0.2)
	while len(got) < HDR.size and time.time() < end:
		try:
			data = s.recv(HDR.size - len(got))
		except socket.timeout:
			continue
		if not data:
			return False
		got += data
	return len(got) == HDR.size


def closed_within(s, secs):
	"""True when the other side closes or resets @s within @secs seconds."""
	end = time.time() + secs
	s.settimeout(0.2)
	while time.time() < end:
		try:
			if not s.recv(65536):
				return True
		except socket.timeout:
			continue
		except OSError:
			return True
	return False


def flood(src, dst, count, hold):
	"""@count pings, sequence numbers 1..@count in batches of 1000; our
	socket is never read, so the pongs can only pile up on the other side.
	Each ping has a number of its own: the other side drops a number it
	has seen on this connection (recv_drop_dup_seq), not a ping.
	"""
	s = connect(src, dst)
	s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
	sent = 0
	while sent < count:
		n = min(1000, count - sent)
		s.sendall(b"".join(header(sent + i + 1, 40000, 0) for i in range(n)))
		sent += n
	print("sent %d pings" % count, flush=True)
	time.sleep(hold)
	s.close()


def csum_case(src, dst, dport):
	s = connect(src, dst)
	body = b"bad"
	s.sendall(header(1, 40000, dport, len(body), check="bad") + body)
	print("bad checksum sent", flush=True)
	if closed_within(s, 3):
		print("connection reset after the bad header", flush=True)
	else:
		print("connection kept after the bad header", flush=True)
	s.close()
	s = connect_kept(src, dst)
	stop = threading.Event()
	t = threading.Thread(target=drain, args=(s, stop), daemon=True)
	t.start()
	for seq, (body, check) in enumerate(((b"zero", "zero"),
					     (b"good", "good")), 1):
		s.sendall(header(seq, 40000, dport, len(body), check=check) + body)
	time.sleep(2)
	stop.set()
	t.join()
	s.close()


def forge_open(src, dst, sport, ext):
	"""Path 0 with a real probe carrying @ext, answered and drained in the
	background, then a forged 1 -> 0 without extension headers: what a
	socket bound to port 1 would send. Returns the socket and its drainer.
	"""
	p0 = connect(src, dst, sport)
	p0.sendall(header(1, 1, 0, ext=ext))
	stop = threading.Event()
	t = threading.Thread(target=drain, args=(p0, stop), daemon=True)
	t.start()
	time.sleep(1)
	body = b"forged"
	p0.sendall(header(2, 1, 0, len(body)) + body)
	print("forged 1 -> 0 sent", flush=True)
	time.sleep(1)
	return p0, stop, t


def forge_close(p0, stop, t):
	stop.set()
	t.join()
	p0.close()


def forge(src, dst):
	"""After the forgery a second path is still accepted: the path count
	the probe announced stands.
	"""
	opened = forge_open(src, dst, 0, probe_ext())
	try:
		p1 = connect(src, dst)
		ok = not closed_within(p1, 2)
		p1.close()
	except ConnectionError:
		ok = False	# reset before connect() even returned
	print("second path %s" % ("accepted" if ok else "refused"), flush=True)
	forge_close(*opened)
	return 0 if ok else 1


def forge_sportidx(src, dst):
	"""A probe that says our source ports carry path indexes, then the
	forgery, then a second connection from a port of path 0's group while
	path 0 is up. An acceptor that still believes the probe takes it as
	path 0 reconnecting and closes the old path 0 as stale
	(tcp_listen_closed_stale); one the forgery fooled takes it as a legacy
	peer's next path.
	"""
	opened = forge_open(src, dst, 40000, probe_ext() +
			    struct.pack(">BB", EXT_SPORT_IDX, 0))
	p1 = connect(src, dst, 40008)
	print("second connection from port 40008 (path 0's group)", flush=True)
	time.sleep(1)
	p1.close()
	forge_close(*opened)
	return 0


def read_pong(s, end):
	"""The extension bytes of the next pong (0 -> 1) on @s, or None."""
	while True:
		m = read_msg(s, end)
		if m is None or (m[0], m[1]) == (0, 1):
			return m and m[2]


def pong_kind(exthdr):
	"""How the other side took the probe a pong answers: "handshake" when
	the pong carries a path count, "plain" when it does not (a ping's
	answer), "none" when no pong came.
	"""
	if exthdr is None:
		return "none"
	return "handshake" if "NPATHS" in ext_types(exthdr) else "plain"


def chain(src, dst, layout, port, first=None):
	"""Path 0 from @port with a probe laid out as CHAINS[@first], or one
	that says nothing of source ports (NPATHS, GEN_NUM), then one whose
	extensions are laid out as CHAINS[@layout]; prints how the other side
	took the second (its pong). Then a second connection from @port + 8
	(path 0's group) while path 0 is up. An acceptor whose walk reached
	SPORT_IDX takes it as path 0 again and closes the old one as stale
	(tcp_listen_closed_stale); otherwise as the next path.
	"""
	p0 = connect(src, dst, port)
	p0.sendall(header(1, 1, 0, ext=CHAINS[first] if first else probe_ext()))
	# The first probe's pong before the second probe, so that the next
	# pong is the second's.
	if read_pong(p0, time.time() + 30) is None:
		print("no pong to the first probe", flush=True)
	p0.sendall(header(2, 1, 0, ext=CHAINS[layout]))
	print("probe %s sent: %s" % (layout, CHAINS[layout].hex()), flush=True)
	pong = read_pong(p0, time.time() + 30)
	print("its pong: %s%s" % (pong_kind(pong),
				  pong and " (%s)" % ",".join(ext_types(pong)) or ""),
	      flush=True)
	stop = threading.Event()
	t = threading.Thread(target=drain, args=(p0, stop), daemon=True)
	t.start()
	time.sleep(1)
	p1 = connect(src, dst, port + 8)
	print("second connection from port %d (path 0's group)" % (port + 8), flush=True)
	time.sleep(1)
	p1.close()
	stop.set()
	t.join()
	p0.close()


def wrong_lane(src, dst, port):
	"""What an upstream 2026 client does after the other side restarted:
	its path 3 connects first (from @port + 3, a port of path 3), lands on
	the other side's path 0, the only one it knows of, and gets the probe
	there; it answers on that connection with a pong saying its source
	ports carry the path index. The other side must drop that connection
	and take the next one from @port (path 0's) as path 0.
	"""
	p3 = connect(src, dst, port + 3)
	if not reply_within(p3, 10):
		print("no probe on the first connection", flush=True)
		return 1
	p3.sendall(header(1, 0, 1, ext=CHAINS["upstream-2026"]))
	dropped = closed_within(p3, 5)
	print("path 3's connection %s" % ("dropped" if dropped else "kept"), flush=True)
	p3.close()
	# While the other side's path 0 still goes down it may refuse us (a
	# reset right after accepting); a real peer tries again, so do we,
	# saying how each try ended.
	start = time.time()
	kept = False
	while not kept and time.time() < start + 30:
		try:
			p0 = connect(src, dst, port)
			p0.sendall(header(1, 1, 0, ext=CHAINS["upstream-2026"]))
			kept = not closed_within(p0, 2)
			p0.close()
			if not kept:
				print("%.1f s: closed after the accept" %
				      (time.time() - start), flush=True)
		except OSError as e:
			print("%.1f s: %s" % (time.time() - start, e), flush=True)
			time.sleep(0.2)
	print("path 0's connection %s" % ("kept" if kept else "refused for 30 s"), flush=True)
	return 0 if dropped and kept else 1


def lane_reconnect(src, dst, port, dport):
	"""An upstream 2026 client's path 3 (from @port + 3, @port a multiple
	of 8) sends two messages to @dport, loses its connection and comes
	back from another port of its group (@port + 11), sending the second
	again, flagged as retransmitted, and a third. The acceptor must put
	both connections on its path 3, whose receive sequence survives the
	reconnect: the second message is not delivered twice.
	"""
	p0 = connect(src, dst, port)
	p0.sendall(header(1, 1, 0, ext=CHAINS["upstream-2026"]))
	if not reply_within(p0, 10):
		print("no pong on path 0", flush=True)
		return 1
	stop = threading.Event()
	t = threading.Thread(target=drain, args=(p0, stop), daemon=True)
	t.start()
	p3 = connect(src, dst, port + 3)
	p3.sendall(msg(1, dport, b"lane3-1") + msg(2, dport, b"lane3-2"))
	time.sleep(1)
	p3.close()
	print("path 3 sent 1 and 2 from port %d, closed" % (port + 3), flush=True)
	time.sleep(0.5)
	p3 = connect(src, dst, port + 11)
	p3.sendall(msg(2, dport, b"lane3-2-again", FLAG_RETRANSMITTED) +
		   msg(3, dport, b"lane3-3"))
	print("path 3 again from port %d: 2 retransmitted, 3" % (port + 11), flush=True)
	time.sleep(1)
	p3.close()
	stop.set()
	t.join()
	p0.close()
	return 0


def hs_ext(npaths, gen=0x1234):
	"""Upstream 2026's probe or pong extensions, saying @npaths paths."""
	return ext(EXT_NPATHS, "H", npaths) + ext(EXT_GEN_NUM, "I", gen) + SPORT_0


def lanes(src, dst, port, dport, npaths):
	"""An upstream 2026 client whose side has @npaths paths (a peer built
	with fewer than 8, or one that announces fewer): path 0 from @port (a
	multiple of 8) with its probe, paths 1..@npaths-1 from their own ports
	once the pong is in, each path sending one message to @dport; then a
	connection from the port of path @npaths, which neither side has:
	the acceptor must refuse it.
	"""
	p0 = connect(src, dst, port)
	p0.sendall(header(1, 1, 0, ext=hs_ext(npaths)))
	if not reply_within(p0, 10):
		print("no pong on path 0", flush=True)
		return 1
	socks = [p0]
	p0.sendall(msg(2, dport, b"lane0"))
	for i in range(1, npaths):
		s = connect(src, dst, port + i)
		s.sendall(msg(1, dport, b"lane%d" % i))
		socks.append(s)
	print("paths 0..%d sent one message each" % (npaths - 1), flush=True)
	refused = True
	if npaths < 8:
		try:
			s = connect(src, dst, port + npaths)
			refused = closed_within(s, 3)
			s.close()
		except ConnectionError:
			pass	# reset before connect() even returned
		print("path %d's connection %s" %
		      (npaths, "refused" if refused else "kept"), flush=True)
	time.sleep(1)
	for s in socks:
		s.close()
	return 0 if refused else 1


def read_msg(s, end):
	"""The next message on @s, as (sport, dport, ext), by @end; None when
	the connection closes or time runs out.
	"""
	def take(n):
		got = b""
		while len(got) < n:
			s.settimeout(max(0.01, end - time.time()))
			try:
				data = s.recv(n - len(got))
			except (socket.timeout, OSError):
				return None
			if not data:
				return None
			got += data
		return got
	raw = take(HDR.size)
	if raw is None:
		return None
	_, _, length, sport, dport, _, _, _, _, exthdr = HDR.unpack(raw)
	if length and take(length) is None:
		return None
	return sport, dport, exthdr


def probe_is_2026(exthdr):
	"""Upstream 2026's probe: NPATHS 8, a generation, SPORT_IDX 0."""
	return (exthdr[:4] == bytes([EXT_NPATHS, 0, 8, EXT_GEN_NUM]) and
		exthdr[4:8] != b"\0" * 4 and
		exthdr[8:] == bytes([EXT_SPORT_IDX, 0]) + b"\0" * 6)


# serve's client has a socket on each of FEED_PORTS ports from a multiple
# of 8: ours puts a socket's messages on the path its port names (modulo
# 8, then modulo the peer's path count), so every path gets some.
FEED_PORTS = 8
# How long serve keeps the pong to the first probe: meanwhile our client
# must put every socket's messages on path 0.
PONG_HOLD = 2
# How long serve lets traffic run on the paths as they are after each
# change, so that the next change finds messages in flight on each.
SETTLE = 1


def feed_send(s, body, dst, end):
	"""Sends @body on @s without waiting; while the socket has no room,
	tries again until @end. False, said why, on anything else.
	"""
	while True:
		try:
			s.sendto(body, socket.MSG_DONTWAIT, dst)
			return True
		except OSError as e:
			if (e.errno not in (errno.EAGAIN, errno.ENOBUFS) or
			    time.time() > end):
				print("send %s: %s" % (body.decode(), e), flush=True)
				return False
		time.sleep(0.01)


def feed(src, dst, port, ctl, secs=180):
	"""Our stack as serve's client: a socket on each of @port..@port+7
	sends "PORT N" to @dst, N counting from 0, a round every 20 ms, until
	@ctl/stop appears; then each sends "PORT end N", N its count.
	Without waiting: before the handshake, a send that does not wait for
	it takes path 0, which is what serve checks. Then waits for
	@ctl/done before closing, as a closed socket's messages not yet
	acknowledged are dropped.
	"""
	socks = []
	for i in range(FEED_PORTS):
		s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
		s.bind((src, port + i))
		socks.append(s)
	counts = [0] * FEED_PORTS
	end = time.time() + secs
	while not os.path.exists(os.path.join(ctl, "stop")):
		if time.time() > end:
			print("no stop from serve in %d s" % secs, flush=True)
			return 1
		for i, s in enumerate(socks):
			if not feed_send(s, b"%d %d" % (port + i, counts[i]),
					 (dst, port), end):
				return 1
			counts[i] += 1
		time.sleep(0.02)
	for i, s in enumerate(socks):
		if not feed_send(s, b"%d end %d" % (port + i, counts[i]),
				 (dst, port), end):
			return 1
	print("sent from ports %d..%d: %s, then their ends" %
	      (port, port + FEED_PORTS - 1, counts), flush=True)
	while not os.path.exists(os.path.join(ctl, "done")):
		if time.time() > end + 60:
			print("no done from serve", flush=True)
			return 1
		time.sleep(0.1)
	return 0


class ServedConn:
	"""One of the client's connections to serve: the path its source port
	names, and the bytes it sent that are not taken yet.
	"""
	def __init__(self, sock, port, nr):
		self.sock = sock
		self.port = port
		self.lane = port % 8
		self.nr = nr		# the how manyth accepted
		self.buf = b""
		self.closed = False	# by the client: end of stream or reset
		self.msgs = 0		# its data messages taken


class Serve:
	"""The receive side of an upstream 2026 server of @npaths paths, as
	serve plays it. A path's sequence numbers go on across its
	connections (the receive sequence is the path's, not the
	connection's): one below the next expected must be a retransmission
	of what that number brought, dropped, as upstream drops it; anything
	else must be the next. A path's newer connection is read only once
	its older ones are closed, as what those carried was sent first.
	"""
	def __init__(self, addr, port, npaths):
		self.npaths = npaths
		self.ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
		self.ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
		self.ls.bind((addr, port))
		self.ls.listen(64)
		self.sel = selectors.DefaultSelector()
		self.sel.register(self.ls, selectors.EVENT_READ)
		self.conns = []
		self.beyond = []	# ports of paths beyond npaths
		self.failed = []
		self.pong_at = None	# when the first pong went
		self.gen = 0x1234
		self.tx_seq = 0
		self.next_rx = {}	# path -> the sequence number it expects
		self.taken = {}		# (path, seq) -> what it brought
		self.old = collections.Counter()	# path -> retransmissions dropped
		self.early = collections.Counter()	# port -> on path 0 before the pong
		self.got = collections.defaultdict(list)	# port -> its numbers
		self.ends = {}		# port -> its count, from its end
		self.probes = []	# (connection, extension bytes)

	def check(self, ok, what):
		if not ok:
			self.failed.append(what)
		if ok or len(self.failed) <= 20:
			print("%s: %s" % ("ok" if ok else "FAILED", what), flush=True)
		return ok

	def pump(self, done, secs):
		"""Serves until done() or for @secs seconds; returns done()."""
		end = time.time() + secs
		while not done() and time.time() < end:
			wait = min(0.2, max(0.01, end - time.time()))
			for key, _ in self.sel.select(wait):
				if key.data is None:
					self.accept()
				else:
					self.read(key.data)
		return done()

	def accept(self):
		sock, peer = self.ls.accept()
		c = ServedConn(sock, peer[1], len(self.conns))
		print("connection %d: path %d from port %d" % (c.nr, c.lane, c.port),
		      flush=True)
		if c.lane and self.pong_at is None:
			self.check(False, "path %d connected before the pong" % c.lane)
		if c.lane >= self.npaths:
			# Refused, as upstream refuses it.
			self.beyond.append(c.port)
			sock.close()
			return
		self.conns.append(c)
		self.sel.register(sock, selectors.EVENT_READ, c)

	def read(self, c):
		# Our client moves a socket from path 0 to its own path once
		# what it sent on path 0 is acknowledged, which is once it is in
		# our receive queue, not once we read it: take that first, or
		# the socket's messages would seem out of order.
		if c.lane:
			for c0 in self.conns:
				if c0.lane == 0:
					self.recv(c0, False)
		self.recv(c, True)

	def recv(self, c, ready):
		"""Reads @c: once when select said it is @ready, else all it has
		queued.
		"""
		flags = 0 if ready else socket.MSG_DONTWAIT
		while not c.closed:
			try:
				data = c.sock.recv(65536, flags)
			except BlockingIOError:
				break
			except OSError:
				data = b""
			if data:
				c.buf += data
			else:
				c.closed = True
				self.sel.unregister(c.sock)
				c.sock.close()
			if ready:
				break
		self.take(c.lane)

	def take(self, lane):
		"""Takes the messages of @lane's connections, oldest first, up to
		the first one still open.
		"""
		for c in self.conns:
			if c.lane != lane:
				continue
			pos = 0
			while len(c.buf) - pos >= HDR.size:
				(seq, _, length, sport, dport, flags, _, _, _,
				 exthdr) = HDR.unpack_from(c.buf, pos)
				if len(c.buf) - pos < HDR.size + length:
					break
				body = c.buf[pos + HDR.size:pos + HDR.size + length]
				pos += HDR.size + length
				self.message(c, seq, sport, dport, flags, exthdr, body)
			c.buf = c.buf[pos:]
			if not c.closed:
				return
			if c.buf:
				# Cut off by the close: it comes again.
				print("path %d: %d bytes of a message cut off" %
				      (lane, len(c.buf)), flush=True)
				c.buf = b""

	def message(self, c, seq, sport, dport, flags, exthdr, body):
		if flags & FLAG_CONG_BITMAP:
			return		# a map has no sequence number
		lane = c.lane
		want = self.next_rx.get(lane, 1)
		if seq < want:
			if not flags & FLAG_RETRANSMITTED:
				self.check(False, "path %d: %d again, unflagged, %d expected" %
					   (lane, seq, want))
			elif self.taken.get((lane, seq)) != (sport, dport, body):
				self.check(False, "path %d: %d retransmitted, another message" %
					   (lane, seq))
			self.old[lane] += 1
			return
		if seq > want:
			self.check(False, "path %d: %d after %d, %d missing" %
				   (lane, seq, want - 1, seq - want))
		self.next_rx[lane] = seq + 1
		self.taken[(lane, seq)] = (sport, dport, body)
		if (sport, dport) == (1, 0):
			if lane:
				self.check(False, "a probe on path %d" % lane)
				return
			self.probes.append((c, exthdr))
			if self.pong_at is not None and not c.closed:
				self.pong(c)
			return
		if not dport:
			return		# a ping or pong
		c.msgs += 1
		if self.pong_at is None:
			self.early[sport] += 1
		elif lane and lane != sport % 8 % self.npaths:
			self.check(False, "path %d: a message from port %d" % (lane, sport))
		words = body.split()
		try:
			if int(words[0]) != sport:
				raise ValueError
			if words[1:2] == [b"end"]:
				self.ends[sport] = int(words[2])
			else:
				self.got[sport].append(int(words[1]))
		except (IndexError, ValueError):
			self.check(False, "path %d: from port %d, %r" % (lane, sport, body))

	def pong(self, c):
		"""Answers a probe, or tells of a new generation, on @c."""
		self.tx_seq += 1
		try:
			c.sock.sendall(header(self.tx_seq, 0, 1,
					      ext=hs_ext(self.npaths, self.gen)))
		except OSError as e:
			print("pong on connection %d: %s" % (c.nr, e), flush=True)

	def lanes_since(self, nr):
		"""Paths 1..npaths-1 that have a connection accepted as the @nr-th
		or later that brought data.
		"""
		return sorted(set(c.lane for c in self.conns
				  if c.lane and c.nr >= nr and c.msgs))

	def run(self, secs, ctl):
		check = self.check
		others = list(range(1, self.npaths))
		if not check(self.pump(lambda: self.probes, secs), "a probe on path 0"):
			return
		p0, ext0 = self.probes[0]
		check(p0.nr == 0, "the first connection, from port %d, is path 0" %
		      p0.port)
		check(probe_is_2026(ext0), "probe laid out as upstream 2026: %s" %
		      ext0.hex())

		# Until the pong tells our client how many paths there are, all
		# its sockets' messages take path 0.
		self.pump(lambda: False, PONG_HOLD)
		n = sum(k for port, k in self.early.items() if port % 8)
		check(n > 0, "before the pong, %d messages from the ports of paths "
		      "1..7, all on path 0" % n)
		self.pong_at = time.time()
		self.pong(p0)
		if others:
			ok = self.pump(lambda: self.lanes_since(0) == others, 30)
			check(ok, "after the pong, paths %s connected, each with data" %
			      self.lanes_since(0))
		self.pump(lambda: False, SETTLE)
		if self.npaths < 8:
			self.pump(lambda: False, 3)
			check(not self.beyond, "no path beyond the %d announced%s" %
			      (self.npaths, self.beyond and ": ports %s" % self.beyond or ""))

		# A new generation: we restarted, and lost the other paths' state.
		old = [c for c in self.conns if c.lane and not c.closed]
		mark = len(self.conns)
		self.gen = 0x5678
		self.pong(p0)
		ok = self.pump(lambda: all(c.closed for c in old), 10)
		check(ok, "new generation: paths %s dropped" %
		      sorted(c.lane for c in old if c.closed))
		if others:
			ok = self.pump(lambda: self.lanes_since(mark) == others, 30)
			check(ok, "paths %s back, each with data" % self.lanes_since(mark))
			self.pump(lambda: False, SETTLE)

		# Half-close path 0, as upstream's shutdown does: the client closes.
		if not check(not p0.closed, "path 0 still up"):
			return
		nprobes = len(self.probes)
		p0.sock.shutdown(socket.SHUT_WR)
		t = time.time()
		ok = self.pump(lambda: p0.closed, 5)
		check(ok, "half-closed path 0: the client closed after %.1f s" %
		      (time.time() - t))

		# Path 0 again, with a probe (answered at once).
		ok = self.pump(lambda: len(self.probes) > nprobes, secs)
		if check(ok, "path 0 connected again, with a probe"):
			c, ext0 = self.probes[nprobes]
			check(probe_is_2026(ext0), "a probe on the new path 0: %s" %
			      ext0.hex())
			check(self.pump(lambda: c.msgs > 0, 30),
			      "the new path 0 carries data")
			self.pump(lambda: False, SETTLE)

		# The client stops; each socket's end says how many it sent.
		open(os.path.join(ctl, "stop"), "w").close()
		ok = self.pump(lambda: len(self.ends) == FEED_PORTS, 30)
		check(ok, "the ends of %d ports: %s" % (len(self.ends), sorted(self.ends)))
		# Anything that would come twice comes now.
		self.pump(lambda: False, 1)
		for port in sorted(set(self.got) | set(self.ends)):
			self.check_port(port)
		for lane in sorted(self.next_rx):
			print("path %d: sequence 1..%d, %d retransmissions dropped" %
			      (lane, self.next_rx[lane] - 1, self.old[lane]), flush=True)
		for c in self.conns:
			if c.buf:
				check(False, "connection %d (path %d): %d bytes not taken, "
				      "an older connection of its path still open" %
				      (c.nr, c.lane, len(c.buf)))

	def check_port(self, port):
		"""Each number from @port once, in order, up to its end."""
		got, n = self.got[port], self.ends.get(port)
		if n is not None and got == list(range(n)):
			self.check(True, "port %d: %d messages, each once, in order" %
				   (port, n))
			return
		seen = collections.Counter(got)
		missing = [i for i in range(n or 0) if not seen[i]]
		twice = sorted(i for i, k in seen.items() if k > 1)
		late = [i for i in got if n is not None and i >= n]
		self.check(False, "port %d: %d messages of %s; missing %s, twice %s, "
			   "after its end %s, in order: %s" %
			   (port, len(got), n, missing[:10], twice[:10], late[:10],
			    got == sorted(got)))


def serve(addr, port, secs, npaths, ctl):
	"""Plays an upstream 2026 server of @npaths paths for a client that
	connects to @addr (its 16385 redirected to @port), ours, fed by feed
	(its control files in @ctl). Its path 0 must come from a port of path
	0's group with upstream's probe, and until the pong carry every
	socket's messages; once answered, paths 1..@npaths-1 from their own
	groups, and no other, carrying the messages of the sockets whose
	ports name them; a pong with a new generation (we restarted) must
	make it drop those, and connect them again; a half-close of path 0
	(upstream's shutdown now half-closes first) must get the client's
	close within 5 s; and its path 0 again must come with a probe.
	Through all that each path's sequence numbers go up one by one, and
	each socket's messages all arrive, once each, in order. Prints each
	check.
	"""
	sv = Serve(addr, port, npaths)
	print("listening", flush=True)
	try:
		sv.run(secs, ctl)
	finally:
		for name in ("stop", "done"):
			open(os.path.join(ctl, name), "w").close()
	return 1 if sv.failed else 0


def cong_map(port):
	bits = bytearray(CONG_MAP_BYTES)
	if port is not None:
		bits[port // 8] |= 1 << (port % 8)	# little endian bit order
	return header(0, 0, 0, CONG_MAP_BYTES, FLAG_CONG_BITMAP) + bytes(bits)


def stale(src, dst, port, mode, secs):
	"""Marks @port congested on path 1, as an in-tree peer's old map that
	overtook a newer one would. Each time the other side resets path 0 to
	ask for the map again, reconnect it and send the current map there:
	open (mode "open") or still congested (mode "congested"). Ends after
	@secs seconds after that map, or, open, once the open map is sent: the
	probe's pong may take seconds on a loaded debug guest, which must not
	eat into the time the other side has to ask.
	"""
	p0 = connect(src, dst)
	p0.sendall(header(1, 1, 0, ext=probe_ext()))
	# Path 1 only once the other side has taken the probe (its pong is
	# here): before, it has one path and would take this connection for
	# path 0.
	if not reply_within(p0, 30):
		print("no pong to the probe on path 0", flush=True)
		return
	p1 = connect(src, dst)
	stop = threading.Event()
	t1 = threading.Thread(target=drain, args=(p1, stop), daemon=True)
	t1.start()
	p1.sendall(cong_map(port))
	print("map with port %d congested sent on path 1" % port, flush=True)
	end = time.time() + secs
	resets = 0
	while time.time() < end:
		if not closed_within(p0, end - time.time()):
			break
		resets += 1
		print("path 0 reset by the other side", flush=True)
		p0.close()
		time.sleep(0.2)
		p0 = connect(src, dst)
		p0.sendall(cong_map(port if mode == "congested" else None))
		print("map sent again on path 0", flush=True)
		if mode == "open":
			break
	print("path 0 resets seen: %d" % resets, flush=True)
	stop.set()
	t1.join()
	p1.close()
	p0.close()


def msg(seq, dport, body, flags=0, ext=b""):
	return header(seq, 40000, dport, len(body), flags, ext) + body


def connect_kept(src, dst, secs=10):
	"""A connection the other side keeps. While its path still goes down
	from the previous case it refuses us (a reset right after accepting,
	often before connect() returns); a real peer retries, and so do we.
	"""
	end = time.time() + secs
	while True:
		try:
			s = connect(src, dst)
			if not closed_within(s, 0.5):
				return s
			s.close()
		except ConnectionError:
			pass
		if time.time() > end:
			raise ConnectionError("refused for %d s" % secs)
		time.sleep(0.2)


def send_case(src, dst, data, close_at_once=False):
	"""Sends @data on a new connection, then prints whether the other side
	closed it within 3 s (what a malformed header should get).
	"""
	s = connect_kept(src, dst)
	s.sendall(data)
	if close_at_once:
		s.close()
		print("sent %d bytes and closed" % len(data), flush=True)
		return
	closed = closed_within(s, 3)
	print("connection %s" % ("reset" if closed else "kept"), flush=True)
	s.close()


def hostile_seq(src, dst, dport):
	"""Sequence numbers: ahead, a retransmission of an old one (a
	duplicate: dropped), far ahead, the last before the wrap, then 0.
	"""
	seqs = ((10, 0, b"seq-10"), (3, FLAG_RETRANSMITTED, b"seq-old"),
		(1 << 62, 0, b"seq-far"), ((1 << 64) - 1, 0, b"seq-wrap"),
		(0, 0, b"seq-zero"))
	send_case(src, dst, b"".join(msg(q, dport, b, f) for q, f, b in seqs))


def hostile_dup(src, dst, dport):
	"""A message again on its connection, without the retransmit flag (a
	duplicate all the same: dropped), one below it (dropped), the next
	(delivered); then a new connection numbering from 1, as a restarted
	peer does (delivered).
	"""
	seqs = ((1 << 40, 0, b"dup-first"), (1 << 40, 0, b"dup-again"),
		((1 << 40) - 1, 0, b"dup-back"), ((1 << 40) + 1, 0, b"dup-next"))
	send_case(src, dst, b"".join(msg(q, dport, b, f) for q, f, b in seqs))
	send_case(src, dst, msg(1, dport, b"dup-restart"))


def hostile_conns(src, dst, count):
	"""@count connections at once, each from its own source port."""
	import resource
	resource.setrlimit(resource.RLIMIT_NOFILE, (count + 64, count + 64))
	socks = []
	refused = 0
	for _ in range(count):
		try:
			socks.append(connect(src, dst))
		except ConnectionError:
			refused += 1
	print("%d connections made, %d refused at once" % (len(socks), refused),
	      flush=True)
	time.sleep(2)
	for s in socks:
		s.close()


def hostile(src, dst, dport, case):
	if case == "hlen-1m":
		send_case(src, dst, header(1, 40000, dport, (1 << 20) + 1) + b"x" * 4096)
	elif case == "hlen-max":
		send_case(src, dst, header(1, 40000, dport, 0xffffffff) + b"x" * 4096)
	elif case == "ext-unknown":
		# unknown types, then a known one whose payload runs past the 16 bytes
		ext_junk = bytes([0x7e, 0xff, 0x80, 0x2a]) * 4
		ext_overrun = b"\0" * 14 + bytes([EXT_NPATHS, 0x7f])
		send_case(src, dst, header(1, 1, 0, ext=ext_junk) +
			  header(2, 1, 0, ext=ext_overrun) +
			  msg(3, dport, b"ext-junk", ext=ext_junk) +
			  msg(4, dport, b"ext-overrun", ext=ext_overrun))
	elif case == "ext-known-unknown":
		# known extensions, then an unknown type: the walk takes the
		# known ones (RDMA_DEST: the reader gets its cookie) and stops
		# at the unknown (an RDMA_DEST after it is not seen)
		dest = ext(EXT_RDMA_DEST, "II", 0x1234, 0x5678)
		after = (ext(EXT_RDMA, "I", 0x4321) + ext(EXT_UNKNOWN) +
			 ext(EXT_RDMA_DEST, "II", 0x9abc, 0xdef0))
		send_case(src, dst, msg(1, dport, b"ext-dest-unknown",
					ext=dest + ext(EXT_UNKNOWN)) +
			  msg(2, dport, b"ext-unknown-dest", ext=after))
	elif case == "ext-2026":
		# upstream 2026 and UEK extensions on data: the flag, RDMA_BYTES
		# after RDMA (what upstream's IB sends), UEK's two
		rdma = ext(EXT_RDMA, "I", 0) + ext(EXT_RDMA_BYTES, "IB3x", 1 << 24, 2)
		uek = ext(EXT_UEK_CAP, "I", 1) + ext(EXT_UEK_CSUM, "Q", 7)
		send_case(src, dst, msg(1, dport, b"ext-rdma-bytes",
					FLAG_EXTHDR_EXTENSION, rdma) +
			  msg(2, dport, b"ext-uek", ext=uek))
	elif case == "seq":
		hostile_seq(src, dst, dport)
	elif case == "dup":
		hostile_dup(src, dst, dport)
	elif case == "cong-size":
		data = b""
		for n in (0, 100, CONG_MAP_BYTES - 1, CONG_MAP_BYTES + 1):
			data += header(0, 0, 0, n, FLAG_CONG_BITMAP) + b"\xff" * n
		send_case(src, dst, data + msg(1, dport, b"after-cong"))
	elif case == "cut-header":
		send_case(src, dst, header(1, 40000, dport, 100)[:20], True)
	elif case == "cut-payload":
		send_case(src, dst, header(1, 40000, dport, 5000) + b"x" * 1000, True)
	elif case == "conns":
		hostile_conns(src, dst, int(os.environ.get("RDS_HOSTILE_CONNS", "1000")))
	elif case == "early-data":
		# data on path 0 before any probe (what a peer without multipath
		# does), then on a second connection before the handshake
		p0 = connect_kept(src, dst)
		p0.sendall(msg(1, dport, b"early-0"))
		time.sleep(0.5)
		try:
			# refused while path 0 is busy: no other path without
			# the handshake
			s = connect(src, dst)
			s.sendall(msg(1, dport, b"early-1"))
			closed = closed_within(s, 3)
			print("second connection %s" % ("reset" if closed else "kept"))
			s.close()
		except ConnectionError:
			print("second connection refused")
		p0.close()
	else:
		print("unknown case %s" % case, file=sys.stderr)
		return 2
	return 0


def main(argv):
	cmd = argv[1]
	if cmd == "flood":
		flood(argv[2], argv[3], int(argv[4]), float(argv[5]))
	elif cmd == "csum":
		csum_case(argv[2], argv[3], int(argv[4]))
	elif cmd == "forge":
		return forge(argv[2], argv[3])
	elif cmd == "forge-sportidx":
		return forge_sportidx(argv[2], argv[3])
	elif cmd == "lane-reconnect":
		return lane_reconnect(argv[2], argv[3], int(argv[4]), int(argv[5]))
	elif cmd == "lanes":
		return lanes(argv[2], argv[3], int(argv[4]), int(argv[5]), int(argv[6]))
	elif cmd == "serve":
		return serve(argv[2], int(argv[3]), float(argv[4]), int(argv[5]),
			     argv[6])
	elif cmd == "feed":
		return feed(argv[2], argv[3], int(argv[4]), argv[5])
	elif cmd == "wrong-lane":
		return wrong_lane(argv[2], argv[3], int(argv[4]))
	elif cmd == "chain":
		chain(argv[2], argv[3], argv[4], int(argv[5]),
		      argv[6] if len(argv) > 6 else None)
	elif cmd == "stale":
		stale(argv[2], argv[3], int(argv[4]), argv[5], float(argv[6]))
	elif cmd == "hostile":
		return hostile(argv[2], argv[3], int(argv[4]), argv[5])
	else:
		print("unknown command %s" % cmd, file=sys.stderr)
		return 2
	return 0


if __name__ == "__main__":
	sys.exit(main(sys.argv))
