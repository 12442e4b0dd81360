#!/usr/bin/env python3
"""Table and plot of a side-by-side kernel benchmark: one `tilecheck bench` log per point.

    scripts/side-by-side.py DIR --labels "ours,ours before,upstream Marlin" [--ref 2] [--plot out.png]

DIR holds bench_<K>x<N>_M<M>.txt, each the output of one `tilecheck bench --kernel A --kernel B ...
--config <grouped> --config <per-column>` (rows come in --kernel order per configuration; a library's
n/a, FAULT or HANG row stands in its place), or, for each library on its own choice of tile,
bench_<K>x<N>_M<M>_g<G>.txt from `--config auto --group G` (G = 128, -1, ...; the rows are then
"auto g128" or "auto gcol", whatever tile each library took). Prints a
markdown table: per point and configuration each library's microseconds (median of the rounds) and
spread (or its n/a / FAULT / HANG), the first library's time over library --ref's (below 1: the first
is faster; "-" where either has no time), % of the
device-to-device copy bandwidth and cuBLAS fp16's time, both measured in the same run. --plot writes two panels against M: the
ratio to --ref, and % of copy, one line per shape and scale grouping. matplotlib only for --plot.
"""
import argparse
import pathlib
import re
import sys


STATUSES = ("n/a:", "FAULT:", "HANG:")


def auto_label(group: str) -> str:
    return "auto gcol" if group == "-1" else f"auto g{group}"


def read_point(path: pathlib.Path, count: int, group: str = "") -> dict:
    """{config: [row per library]} of one bench log; a row is {us, spread, copy, cublas}, or
    {status} for a library's n/a, FAULT or HANG row. A FAULT or HANG row without a library (the
    shared process's, before each library is timed alone) and the "each library alone" line are
    not rows of a library. `auto` rows (--config auto) are keyed by the scale group: the file name's
    `group`, else a timed row's group column."""
    rows = {}
    for line in path.read_text().splitlines():
        words = line.split()
        if len(words) < 3 or not re.fullmatch(r"m\d+n\d+k\d+g(col|\d+)|auto", words[0]):
            continue
        timed = len(words) >= 14 and words[2] not in STATUSES
        key = words[0]
        if key == "auto":
            if not group and not timed:
                sys.exit(f"side-by-side: {path}: an untimed auto row needs the group in the file name (_g<G>)")
            key = auto_label(group or words[5])
        if timed:
            rows.setdefault(key, []).append({"us": float(words[8]), "spread": words[9], "copy": words[11],
                                             "cublas": words[12]})
        elif words[1] not in STATUSES and words[2] in STATUSES:
            rows.setdefault(key, []).append({"status": words[2].rstrip(":")})
    for config, found in rows.items():
        if len(found) != count:
            sys.exit(f"side-by-side: {path}: {config} has {len(found)} rows, expected one per label ({count})")
    if not rows:
        sys.exit(f"side-by-side: {path}: no bench rows (a FAULT, HANG or failed run?)")
    return rows


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", type=pathlib.Path)
    p.add_argument("--labels", required=True, help="comma-separated names of the libraries, in --kernel order")
    p.add_argument("--ref", type=int, default=None, help="index of the library to divide by (default: the last)")
    p.add_argument("--plot", type=pathlib.Path, help="write a PNG plot here")
    args = p.parse_args()
    labels = args.labels.split(",")
    ref = len(labels) - 1 if args.ref is None else args.ref
    if not 0 < ref < len(labels):
        p.error(f"--ref {ref}: expected 1 .. {len(labels) - 1}")
    by_point = {}  # (K, N, M) -> rows of every file of that point
    for path in sorted(args.dir.glob("bench_*x*_M*.txt")):
        m = re.fullmatch(r"bench_(\d+)x(\d+)_M(\d+)(?:_g(-1|\d+))?\.txt", path.name)
        if m:
            by_point.setdefault((int(m[1]), int(m[2]), int(m[3])), {}).update(
                read_point(path, len(labels), m[4] or ""))
    if not by_point:
        p.error(f"{args.dir}: no bench_<K>x<N>_M<M>[_g<G>].txt files")
    points = sorted((k, n, m, rows) for (k, n, m), rows in by_point.items())
    head = " | ".join(f"{name} us (spread)" for name in labels)
    print(f"| K x N | M | config | {head} | {labels[0]} / {labels[ref]} | {labels[0]} %copy | {labels[ref]} %copy | cuBLAS fp16 us |")
    print("|---|---|---|" + "---|" * (len(labels) + 4))
    series = {}
    wins = untimed = 0
    for k, n, m, rows in points:
        for config, libs in sorted(rows.items(), key=lambda kv: kv[0].endswith("gcol")):
            times = " | ".join(f"{r['us']:.2f} ({r['spread']})" if "us" in r else r["status"] for r in libs)
            first, theirs = libs[0], libs[ref]
            cublas = next((r["cublas"] for r in libs if "us" in r), "-")
            if "us" not in first or "us" not in theirs:
                untimed += 1
                print(f"| {k} x {n} | {m} | {config} | {times} | - | {first.get('copy', '-')} | {theirs.get('copy', '-')} | {cublas} |")
                continue
            ratio = first["us"] / theirs["us"]
            wins += ratio <= 1.0
            print(f"| {k} x {n} | {m} | {config} | {times} | {ratio:.3f} | {first['copy']} | {theirs['copy']} | {cublas} |")
            grouping = "per-column" if config.endswith("gcol") else "grouped"
            series.setdefault((k, n, grouping), []).append((m, ratio, float(first["copy"].rstrip("%")),
                                                            float(theirs["copy"].rstrip("%"))))
    total = sum(len(v) for v in series.values())
    without = f" ({untimed} more without a time for both)" if untimed else ""
    print(f"\n{labels[0]} at or below {labels[ref]}'s time at {wins} of {total} points{without}.")
    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
        for (k, n, grouping), values in sorted(series.items()):
            values.sort()
            ms = [v[0] for v in values]
            style = "-" if grouping == "grouped" else "--"
            line, = left.plot(ms, [v[1] for v in values], style, marker="o", label=f"{k}x{n} {grouping}")
            right.plot(ms, [v[2] for v in values], style, marker="o", color=line.get_color(),
                       label=f"{labels[0]} {k}x{n} {grouping}")
            right.plot(ms, [v[3] for v in values], style, marker="x", color=line.get_color(), alpha=0.4)
        left.axhline(1.0, color="black", linewidth=0.8)
        left.set(xscale="log", xlabel="M", ylabel=f"{labels[0]} time / {labels[ref]} time",
                 title=f"below 1: {labels[0]} faster")
        right.set(xscale="log", xlabel="M", ylabel="% of device-to-device copy bandwidth",
                  title=f"o {labels[0]}, x {labels[ref]}")
        for ax in (left, right):
            ax.set_xticks([1, 16, 32, 64, 128], labels=["1", "16", "32", "64", "128"])
            ax.grid(alpha=0.3)
        left.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)
        print(f"plot: {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
