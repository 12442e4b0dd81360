#!/usr/bin/env python3
"""The mutation kill matrix: every mutant kernel (kernel/src/variants.h) against the suite's
detectors, and the clean kernel against the same detectors, in one run on a GPU machine.

    scripts/mutation-matrix.py [--upstream | --vllm] --build build/gpu [--mutants 1,2 | u01,u02 | v01] [--jobs 4] [--out FILE]

Build the mutants first: cmake --preset gpu -DTC_MUTANT_LIST="1;2;...;15" && cmake --build --preset gpu;
the determinism detector needs the large fixtures: tilecheck golden regenerate --all (or its cases).
Detectors, per kernel library (the table's columns: docs/results/mutation.md):
  matrix       tilecheck run --committed over a subset of the matrix (--filter; --schedule passed on)
  determinism  kernel_gpu_tests --gtest_filter=Cases/Determinism.* (20 repeats bitwise equal)
  racecheck    tests/sanitizer/run_sanitizer.py --tool racecheck over the reduced matrix
  memcheck     the same with --tool memcheck
A mutant is caught when any detector raises an alarm; the clean kernel must raise none. The table also
says whether the hints named each mutant's cause and tiles (MUTANTS, scripts/kernel_mutants.py). Exit
status 0 only if every mutant is caught and the clean kernel is clean.

--upstream judges upstream IST-DASLab Marlin's mutants (plugins/ist-marlin/mutants.txt) the same way,
with upstream with its real races fixed (the description's base) as the control (docs/mutation-upstream.md).
--vllm judges vLLM's Marlin's mutants (plugins/vllm-marlin/mutants.txt, libtc_vllm_marlin_vNN.so) against
the clean adapter libtc_vllm_marlin.so, on the cells of the formats the chosen mutants act on, with the
matrix detector by default: the other detectors' cases are fp16 / uint4b8 only (docs/mutation-vllm.md).
The plans: scripts/mutation_targets.py.
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
from typing import Dict, List, Optional, Sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from mutation_targets import (DEFAULT_FILTER, MUTANTS, ROOT, TIER_ALLOWLIST, UPSTREAM_DETERMINISM,  # noqa: E402,F401
                              UPSTREAM_FILTER, UPSTREAM_SANITIZER_FILTERS, VLLM_DESCRIPTION, Target, cmake_cache,
                              kit, plan_ours, plan_upstream, plan_vllm, vllm_filter)

DETECTORS = ["matrix", "determinism", "racecheck", "memcheck"]
COLUMNS = list(kit.ALARMS)  # what a table counts; a description's `expect:` names these
FAILED = ("FAIL", "FAULT", "HANG", "ERROR")


@dataclass
class Result:
    name: str
    alarms: Dict[str, int] = field(default_factory=dict)  # detector -> count (cells, tests, hazards)
    hints: set = field(default_factory=set)
    seconds: Dict[str, float] = field(default_factory=dict)
    notes: List[str] = field(default_factory=list)
    failing: List[tuple] = field(default_factory=list)  # (cell, configuration, status) of the matrix

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


def tier_status(cell: dict, key: str) -> str:
    """A judged cell's tier status: {"t0": "fail", ...}, or the line "t0=fail ..." of older files."""
    tiers = cell.get("tiers") or {}
    if isinstance(tiers, str):
        tiers = dict(word.split("=", 1) for word in tiers.split() if "=" in word)
    return tiers.get(key, "")


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
    result.alarms["exact"] = sum(1 for c in cells if tier_status(c, "t0") == "fail")
    result.alarms["stats"] = sum(1 for c in cells if tier_status(c, "t2") == "fail")
    result.alarms["workspace"] = sum(1 for c in cells if c.get("workspace"))  # a lock left non-zero
    result.alarms["fault"] = sum(1 for c in cells if c["status"] == "FAULT")
    result.alarms["error"] = sum(1 for c in cells if c["status"] == "ERROR")
    result.alarms["hang"] = sum(1 for c in cells if c["status"] == "HANG")
    result.failing = [(c["cell"], c.get("config", ""), c["status"]) for c in cells if c["status"] in FAILED]
    for c in cells:
        result.hints.update(c.get("hints", []))
    result.notes.append(f"{len(cells)} cells")


def determinism(result: Result, build: str, library: str, timeout: float,
                gtest_filter: str = "Cases/Determinism.*") -> None:
    env = dict(os.environ, TC_KERNEL=library, TC_ERRMAP_DIR="off")
    code, out, seconds = run([os.path.join(build, "tests", "kernel", "kernel_gpu_tests"),
                              f"--gtest_filter={gtest_filter}", "--gtest_brief=1"], env, timeout)
    result.seconds["determinism"] = seconds
    result.alarms["determinism"] = 1 if code != 0 else 0
    if "race" in out or "differs" in out:
        result.hints.add("race")


def sanitizer(result: Result, build: str, library: str, tool: str, timeout: float, extra: Sequence[str] = (),
              allowlist: str = TIER_ALLOWLIST) -> None:
    code, out, seconds = run([sys.executable, os.path.join(ROOT, "tests", "sanitizer", "run_sanitizer.py"),
                              "--tool", tool, "--suite", os.path.join(build, "tests", "suite", "suite_gpu_tests"),
                              "--kernel", library, "--allowlist", allowlist,
                              "--timeout", str(timeout)] + list(extra), None, timeout + 30)
    result.seconds[tool] = seconds
    if code == 77:
        result.notes.append(f"{tool} skipped: {out.strip().splitlines()[-1] if out.strip() else ''}")
        return
    result.alarms[tool] = 0 if code == 0 else 1


def sanitizer_extra(target: Target, name: str, library: str, tool: str) -> List[str]:
    """The runner's options a target adds for one library and tool."""
    extra = list(target.sanitizer_args)
    if tool in target.sanitizer_filters:
        extra += ["--filter", target.sanitizer_filters[tool]]
    if library in target.source_dirs:  # allow-list entries read the mutant's own lines
        extra += ["--source-dir", target.source_dirs[library]]
    if target.log_dir:
        extra += ["--log", os.path.join(target.log_dir, f"{name.replace(' ', '-')}.{tool}.log")]
    return extra


def evaluate(name: str, build: str, library: str, args, target: Target, key: object = None) -> Result:
    """Runs the chosen detectors on one library. With --sanitizers needed, a mutant that the numbers
    (matrix, determinism) already caught skips a sanitizer its description does not expect; the clean
    library always runs every detector (it is the false-alarm control)."""
    r = Result(name)
    print(f"== {name}: {library}", flush=True)
    if "matrix" in args.detectors:
        matrix(r, build, library, target.cell_filter, args.timeout, args.schedule)
    if "determinism" in args.detectors:
        determinism(r, build, library, args.timeout, target.determinism_filter)
    caught_by_numbers = r.caught()
    for tool in ("racecheck", "memcheck"):
        if tool not in args.detectors:
            continue
        if (getattr(args, "sanitizers", "always") == "needed" and key is not None and caught_by_numbers
                and tool not in target.expect.get(key, [])):
            r.notes.append(f"{tool} not run: caught by numbers (--sanitizers needed)")
            continue
        sanitizer(r, build, library, tool, args.timeout, sanitizer_extra(target, name, library, tool),
                  target.allowlist)
    print(f"== {name}: alarms {r.alarms}  hints {sorted(r.hints)}  {sum(r.seconds.values()):.0f} s", flush=True)
    return r


WRONG_OUTPUT_ALARMS = ("bound", "exact", "stats", "nonfinite", "unwritten", "guard", "determinism")


def hint_verdict(r: Result, want: set) -> str:
    """yes / no: did the hints name it; '-': nothing expected, or no wrong output for a hint to explain."""
    if not want or not any(r.alarms.get(d, 0) > 0 for d in WRONG_OUTPUT_ALARMS):
        return "-"
    return "yes" if r.hints & want else "no"


def failing_cells(label: str, r: Result, shown: int = 4) -> str:
    """One line: how many matrix cells failed, how, in which configurations, and a few of them by name."""
    statuses: Dict[str, int] = {}
    configs: Dict[str, int] = {}
    for _, config, status in r.failing:
        statuses[status] = statuses.get(status, 0) + 1
        configs[config] = configs.get(config, 0) + 1
    how = ", ".join(f"{s} {n}" for s, n in sorted(statuses.items()))
    where = ", ".join(f"{c} {n}" for c, n in sorted(configs.items()))
    names = ", ".join(f"`{cell}`" for cell, _, _ in r.failing[:shown])
    return f"- {label}: {len(r.failing)} cells ({how}); {where}; e.g. {names}"


def markdown(clean: Result, mutants: List[tuple], args, target: Optional[Target] = None) -> str:
    catalogue = target.catalogue if target else MUTANTS
    upstream = bool(target and target.expect)  # a peer's kit: a description with expected alarms
    extra = ["caught by", "expected"] if upstream else []
    lines = ["# Mutation kill matrix" + (target.title if target else ""), "",
             f"`scripts/mutation-matrix.py{target.flag if target else ''} --build {args.build}`"
             + (f" `--schedule {args.schedule}`" if getattr(args, "schedule", "") else "")
             + (f" `--detectors {','.join(args.detectors)}`" if getattr(args, "detectors", DETECTORS) != DETECTORS
                else "")
             + f"; matrix subset `--filter '{target.cell_filter if target else args.filter}'` over the "
             "committed cases. A cell of the table counts the matrix cells (or 1 for a failed test) that raised that "
             "alarm. `cause` and `tiles` say whether the comparator's hints named the mutant's cause and the tiles it "
             "breaks (`-`: no wrong output for a hint to explain, or no hint expected)."
             + (" `caught by` lists the alarms raised; `expected` the description's, those raised in bold." if upstream
                else ""), "",
             "| kernel | " + " | ".join(COLUMNS + ["caught"] + extra) + " | cause | tiles | seconds |",
             "|---|" + "---|" * (len(COLUMNS) + len(extra) + 4)]
    clean_label = target.clean_label if target else "clean (upstream)"
    rows = [(clean_label, clean, set(), set(), [])] + \
        [(f"{n} {catalogue[n][0]}", r, catalogue[n][2], catalogue[n][3], target.expect.get(n, []) if upstream else [])
         for n, r in mutants]
    for i, (label, r, cause, tiles, expect) in enumerate(rows):
        cells = [str(r.alarms.get(d, "")) for d in COLUMNS]
        caught = ("ALARM" if r.caught() else "clean") if i == 0 else ("yes" if r.caught() else "SURVIVED")
        if upstream:
            fired = [d for d in COLUMNS if r.alarms.get(d, 0) > 0]
            cells += [caught, ", ".join(fired) or "-", ", ".join(f"**{d}**" if d in fired else d for d in expect) or "-"]
        else:
            cells.append(caught)
        lines.append(f"| {label} | " + " | ".join(cells) +
                     f" | {hint_verdict(r, cause)} | {hint_verdict(r, tiles)} | {sum(r.seconds.values()):.0f} |")
    if upstream:
        lines += ["", "Mutants (line numbers of the peer's own files):", ""] + \
            [f"- {n} {catalogue[n][0]} ({target.classes[n]}): {catalogue[n][1]}" for n, _ in mutants]
        failing = [failing_cells(label, r) for label, r, _, _, _ in rows if r.failing]
        lines += ["", "Failing cells (the matrix detector):", ""] + (failing or ["- none"])
    else:
        lines += ["", "Mutants:", ""] + [f"- {n}: {catalogue[n][1]}" for n, _ in mutants]
    notes = [f"- {label}: " + "; ".join(r.notes + ([f"hints: {', '.join(sorted(r.hints))}"] if r.hints else []))
             for label, r, _, _, _ in rows if r.notes or r.hints]
    return "\n".join(lines + (["", "Notes:", ""] + notes if notes else [])) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build/gpu", help="CMake build directory with the mutant libraries")
    parser.add_argument("--upstream", action="store_true",
                        help="judge upstream Marlin's mutants (libtc_ist_marlin_uNN.so) against their base (upstream "
                             "with its real races fixed)")
    parser.add_argument("--vllm", action="store_true",
                        help="judge vLLM's Marlin's mutants (libtc_vllm_marlin_vNN.so) against the clean adapter, on the "
                             "cells of the formats they act on")
    parser.add_argument("--description", default="",
                        help="with --upstream or --vllm: the mutant descriptions (default: the mode's mutants.txt)")
    parser.add_argument("--mutants", default="", help="comma-separated numbers (--upstream, --vllm: ids such as u01, "
                                                      "v01 or 1); default: every mutant")
    parser.add_argument("--filter", default="", help="the matrix detector's tilecheck run --filter (default: the mode's)")
    parser.add_argument("--timeout", type=float, default=240, help="seconds per detector run")
    parser.add_argument("--jobs", type=int, default=1, help="kernels evaluated at once (each detector is its own process)")
    parser.add_argument("--schedule", default="", choices=["", "model", "unknown"],
                        help="tilecheck run --schedule for the matrix detector: judge with the bounds of Marlin's "
                             "schedule or of any split of K (default: what the library declares)")
    parser.add_argument("--detectors", default="",
                        help="comma-separated detectors to run (default: all; --vllm: matrix)")
    parser.add_argument("--sanitizers", default="always", choices=["always", "needed"],
                        help="needed: run racecheck/memcheck on a mutant only if the matrix and determinism did not "
                             "catch it or its description expects the tool (the clean kernel always runs them)")
    parser.add_argument("--out", default="", help="write the markdown table here (default: print it)")
    args = parser.parse_args()
    if args.upstream and args.vllm:
        parser.error("--upstream and --vllm: one kit at a time")
    args.detectors = [d for d in (args.detectors or ("matrix" if args.vllm else ",".join(DETECTORS))).split(",") if d]
    if not args.detectors or any(d not in DETECTORS for d in args.detectors):
        parser.error(f"--detectors '{','.join(args.detectors)}': expected a comma-separated subset of {DETECTORS}")
    if args.jobs < 1:
        parser.error(f"--jobs {args.jobs}: expected a number of kernels at once, 1 or more")
    if args.upstream or args.vllm:
        plan, description = (plan_upstream, kit.DEFAULT_DESCRIPTION) if args.upstream else (plan_vllm, VLLM_DESCRIPTION)
        try:
            target = plan(args, kit.load_description(args.description or description))
        except kit.MutantError as e:
            parser.error(str(e))
    else:
        try:
            numbers = [int(x) for x in args.mutants.split(",") if x] or sorted(MUTANTS)
        except ValueError:
            parser.error(f"--mutants '{args.mutants}' is not a comma-separated list of numbers")
        unknown = [n for n in numbers if n not in MUTANTS]
        if unknown:
            parser.error(f"unknown mutant(s) {unknown}: expected numbers in {sorted(MUTANTS)}")
        target = plan_ours(args, numbers)
    if subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                      check=False).returncode != 0 if shutil.which("nvidia-smi") else True:
        print("SKIPPED: mutation-matrix needs a GPU (nvidia-smi -L found none)")
        return 77
    missing = [p for p in [target.clean] + list(target.mutants.values()) if not os.path.isfile(p)]
    if missing:
        print(f"mutation-matrix: missing kernel libraries {missing}; build with {target.build_hint}", file=sys.stderr)
        return 2
    kernels = [("clean", target.clean, None)] + [(f"mutant {n}", lib, n) for n, lib in target.mutants.items()]
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:  # processes share the GPU
        done = list(pool.map(lambda k: evaluate(k[0], args.build, k[1], args, target, k[2]), kernels))
    clean, results = done[0], list(zip(target.mutants, done[1:]))
    text = markdown(clean, results, args, target)
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
