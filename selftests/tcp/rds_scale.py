#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# The scale and memory-bound cases of test_scale.sh, one mode each:
#
#   sink ADDR PORT N             receive N messages on ADDR:PORT, from N
#                                different source ports unless MANY is set
#                                in the environment; exit 0 when all came
#   sockets SRC DST PORT N FLAG  N sockets bound on SRC, one message each to
#                                DST:PORT; keep them until FLAG exists
#   pings SRC N                  one socket on SRC pings N peer addresses
#                                (peer_addr) and waits for every pong
#   sndbuf SRC DST PORT K BYTES  K sockets with SO_SNDBUF BYTES, 8 KiB
#                                messages to DST:PORT until EAGAIN, on a link
#                                that loses everything; then no more room for
#                                10 s; keep them until the file named by
#                                $FLAG exists
#
# Memory is read from /proc/meminfo (the guest is otherwise idle): Slab, and
# MemFree, which also sees the pages of messages and congestion maps. Each
# mode prints what its objects cost, per object, in "name: N bytes" lines.
import errno
import os
import resource
import select
import socket
import sys
import time

SOL_RDS = 276
MSG = 8192


def pcp_pages():
	"""The pages on every zone's per-CPU lists (/proc/zoneinfo's count:)."""
	n = 0
	with open("/proc/zoneinfo") as f:
		for line in f:
			words = line.split()
			if len(words) == 2 and words[0] == "count:":
				n += int(words[1])
	return n


def meminfo():
	m = {}
	with open("/proc/meminfo") as f:
		for line in f:
			k, v = line.split(":")
			m[k] = int(v.split()[0]) * 1024
	# Free pages kept on the per-CPU lists are not in MemFree, and since
	# 6.7 those lists grow and shrink with the rate of frees (several MiB
	# here): count them as free, or their moves look like RDS's memory.
	m["MemFree"] += pcp_pages() * os.sysconf("SC_PAGE_SIZE")
	# The bytes in use per slab cache, to say where the memory went.
	m["caches"] = {}
	with open("/proc/slabinfo") as f:
		for line in f.readlines()[2:]:
			name, active, _, size = line.split()[:4]
			m["caches"][name] = int(active) * int(size)
	return m


def settled_meminfo():
	"""meminfo() with the page cache dropped first.

	The 10 s that sndbuf() watches a dead link also see the test's own
	commands read files over 9p into the page cache. (The 4 MiB that
	MemFree fell there on 6.12 were the per-CPU lists, which meminfo()
	counts; this keeps the cache out of the same readings.)
	"""
	os.sync()
	with open("/proc/sys/vm/drop_caches", "w") as f:
		f.write("3\n")
	return meminfo()


def report(what, before, after, n):
	slab = (after["Slab"] - before["Slab"]) // n
	free = (before["MemFree"] - after["MemFree"]) // n
	print(f"{what}: slab {slab} bytes, memory {free} bytes (of {n})")
	grown = sorted(((after["caches"][c] - before["caches"].get(c, 0), c)
			for c in after["caches"]), reverse=True)
	print("  of which: " + ", ".join(f"{c} {b // n}" for b, c in grown[:8] if b > 0))
	return slab, free


def peer_addr(i):
	return f"10.78.{i // 250}.{i % 250 + 1}"


def wait_for(path, secs):
	end = time.time() + secs
	while not os.path.exists(path):
		if time.time() > end:
			sys.exit(f"{path} did not appear in {secs} s")
		time.sleep(0.2)


def rds_socket():
	return socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)


def sink(addr, port, n):
	s = rds_socket()
	s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
	s.bind((addr, port))
	print("bound", flush=True)
	senders, got = set(), 0
	s.settimeout(300)
	while got < n:
		try:
			_, src = s.recvfrom(MSG)
		except socket.timeout:
			break
		senders.add(src)
		got += 1
	print(f"{got} of {n} messages, from {len(senders)} sockets")
	many = os.environ.get("MANY") is not None
	return got == n and (many or len(senders) == n)


def sockets(src, dst, port, n, flag):
	resource.setrlimit(resource.RLIMIT_NOFILE, (n + 100, n + 100))
	m0 = meminfo()
	socks = []
	for _ in range(n):
		s = rds_socket()
		s.bind((src, 0))
		socks.append(s)
	m1 = meminfo()
	report("per bound socket", m0, m1, n)
	for i, s in enumerate(socks):
		s.sendto(b"s%d" % i, (dst, port))
	wait_for(flag, 600)
	for s in socks:
		s.close()
	return True


def pings(src, n):
	s = rds_socket()
	s.bind((src, 0))
	s.setblocking(False)
	m0 = meminfo()
	for i in range(n):
		while True:
			try:
				s.sendto(b"", (peer_addr(i), 0))
				break
			except BlockingIOError:
				select.select([], [s], [], 1)
	pongs, end = set(), time.time() + 600
	while len(pongs) < n and time.time() < end:
		r, _, _ = select.select([s], [], [], 1)
		if not r:
			continue
		try:
			_, peer = s.recvfrom(64)
		except BlockingIOError:
			continue
		pongs.add(peer[0])
	m1 = meminfo()
	print(f"{len(pongs)} of {n} peers answered")
	if len(pongs) < n:
		return False
	# The connection's both ends are in this kernel.
	report("per connection, both ends", m0, m1, n)
	return True


def sndbuf(src, dst, port, k, size):
	m0 = settled_meminfo()
	socks, ok = [], True
	for _ in range(k):
		s = rds_socket()
		s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, size)
		s.bind((src, 0))
		s.setblocking(False)
		socks.append(s)
	total = 0
	for j, s in enumerate(socks):
		sent = 0
		while True:
			try:
				s.sendto(b"%08d" % j + b"x" * (MSG - 8), (dst, port))
			except BlockingIOError:
				break
			sent += MSG
			if sent > 4 * size:
				break
		total += sent
		# Admitted while below the limit: one message over it at most.
		if sent > size + MSG:
			print(f"socket {j}: {sent} bytes queued, sndbuf {size}")
			ok = False
	m1 = settled_meminfo()
	print(f"{k} sockets, {total} bytes queued in all, {total // k} each, sndbuf {size}")
	# Nothing is acknowledged on a dead link: no room comes back.
	end = time.time() + 10
	while time.time() < end:
		_, w, _ = select.select([], socks, [], 0.5)
		for s in w:
			try:
				s.sendto(b"y" * MSG, (dst, port))
				print("room came back on a dead link")
				ok = False
			except BlockingIOError:
				pass
	m2 = settled_meminfo()
	after, later = [(m0["MemFree"] - m["MemFree"]) // 1024 for m in (m1, m2)]
	print(f"memory: {after} KiB more after the sends, {later} KiB 10 s later")
	# The messages' pages, the TCP socket's copies of what it was given
	# before the window closed (at most its own sndbuf, 4 MiB), and 4 MiB
	# for whatever else an idle guest does meanwhile.
	bound = (2 * total + (8 << 20)) // 1024
	if later > bound or later > after + 2048:
		print(f"memory grew past {bound} KiB, or went on growing")
		ok = False
	print(f"queued {total // MSG}", flush=True)
	wait_for(os.environ["FLAG"], 600)
	for s in socks:
		s.close()
	return ok


def main():
	mode, args = sys.argv[1], sys.argv[2:]
	if mode == "sink":
		ok = sink(args[0], int(args[1]), int(args[2]))
	elif mode == "sockets":
		ok = sockets(args[0], args[1], int(args[2]), int(args[3]), args[4])
	elif mode == "pings":
		ok = pings(args[0], int(args[1]))
	elif mode == "sndbuf":
		ok = sndbuf(args[0], args[1], int(args[2]), int(args[3]), int(args[4]))
	else:
		sys.exit(f"unknown mode {mode}")
	sys.exit(0 if ok else 1)


if __name__ == "__main__":
	main()
