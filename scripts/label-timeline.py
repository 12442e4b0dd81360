#!/usr/bin/env python3
"""Where a GPU label's wall time goes, from scripts/sample-processes.sh's samples (device-pipeline.sh's
trace step): each test process's span, how many processes of each kind ran, and the CPU over time.

  scripts/label-timeline.py SAMPLES [--every SECONDS] [--tail N]
"""
import argparse
import re
import sys


def kind_of(args):
    """A process's kind, from its command line."""
    if " worker --kernel " in args:
        return "tilecheck worker"
    if re.search(r"/tilecheck (run|tiles|compare|bench|golden|perturb)\b", args):
        return "tilecheck " + re.search(r"/tilecheck (\w+)", args).group(1)
    if "python" in args:
        return "python"
    m = re.search(r"/(\w+_tests)\b", args)
    return m.group(1) if m else None


def read_samples(path):
    """[(time, cpu jiffies (user, sys, idle), {pid: (ppid, args)})] in file order."""
    samples, current = [], None
    with open(path) as f:
        for line in f:
            if line.startswith("T "):
                current = [float(line[2:]), None, {}]
                samples.append(current)
            elif line.startswith("cpu ") and current is not None:
                v = [int(x) for x in line.split()[1:]]
                current[1] = (v[0] + v[1], v[2] + v[5] + v[6], v[3] + v[4])
            elif current is not None:
                parts = line.split(None, 4)
                if len(parts) == 5 and parts[0].isdigit():
                    current[2][int(parts[0])] = (int(parts[1]), parts[4].rstrip("\n"))
    return [s for s in samples if s[1] is not None]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("samples", help="the file sample-processes.sh wrote")
    parser.add_argument("--every", type=float, default=5, help="seconds per row of the CPU table (default 5)")
    parser.add_argument("--tail", type=int, default=12, help="tests listed by their end (default 12)")
    a = parser.parse_args()
    samples = read_samples(a.samples)
    if len(samples) < 2:
        sys.exit(f"label-timeline: {a.samples}: fewer than 2 samples")
    t0 = samples[0][0]
    ctest = {pid for s in samples for pid, (_, args) in s[2].items() if re.match(r"\S*ctest ", args)}
    spans, kinds = {}, {}  # (pid, args) -> [first, last, args]; kind -> set of (pid, args)
    for t, _, procs in samples:
        for pid, (ppid, args) in procs.items():
            k = kind_of(args)
            if k is not None:
                kinds.setdefault(k, set()).add((pid, args))
            if ppid in ctest:  # a pid may be reused: the command line tells the processes apart
                spans.setdefault((pid, args), [t - t0, t - t0, args])[1] = t - t0
    end = samples[-1][0] - t0
    print(f"{len(samples)} samples over {end:.1f} s; {len(spans)} test processes seen")
    print("\nprocesses seen, by kind:")
    for k, pids in sorted(kinds.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(pids):4d}  {k}")

    print(f"\nevery {a.every:g} s: tests running (at the row's start), CPU busy of all cores (user + sys)")
    rows, row_start = [], 0.0
    prev = samples[0]
    for s in samples[1:]:
        if s[0] - t0 >= row_start + a.every or s is samples[-1]:
            d = [x - y for x, y in zip(s[1], prev[1])]
            total = sum(d) or 1
            running = sum(1 for first, last, _ in spans.values() if first <= row_start <= last)
            rows.append((row_start, running, 100 * d[0] / total, 100 * d[1] / total))
            prev, row_start = s, s[0] - t0
    for start, running, user, system in rows:
        print(f"  {start:6.1f} s  {running:3d} tests  user {user:5.1f} %  sys {system:5.1f} %")

    print(f"\nthe last {a.tail} tests to end:")
    for first, last, args in sorted(spans.values(), key=lambda v: v[1])[-a.tail:]:
        name = re.sub(r"^\S*/", "", args)[:110]
        print(f"  {first:6.1f} -> {last:6.1f} s  {name}")


if __name__ == "__main__":
    main()
