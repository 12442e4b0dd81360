#!/usr/bin/env python3
"""Speed of the reference's Eigen float64 path next to a NumPy float64 matmul of the same shape.

    .venv/bin/python scripts/bench-reference.py [--build build/default] [M K N]

Both count 2*M*K*N flops per GEMM; the reference computes two GEMMs (y* and S) plus the
dequantization and the epilogue, all inside its timing.
"""
import argparse
import subprocess
import sys
import time

import numpy as np


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build/default", help="CMake build directory")
    parser.add_argument("shape", nargs="*", type=int, default=[16, 8192, 28672], help="M K N")
    args = parser.parse_args()
    if len(args.shape) != 3:
        parser.error(f"shape needs three numbers M K N, got {args.shape}")
    m, k, n = args.shape
    rng = np.random.default_rng(1)
    a = rng.standard_normal((m, k))
    w = rng.standard_normal((k, n))
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        a @ w
        best = min(best, time.perf_counter() - start)
    print(f"numpy {np.__version__} float64 matmul M={m} K={k} N={n}: {best:.3f} s (best of 3), "
          f"{2 * m * k * n / best / 1e9:.1f} GFLOP/s (1 GEMM)")
    return subprocess.call([f"{args.build}/reference/reference_speed", str(m), str(k), str(n)])


if __name__ == "__main__":
    sys.exit(main())
