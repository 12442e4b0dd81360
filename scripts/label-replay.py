#!/usr/bin/env python3
"""Replays a GPU label's test times (a `ctest -L gpu -j N` log) on N slots in three orders: a first
run's (no timings: the COSTs the tree sets, then registration order), a steady run's (a test without
a COST by the time it took) and longest first. The COSTs, the fixture set-up (run first) and the
serial tests (run last) are read from a build tree of the same source (`ctest --show-only=json-v1`). What the
wall would be if every test took the time it took in that run: an order's share of the wall, not a
measurement.

  scripts/label-replay.py CTEST_LOG [--build build/default] [--slots 16] [--matrix-cost C]
"""
import argparse
import heapq
import json
import os
import re
import subprocess
import sys


def read_times(path):
    """{test: seconds}, in ctest's index order (the order of registration)."""
    found = []
    with open(path) as f:
        for line in f:
            m = re.search(r"Test +#(\d+): (\S+) .*?(Passed|Failed|\*+Skipped)\s+([\d.]+) sec", line)
            if m:
                found.append((int(m.group(1)), m.group(2), float(m.group(4))))
    return {name: seconds for _, name, seconds in sorted(found)}


def read_properties(build):
    """{test: {property: value}} of the build tree's GPU label."""
    if not os.path.isfile(os.path.join(build, "CTestTestfile.cmake")):
        sys.exit(f"label-replay: {build}: not a configured build tree (no CTestTestfile.cmake); pass --build")
    shown = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1", "-L", "gpu"],
                           capture_output=True, text=True)
    if shown.returncode != 0:
        sys.exit(f"label-replay: ctest --test-dir {build} --show-only=json-v1 failed: {shown.stderr.strip()}")
    tests = json.loads(shown.stdout).get("tests", [])
    if not tests:
        sys.exit(f"label-replay: {build}: no tests in the GPU label (not a configured build tree?)")
    return {t["name"]: {p["name"]: p["value"] for p in t.get("properties", [])} for t in tests}


def replay(times, order, setup, serial, slots):
    """Wall seconds: the fixture set-up first, then ORDER on the free slots, the serial tests after all."""
    free = [0.0] * slots
    for k in setup:
        heapq.heapreplace(free, times[k])
    end = max(free)
    for k in order:
        start = heapq.heappop(free)
        heapq.heappush(free, start + times[k])
        end = max(end, start + times[k])
    return end + sum(times[k] for k in serial)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", help="ctest's output")
    parser.add_argument("--build", default="build/default", help="a configured build tree (default build/default)")
    parser.add_argument("--slots", type=int, default=16, help="ctest -j (default 16)")
    parser.add_argument("--matrix-cost", type=float, default=None,
                        help="a COST for every suite_gpu and kernel_smoke_gpu process (as before s23: 100)")
    a = parser.parse_args()
    times = read_times(a.log)
    if not times:
        sys.exit(f"label-replay: {a.log}: no test times")
    props = read_properties(a.build)
    unknown = [k for k in times if k not in props]
    if unknown:  # cases discovered from fixtures the build tree lacks: no COST, like their program's others
        print(f"({len(unknown)} tests of the log are not in {a.build}'s GPU label, e.g. {unknown[0]}: no COST)")
    props = {k: props.get(k, {}) for k in times}

    def cost(k):
        if a.matrix_cost is not None and k.startswith(("suite_gpu.", "kernel_smoke_gpu.")):
            return a.matrix_cost
        return props[k].get("COST", 0)

    setup = [k for k in times if props[k].get("FIXTURES_SETUP")]
    serial = [k for k in times if props[k].get("RUN_SERIAL")]
    rest = [k for k in times if k not in setup and k not in serial]  # the log's index: registration order

    def waits(k):  # a test that needs the set-up's fixture waits for it; ctest starts the others at once
        return bool(props[k].get("FIXTURES_REQUIRED"))

    first = sorted(rest, key=lambda k: (waits(k), -cost(k)))  # stable: equal COSTs keep their order
    steady = sorted(rest, key=lambda k: (waits(k), -(cost(k) or times[k])))
    longest = sorted(rest, key=lambda k: -times[k])

    total = sum(times.values())
    print(f"{len(times)} tests, {total:.0f} s of test time ({total / a.slots:.1f} s on {a.slots} slots)")
    print(f"a first run (no timings): {replay(times, first, setup, serial, a.slots):.1f} s")
    print(f"a steady run:             {replay(times, steady, setup, serial, a.slots):.1f} s")
    print(f"longest first:            {replay(times, longest, setup, serial, a.slots):.1f} s")


if __name__ == "__main__":
    main()
