#!/usr/bin/env python3
"""A/B timing of kernel libraries, one process per (round, library), interleaved A/B/C, B/C/A, ...

    scripts/fetch-order-ab.py --build build/gpu [--rounds 7] [--shape K,N,SMS ...] [--config m1n8k8gcol]

Each process is `tilecheck bench --kernel <one library>` on one shape, so nothing one library does
(its module load, the L2 it leaves, the allocations) can touch another's timing; the interleaving
spreads clock and thermal drift over every library alike, and each round starts one library later
so none is always timed first. Per shape and library it prints the median
over the rounds of each round's median, the min-max over the rounds (the spread: a difference
smaller than it is noise), and the ratio to the first library. Default libraries: our kernel's
three scale-fetch orders (upstream, swapped, hoisted), for docs/case-study-cp-async.md.
Python 3 standard library only; needs a GPU (exit 77 without one).
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys

DEFAULT_SHAPES = ["4096,4096,32", "4096,4096,132", "8192,8192,64", "8192,8192,132"]


def parse_row(output: str, config: str) -> dict:
    """The bench line of `config`: its columns by name (tilecheck bench's table)."""
    names = None
    for line in output.splitlines():
        words = line.split()
        if words[:2] == ["config", "variant"]:
            names = ["config", "variant", "M", "K", "N", "group", "sms", "slices", "us", "spread"]
        elif names and words and words[0] == config:
            return dict(zip(names, words))
    raise ValueError(f"no bench line for {config} in:\n{output}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default="build/gpu", help="CMake build directory (preset gpu)")
    p.add_argument("--kernel", action="append", help="kernel library (repeat); default: the three fetch orders")
    p.add_argument("--shape", action="append", help="K,N,SMS (repeat); default: " + " ".join(DEFAULT_SHAPES))
    p.add_argument("--config", default="m1n8k8gcol", help="configuration to time")
    p.add_argument("-M", type=int, default=16, help="rows M")
    p.add_argument("--rounds", type=int, default=7, help="interleaved rounds")
    p.add_argument("--rotate-mb", type=int, default=256, help="tilecheck bench --rotate-mb")
    args = p.parse_args()
    if args.rounds < 2:
        p.error(f"--rounds {args.rounds}: a spread needs at least 2 rounds")
    tilecheck = os.path.join(args.build, "cli", "tilecheck")
    kernels = args.kernel or [os.path.join(args.build, "kernel", f"libtc_kernel_{v}.so")
                              for v in ("upstream", "swapped", "hoisted")]
    missing = [k for k in [tilecheck] + kernels if not os.path.isfile(k)]
    if missing:
        p.error(f"missing {missing}: build with the gpu preset first")
    shapes = []
    for text in args.shape or DEFAULT_SHAPES:
        try:
            k, n, sms = (int(x) for x in text.split(","))
        except ValueError:
            p.error(f"--shape '{text}': expected K,N,SMS, e.g. 8192,8192,132")
        shapes.append((k, n, sms))
    if not shutil.which("nvidia-smi") or subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode != 0:
        print("SKIPPED: fetch-order-ab needs a GPU (nvidia-smi -L found none)")
        return 77

    print(f"{args.config}, M={args.M}; {args.rounds} interleaved rounds, each starting one library later, "
          "one process per (round, library); "
          "us: median of the rounds' medians, spread: min-max over the rounds")
    print(f"{'K':>6} {'N':>6} {'sms':>4} {'slices':>6} {'variant':<10} {'us':>8} {'spread us':>15} {'vs first':>9}")
    for k, n, sms in shapes:
        times = {kernel: [] for kernel in kernels}
        variants, slices = {}, "?"
        for r in range(args.rounds):
            for kernel in kernels[r % len(kernels):] + kernels[:r % len(kernels)]:  # each first in turn
                command = [tilecheck, "bench", "--kernel", kernel, "--config", args.config, "-M", str(args.M),
                           "-K", str(k), "-N", str(n), "--sms", str(sms), "--rotate-mb", str(args.rotate_mb),
                           "--no-cublas"]
                done = subprocess.run(command, capture_output=True, text=True)
                if done.returncode != 0:
                    print(f"fetch-order-ab: {' '.join(command)} failed ({done.returncode}):\n{done.stderr[-2000:]}",
                          file=sys.stderr)
                    return 1
                row = parse_row(done.stdout, args.config)
                times[kernel].append(float(row["us"]))
                variants[kernel], slices = row["variant"], row["slices"]
            print(f"  round {r + 1}/{args.rounds} of K={k} N={n} sms={sms}", file=sys.stderr, flush=True)
        first = statistics.median(times[kernels[0]])
        for kernel in kernels:
            t = times[kernel]
            med = statistics.median(t)
            print(f"{k:>6} {n:>6} {sms:>4} {slices:>6} {variants[kernel]:<10} {med:>8.2f} "
                  f"{min(t):>7.2f}-{max(t):<7.2f} {med / first:>8.3f}x", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
