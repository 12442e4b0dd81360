#!/usr/bin/env python3
"""Run one compute-sanitizer tool over the reduced GPU matrix and judge what it reports.

    run_sanitizer.py --tool racecheck --suite build/gpu/tests/suite/suite_gpu_tests \\
        --kernel build/gpu/kernel/libtc_kernel_upstream.so [--allowlist tests/sanitizer/allowlist.txt]

runs `compute-sanitizer --tool <tool> --error-exitcode 1 [tool options] --print-limit 0 --log-file
<tmp> <suite> --gtest_filter=Sanitize/* --gtest_brief=1` with TC_KERNEL=<kernel>, parses the tool's
report into records (hazards, invalid accesses, uninitialized reads, barrier errors, API errors),
matches each against the allow-list, groups them by distinct report (racecheck: the pair of source
locations) with counts, and parses the test program's own gtest summary.

    run_sanitizer.py --per-config ...   (for kernels that may fault: another project's)

first lists the tests (`<suite> --gtest_list_tests --gtest_filter=<filter>`), groups them by the
kernel configuration in their names, and runs one compute-sanitizer process per configuration, so
that a configuration whose kernel faults (losing the process's CUDA context) is FAULT and the others
are still checked; one verdict lists every configuration (sanitizer_per_config.py).

This file runs it; the parts live beside it: sanitizer_process.py (running the programs),
sanitizer_report.py (parsing what was printed), sanitizer_allowlist.py (the allow-list),
sanitizer_verdict.py (the exit status and why), sanitizer_configs.py and sanitizer_per_config.py
(the per-configuration mode).

Exit status:
   0  the tests all ran and passed, and every record the tool reported is allow-listed
   1  a record is not allow-listed, a test failed or was skipped (not as n/a with --allow-na), the
      tool's report is missing or inconsistent (a summary counting more errors than were parsed),
      the run timed out; with --per-config, any configuration not clean (FAULT among them)
   2  usage: a missing program or library, a malformed allow-list
  77  it cannot run here: no compute-sanitizer, or no GPU (the reason is printed; ctest: Skipped)

Python 3 standard library only. docs/sanitizer.md describes the tier.
"""
from __future__ import annotations

import argparse
import ctypes
import os
import re
import shutil
import subprocess
import sys
import time
from typing import List, Optional, Sequence, Tuple

sys.dont_write_bytecode = True  # ctest runs this from the source tree: no __pycache__ there
from sanitizer_allowlist import (TOOLS, AllowEntry, AllowlistError, SourceCache, apply_allowlist,  # noqa: E402
                                 load_allowlist)
from sanitizer_configs import ConfigGroup, ListingError, group_by_config, parse_test_list  # noqa: E402
from sanitizer_per_config import merge, run_configs  # noqa: E402
from sanitizer_process import Run, list_tests, run_tool  # noqa: E402
from sanitizer_report import parse_gtest_output, parse_sanitizer_output  # noqa: E402
from sanitizer_verdict import EXIT_FAIL, EXIT_SKIP, EXIT_USAGE, judge  # noqa: E402

DEFAULT_SEARCH_DIRS = ("/usr/local/cuda/bin",)
DEFAULT_FILTER = "Sanitize/*"

# ---------------------------------------------------------------------------------------------
# Can it run here?
# ---------------------------------------------------------------------------------------------


def find_sanitizer(explicit: Optional[str], search_dirs: Sequence[str]) -> Tuple[Optional[str], str]:
    if explicit:
        if os.path.isfile(explicit) and os.access(explicit, os.X_OK):
            return explicit, ""
        return None, f"--sanitizer {explicit} is not an executable file"
    found = shutil.which("compute-sanitizer")
    if found:
        return found, ""
    for d in search_dirs:
        candidate = os.path.join(d, "compute-sanitizer")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate, ""
    return None, f"no compute-sanitizer on PATH nor in {', '.join(search_dirs) or '(no directories)'}"


def probe_libcuda(library: str) -> Optional[str]:
    """Ask the driver directly (cuInit, cuDeviceGetCount) when there is no nvidia-smi."""
    try:
        cuda = ctypes.CDLL(library)
    except OSError as e:
        return f"no nvidia-smi, and the CUDA driver library {library} cannot be loaded ({e})"
    status = cuda.cuInit(0)
    if status != 0:
        return f"no nvidia-smi, and cuInit failed with CUDA driver error {status} (100: no device)"
    count = ctypes.c_int(0)
    status = cuda.cuDeviceGetCount(ctypes.byref(count))
    if status != 0 or count.value == 0:
        return f"no nvidia-smi, and the CUDA driver reports no device (status {status}, count {count.value})"
    return None


def gpu_unavailable_reason() -> Optional[str]:
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return probe_libcuda(os.environ.get("TC_LIBCUDA", "libcuda.so.1"))
    try:
        r = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"nvidia-smi -L failed: {e}"
    if r.returncode != 0 or not re.search(r"^GPU \d+", r.stdout, re.M):
        said = " ".join((r.stdout + " " + r.stderr).split())[:300]
        return f"nvidia-smi -L lists no GPU (exit {r.returncode}): {said}"
    return None


# ---------------------------------------------------------------------------------------------
# Running it: the whole filter in one process, or one process per configuration
# ---------------------------------------------------------------------------------------------


def format_run(run: Run, verdict_lines: Sequence[str]) -> str:
    return (f"command: TC_KERNEL={run.kernel} {' '.join(run.command)}\n"
            f"exit status: {run.returncode}, {run.seconds:.1f} s{' (timed out)' if run.timed_out else ''}\n"
            "---- compute-sanitizer report ----\n" + run.tool_output +
            "\n---- test program output ----\n" + run.program_output +
            "\n---- verdict ----\n" + "\n".join(verdict_lines) + "\n")


def write_log(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def run_single(args: argparse.Namespace, sanitizer: str, entries: List[AllowEntry], log_path: str) -> int:
    run = run_tool(sanitizer, args.tool, args.suite, args.kernel, args.filter, args.tool_options, args.timeout,
                   args.echo)
    # Before --log-file takes effect (e.g. a rejected option) the tool writes to stdout: parse both.
    report = parse_sanitizer_output(run.tool_output + "\n" + run.program_output)
    gtest = parse_gtest_output(run.program_output)
    apply_allowlist(report, args.tool, entries, SourceCache(args.source_dirs))
    verdict = judge(args.tool, report, gtest, run.returncode, run.timed_out, args.timeout, args.allow_na)
    write_log(log_path, format_run(run, verdict.lines))
    print(f"{args.tool} on {os.path.basename(args.kernel)}: exit status {run.returncode}, {run.seconds:.1f} s; "
          f"full output in {log_path}")
    print("\n".join(verdict.lines))
    return verdict.code


def list_groups(args: argparse.Namespace) -> Tuple[Optional[List[ConfigGroup]], str]:
    """The tests of the filter, by configuration; (None, why) when they cannot be listed."""
    command = f"TC_KERNEL={os.path.abspath(args.kernel)} {args.suite} --gtest_list_tests --gtest_filter={args.filter}"
    returncode, output = list_tests(args.suite, args.kernel, args.filter, args.timeout)
    listing = f"listing: {command}\nexit status: {returncode}\n{output}"
    if returncode != 0:
        return None, listing + f"\nFAIL:\nlisting the tests failed (exit status {returncode}; output above)"
    try:
        groups = group_by_config(parse_test_list(output))
    except ListingError as e:
        return None, listing + f"\nFAIL:\n{e}"
    if not groups:
        return None, listing + "\nFAIL:\nthe gtest filter selected no test"
    return groups, listing


def run_per_config(args: argparse.Namespace, sanitizer: str, entries: List[AllowEntry], log_path: str) -> int:
    start = time.monotonic()
    groups, listing = list_groups(args)
    if groups is None:
        write_log(log_path, listing + "\n")
        print(listing.split("\nFAIL:\n", 1)[1] + f" (see {log_path})\nFAIL")
        return EXIT_FAIL
    print(f"{args.tool} on {os.path.basename(args.kernel)}: {sum(len(g.tests) for g in groups)} tests in "
          f"{len(groups)} configurations ({', '.join(g.config for g in groups)}), {args.jobs} at a time", flush=True)

    def run_group(group: ConfigGroup, seconds: float) -> Run:
        return run_tool(sanitizer, args.tool, args.suite, args.kernel, group.gtest_filter(), args.tool_options,
                        seconds, args.echo)

    # --timeout bounds the whole run, the listing included (ctest's TIMEOUT is one number too).
    left = max(args.timeout - (time.monotonic() - start), 1e-3) if args.timeout > 0 else 0
    outcomes = run_configs(groups, run_group, args.tool, entries, left, args.jobs, args.allow_na, args.source_dirs)
    verdict = merge(args.tool, outcomes)
    sections = [listing]
    for o in outcomes:
        sections.append(f"==== configuration {o.group.config}: {len(o.group.tests)} tests, {o.status} ====")
        sections.extend(f"fault: {reason}" for reason in o.faults)
        sections.append(format_run(o.run, o.full.lines) if o.run else "\n".join(o.full.lines))
    sections.append("==== verdict over all configurations ====\n" + "\n".join(verdict.lines) + "\n")
    write_log(log_path, "\n".join(sections))
    print(f"full output, a section per configuration, in {log_path}")
    print("\n".join(verdict.lines))
    return verdict.code


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tool", required=True, choices=TOOLS)
    parser.add_argument("--suite", required=True, help="the suite_gpu_tests executable")
    parser.add_argument("--kernel", required=True, help="kernel plugin library: TC_KERNEL for the tests")
    parser.add_argument("--allowlist", help="allow-list file (tests/sanitizer/allowlist.txt)")
    parser.add_argument("--filter", default=DEFAULT_FILTER, help=f"gtest filter (default {DEFAULT_FILTER})")
    parser.add_argument("--log", help="where to write the full output (default sanitizer-<tool>.log)")
    parser.add_argument("--timeout", type=float, default=0, help="seconds before the run is stopped (0: none)")
    parser.add_argument("--sanitizer", help="compute-sanitizer to use (default: PATH, then --search-dir)")
    parser.add_argument("--search-dir", action="append", dest="search_dirs",
                        help=f"where to look when it is not on PATH (default {', '.join(DEFAULT_SEARCH_DIRS)})")
    parser.add_argument("--tool-option", action="append", default=[], dest="tool_options",
                        help="extra compute-sanitizer option; one naming --print-limit (e.g. "
                             "--tool-option=--print-limit=1000) replaces the default --print-limit 0")
    parser.add_argument("--source-dir", action="append", default=[], dest="source_dirs",
                        help="where to find a source file the tool names by a relative path, for allow-list entries "
                             "that match a line's text (repeatable; e.g. the upstream checkout of an adapter)")
    parser.add_argument("--echo", action="store_true", help="echo the program's output while it runs")
    parser.add_argument("--per-config", action="store_true",
                        help="one compute-sanitizer process per kernel configuration (a fault costs only its own "
                             "configuration's tests); --timeout then bounds all of them together")
    parser.add_argument("--jobs", type=int, default=1,
                        help="with --per-config: configurations run at once, on the same GPU (default 1)")
    parser.add_argument("--allow-na", action="store_true",
                        help="tests the kernel library declares n/a (it does not implement them) do not fail the run")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs {args.jobs}: expected 1 or more")
    if args.jobs > 1 and not args.per_config:
        parser.error(f"--jobs {args.jobs} needs --per-config (one process runs the whole filter otherwise)")
    return args


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    try:
        entries = load_allowlist(args.allowlist)
    except AllowlistError as e:
        print(f"ERROR: {e}")
        return EXIT_USAGE
    for path, what in ((args.suite, "test program"), (args.kernel, "kernel library")):
        if not os.path.isfile(path):
            print(f"ERROR: the {what} {path} does not exist (build it first)")
            return EXIT_USAGE

    sanitizer, why = find_sanitizer(args.sanitizer, args.search_dirs or DEFAULT_SEARCH_DIRS)
    if sanitizer is None:
        print(f"SKIPPED: cannot run {args.tool}: {why}")
        return EXIT_SKIP
    no_gpu = gpu_unavailable_reason()
    if no_gpu:
        print(f"SKIPPED: cannot run {args.tool}: no GPU: {no_gpu}")
        return EXIT_SKIP

    log_path = args.log or f"sanitizer-{args.tool}.log"
    if args.per_config:
        return run_per_config(args, sanitizer, entries, log_path)
    return run_single(args, sanitizer, entries, log_path)


if __name__ == "__main__":
    sys.exit(main())
