#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Checks Documentation/counters.rst against the counters rds-info -c prints:
#   check_counters_doc.py [--src DIR] [DOC]
# DOC defaults to the repository's Documentation/counters.rst, DIR (the
# checkout whose net/rds is read) to the repository this script is in.
# Every name of the three C name tables must have an entry in DOC, under
# its module's section and in the order rds-info -c prints; every entry
# must name a counter. Prints one line per problem and exits 1, or prints
# "N counters documented" and exits 0.
#
# The names come from the source, not from a running system: the check
# needs no guest, and a counter that only a module we did not load would
# list is checked all the same.
#
# The convention in DOC (see its "How to read this glossary"): an entry is
# a definition-list term that is exactly ``name`` on a line of its own,
# its description indented on the lines after it; each module's section
# is a title underlined with "=" that ends with the module's file name in
# parentheses, "(rds.ko)".

import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SRC = os.path.join(HERE, "..", "..")
DEFAULT_DOC = os.path.join(DEFAULT_SRC, "Documentation", "counters.rst")

# The tables in the order RDS_INFO_COUNTERS lists them: the core's first,
# then the transports' by transport number (RDS_TRANS_IB is 0,
# RDS_TRANS_TCP 2; rds_trans_stats_info_copy() walks them in that order).
TABLES = [
    ("rds.ko", "net/rds/stats.c", "rds_stat_names"),
    ("rds_rdma.ko", "net/rds/ib/info.c", "rds_ib_stat_names"),
    ("rds_tcp.ko", "net/rds/tcp/info.c", "rds_tcp_stat_names"),
]

COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)
# One designated initialiser: [RDS_TCP_STAT_SNDBUF_FULL] = "tcp_sndbuf_full",
ENTRY = re.compile(r'\[\s*(RDS_[A-Z0-9_]*STAT_[A-Z0-9_]+)\s*\]\s*=\s*'
                   r'"([^"\\]*)"\s*,?')
# What a name may be for the rst term to say it literally.
NAME = re.compile(r"^[a-z0-9_]+$")
TERM = re.compile(r"^``([^`]+)``$")
UNDERLINE = re.compile(r"^([=\-~^\"'`#*+.:_])\1+$")
MODULE = re.compile(r"\(([a-z_]+\.ko)\)$")


def table_body(text, array):
    """The text between the braces of @array's initialiser, or None."""
    m = re.search(r"\b" + re.escape(array) + r"\s*\[[^\]]*\]\s*=\s*\{",
                  text)
    if not m:
        return None
    end = text.find("};", m.end())
    return None if end < 0 else text[m.end():end]


def source_names(src, problems):
    """[(name, module, where)] in the order rds-info -c prints them."""
    names = []
    for module, rel, array in TABLES:
        path = os.path.join(src, rel)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            problems.append(f"{rel}: cannot read: {e}")
            continue
        # Comments go first: a commented-out entry is no counter, and the
        # comments between entries ("sic: in-tree's spelling") are prose.
        body = table_body(COMMENT.sub("", text), array)
        if body is None:
            problems.append(f"{rel}: no initialiser of {array}[] found")
            continue
        found = ENTRY.findall(body)
        # Whatever is left once the entries are gone is a form this
        # parser does not know (a macro, a positional initialiser): fail
        # on it rather than miss the names it holds.
        rest = ENTRY.sub("", body).strip()
        if rest:
            problems.append(f"{rel}: {array}[]: cannot parse "
                            f"{rest.split()[0]!r}: entries must read "
                            '[RDS_..._STAT_X] = "name",')
        if not found:
            problems.append(f"{rel}: {array}[] has no entries")
        for _, name in found:
            names.append((name, module, f"{rel} {array}[]"))
    return names


def doc_terms(path, problems):
    """[(name, module or None, line)] of the entries of @path, in order."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    terms = []
    module = None
    for i, text in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        title = text.strip()
        # A title is a line underlined by at least as many of one mark.
        # Only "=" titles are modules' sections: the "-" ones below them
        # (in-tree's names, ours) stay within their module.
        if (title and not UNDERLINE.match(title) and UNDERLINE.match(nxt)
                and len(nxt) >= len(text.rstrip())):
            if nxt[0] == "=":
                m = MODULE.search(title)
                module = m.group(1) if m else None
            continue
        m = TERM.match(text)
        if not m:
            continue
        # A term with no indented line after it is a paragraph to rst,
        # not an entry: say so rather than count it.
        if not nxt.strip() or nxt == nxt.lstrip():
            problems.append(f"{path}:{i + 1}: {text}: not a definition-list "
                            "term (its description must follow, indented)")
            continue
        terms.append((m.group(1), module, i + 1))
    return terms


def main():
    ap = argparse.ArgumentParser(
        description="Check Documentation/counters.rst against the counter "
                    "names in the source.")
    ap.add_argument("doc", nargs="?", default=os.path.normpath(DEFAULT_DOC),
                    help="the glossary (default: %(default)s)")
    ap.add_argument("--src", default=os.path.normpath(DEFAULT_SRC),
                    help="the checkout whose net/rds is read "
                         "(default: %(default)s)")
    args = ap.parse_args()

    problems = []
    names = source_names(args.src, problems)
    try:
        terms = doc_terms(args.doc, problems)
    except OSError as e:
        print(f"check_counters_doc: {args.doc}: {e}")
        return 1

    counted = {}
    for name, module, where in names:
        if not NAME.match(name):
            problems.append(f"{name!r} ({where}): not a name an entry can "
                            "spell: lower case, digits and _ only")
        if name in counted:
            # rds-info -c would print it twice: nobody could tell which.
            problems.append(f"{name} ({where}): also in "
                            f"{counted[name][1]}")
            continue
        counted[name] = (module, where)

    documented = {}
    last = {}  # module: (source index, name) of its last entry
    order = {name: i for i, (name, _, _) in enumerate(names)}
    for name, module, line in terms:
        where = f"{args.doc}:{line}: {name}"
        if name in documented:
            problems.append(f"{where}: documented twice (first at line "
                            f"{documented[name]})")
            continue
        documented[name] = line
        if name not in counted:
            problems.append(f"{where}: no such counter")
            continue
        want = counted[name][0]
        if module != want:
            problems.append(f"{where}: under {module or 'no module'}'s "
                            f"section, counted by {want}")
            continue
        # rds-info -c prints each table in its order: so does the
        # glossary, so that it can be read alongside the output.
        prev = last.get(module)
        if prev and order[name] < prev[0]:
            problems.append(f"{where}: out of order: rds-info -c prints "
                            f"it before {prev[1]}")
        else:
            last[module] = (order[name], name)

    for name, module, where in names:
        if name not in documented:
            problems.append(f"{name} ({module}, {where}): not documented "
                            f"in {args.doc}")

    for line in problems:
        print(line)
    if problems:
        return 1
    print(f"{len(counted)} counters documented")
    return 0


if __name__ == "__main__":
    sys.exit(main())
