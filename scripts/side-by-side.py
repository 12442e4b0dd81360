#!/usr/bin/env python3
"""Table and plot of a side-by-side kernel benchmark: one `tilecheck bench` log per point.

    scripts/side-by-side.py DIR --labels "ours,ours before,upstream Marlin" [--ref 2] [--plot out.png]

DIR holds bench_<K>x<N>_M<M>.txt, each the output of one `tilecheck bench --kernel A --kernel B ...
--config <grouped> --config <per-column>` (rows come in --kernel order per configuration). Prints a
markdown table: per point and configuration each library's microseconds (median of the rounds) and
spread, the first library's time over library --ref's (below 1: the first is faster), % of the
device-to-device copy bandwidth and cuBLAS fp16's time, both measured in the same run. --plot writes two panels against M: the
ratio to --ref, and % of copy, one line per shape and scale grouping. matplotlib only for --plot.
"""
import argparse
import pathlib
import re
import sys


def read_point(path: pathlib.Path, count: int) -> dict:
    """{config: [row per library]} of one bench log; a row is {us, spread, copy, cublas}."""
    rows = {}
    for line in path.read_text().splitlines():
        words = line.split()
        if len(words) >= 14 and re.fullmatch(r"m\d+n\d+k\d+g(col|\d+)", words[0]):
            rows.setdefault(words[0], []).append({"us": float(words[8]), "spread": words[9], "copy": words[11],
                                                  "cublas": words[12]})
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
    points = []
    for path in args.dir.glob("bench_*x*_M*.txt"):
        m = re.fullmatch(r"bench_(\d+)x(\d+)_M(\d+)\.txt", path.name)
        if m:
            points.append((int(m[1]), int(m[2]), int(m[3]), read_point(path, len(labels))))
    if not points:
        p.error(f"{args.dir}: no bench_<K>x<N>_M<M>.txt files")
    points.sort()
    head = " | ".join(f"{name} us (spread)" for name in labels)
    print(f"| K x N | M | config | {head} | {labels[0]} / {labels[ref]} | {labels[0]} %copy | {labels[ref]} %copy | cuBLAS fp16 us |")
    print("|---|---|---|" + "---|" * (len(labels) + 4))
    series = {}
    wins = 0
    for k, n, m, rows in points:
        for config, libs in sorted(rows.items(), key=lambda kv: kv[0].endswith("gcol")):
            ratio = libs[0]["us"] / libs[ref]["us"]
            wins += ratio <= 1.0
            times = " | ".join(f"{r['us']:.2f} ({r['spread']})" for r in libs)
            print(f"| {k} x {n} | {m} | {config} | {times} | {ratio:.3f} | {libs[0]['copy']} | {libs[ref]['copy']} | {libs[0]['cublas']} |")
            grouping = "per-column" if config.endswith("gcol") else "grouped"
            series.setdefault((k, n, grouping), []).append((m, ratio, float(libs[0]["copy"].rstrip("%")),
                                                            float(libs[ref]["copy"].rstrip("%"))))
    total = sum(len(v) for v in series.values())
    print(f"\n{labels[0]} at or below {labels[ref]}'s time at {wins} of {total} points.")
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
