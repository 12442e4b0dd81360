#!/usr/bin/env python3
"""The mutation kill matrix: every mutant kernel (kernel/src/variants.h) against the suite's
detectors, and the clean kernel against the same detectors, in one run on a GPU machine.

    scripts/mutation-matrix.py --build build/gpu [--mutants 1,2,...] [--jobs 4] [--schedule unknown]
                               [--detectors matrix,...] [--out docs/results/mutation.md]

Build the mutants first: cmake --preset gpu -DTC_MUTANT_LIST="1;2;...;15" && cmake --build --preset gpu;
the determinism detector needs the large fixtures: tilecheck golden regenerate --all (or its cases).
Detectors, per kernel library:
  matrix       tilecheck run --committed over a subset of the matrix (--filter): per cell the
               comparator's verdicts: bound (T1), exact (T0 on exact cases), nonfinite,
               unwritten (poison survived), guard (a write outside C), fault, error (e.g. the host
               API refusing a workspace a previous launch left dirty); --schedule passes
               `tilecheck run --schedule model|unknown` on, so that the kill matrix can be judged
               with the bounds for an unknown schedule (docs/numerics.md)
  determinism  kernel_gpu_tests --gtest_filter=Cases/Determinism.* (20 repeats bitwise equal)
  racecheck    tests/sanitizer/run_sanitizer.py --tool racecheck over the reduced matrix
  memcheck     the same with --tool memcheck
A mutant is caught when any detector raises an alarm; the clean kernel must raise none. The report
also says whether the comparator's hints named the mutant's cause and its tiles (MUTANTS) and the
time each mutant took. Exit status 0 only if every mutant is caught and the clean kernel is clean.
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# number -> (slug, description, hint kinds that name the cause, hint kinds that name the right tiles).
# An empty set means no hint is expected: a race the sanitizer (not the comparator) must find, or a
# bug the harness reports as an error before any output is judged.
MUTANTS: Dict[int, tuple] = {
    1: ("scales-in-reduce-scratch", "per-column scale slot inside the block-reduction scratch", {"scale_fetch"}, {"whole_tiles", "scale_fetch"}),
    2: ("no-scale-wait", "no cp.async wait before the per-column scales are read", {"scale_fetch"}, {"whole_tiles", "scale_fetch"}),
    3: ("no-stage-barrier", "no barrier after the pipeline stage wait", {"race"}, set()),
    4: ("wait-one-too-few", "wait_group leaves one group too many in flight", {"race"}, set()),
    5: ("shared-group-scale-slot", "group scales read from the group's first stage (vLLM race)", {"race", "scale_ratio"}, set()),
    6: ("no-writeout-barrier", "no barrier at the end of the write-out", {"race"}, set()),
    7: ("no-lock", "cross-block reduction without taking the lock", {"multi_slice", "race"}, {"multi_slice"}),
    8: ("no-lock-reset", "last block does not reset its lock", set(), set()),
    9: ("no-row-predicate", "rows past M written on the last partial M tile", {"row_predication"}, {"row_predication"}),
    10: ("group-off-by-one", "scale group index off by one", {"scale_ratio"}, {"whole_tiles"}),
    11: ("zero-point-7", "zero point 7 instead of 8", {"wide_errors"}, {"whole_tiles"}),
    12: ("nibble-swap", "nibbles swapped in dequantization", {"whole_tiles"}, {"whole_tiles"}),
    13: ("round-toward-zero", "epilogue rounds toward zero", {"rounding_bias", "not_exact"}, set()),
    14: ("fp16-partials", "fp16 partial sums under the fp32 contract", {"multi_slice", "not_exact", "low_precision"}, {"multi_slice"}),
    15: ("wrong-column-permutation", "per-column scales read with the grouped permutation", {"column_half", "scale_ratio"}, {"whole_tiles", "column_half"}),
}
DETECTORS = ["matrix", "determinism", "racecheck", "memcheck"]
DEFAULT_FILTER = r"_(m1n8k8|m2n16k4|m4n16k4)g[a-z0-9]+_[a-z0-9]+_[a-z0-9]+_sms(1|3|7|132)$"


@dataclass
class Result:
    name: str
    alarms: Dict[str, int] = field(default_factory=dict)  # detector -> count (cells, tests, hazards)
    hints: set = field(default_factory=set)
    seconds: Dict[str, float] = field(default_factory=dict)
    notes: List[str] = field(default_factory=list)

    def caught(self) -> bool:
        return any(v > 0 for v in self.alarms.values())


def run(command: List[str], env: Optional[dict], timeout: float) -> tuple:
    start = time.monotonic()
    try:
        p = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=timeout)
        return p.returncode, p.stdout, time.monotonic() - start
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        return None, out, time.monotonic() - start


def matrix(result: Result, build: str, library: str, cell_filter: str, timeout: float, schedule: str = "") -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cells_json = os.path.join(tmp, "cells.json")
        judging = ["--schedule", schedule] if schedule else []
        code, out, seconds = run([os.path.join(build, "cli", "tilecheck"), "run", "--kernel", library, "--committed",
                                  "--filter", cell_filter, "--errmaps", "", "--json", cells_json] + judging, None,
                                 timeout)
        result.seconds["matrix"] = seconds
        if code is None:
            result.alarms["hang"] = 1
            result.notes.append(f"matrix run stopped after {timeout:.0f} s")
            return
        if not os.path.exists(cells_json):
            result.alarms["crash"] = 1
            result.notes.append(f"tilecheck run exited {code} without a summary: {out.strip()[-200:]}")
            return
        with open(cells_json) as f:
            cells = json.load(f)["cells"]
    for key in ("bound", "nonfinite", "unwritten", "guard"):
        result.alarms[key] = sum(1 for c in cells if c.get(key, 0) > 0)
    result.alarms["exact"] = sum(1 for c in cells if "t0=fail" in c.get("tiers", ""))
    result.alarms["stats"] = sum(1 for c in cells if "t2=fail" in c.get("tiers", ""))
    result.alarms["fault"] = sum(1 for c in cells if c["status"] == "FAULT")
    result.alarms["error"] = sum(1 for c in cells if c["status"] == "ERROR")
    for c in cells:
        result.hints.update(c.get("hints", []))
    result.notes.append(f"{len(cells)} cells")


def determinism(result: Result, build: str, library: str, timeout: float) -> None:
    env = dict(os.environ, TC_KERNEL=library, TC_ERRMAP_DIR="off")
    code, out, seconds = run([os.path.join(build, "tests", "kernel", "kernel_gpu_tests"),
                              "--gtest_filter=Cases/Determinism.*", "--gtest_brief=1"], env, timeout)
    result.seconds["determinism"] = seconds
    result.alarms["determinism"] = 1 if code != 0 else 0
    if "race" in out or "differs" in out:
        result.hints.add("race")


def sanitizer(result: Result, build: str, library: str, tool: str, timeout: float) -> None:
    code, out, seconds = run([sys.executable, os.path.join(ROOT, "tests", "sanitizer", "run_sanitizer.py"),
                              "--tool", tool, "--suite", os.path.join(build, "tests", "suite", "suite_gpu_tests"),
                              "--kernel", library, "--allowlist", os.path.join(ROOT, "tests", "sanitizer", "allowlist.txt"),
                              "--timeout", str(timeout)], None, timeout + 30)
    result.seconds[tool] = seconds
    if code == 77:
        result.notes.append(f"{tool} skipped: {out.strip().splitlines()[-1] if out.strip() else ''}")
        return
    result.alarms[tool] = 0 if code == 0 else 1


def evaluate(name: str, build: str, library: str, args) -> Result:
    r = Result(name)
    print(f"== {name}: {library}", flush=True)
    if "matrix" in args.detectors:
        matrix(r, build, library, args.filter, args.timeout, args.schedule)
    if "determinism" in args.detectors:
        determinism(r, build, library, args.timeout)
    for tool in ("racecheck", "memcheck"):
        if tool in args.detectors:
            sanitizer(r, build, library, tool, args.timeout)
    print(f"== {name}: alarms {r.alarms}  hints {sorted(r.hints)}  {sum(r.seconds.values()):.0f} s", flush=True)
    return r


WRONG_OUTPUT_ALARMS = ("bound", "exact", "stats", "nonfinite", "unwritten", "guard", "determinism")


def hint_verdict(r: Result, want: set) -> str:
    """yes / no: did the hints name it; '-': nothing expected, or no wrong output for a hint to explain."""
    if not want or not any(r.alarms.get(d, 0) > 0 for d in WRONG_OUTPUT_ALARMS):
        return "-"
    return "yes" if r.hints & want else "no"


def markdown(clean: Result, mutants: List[tuple], args) -> str:
    detectors = ["bound", "exact", "stats", "nonfinite", "unwritten", "guard", "fault", "error", "hang", "crash",
                 "determinism", "racecheck", "memcheck"]
    lines = ["# Mutation kill matrix", "",
             f"`scripts/mutation-matrix.py --build {args.build}`"
             + (f" `--schedule {args.schedule}`" if getattr(args, "schedule", "") else "")
             + (f" `--detectors {','.join(args.detectors)}`" if getattr(args, "detectors", DETECTORS) != DETECTORS
                else "")
             + f"; matrix subset `--filter '{args.filter}'` over the "
             "committed cases. A cell of the table counts the matrix cells (or 1 for a failed test) that raised that "
             "alarm. `cause` and `tiles` say whether the comparator's hints named the mutant's cause and the tiles it "
             "breaks (`-`: no wrong output for a hint to explain, or no hint expected).", "",
             "| kernel | " + " | ".join(detectors) + " | caught | cause | tiles | seconds |",
             "|---|" + "---|" * (len(detectors) + 4)]
    rows = [("clean (upstream)", clean, set(), set())] + \
        [(f"{n} {MUTANTS[n][0]}", r, MUTANTS[n][2], MUTANTS[n][3]) for n, r in mutants]
    for label, r, cause, tiles in rows:
        cells = [str(r.alarms.get(d, "")) for d in detectors]
        caught = ("ALARM" if r.caught() else "clean") if label.startswith("clean") else ("yes" if r.caught() else "SURVIVED")
        lines.append(f"| {label} | " + " | ".join(cells) +
                     f" | {caught} | {hint_verdict(r, cause)} | {hint_verdict(r, tiles)} | {sum(r.seconds.values()):.0f} |")
    lines += ["", "Mutants:", ""] + [f"- {n}: {MUTANTS[n][1]}" for n, _ in mutants]
    notes = [f"- {label}: {'; '.join(r.notes)}" + (f"; hints: {', '.join(sorted(r.hints))}" if r.hints else "")
             for label, r, _, _ in rows if r.notes or r.hints]
    return "\n".join(lines + (["", "Notes:", ""] + notes if notes else [])) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build/gpu", help="CMake build directory with the mutant libraries")
    parser.add_argument("--mutants", default=",".join(str(n) for n in MUTANTS), help="comma-separated numbers")
    parser.add_argument("--filter", default=DEFAULT_FILTER, help="tilecheck run --filter for the matrix detector")
    parser.add_argument("--timeout", type=float, default=240, help="seconds per detector run")
    parser.add_argument("--jobs", type=int, default=1, help="kernels evaluated at once (each detector is its own process)")
    parser.add_argument("--schedule", default="", choices=["", "model", "unknown"],
                        help="tilecheck run --schedule for the matrix detector: judge with the bounds of Marlin's "
                             "schedule or of any split of K (default: what the library declares)")
    parser.add_argument("--detectors", default=",".join(DETECTORS),
                        help="comma-separated detectors to run (default: all)")
    parser.add_argument("--out", default="", help="write the markdown table here (default: print it)")
    args = parser.parse_args()
    args.detectors = [d for d in args.detectors.split(",") if d]
    if not args.detectors or any(d not in DETECTORS for d in args.detectors):
        parser.error(f"--detectors '{','.join(args.detectors)}': expected a comma-separated subset of {DETECTORS}")
    try:
        numbers = [int(x) for x in args.mutants.split(",") if x]
    except ValueError:
        parser.error(f"--mutants '{args.mutants}' is not a comma-separated list of numbers")
    if args.jobs < 1:
        parser.error(f"--jobs {args.jobs}: expected a number of kernels at once, 1 or more")
    unknown = [n for n in numbers if n not in MUTANTS]
    if unknown:
        parser.error(f"unknown mutant(s) {unknown}: expected numbers in {sorted(MUTANTS)}")
    if subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                      check=False).returncode != 0 if shutil.which("nvidia-smi") else True:
        print("SKIPPED: mutation-matrix needs a GPU (nvidia-smi -L found none)")
        return 77
    kernel_dir = os.path.join(args.build, "kernel")
    libraries = {n: os.path.join(kernel_dir, f"libtc_kernel_mut{n:02d}.so") for n in numbers}
    missing = [p for p in [os.path.join(kernel_dir, "libtc_kernel_upstream.so")] + list(libraries.values())
               if not os.path.isfile(p)]
    if missing:
        print(f"mutation-matrix: missing kernel libraries {missing}; build with -DTC_MUTANT_LIST", file=sys.stderr)
        return 2
    kernels = [("clean", os.path.join(kernel_dir, "libtc_kernel_upstream.so"))] + \
        [(f"mutant {n}", libraries[n]) for n in numbers]
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:  # processes share the GPU
        done = list(pool.map(lambda k: evaluate(k[0], args.build, k[1], args), kernels))
    clean, results = done[0], list(zip(numbers, done[1:]))
    text = markdown(clean, results, args)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    print(text)
    survivors = [n for n, r in results if not r.caught()]
    if clean.caught():
        print(f"mutation-matrix: the clean kernel raised alarms: {clean.alarms}", file=sys.stderr)
    if survivors:
        print(f"mutation-matrix: mutants survived: {survivors}", file=sys.stderr)
    return 0 if not survivors and not clean.caught() else 1


if __name__ == "__main__":
    sys.exit(main())
