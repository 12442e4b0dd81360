#!/usr/bin/env python3
"""Replays a GPU label's test times (a `ctest -L gpu -j N` log) on N slots in two orders: the COSTs the
tree sets (the kit's 200, the Python tests' 150, suite_gpu.generated_cases first; the rest by the
given times), and longest first. What the wall would be if every test took the time it took in that
run: an order's share of the wall, not a measurement.

  scripts/label-replay.py CTEST_LOG [--slots 16] [--matrix-cost C]
"""
import argparse
import heapq
import re
import sys


def read_times(path):
    """{test: seconds}, in ctest's index order (its order among equal COSTs)."""
    found = []
    with open(path) as f:
        for line in f:
            m = re.search(r"Test +#(\d+): (\S+) .*?(Passed|Failed|\*+Skipped)\s+([\d.]+) sec", line)
            if m:
                found.append((int(m.group(1)), m.group(2), float(m.group(4))))
    return {name: seconds for _, name, seconds in sorted(found)}


def replay(times, cost, slots):
    """Wall seconds: the fixture set-up first, serial tests (perturb_gpu) after everything else."""
    setup = [k for k in times if k == "suite_gpu.generated_cases"]
    serial = [k for k in times if k.startswith("perturb_gpu")]
    rest = sorted((k for k in times if k not in setup and k not in serial), key=lambda k: -cost(k))
    free = [0.0] * slots
    for k in setup:
        heapq.heapreplace(free, times[k])
    end = max(free)
    for k in rest:
        start = heapq.heappop(free)
        heapq.heappush(free, start + times[k])
        end = max(end, start + times[k])
    return end + sum(times[k] for k in serial)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", help="ctest's output")
    parser.add_argument("--slots", type=int, default=16, help="ctest -j (default 16)")
    parser.add_argument("--matrix-cost", type=float, default=None,
                        help="a COST for every suite_gpu and kernel_smoke_gpu process (as before s23: 100)")
    a = parser.parse_args()
    times = read_times(a.log)
    if not times:
        sys.exit(f"label-replay: {a.log}: no test times")

    def as_set(k):
        if k.startswith("kit_gpu_tests"):
            return 200
        if k.startswith("python_package_gpu"):
            return 150
        if a.matrix_cost is not None and k.startswith(("suite_gpu.", "kernel_smoke_gpu.")):
            return a.matrix_cost
        return times[k]

    total = sum(times.values())
    print(f"{len(times)} tests, {total:.0f} s of test time ({total / a.slots:.1f} s on {a.slots} slots)")
    print(f"the tree's COSTs: {replay(times, as_set, a.slots):.1f} s")
    print(f"longest first:    {replay(times, lambda k: times[k], a.slots):.1f} s")


if __name__ == "__main__":
    main()
