#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turns bench/bench.sh's raw lines into results.json, results.md and a plot.

Each metric of each workload: median, min and max over the rounds, per
stack, and the ratio of the medians, ours / in-tree (for times: in-tree /
ours is not used; a ratio below 1 is better for times and worse for rates,
as the table says). Ours is also set against the link's limits (a raw TCP
stream, a TCP ping-pong) where the issue asks for it.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys

# metric: (label, unit, better) where better is "higher" or "lower".
METRICS = {
    "msgs_per_sec": ("messages/s", "msg/s", "higher"),
    "bytes_per_sec": ("bytes/s (tx+rx)", "B/s", "higher"),
    "rtt_us": ("round trip", "us", "lower"),
    "cpu_us_per_msg": ("CPU per message", "us", "lower"),
    "mean_us": ("mean", "us", "lower"),
    "p50_us": ("p50", "us", "lower"),
    "p99_us": ("p99", "us", "lower"),
}


def metrics_of(row):
    r = row["result"]
    if row["kind"] == "stress":
        msgs = r["tx_per_sec"] + r["rx_per_sec"]
        m = {
            "msgs_per_sec": r["tx_per_sec"],
            "bytes_per_sec": r["tx_rx_kbytes_per_sec"] * 1024,
            "rtt_us": r["rtt_us"],
        }
        if r["cpu_pct"] >= 0 and msgs > 0:
            m["cpu_us_per_msg"] = r["cpu_pct"] / 100 * row["ncpu"] * 1e6 / msgs
        return m
    return {k: v for k, v in r.items() if k in ("mean_us", "p50_us", "p99_us", "bytes_per_sec")}


def summarize(rows):
    """{workload: {stack: {metric: [values]}}}, in first-seen workload order."""
    out = {}
    for row in rows:
        w = out.setdefault(row["workload"], {})
        s = w.setdefault(row["stack"], {})
        for k, v in metrics_of(row).items():
            s.setdefault(k, []).append(v)
    return out


def stats(values):
    return {"median": statistics.median(values), "min": min(values),
            "max": max(values), "n": len(values)}


def build(summary):
    result = {}
    for wl, stacks in summary.items():
        entry = {}
        for stack, ms in stacks.items():
            entry[stack] = {k: stats(v) for k, v in ms.items()}
        ratios = {}
        if "ours" in entry and "intree" in entry:
            for k, st in entry["ours"].items():
                ref = entry["intree"].get(k)
                if ref and ref["median"]:
                    ratios[k] = st["median"] / ref["median"]
        entry["ratio_ours_intree"] = ratios
        result[wl] = entry
    add_limits(result)
    return result


def add_limits(result):
    """Ours against the raw link, where the issue sets a target."""
    stream = result.get("tcp-stream", {}).get("ours", {}).get("bytes_per_sec")
    pingpong = result.get("tcp-pingpong", {}).get("ours", {}).get("p50_us")
    for wl, entry in result.items():
        ours = entry.get("ours", {})
        lim = {}
        if stream and "bytes_per_sec" in ours and wl.startswith(("64K", "1M")):
            lim["bytes_per_sec_vs_tcp_stream"] = ours["bytes_per_sec"]["median"] / stream["median"]
        if pingpong and wl == "rds-ping" and "p50_us" in ours:
            lim["p50_vs_tcp_pingpong"] = ours["p50_us"]["median"] / pingpong["median"]
        if lim:
            entry["ratio_ours_limit"] = lim


def fmt(v):
    if v >= 1e6:
        return "%.2fM" % (v / 1e6)
    if v >= 1e4:
        return "%.1fk" % (v / 1e3)
    return "%.1f" % v


def cell(st):
    if not st:
        return "-"
    return "%s (%s..%s)" % (fmt(st["median"]), fmt(st["min"]), fmt(st["max"]))


def markdown(result, profile):
    lines = ["# RDS: ours against in-tree (profile %s)" % profile, "",
             "Median (min..max) over the rounds; ratio = ours / in-tree of the medians.",
             "For rates higher is better, for times and CPU lower is better.", "",
             "| workload | metric | in-tree | ours | ours / in-tree |",
             "|---|---|---|---|---|"]
    for wl, entry in result.items():
        if "intree" not in entry and "ours" not in entry:
            continue
        keys = list(entry.get("ours", entry.get("intree", {})).keys())
        for k in keys:
            label, unit, better = METRICS.get(k, (k, "", "higher"))
            ratio = entry["ratio_ours_intree"].get(k)
            lines.append("| %s | %s (%s, %s better) | %s | %s | %s |" % (
                wl, label, unit, better, cell(entry.get("intree", {}).get(k)),
                cell(entry.get("ours", {}).get(k)),
                "%.2f" % ratio if ratio is not None else "-"))
    lim = [(wl, k, v) for wl, e in result.items() for k, v in e.get("ratio_ours_limit", {}).items()]
    if lim:
        lines += ["", "| workload | ours against the link's limit | ratio |", "|---|---|---|"]
        lines += ["| %s | %s | %.2f |" % x for x in lim]
    return "\n".join(lines) + "\n"


def svg(result):
    """Bars of ours / in-tree messages/s (and rds-ping p50) per workload."""
    bars = [(wl, e["ratio_ours_intree"].get("msgs_per_sec", e["ratio_ours_intree"].get("p50_us")))
            for wl, e in result.items()]
    bars = [(w, r) for w, r in bars if r is not None]
    top = max([2.0] + [r for _, r in bars])
    width, height, left, bottom = 60 + 50 * max(len(bars), 1), 320, 50, 90
    scale = (height - bottom - 20) / top
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">' % (width, height),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="10" y="14">ours / in-tree: messages/s (rds-ping: p50, lower is better)</text>']
    y1 = height - bottom - scale
    out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="red" stroke-dasharray="4"/>' % (left, width - 10, y1, y1))
    out.append('<text x="5" y="%.1f">1.0</text>' % (y1 + 4))
    for i, (wl, r) in enumerate(bars):
        x = left + 10 + 50 * i
        h = r * scale
        out.append('<rect x="%d" y="%.1f" width="30" height="%.1f" fill="steelblue"/>' % (x, height - bottom - h, h))
        out.append('<text x="%d" y="%.1f">%.2f</text>' % (x, height - bottom - h - 3, r))
        out.append('<text transform="translate(%d,%d) rotate(60)">%s</text>' % (x + 5, height - bottom + 12, wl))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def png(result, outdir):
    """The same bars through gnuplot, when Debian's gnuplot is installed."""
    gp = shutil.which("gnuplot")
    if not gp:
        return False
    data = os.path.join(outdir, "ratios.dat")
    with open(data, "w") as f:
        for wl, e in result.items():
            r = e["ratio_ours_intree"].get("msgs_per_sec", e["ratio_ours_intree"].get("p50_us"))
            if r is not None:
                f.write('"%s" %.4f\n' % (wl, r))
    script = "\n".join([
        "set terminal pngcairo size 900,420" if "pngcairo" in terminals(gp) else "set terminal png size 900,420",
        'set output "%s"' % os.path.join(outdir, "results.png"),
        'set title "ours / in-tree: messages/s (rds-ping: p50, lower is better)"',
        "set style fill solid", "set boxwidth 0.6", "set yrange [0:*]",
        "set xtics rotate by 45 right", "set grid ytics",
        'plot "%s" using 0:2:xtic(1) with boxes notitle, 1 with lines dt 2 lc rgb "red" notitle' % data,
    ])
    return subprocess.run([gp], input=script, text=True).returncode == 0


def terminals(gp):
    try:
        return subprocess.run([gp, "-e", "set terminal"], capture_output=True, text=True).stderr
    except OSError:
        return ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profile", default="full")
    ap.add_argument("raw")
    ap.add_argument("outdir")
    a = ap.parse_args()
    with open(a.raw) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    if not rows:
        print("report: no results in %s" % a.raw, file=sys.stderr)
        return 1
    result = build(summarize(rows))
    with open(os.path.join(a.outdir, "results.json"), "w") as f:
        json.dump({"profile": a.profile, "workloads": result}, f, indent=1)
    md = markdown(result, a.profile)
    with open(os.path.join(a.outdir, "results.md"), "w") as f:
        f.write(md)
    with open(os.path.join(a.outdir, "results.svg"), "w") as f:
        f.write(svg(result))
    png(result, a.outdir)
    print(md)
    missing = [wl for wl, e in result.items()
               if not wl.startswith("tcp-") and not e["ratio_ours_intree"]]
    if missing:
        print("report: no ratio for %s" % ", ".join(missing), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
