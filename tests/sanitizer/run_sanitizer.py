#!/usr/bin/env python3
"""Run one compute-sanitizer tool over the reduced GPU matrix and judge what it reports.

    run_sanitizer.py --tool racecheck --suite build/gpu/tests/suite/suite_gpu_tests \\
        --kernel build/gpu/kernel/libtc_kernel_upstream.so [--allowlist tests/sanitizer/allowlist.txt]

runs `compute-sanitizer --tool <tool> --error-exitcode 1 [tool options] --log-file <tmp>
<suite> --gtest_filter=Sanitize/* --gtest_brief=1` with TC_KERNEL=<kernel>, parses the tool's
report into records (hazards, invalid accesses, uninitialized reads, barrier errors, API errors),
matches each against the allow-list, and parses the test program's own gtest summary.

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
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

EXIT_PASS, EXIT_FAIL, EXIT_USAGE, EXIT_SKIP = 0, 1, 2, 77
TOOLS = ("racecheck", "synccheck", "memcheck", "initcheck")

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
# The allow-list
# ---------------------------------------------------------------------------------------------


class AllowlistError(Exception):
    pass


@dataclass
class AllowEntry:
    line: int                # line number in the file
    tools: Tuple[str, ...]   # tools it applies to ("*": all)
    pattern: "re.Pattern[str]"
    reason: str

    def applies_to(self, tool: str) -> bool:
        return "*" in self.tools or tool in self.tools


SEPARATOR = " :: "


def parse_allowlist(text: str, source: str = "allowlist") -> List[AllowEntry]:
    """`<tools> :: <regex> :: <reason>` per line; '#' comments and blank lines are skipped."""
    entries = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(SEPARATOR, 2)
        if len(parts) != 3:
            raise AllowlistError(f"{source}:{number}: expected '<tools> :: <regex> :: <reason>', got: {line}")
        tools_text, regex, reason = (p.strip() for p in parts)
        tools = tuple(t.strip() for t in tools_text.split(",") if t.strip())
        unknown = [t for t in tools if t != "*" and t not in TOOLS]
        if not tools or unknown:
            raise AllowlistError(f"{source}:{number}: tools must be '*' or a comma-separated list of "
                                 f"{', '.join(TOOLS)}; got '{tools_text}'")
        if not regex:
            raise AllowlistError(f"{source}:{number}: empty regex")
        try:
            pattern = re.compile(regex)
        except re.error as e:
            raise AllowlistError(f"{source}:{number}: bad regex '{regex}': {e}") from None
        if not reason:
            raise AllowlistError(f"{source}:{number}: an entry needs the reason it is benign")
        entries.append(AllowEntry(number, tools, pattern, reason))
    return entries


def load_allowlist(path: Optional[str]) -> List[AllowEntry]:
    if not path:
        return []
    try:
        with open(path, encoding="utf-8") as f:
            return parse_allowlist(f.read(), path)
    except OSError as e:
        raise AllowlistError(f"cannot read the allow-list {path}: {e}") from None


# ---------------------------------------------------------------------------------------------
# compute-sanitizer's report
# ---------------------------------------------------------------------------------------------

PREFIX = re.compile(r"^=========(?: (.*))?$")
BANNER = re.compile(r"^(COMPUTE-SANITIZER|CUDA-MEMCHECK)$")
ERROR_SUMMARY = re.compile(r"^ERROR SUMMARY: (\d+) errors?\b")
RACE_SUMMARY = re.compile(r"^RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)")
LEAK_SUMMARY = re.compile(r"^LEAK SUMMARY:")
# The tool cannot check this device or runtime (seen on a gVisor machine: "Device not supported").
UNSUPPORTED = re.compile(r"device (is )?not supported|unsupported device", re.I)
# Lines that end the program's run rather than report a problem in it (the test verdict decides).
PROCESS_LINE = re.compile(r"^(Target application returned an error|Error: process didn't terminate successfully"
                          r"|Error: Target application terminated)")
# First lines of a report. Anything else at top level also opens a record (never dropped).
HEADER = re.compile(
    r"""^(?:
        (?:Error|ERROR|Warning|WARNING|WARN|Info|INFO)\b[^:]*:    # racecheck severity, any mode
      | Invalid\s__\w+__\s                                       # memcheck access errors
      | Potential\sinvalid\s
      | Uninitialized\s__\w+__                                   # initcheck
      | Unused\s__\w+__
      | Barrier\serror\sdetected                                 # synccheck
      | Warpgroup\sMMA\s
      | Program\shit\s                                           # CUDA API errors
      | Leaked\s\d+\sbytes
      | Internal\sSanitizer\sError
      | (?:Warp\s|Lane\s)?(?:Illegal|Misaligned|Out-of-range|Malformed|Hardware)\b  # device exceptions
    )""",
    re.X,
)


@dataclass
class Record:
    lines: List[str] = field(default_factory=list)
    kind: str = "report"          # "report" (must be allow-listed) or "process"
    allowed_by: Optional[AllowEntry] = None

    @property
    def header(self) -> str:
        return self.lines[0]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def signature(self) -> str:
        """The record without thread, block, address or backtrace details: one per source location."""
        kept = [l for l in self.lines
                if not re.match(r"^(Host Frame|Device Frame|Saved host backtrace|in /|Current Value)", l)]
        text = "\n".join(kept)
        text = re.sub(r"\(\s*\d+\s*,\s*\d+\s*,\s*\d+\s*\)", "(..)", text)
        text = re.sub(r"0x[0-9a-fA-F]+", "0x..", text)
        return re.sub(r"\[\d+ hazards?\]", "[.. hazards]", text)


@dataclass
class SanitizerReport:
    records: List[Record] = field(default_factory=list)
    error_summaries: List[int] = field(default_factory=list)     # ERROR SUMMARY counts
    race_summaries: List[Tuple[int, int, int]] = field(default_factory=list)  # displayed, errors, warnings
    summary_lines: List[str] = field(default_factory=list)
    unsupported: Optional[str] = None   # the line saying the tool cannot check this device

    @property
    def findings(self) -> List[Record]:
        return [r for r in self.records if r.kind == "report"]

    @property
    def process_records(self) -> List[Record]:
        return [r for r in self.records if r.kind == "process"]

    def reported_count(self) -> int:
        """How many problems the tool's own summaries count (the largest of them)."""
        counts = list(self.error_summaries) + [d for d, _, _ in self.race_summaries]
        return max(counts) if counts else 0

    def has_summary(self) -> bool:
        return bool(self.error_summaries or self.race_summaries)


def parse_sanitizer_output(text: str) -> SanitizerReport:
    """Parse compute-sanitizer's text (only lines that start with '=========' are its own)."""
    report = SanitizerReport()
    current: Optional[Record] = None
    for raw in text.splitlines():
        if report.unsupported is None and UNSUPPORTED.search(raw):
            report.unsupported = raw.strip()
        m = PREFIX.match(raw.rstrip("\r"))
        if not m:
            continue  # the program's own output
        body = (m.group(1) or "").rstrip()
        stripped = body.strip()
        if not stripped:
            current = None
            continue
        if BANNER.match(stripped):
            continue
        summary = ERROR_SUMMARY.match(stripped)
        race = RACE_SUMMARY.match(stripped)
        if summary or race or LEAK_SUMMARY.match(stripped) or stripped.startswith(("ERROR SUMMARY", "RACECHECK SUMMARY")):
            report.summary_lines.append(stripped)
            if summary:
                report.error_summaries.append(int(summary.group(1)))
            elif race:
                report.race_summaries.append(tuple(int(g) for g in race.groups()))
            elif not LEAK_SUMMARY.match(stripped):
                # A summary we cannot read: count it as unparsed problems so the run cannot pass.
                report.error_summaries.append(sys.maxsize)
            current = None
            continue
        if PROCESS_LINE.match(stripped):
            current = Record([stripped], kind="process")
            report.records.append(current)
            continue
        if current is None or HEADER.match(stripped):
            current = Record([stripped])
            report.records.append(current)
        else:
            current.lines.append(stripped)
    return report


def apply_allowlist(report: SanitizerReport, tool: str, entries: Sequence[AllowEntry]) -> None:
    for record in report.findings:
        record.allowed_by = next((e for e in entries if e.applies_to(tool) and e.pattern.search(record.text)), None)


# ---------------------------------------------------------------------------------------------
# The test program's gtest summary
# ---------------------------------------------------------------------------------------------


@dataclass
class GtestResult:
    ran: Optional[int] = None     # None: the summary line never came (the program died)
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    failed_names: List[str] = field(default_factory=list)
    skipped_names: List[str] = field(default_factory=list)
    skip_reasons: List[str] = field(default_factory=list)


def parse_gtest_output(text: str) -> GtestResult:
    g = GtestResult()
    for raw in text.splitlines():
        line = raw.rstrip("\r")
        if line.startswith("========="):
            continue
        if m := re.match(r"^\[==========\] (\d+) tests? from \d+ test suites? ran", line):
            g.ran = int(m.group(1))
        elif m := re.match(r"^\[  PASSED  \] (\d+) tests?", line):
            g.passed = int(m.group(1))
        elif m := re.match(r"^\[  FAILED  \] (\d+) tests?, listed below", line):
            g.failed = int(m.group(1))
        elif m := re.match(r"^\[  SKIPPED \] (\d+) tests?, listed below", line):
            g.skipped = int(m.group(1))
        elif m := re.match(r"^\[  FAILED  \] (\S+)", line):
            if m.group(1) not in g.failed_names:
                g.failed_names.append(m.group(1))
        elif m := re.match(r"^\[  SKIPPED \] (\S+)", line):
            if m.group(1) not in g.skipped_names:
                g.skipped_names.append(m.group(1))
        elif m := re.search(r"(no GPU: .*)$", line):
            if m.group(1) not in g.skip_reasons:
                g.skip_reasons.append(m.group(1))
    return g


# ---------------------------------------------------------------------------------------------
# The verdict
# ---------------------------------------------------------------------------------------------


@dataclass
class Verdict:
    code: int
    lines: List[str]


def judge(tool: str, report: SanitizerReport, gtest: GtestResult, returncode: Optional[int],
          timed_out: bool = False, timeout: float = 0.0) -> Verdict:
    """Exit status and explanation from the parsed report, the test summary and the exit code."""
    problems: List[str] = []
    notes: List[str] = []
    if report.unsupported is not None:
        return Verdict(EXIT_SKIP, [f"SKIPPED: compute-sanitizer cannot check this device here: {report.unsupported}"])
    if timed_out:
        problems.append(f"the run did not finish within {timeout:g} s and was stopped")

    # The tests themselves.
    if gtest.ran is None:
        problems.append("the test program printed no gtest summary: it crashed, was killed or never started")
    elif gtest.ran == 0:
        problems.append("the gtest filter selected no test")
    elif gtest.skipped == gtest.ran and gtest.failed == 0 and not report.findings:
        reason = "; ".join(gtest.skip_reasons) or "every test reported SKIPPED"
        return Verdict(EXIT_SKIP, [f"SKIPPED: all {gtest.ran} tests skipped ({reason})"])
    else:
        notes.append(f"tests: {gtest.ran} ran, {gtest.passed} passed, {gtest.failed} failed, {gtest.skipped} skipped")
        if gtest.failed:
            names = ", ".join(gtest.failed_names[:10]) + (" ..." if len(gtest.failed_names) > 10 else "")
            problems.append(f"{gtest.failed} test(s) failed under {tool}: {names}")
        if gtest.skipped:
            problems.append(f"{gtest.skipped} test(s) skipped: their code paths went unchecked "
                            f"({', '.join(gtest.skipped_names[:5])})")
        if gtest.passed + gtest.failed + gtest.skipped != gtest.ran:
            problems.append(f"the gtest summary does not add up ({gtest.ran} ran, {gtest.passed} passed, "
                            f"{gtest.failed} failed, {gtest.skipped} skipped)")

    # The tool's report.
    if not report.has_summary():
        problems.append("compute-sanitizer printed no ERROR SUMMARY / RACECHECK SUMMARY: it did not finish, "
                        "or rejected an option (see the log)")
    findings = report.findings
    unparsed = report.reported_count() - len(findings) - len(report.process_records)
    if unparsed > 0:
        counted = "an unreadable summary" if report.reported_count() == sys.maxsize else \
            f"{report.reported_count()} problem(s)"
        problems.append(f"compute-sanitizer's summary counts {counted} but {len(findings)} report(s) were parsed: "
                        "a report format this runner does not know, or reports not printed (see the log)")
    notes.extend("summary: " + s for s in report.summary_lines)
    for r in report.process_records:
        notes.append("compute-sanitizer: " + r.header)

    allowed = [r for r in findings if r.allowed_by is not None]
    refused = [r for r in findings if r.allowed_by is None]
    notes.append(f"reports: {len(findings)} ({len(allowed)} allow-listed, {len(refused)} not)")
    for group in group_records(allowed):
        entry = group[0].allowed_by
        notes.append(f"  allow-listed x{len(group)} by line {entry.line} ({entry.reason}): {group[0].header}")
    if refused:
        problems.append(f"{len(refused)} report(s) not in the allow-list, {len(group_records(refused))} distinct:")
        for group in group_records(refused):
            problems.append(f"  x{len(group)}:")
            problems.extend("    " + l for l in group[0].lines[:14])
        problems.append("  A benign one goes into tests/sanitizer/allowlist.txt with the reason (format in the "
                        "file); anything else is a bug to fix.")

    # --error-exitcode makes any report exit 1, allow-listed or not; otherwise a failing status needs
    # an explanation.
    if returncode not in (0, None) and not problems and not findings:
        problems.append(f"compute-sanitizer exited with status {returncode} without a report or test failure "
                        "to explain it (see the log)")
    if problems:
        return Verdict(EXIT_FAIL, notes + ["FAIL:"] + problems)
    return Verdict(EXIT_PASS, notes + ["PASS"])


def group_records(records: Sequence[Record]) -> List[List[Record]]:
    groups: Dict[str, List[Record]] = {}
    for r in records:
        groups.setdefault(r.signature(), []).append(r)
    return list(groups.values())


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


def main(argv: Optional[Sequence[str]] = None) -> int:
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
    args = parser.parse_args(argv)

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

    env = dict(os.environ, TC_KERNEL=os.path.abspath(args.kernel))
    log_path = args.log or f"sanitizer-{args.tool}.log"
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
    # Before --log-file takes effect (e.g. a rejected option) the tool writes to stdout: parse both.
    report = parse_sanitizer_output(tool_output + "\n" + program_output)
    gtest = parse_gtest_output(program_output)
    apply_allowlist(report, args.tool, entries)
    verdict = judge(args.tool, report, gtest, returncode, timed_out, args.timeout)

    os.makedirs(os.path.dirname(os.path.abspath(log_path)), exist_ok=True)
    with open(log_path, "w", encoding="utf-8") as f:
        f.write(f"command: TC_KERNEL={env['TC_KERNEL']} {' '.join(cmd)}\n")
        f.write(f"exit status: {returncode}, {elapsed:.1f} s{' (timed out)' if timed_out else ''}\n")
        f.write("---- compute-sanitizer report ----\n" + tool_output)
        f.write("\n---- test program output ----\n" + program_output)
        f.write("\n---- verdict ----\n" + "\n".join(verdict.lines) + "\n")
    print(f"{args.tool} on {os.path.basename(args.kernel)}: exit status {returncode}, {elapsed:.1f} s; "
          f"full output in {log_path}")
    print("\n".join(verdict.lines))
    return verdict.code


if __name__ == "__main__":
    sys.exit(main())
