#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Checks Documentation/sysctl.rst against the knobs a running system has:
#   check_sysctl_doc.py [--hz N] [--ram-pages N] [DOC [ROOT]]
# DOC defaults to the repository's Documentation/sysctl.rst, ROOT (the
# directory that is net.rds) to /proc/sys/net/rds. Run it as root in a
# guest with rds, rds_tcp and rds_rdma loaded. Every knob under ROOT must
# have a section in DOC, every section a knob, and each knob must read its
# documented default and have its documented mode. Prints one line per
# problem and exits 1, or prints "N knobs documented" and exits 0.
#
# The defaults are what a fresh load gives: call this right after loading
# the modules, before anything writes a knob or makes a connection
# (ring_memory counts what connections pin). The memory-sized defaults are
# computed at load from totalram, which MemTotal reports; it does not move
# after boot on our guests (no balloon, no memory hotplug).
#
# The convention in DOC (see its "How to read this reference"): a knob's
# section title is exactly its dotted name; its ":Default:" field's first
# line begins with an integer or with an expression in double back quotes
# over HZ, PAGE_SIZE and RAM_PAGES; its ":Mode:" field begins with the
# octal mode.

import argparse
import ast
import gzip
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DOC = os.path.join(HERE, "..", "..", "Documentation", "sysctl.rst")
DEFAULT_ROOT = "/proc/sys/net/rds"
PREFIX = "net.rds"

KNOB_TITLE = re.compile(r"^net\.rds(\.[A-Za-z0-9_]+)+$")
UNDERLINE = re.compile(r"^([=\-~^\"'`#*+.:_])\1+$")
FIELD = re.compile(r"^:([A-Za-z][A-Za-z -]*):\s*(.*)$")
INTEGER = re.compile(r"^(-?[0-9]+)\b")
EXPRESSION = re.compile(r"^``([^`]+)``")
OCTAL = re.compile(r"^([0-7]{3,4})\b")


class Knob:
    def __init__(self, name, line):
        self.name = name
        self.line = line
        self.fields = {}


def parse_doc(path, problems):
    """The knob sections of the rst, by name: their fields' first lines."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    knobs = {}
    current = None
    for i, text in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        title = text.strip()
        # A title is a line underlined by at least as many of one mark; an
        # overline is itself followed by the title, not by an underline.
        if (title and not UNDERLINE.match(title) and UNDERLINE.match(nxt)
                and len(nxt) >= len(text.rstrip())):
            current = None
            if KNOB_TITLE.match(title):
                if title in knobs:
                    problems.append(f"{title}: documented twice "
                                    f"(lines {knobs[title].line} and {i + 1})")
                current = knobs[title] = Knob(title, i + 1)
            continue
        m = FIELD.match(text)
        if current and m and m.group(1) not in current.fields:
            current.fields[m.group(1)] = m.group(2)
    return knobs


# The expression language of ":Default:": integers, the machine's values,
# + - * //, min() and max(). Nothing else of Python is evaluated.
def evaluate(expr, names):
    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in names:
                raise ValueError(f"unknown name {node.id}")
            if names[node.id] is None:
                raise LookupError(node.id)
            return names[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if isinstance(node, ast.BinOp):
            ops = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
                   ast.Mult: lambda a, b: a * b,
                   ast.FloorDiv: lambda a, b: a // b}
            op = ops.get(type(node.op))
            if op:
                return op(ev(node.left), ev(node.right))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("min", "max") and node.args
                and not node.keywords):
            args = [ev(a) for a in node.args]
            return min(args) if node.func.id == "min" else max(args)
        raise ValueError(f"not allowed: {ast.dump(node)}")
    return ev(ast.parse(expr, mode="eval"))


def kernel_hz():
    """CONFIG_HZ of the running kernel, or None: user space cannot ask."""
    release = os.uname().release
    candidates = ["/proc/config.gz", f"/boot/config-{release}",
                  f"/lib/modules/{release}/build/.config"]
    for path in candidates:
        try:
            opener = gzip.open if path.endswith(".gz") else open
            with opener(path, "rt") as f:
                for line in f:
                    if line.startswith("CONFIG_HZ="):
                        return int(line.split("=", 1)[1])
        except OSError:
            continue
    return None


def ram_pages(page_size):
    """totalram as si_meminfo() gives it: MemTotal is that, in KiB."""
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024 // page_size
    return None


def walk_proc(root):
    """Every knob file under @root, by dotted name."""
    found = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        rel = os.path.relpath(dirpath, root)
        parts = [] if rel == "." else rel.split(os.sep)
        for name in sorted(filenames):
            found[".".join([PREFIX] + parts + [name])] = \
                os.path.join(dirpath, name)
    return found


def check_knob(knob, path, names, problems, skipped):
    text = knob.fields.get("Default")
    if text is None:
        problems.append(f"{knob.name}: no :Default: field (line {knob.line})")
        return
    try:
        with open(path) as f:
            raw = f.read().strip()
        value = int(raw)
    except (OSError, ValueError) as e:
        problems.append(f"{knob.name}: cannot read {path}: {e}")
        return
    m = EXPRESSION.match(text)
    try:
        if m:
            want = evaluate(m.group(1), names)
        elif INTEGER.match(text):
            want = int(INTEGER.match(text).group(1))
        else:
            problems.append(f"{knob.name}: :Default: begins with neither an "
                            f"integer nor ``expression``: {text!r}")
            return
    except LookupError as e:
        # Not a documentation problem: this machine cannot say.
        skipped.append(f"{knob.name}: default not checked, {e} unknown "
                       f"(pass --{str(e).lower().replace('_', '-')})")
        want = None
    except (ValueError, SyntaxError, ZeroDivisionError) as e:
        problems.append(f"{knob.name}: bad :Default: expression: {e}")
        return
    if want is not None and value != want:
        detail = f" ({m.group(1)})" if m else ""
        problems.append(f"{knob.name}: documented default {want}{detail}, "
                        f"reads {value}")
    mode = knob.fields.get("Mode")
    if mode is not None:
        mm = OCTAL.match(mode)
        if not mm:
            problems.append(f"{knob.name}: :Mode: is not octal: {mode!r}")
        else:
            have = os.stat(path).st_mode & 0o7777
            if have != int(mm.group(1), 8):
                problems.append(f"{knob.name}: documented mode {mm.group(1)}, "
                                f"has {have:04o}")


def main():
    ap = argparse.ArgumentParser(
        description="Check Documentation/sysctl.rst against /proc/sys/net/rds.")
    ap.add_argument("doc", nargs="?", default=os.path.normpath(DEFAULT_DOC))
    ap.add_argument("root", nargs="?", default=DEFAULT_ROOT,
                    help="the directory that is net.rds")
    ap.add_argument("--hz", type=int, help="CONFIG_HZ (default: the "
                    "running kernel's config, if it can be found)")
    ap.add_argument("--ram-pages", type=int,
                    help="totalram in pages (default: MemTotal)")
    args = ap.parse_args()

    if not os.path.isdir(args.root):
        print(f"check_sysctl_doc: {args.root}: no such directory "
              "(modules not loaded?)")
        return 1
    page_size = os.sysconf("SC_PAGE_SIZE")
    names = {
        "HZ": args.hz if args.hz else kernel_hz(),
        "PAGE_SIZE": page_size,
        "RAM_PAGES": args.ram_pages if args.ram_pages else ram_pages(page_size),
    }
    problems, skipped = [], []
    knobs = parse_doc(args.doc, problems)
    present = walk_proc(args.root)

    for name in sorted(present):
        if name not in knobs:
            problems.append(f"{name}: in {present[name]}, not documented "
                            f"in {args.doc}")
    for name in sorted(knobs):
        if name not in present:
            problems.append(f"{name}: documented (line {knobs[name].line}), "
                            f"not in {args.root}")
        else:
            check_knob(knobs[name], present[name], names, problems, skipped)

    for line in skipped:
        print("# " + line, file=sys.stderr)
    for line in problems:
        print(line)
    if problems:
        return 1
    note = ""
    if skipped:
        note = f" ({len(skipped)} default{'s' if len(skipped) > 1 else ''} not checked)"
    print(f"{len(knobs)} knobs documented{note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
