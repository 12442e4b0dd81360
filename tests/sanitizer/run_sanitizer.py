#!/usr/bin/env python3
"""Run one compute-sanitizer tool over the reduced GPU matrix and judge what it reports.

    run_sanitizer.py --tool racecheck --suite build/gpu/tests/suite/suite_gpu_tests \\
        --kernel build/gpu/kernel/libtc_kernel_upstream.so [--allowlist tests/sanitizer/allowlist.txt]

runs `compute-sanitizer --tool <tool> --error-exitcode 1 [tool options] --log-file <tmp>
<suite> --gtest_filter=Sanitize/* --gtest_brief=1` with TC_KERNEL=<kernel>, parses the tool's
report into records (hazards, invalid accesses, uninitialized reads, barrier errors, API errors),
matches each against the allow-list, and parses the test program's own gtest summary.
This file runs it; the parts live beside it: sanitizer_report.py (parsing what was printed),
sanitizer_allowlist.py (the allow-list), sanitizer_verdict.py (the exit status and why).

Exit status:
   0  the tests all ran and passed, and every record the tool reported is allow-listed
   1  a record is not allow-listed, a test failed or was skipped, the tool's report is missing or
      inconsistent (a summary counting more errors than were parsed), or the run timed out
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
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

sys.dont_write_bytecode = True  # ctest runs this from the source tree: no __pycache__ there
from sanitizer_allowlist import TOOLS, AllowlistError, apply_allowlist, load_allowlist  # noqa: E402
from sanitizer_report import parse_gtest_output, parse_sanitizer_output  # noqa: E402
from sanitizer_verdict import EXIT_SKIP, EXIT_USAGE, Verdict, judge  # noqa: E402

# Options per tool (docs/sanitizer.md says why each is there).
#   racecheck: one record per hazard (byte-accurate, names both accesses and, for cp.async, says
#              "(invalid memcpy_async synchronization)"); cp.async tracking is on by default.
#   initcheck: the default (global memory). On the H200 (CUDA 13.0, 2026-11-30) the run with
#              --initcheck-address-space all ended within 0.2 s without running the tests, so
#              shared memory is left to racecheck until that option is verified there.
#   memcheck:  padding after every allocation, so an overrun into the next buffer is reported.
TOOL_OPTIONS: Dict[str, List[str]] = {
    "racecheck": ["--racecheck-report", "hazard"],
    "synccheck": [],
    "memcheck": ["--padding", "256"],
    "initcheck": [],
}
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
# Running it
# ---------------------------------------------------------------------------------------------


def sanitizer_command(sanitizer: str, tool: str, log_file: str, suite: str, gtest_filter: str,
                      extra: Sequence[str]) -> List[str]:
    return ([sanitizer, "--tool", tool, "--error-exitcode", "1", *TOOL_OPTIONS[tool], *extra,
             "--log-file", log_file, suite, f"--gtest_filter={gtest_filter}", "--gtest_brief=1"])


def run_with_deadline(cmd: Sequence[str], env: Dict[str, str], timeout: float, echo: bool
                      ) -> Tuple[Optional[int], str, bool]:
    """Run `cmd` in its own process group; returns (exit status, stdout+stderr, timed out)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True,
                            errors="replace", start_new_session=True)
    lines: List[str] = []

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if echo:
                sys.stdout.write(line)
                sys.stdout.flush()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    timed_out = False
    try:
        proc.wait(timeout=timeout if timeout > 0 else None)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
    reader.join(timeout=10)
    return (None if timed_out else proc.returncode), "".join(lines), timed_out


@dataclass
class Run:
    """One run of the tool over the test program."""
    command: List[str]
    kernel: str                  # TC_KERNEL, absolute
    returncode: Optional[int]    # None: timed out
    program_output: str          # the program's stdout and stderr (and the tool's, before --log-file)
    tool_output: str             # the tool's --log-file
    seconds: float
    timed_out: bool


def run_tool(args: argparse.Namespace, sanitizer: str) -> Run:
    # TC_IN_PROCESS: the kernel runs in the suite's own process, the one the tool watches (by default
    # the suite runs kernels in worker processes).
    env = dict(os.environ, TC_KERNEL=os.path.abspath(args.kernel), TC_IN_PROCESS="1")
    with tempfile.TemporaryDirectory(prefix="tc-sanitizer-") as tmp:
        tool_log = os.path.join(tmp, "report.txt")
        cmd = sanitizer_command(sanitizer, args.tool, tool_log, args.suite, args.filter, args.tool_options)
        print("running: TC_KERNEL=" + env["TC_KERNEL"] + " " + " ".join(cmd), flush=True)
        start = time.monotonic()
        returncode, program_output, timed_out = run_with_deadline(cmd, env, args.timeout, args.echo)
        elapsed = time.monotonic() - start
        try:
            with open(tool_log, encoding="utf-8", errors="replace") as f:
                tool_output = f.read()
        except OSError:
            tool_output = ""
    return Run(cmd, env["TC_KERNEL"], returncode, program_output, tool_output, elapsed, timed_out)


def write_log(path: str, run: Run, verdict: Verdict) -> None:
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"command: TC_KERNEL={run.kernel} {' '.join(run.command)}\n")
        f.write(f"exit status: {run.returncode}, {run.seconds:.1f} s{' (timed out)' if run.timed_out else ''}\n")
        f.write("---- compute-sanitizer report ----\n" + run.tool_output)
        f.write("\n---- test program output ----\n" + run.program_output)
        f.write("\n---- verdict ----\n" + "\n".join(verdict.lines) + "\n")


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
                        help="extra compute-sanitizer option, e.g. --tool-option=--print-limit=0")
    parser.add_argument("--echo", action="store_true", help="echo the program's output while it runs")
    return parser.parse_args(argv)


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

    run = run_tool(args, sanitizer)
    # Before --log-file takes effect (e.g. a rejected option) the tool writes to stdout: parse both.
    report = parse_sanitizer_output(run.tool_output + "\n" + run.program_output)
    gtest = parse_gtest_output(run.program_output)
    apply_allowlist(report, args.tool, entries)
    verdict = judge(args.tool, report, gtest, run.returncode, run.timed_out, args.timeout)
    log_path = args.log or f"sanitizer-{args.tool}.log"
    write_log(log_path, run, verdict)
    print(f"{args.tool} on {os.path.basename(args.kernel)}: exit status {run.returncode}, {run.seconds:.1f} s; "
          f"full output in {log_path}")
    print("\n".join(verdict.lines))
    return verdict.code


if __name__ == "__main__":
    sys.exit(main())
