"""Running the test program: under one compute-sanitizer tool (a Run: exit status, the program's
output, the tool's --log-file report, how long it took, whether it was stopped at its deadline),
and on its own to list the tests a gtest filter selects.

Python 3 standard library only. docs/sanitizer.md describes the tier.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

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

# Every tool, unless --tool-option names a --print-limit of its own: print every record. By default
# compute-sanitizer prints the first 100 and only counts the rest; a record never printed is never
# judged (on upstream Marlin the 100 hazards racecheck printed were all of one benign pair).
PRINT_LIMIT = ["--print-limit", "0"]  # 0: no limit

# Linux limits one argument to 128 KiB: a longer --gtest_filter goes into a --gtest_flagfile.
MAX_FILTER_ARGUMENT = 100_000


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


def suite_environment(kernel: str) -> Dict[str, str]:
    # TC_IN_PROCESS: the kernel runs in the suite's own process, the one the tool watches (by default
    # the suite runs kernels in worker processes).
    return dict(os.environ, TC_KERNEL=os.path.abspath(kernel), TC_IN_PROCESS="1")


def filter_arguments(gtest_filter: str, scratch_dir: str) -> List[str]:
    if len(gtest_filter) <= MAX_FILTER_ARGUMENT:
        return [f"--gtest_filter={gtest_filter}"]
    flagfile = os.path.join(scratch_dir, "gtest_flags.txt")
    with open(flagfile, "w", encoding="utf-8") as f:
        f.write(f"--gtest_filter={gtest_filter}\n")
    return [f"--gtest_flagfile={flagfile}"]


def sanitizer_command(sanitizer: str, tool: str, log_file: str, suite: str, filter_args: Sequence[str],
                      extra: Sequence[str]) -> List[str]:
    limit = [] if any(o.startswith("--print-limit") for o in extra) else PRINT_LIMIT
    return ([sanitizer, "--tool", tool, "--error-exitcode", "1", *TOOL_OPTIONS[tool], *limit, *extra,
             "--log-file", log_file, suite, *filter_args, "--gtest_brief=1"])


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


def run_tool(sanitizer: str, tool: str, suite: str, kernel: str, gtest_filter: str, tool_options: Sequence[str],
             timeout: float, echo: bool) -> Run:
    """`compute-sanitizer --tool <tool> ... <suite> --gtest_filter=<filter>` with TC_KERNEL=<kernel>."""
    env = suite_environment(kernel)
    with tempfile.TemporaryDirectory(prefix="tc-sanitizer-") as tmp:
        tool_log = os.path.join(tmp, "report.txt")
        cmd = sanitizer_command(sanitizer, tool, tool_log, suite, filter_arguments(gtest_filter, tmp), tool_options)
        print("running: TC_KERNEL=" + env["TC_KERNEL"] + " " + " ".join(shorten(a) for a in cmd), flush=True)
        start = time.monotonic()
        returncode, program_output, timed_out = run_with_deadline(cmd, env, timeout, echo)
        elapsed = time.monotonic() - start
        try:
            with open(tool_log, encoding="utf-8", errors="replace") as f:
                tool_output = f.read()
        except OSError:
            tool_output = ""
    return Run(cmd, env["TC_KERNEL"], returncode, program_output, tool_output, elapsed, timed_out)


def shorten(argument: str, limit: int = 300) -> str:
    """An argument as printed on the console (a per-configuration filter lists every test by name)."""
    return argument if len(argument) <= limit else f"{argument[:limit]}...({len(argument)} characters)"


def list_tests(suite: str, kernel: str, gtest_filter: str, timeout: float) -> Tuple[Optional[int], str]:
    """`<suite> --gtest_list_tests --gtest_filter=<filter>` (not under the tool): (exit status, output)."""
    cmd = [suite, "--gtest_list_tests", f"--gtest_filter={gtest_filter}"]
    returncode, output, _ = run_with_deadline(cmd, suite_environment(kernel), timeout, echo=False)
    return returncode, output
