#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Checks what rds-info --json and --prometheus print, read from stdin:
#   check_export.py json LOCAL REMOTE    every table, one connection LOCAL->REMOTE up
#   check_export.py prom LOCAL REMOTE    a valid exposition with that connection up
# Prints what is wrong and exits 1, so that the TAP log says why.

import json
import re
import sys

# The documented field names (rds-info(1)): a rename must fail here.
FIELDS = {
    "connections": ["local_addr", "remote_addr", "tos", "next_tx_seq", "next_rx_seq",
                    "sending", "connecting", "connected", "transport"],
    "sockets": ["bound_addr", "bound_port", "connected_addr", "connected_port",
                "sndbuf", "rcvbuf", "inode"],
    "tcp_sockets": ["local_addr", "local_port", "remote_addr", "remote_port", "tos",
                    "hdr_rem", "data_rem", "last_sent_nxt", "last_expected_una",
                    "last_seen_una"],
    "messages": ["local_addr", "local_port", "remote_addr", "remote_port", "tos",
                 "seq", "bytes", "ack", "fast_ack"],
    "ib_connections": ["local_addr", "remote_addr", "tos", "sl", "local_gid", "remote_gid",
                       "max_send_wr", "max_recv_wr", "max_send_sge", "rdma_mr_max",
                       "rdma_mr_size", "cache_allocs"],
    # Ours alone (in-tree has no such tables): both families in one.
    "paths": ["local_addr", "remote_addr", "tos", "path", "transport", "state",
              "next_tx_seq", "next_rx_seq", "connect_attempts", "connect_failures",
              "last_connect_error", "resets", "last_reset_time", "last_reset_reason"],
    "socket_drops": ["bound_addr", "bound_port", "inode", "recv_rcvbuf", "send_reset",
                     "send_purged", "send_canceled"],
    "carriers": ["local_addr", "remote_addr", "tos", "path", "transport", "carrier",
                 "device", "port", "home", "moves", "last_move_time"],
}
# The IPv6 items have no tos, as in the kernel's.
NO_TOS_IN_V6 = {"connections", "tcp_sockets"}


def fail(msg):
    print("check_export: " + msg)
    sys.exit(1)


def check_items(key, items, fields):
    if not isinstance(items, list):
        fail(f"{key} is not an array")
    for item in items:
        if sorted(item) != sorted(fields):
            fail(f"{key}: fields {sorted(item)}, expected {sorted(fields)}")


def check_json(text, local, remote):
    doc = json.loads(text)
    want = ["counters", "connections", "sockets", "tcp_sockets", "send_messages",
            "receive_messages", "retransmit_messages"]
    for key in want + [k + "_ipv6" for k in want if k != "counters"]:
        if key not in doc:
            fail(f"no member {key}; have {sorted(doc)}")
    counters = doc["counters"]
    if not counters or not all(isinstance(v, int) for v in counters.values()):
        fail("counters is not a non-empty object of integers")
    for key, items in doc.items():
        if key.startswith("counters"):
            continue
        base = key.removesuffix("_ipv6")
        kind = "messages" if base.endswith("_messages") else base
        fields = FIELDS[kind]
        if key.endswith("_ipv6") and kind in NO_TOS_IN_V6:
            fields = [f for f in fields if f != "tos"]
        check_items(key, items, fields)
    up = [c for c in doc["connections"] if c["local_addr"] == local and
          c["remote_addr"] == remote and c["connected"] and c["transport"] == "tcp"]
    if not up:
        fail(f"no connected tcp connection {local} -> {remote}: {doc['connections']}")


SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_]\w*="(?:[^"\\]|\\.)*",?)*\})? '
                    r'([0-9]+)$')


def check_prom(text, local, remote):
    types, seen = {}, set()
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ")
            if name in types:
                fail(f"two TYPE lines for {name}")
            types[name] = kind
            continue
        if line.startswith("# HELP "):
            continue
        m = SAMPLE.match(line)
        if not m:
            fail(f"not a sample line: {line!r}")
        if m.group(1) not in types:
            fail(f"sample before its TYPE: {line!r}")
        series = line.rsplit(" ", 1)[0]
        if series in seen:
            fail(f"duplicate series {series}")
        seen.add(series)
    if not any(n.endswith("_total") and k == "counter" for n, k in types.items()):
        fail("no counters")
    for name in ["rds_sockets", "rds_connection_up", "rds_send_queue_messages",
                 "rds_retransmit_queue_bytes"]:
        if types.get(name) != "gauge":
            fail(f"no gauge {name}")
    up = (f'rds_connection_up{{local="{local}",remote="{remote}",tos="0",'
          f'transport="tcp"}} 1')
    if up not in text.splitlines():
        fail(f"missing: {up}")


def main():
    mode, local, remote = sys.argv[1:4]
    text = sys.stdin.read()
    print(text)
    (check_json if mode == "json" else check_prom)(text, local, remote)


main()
