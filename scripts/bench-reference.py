#!/usr/bin/env python3
"""Speed of the reference GEMM next to a NumPy float64 matmul of the same shape, in one run.

    .venv/bin/python scripts/bench-reference.py [--build build/default] [--rounds 7] [--path exact] [M K N]

After one untimed warm-up of each (thread pools, first-touch pages), rounds alternate: one NumPy
matmul (A @ W, float64, M x K times K x N), then one reference_gemm (y*, S and the expected output)
in a reference_speed process kept running (--serve), so both see the same machine load. Both are
charged 2*M*K*N flops (one GEMM) although the reference computes two sums per product (y* and S);
the ratio is NumPy's time over the reference's, per round. Wall and process CPU seconds are printed
for both: on a shared machine, CPU seconds show the work and wall seconds the wait.
"""
import argparse
import statistics
import subprocess
import sys
import time

import numpy as np


def spread(values):
    return f"median {statistics.median(values):.3f} (min {min(values):.3f}, max {max(values):.3f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build/default", help="CMake build directory")
    parser.add_argument("--rounds", type=int, default=7, help="rounds of (NumPy, reference)")
    parser.add_argument("--path", default="exact", choices=["exact", "float64", "scalar"], help="reference path")
    parser.add_argument("shape", nargs="*", type=int, default=[16, 8192, 28672], help="M K N")
    args = parser.parse_args()
    if len(args.shape) != 3:
        parser.error(f"shape needs three numbers M K N, got {args.shape}")
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")
    m, k, n = args.shape
    flops = 2 * m * k * n
    rng = np.random.default_rng(1)
    a = rng.standard_normal((m, k))
    w = rng.standard_normal((k, n))
    server = subprocess.Popen([f"{args.build}/reference/reference_speed", "--serve", str(m), str(k), str(n)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    a @ w  # warm-up, not timed
    server.stdin.write(args.path + "\n")
    server.stdin.flush()
    server.stdout.readline()
    rows = []
    print("round  numpy wall s  numpy cpu s  reference wall s  reference cpu s  ratio wall  ratio cpu  "
          "fixed-point elements  simd")
    for r in range(args.rounds):
        cpu0, start = time.process_time(), time.perf_counter()
        a @ w
        numpy_wall, numpy_cpu = time.perf_counter() - start, time.process_time() - cpu0
        server.stdin.write(args.path + "\n")
        server.stdin.flush()
        reply = server.stdout.readline().split()
        if len(reply) != 5 or reply[0] != args.path:
            print(f"reference_speed answered {reply!r}, expected '<path> <wall> <cpu> <count> <simd>'",
                  file=sys.stderr)
            return 1
        ref_wall, ref_cpu, fixed, simd = float(reply[1]), float(reply[2]), int(reply[3]), reply[4]
        rows.append((numpy_wall, numpy_cpu, ref_wall, ref_cpu))
        print(f"{r + 1:5d}  {numpy_wall:12.3f}  {numpy_cpu:11.3f}  {ref_wall:16.3f}  {ref_cpu:15.3f}  "
              f"{numpy_wall / ref_wall:10.2f}  {numpy_cpu / ref_cpu:9.2f}  {fixed:20d}  {simd}")
    server.stdin.close()
    server.wait()
    print(f"numpy {np.__version__} float64 matmul M={m} K={k} N={n}: wall {spread([r[0] for r in rows])} s, "
          f"{flops / min(r[0] for r in rows) / 1e9:.1f} GFLOP/s at best")
    print(f"reference_gemm ({args.path}) M={m} K={k} N={n}: wall {spread([r[2] for r in rows])} s, "
          f"{flops / min(r[2] for r in rows) / 1e9:.1f} GFLOP/s at best (one GEMM's flops)")
    print(f"throughput ratio reference / numpy: wall {spread([r[0] / r[2] for r in rows])}, "
          f"cpu {spread([r[1] / r[3] for r in rows])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
