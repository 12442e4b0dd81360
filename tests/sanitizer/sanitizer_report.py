"""What a sanitizer run printed, parsed: compute-sanitizer's report (its own lines start with
'=========') into records, one per reported problem, with the tool's summary counts; and the test
program's gtest summary (how many tests ran, passed, failed, were skipped, and which).

Python 3 standard library only. docs/sanitizer.md describes the tier.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from sanitizer_allowlist import AllowEntry

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

# A line naming where an access happened: "Read Thread (37,0,0) at <function>+0x1c40 in <file>:<line>",
# "at <function>+0x8f0 in <file>:<line>", "and Read access at <function> in <file>:<line> [64 hazards]",
# "Write Thread (24, 0, 0) at 0x00001ab0 in <file>:<line>:Kernel" (the function may contain spaces).
LOCATION = re.compile(r"^(?P<who>.*?)\bat (?P<function>.+) in (?P<file>\S+?:\d+)(?::\w+)?(?: \[\d+ hazards?\])?\s*$")
ACCESS = re.compile(r"\b(Read|Write|Atomic)\b")


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

    def locations(self) -> List[str]:
        """The source locations the tool named, one per access: "Read marlin_kernel.cuh:376
        (void f<...>(...)+0x1c40)" for each of racecheck's two accesses, "at marlin_kernel.cuh:162
        (...)" for the one of memcheck, initcheck or synccheck. Threads and backtraces are left out."""
        found = []
        for line in self.lines:
            m = None if line.startswith("Host Frame") else LOCATION.match(line)
            if m:
                access = ACCESS.search(m.group("who"))
                who = access.group(1) if access else "at"
                found.append(f"{who} {m.group('file')} ({m.group('function')})")
        return found

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


def group_records(records: Sequence[Record]) -> List[List[Record]]:
    groups: Dict[str, List[Record]] = {}
    for r in records:
        groups.setdefault(r.signature(), []).append(r)
    return list(groups.values())


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
    # Skips whose message is "n/a: <reason>": the kernel library does not implement the cell
    # (TC_ERR_UNSUPPORTED; tests/suite/suite_gpu_test.cpp). gtest prints "<file>:<line>: Skipped"
    # and the message on the next line, even with --gtest_brief=1.
    na_skipped: int = 0
    na_reasons: List[str] = field(default_factory=list)


def parse_gtest_output(text: str) -> GtestResult:
    g = GtestResult()
    after_skip = False
    for raw in text.splitlines():
        line = raw.rstrip("\r")
        if line.startswith("========="):
            continue
        if after_skip and line.startswith("n/a: "):
            g.na_skipped += 1
            if line[5:] not in g.na_reasons:
                g.na_reasons.append(line[5:])
        after_skip = line.endswith(": Skipped")
        if m := re.match(r"^\[==========\] (\d+) tests? from \d+ test suites? ran", line):
            g.ran = int(m.group(1))
        elif m := re.match(r"^\[  PASSED  \] (\d+) tests?", line):
            g.passed = int(m.group(1))
        elif m := re.match(r"^\[  FAILED  \] (\d+) tests?, listed below", line):
            g.failed = int(m.group(1))
        elif m := re.match(r"^\[  SKIPPED \] (\d+) tests?(, listed below|\.)", line):  # brief: no list
            g.skipped = int(m.group(1))
        elif m := re.match(r"^\[  FAILED  \] (\S+)", line):
            if m.group(1).isdigit():  # "[  FAILED  ] 1 test, listed below:" without the usual form
                continue
            if m.group(1) not in g.failed_names:
                g.failed_names.append(m.group(1))
        elif m := re.match(r"^\[  SKIPPED \] (\S+)", line):
            if m.group(1).isdigit():
                continue
            if m.group(1) not in g.skipped_names:
                g.skipped_names.append(m.group(1))
        elif m := re.search(r"(no GPU: .*)$", line):
            if m.group(1) not in g.skip_reasons:
                g.skip_reasons.append(m.group(1))
    if not g.failed and g.failed_names:  # --gtest_brief=1 names each failure but prints no count
        g.failed = len(g.failed_names)
    return g
