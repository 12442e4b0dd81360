#!/usr/bin/env python3
"""The mutation kill matrix: every mutant kernel (kernel/src/variants.h) against the suite's
detectors, and the clean kernel against the same detectors, in one run on a GPU machine.

    scripts/mutation-matrix.py [--upstream] --build build/gpu [--mutants 1,2 | u01,u02] [--jobs 4] [--out FILE]

Build the mutants first: cmake --preset gpu -DTC_MUTANT_LIST="1;2;...;15" && cmake --build --preset gpu;
the determinism detector needs the large fixtures: tilecheck golden regenerate --all (or its cases).
Detectors, per kernel library (the table's columns: docs/results/mutation.md):
  matrix       tilecheck run --committed over a subset of the matrix (--filter; --schedule passed on)
  determinism  kernel_gpu_tests --gtest_filter=Cases/Determinism.* (20 repeats bitwise equal)
  racecheck    tests/sanitizer/run_sanitizer.py --tool racecheck over the reduced matrix
  memcheck     the same with --tool memcheck
A mutant is caught when any detector raises an alarm; the clean kernel must raise none. The table also
says whether the hints named each mutant's cause and tiles (MUTANTS). Exit status 0 only if every
mutant is caught and the clean kernel is clean.

--upstream judges upstream IST-DASLab Marlin's mutants (plugins/ist-marlin/mutants.txt) the same way,
with upstream with its real races fixed (the description's base) as the control (docs/mutation-upstream.md).
"""
import argparse
import concurrent.futures
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location("ist_marlin_mutants",
                                               os.path.join(ROOT, "scripts", "ist-marlin-mutants.py"))
kit = importlib.util.module_from_spec(_spec)  # the upstream mutants' description parser (one parser, two users)
_spec.loader.exec_module(kit)

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
    10: ("group-off-by-one", "scale group index off by one", {"scale_ratio", "group_boundary"}, {"whole_tiles", "group_boundary"}),
    11: ("zero-point-7", "zero point 7 instead of 8", {"code_mapping", "wide_errors"}, {"code_mapping", "whole_tiles"}),
    12: ("nibble-swap", "nibbles swapped in dequantization", {"whole_tiles"}, {"whole_tiles"}),
    13: ("round-toward-zero", "epilogue rounds toward zero", {"rounding_bias", "not_exact"}, set()),
    14: ("fp16-partials", "fp16 partial sums under the fp32 contract", {"fp16_reduction", "multi_slice", "not_exact", "low_precision"},
         {"fp16_reduction", "multi_slice"}),
    15: ("wrong-column-permutation", "per-column scales read with the grouped permutation", {"column_half", "scale_ratio"}, {"whole_tiles", "column_half"}),
    # The served formats' paths (plugin ABI 2), caught on their cells only (17: no hint expected yet).
    16: ("bf16-scale-through-fp16", "bf16 scales converted through fp16", {"bf16_scale_through_fp16"}, {"bf16_scale_through_fp16"}),
    17: ("act-order-scatter", "act-order: A's columns scattered by perm instead of gathered", set(), set()),
}
DETECTORS = ["matrix", "determinism", "racecheck", "memcheck"]
DEFAULT_FILTER = r"_(m1n8k8|m2n16k4|m4n16k4)g[a-z0-9]+_[a-z0-9]+_[a-z0-9]+_sms(1|3|7|132)$"
COLUMNS = list(kit.ALARMS)  # what a table counts; a description's `expect:` names these
TIER_ALLOWLIST = os.path.join(ROOT, "tests", "sanitizer", "allowlist.txt")
# Upstream Marlin's configurations (plugins/ist-marlin) bar m1n8k8g8, which faults on sm_90 whatever
# the source (a compiler fault); its variant "upstream-2f6d7c1[-uNN]" is written with '_' in cell names.
UPSTREAM_FILTER = r"_(m1n8k8gcol|m[1-4]n16k4g(8|col))_marlin_[a-z0-9_]+_sms(1|3|7|132)$"
UPSTREAM_DETERMINISM = "Cases/Determinism.*:MarlinContract/Determinism.*"
UPSTREAM_SANITIZER_FILTERS = {"racecheck": "Sanitize/*-*_m1n8k8g8_*",
                              "memcheck": "Sanitize/*-*_m1n8k8g8_*"}
FAILED = ("FAIL", "FAULT", "HANG", "ERROR")


@dataclass
class Target:
    """What the matrix judges: a clean library and its mutants, and how each detector runs them."""
    clean: str                                   # the control's library
    clean_label: str
    mutants: Dict[object, str]                   # key (ours: 1..15; upstream: "u01") -> library, in order
    catalogue: Dict[object, tuple]               # key -> (slug, text, cause hints, tile hints)
    cell_filter: str = DEFAULT_FILTER
    expect: Dict[object, List[str]] = field(default_factory=dict)   # key -> alarms expected (upstream)
    classes: Dict[object, str] = field(default_factory=dict)        # key -> bug class (upstream)
    determinism_filter: str = "Cases/Determinism.*"
    sanitizer_filters: Dict[str, str] = field(default_factory=dict)  # tool -> gtest filter (else the runner's)
    sanitizer_args: List[str] = field(default_factory=list)          # e.g. --per-config --allow-na
    allowlist: str = TIER_ALLOWLIST
    source_dirs: Dict[str, str] = field(default_factory=dict)        # library -> its source's directory
    log_dir: str = ""                                                # sanitizer logs kept here (else the runner's)


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
    upstream = bool(target and target.expect)
    extra = ["caught by", "expected"] if upstream else []
    title = ": upstream IST-DASLab Marlin (plugins/ist-marlin/mutants.txt)" if upstream else ""
    lines = ["# Mutation kill matrix" + title, "",
             f"`scripts/mutation-matrix.py{' --upstream' if upstream else ''} --build {args.build}`"
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
        lines += ["", "Mutants (upstream's line numbers):", ""] + \
            [f"- {n} {catalogue[n][0]} ({target.classes[n]}): {catalogue[n][1]}" for n, _ in mutants]
        failing = [failing_cells(label, r) for label, r, _, _, _ in rows if r.failing]
        lines += ["", "Failing cells (the matrix detector):", ""] + (failing or ["- none"])
    else:
        lines += ["", "Mutants:", ""] + [f"- {n}: {catalogue[n][1]}" for n, _ in mutants]
    notes = [f"- {label}: " + "; ".join(r.notes + ([f"hints: {', '.join(sorted(r.hints))}"] if r.hints else []))
             for label, r, _, _, _ in rows if r.notes or r.hints]
    return "\n".join(lines + (["", "Notes:", ""] + notes if notes else [])) + "\n"


def plan_ours(args, numbers: List[int]) -> Target:
    kernel_dir = os.path.join(args.build, "kernel")
    return Target(os.path.join(kernel_dir, "libtc_kernel_upstream.so"), "clean (upstream)",
                  {n: os.path.join(kernel_dir, f"libtc_kernel_mut{n:02d}.so") for n in numbers}, MUTANTS,
                  args.filter or DEFAULT_FILTER)


def cmake_cache(build: str, name: str) -> str:
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            for line in f:
                if line.startswith(name + ":"):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return ""


def plan_upstream(args, description) -> Target:
    """The control and the chosen mutants of upstream's file (kit.MutantError: a bad --mutants). The
    control is the base the mutants are planted on (upstream with its real races fixed, the
    description's `base`), or the plain adapter where the description names none."""
    chosen = kit.select(description, args.mutants)
    kernel_dir = os.path.join(args.build, "kernel")
    work = os.path.join(args.build, "mutation-ist-marlin")  # the sanitizer logs
    base = description.base
    clean = os.path.join(kernel_dir, f"libtc_ist_marlin_{base}.so" if base else "libtc_ist_marlin.so")
    label = f"control (ist-marlin {description.commit} + {base})" if base else f"clean (ist-marlin {description.commit})"
    t = Target(clean, label,
               {m.id: os.path.join(kernel_dir, f"libtc_ist_marlin_{m.id}.so") for m in chosen},
               {m.id: (m.slug, m.what, m.cause, m.tiles) for m in chosen}, args.filter or UPSTREAM_FILTER,
               expect={m.id: m.expect for m in chosen}, classes={m.id: m.klass for m in chosen},
               determinism_filter=UPSTREAM_DETERMINISM, sanitizer_filters=dict(UPSTREAM_SANITIZER_FILTERS),
               sanitizer_args=["--per-config", "--allow-na"], allowlist=TIER_ALLOWLIST, log_dir=work)
    mutant_dir = os.path.join(args.build, "plugins", "ist-marlin", "mutants")
    t.source_dirs = {lib: os.path.join(mutant_dir, key) for key, lib in t.mutants.items()}
    if base:
        t.source_dirs[clean] = os.path.join(mutant_dir, base)
    else:
        upstream_src = cmake_cache(args.build, "TC_IST_MARLIN_SRC")
        if upstream_src:
            t.source_dirs[clean] = upstream_src
    return t


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build/gpu", help="CMake build directory with the mutant libraries")
    parser.add_argument("--upstream", action="store_true",
                        help="judge upstream Marlin's mutants (libtc_ist_marlin_uNN.so) against their base (upstream "
                             "with its real races fixed)")
    parser.add_argument("--description", default=kit.DEFAULT_DESCRIPTION, help="with --upstream: the mutant descriptions")
    parser.add_argument("--mutants", default="", help="comma-separated numbers (--upstream: ids such as u01 or 1); "
                                                      "default: every mutant")
    parser.add_argument("--filter", default="", help="the matrix detector's tilecheck run --filter (default: the mode's)")
    parser.add_argument("--timeout", type=float, default=240, help="seconds per detector run")
    parser.add_argument("--jobs", type=int, default=1, help="kernels evaluated at once (each detector is its own process)")
    parser.add_argument("--schedule", default="", choices=["", "model", "unknown"],
                        help="tilecheck run --schedule for the matrix detector: judge with the bounds of Marlin's "
                             "schedule or of any split of K (default: what the library declares)")
    parser.add_argument("--detectors", default=",".join(DETECTORS),
                        help="comma-separated detectors to run (default: all)")
    parser.add_argument("--sanitizers", default="always", choices=["always", "needed"],
                        help="needed: run racecheck/memcheck on a mutant only if the matrix and determinism did not "
                             "catch it or its description expects the tool (the clean kernel always runs them)")
    parser.add_argument("--out", default="", help="write the markdown table here (default: print it)")
    args = parser.parse_args()
    args.detectors = [d for d in args.detectors.split(",") if d]
    if not args.detectors or any(d not in DETECTORS for d in args.detectors):
        parser.error(f"--detectors '{','.join(args.detectors)}': expected a comma-separated subset of {DETECTORS}")
    if args.jobs < 1:
        parser.error(f"--jobs {args.jobs}: expected a number of kernels at once, 1 or more")
    if args.upstream:
        try:
            target = plan_upstream(args, kit.load_description(args.description))
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
        how = ("-DTC_IST_MARLIN_SRC and -DTC_IST_MARLIN_MUTANTS (the base fix is built with them)" if args.upstream
               else "-DTC_MUTANT_LIST")
        print(f"mutation-matrix: missing kernel libraries {missing}; build with {how}", file=sys.stderr)
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
