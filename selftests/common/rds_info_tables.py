#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Every RDS_INFO table as the network namespace it runs in sees it, for
# the isolation tests (tcp/test_isolation.sh, ib/test_ib_netns.sh):
#
#   rds_info_tables.py [ADDR...]
#
# prints one line per table: "OPTNAME NAME ROWS [ADDR:N...]", ROWS the
# items it returned and, for each ADDR, how many of them hold it (its
# bytes as the table has them: 4 in an IPv4 table, 16 in an IPv6 one or
# v4-mapped in ours, which carry both families). "absent" for a table
# whose module is not loaded (ENOPROTOOPT). The socket this reads
# through is left out of the socket tables (by its inode): it is the
# reader's, not what the netns holds. The counters (10000) are global
# by design, as in-tree, and not listed; 10002 is retired and 10010
# (iWARP) has no provider.

import ctypes
import errno
import ipaddress
import os
import socket
import struct
import sys

SOL_RDS = 276
LIBC = ctypes.CDLL(None, use_errno=True)

# (optname, name, offset of the inode in an item, or None)
TABLES = [
    (10001, "connections", None),
    (10003, "send_messages", None),
    (10004, "retrans_messages", None),
    (10005, "recv_messages", None),
    (10006, "sockets", 20),
    (10007, "tcp_sockets", None),
    (10008, "ib_connections", None),
    (10009, "connection_stats", None),
    (10011, "connections6", None),
    (10012, "send_messages6", None),
    (10013, "retrans_messages6", None),
    (10014, "recv_messages6", None),
    (10015, "sockets6", 44),
    (10016, "tcp_sockets6", None),
    (10017, "ib_connections6", None),
    (10100, "paths", None),
    (10101, "socket_drops", 24),
    (10102, "carriers", None),
]


def read_table(s, opt):
    """The table's items as a list of bytes; None when it is absent.
    Through libc: the item size is getsockopt()'s return value, and on
    ENOSPC the length needed is in optlen, both of which Python's
    socket.getsockopt() drops."""
    size = 4096
    while True:
        buf = (ctypes.c_char * size)()
        optlen = ctypes.c_int(size)
        each = LIBC.getsockopt(s.fileno(), SOL_RDS, opt, buf,
                               ctypes.byref(optlen))
        if each >= 0:
            data = bytes(buf)[:optlen.value]
            return [data[i:i + each] for i in range(0, len(data), each)] \
                if each else []
        err = ctypes.get_errno()
        if err == errno.ENOPROTOOPT:
            return None
        if err != errno.ENOSPC:
            raise OSError(err, os.strerror(err))
        size = optlen.value + 4096	# rows may come meanwhile


def forms(addr):
    """The byte strings an address may appear as in the tables."""
    ip = ipaddress.ip_address(addr)
    if ip.version == 4:
        return [ip.packed, b"\0" * 10 + b"\xff\xff" + ip.packed]
    return [ip.packed]


def main():
    addrs = sys.argv[1:]
    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
    ino = os.fstat(s.fileno()).st_ino
    for opt, name, ino_off in TABLES:
        rows = read_table(s, opt)
        if rows is None:
            print("%d %s absent" % (opt, name))
            continue
        if ino_off is not None:
            rows = [r for r in rows
                    if struct.unpack_from("=Q", r, ino_off)[0] != ino]
        out = ["%d %s %d" % (opt, name, len(rows))]
        for a in addrs:
            f = forms(a)
            out.append("%s:%d" % (a, sum(any(x in r for x in f)
                                         for r in rows)))
        print(" ".join(out))
    s.close()


if __name__ == "__main__":
    main()
