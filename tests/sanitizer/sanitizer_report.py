"""What a sanitizer run printed, parsed: compute-sanitizer's report (its own lines start with
'=========') into records, one per reported problem, with the tool's summary counts; and the test
program's gtest summary (how many tests ran, passed, failed, were skipped, and which).

Python 3 standard library only. docs/sanitizer.md describes the tier.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, NamedTuple, Optional, Tuple

from sanitizer_allowlist import AllowEntry

# ---------------------------------------------------------------------------------------------
# compute-sanitizer's report
# ---------------------------------------------------------------------------------------------

PREFIX = "========="  # the tool's own lines: the prefix alone, or it and a space
BANNERS = ("COMPUTE-SANITIZER", "CUDA-MEMCHECK")
ERROR_SUMMARY = re.compile(r"^ERROR SUMMARY: (\d+) errors?\b")
RACE_SUMMARY = re.compile(r"^RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)")
LEAK_SUMMARY = re.compile(r"^LEAK SUMMARY:")
# The tool cannot check this device or runtime (seen on a gVisor machine: "Device not supported").
UNSUPPORTED = re.compile(r"device (is )?not supported|unsupported device", re.I)
# Lines that end the program's run rather than report a problem in it (the test verdict decides).
PROCESS_LINES = ("Target application returned an error", "Error: process didn't terminate successfully",
                 "Error: Target application terminated")
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
LOCATION = re.compile(r"^(?P<who>.*?)\bat (?P<function>.+) in (?P<file>\S+?):(?P<line>\d+)(?::(?P<tail>\S+))?"
                      r"(?: \[\d+ hazards?\])?\s*$")
ACCESS = re.compile(r"\b(Read|Write|Atomic)\b")
AT = re.compile(r"\bat ")
# What follows "at ": the same text recurs in every record of one pair (only threads differ), so it is
# parsed once (WHERE_SEEN: text -> (bare function, file, line), or None when it is not a location).
WHERE = re.compile(r"^(?P<function>.+) in (?P<file>\S+?):(?P<line>\d+)(?::(?P<tail>\S+))?(?: \[\d+ hazards?\])?\s*$")
WHERE_SEEN: Dict[str, Optional[Tuple[str, str, int]]] = {}
# racecheck's records: "Potential WAR hazard detected at ..." (hazard report), "Race reported between ..." (analysis).
HAZARD = re.compile(r"\bPotential (\w+) hazard\b")
RACE = re.compile(r"\bRace reported between\b")
MEMCPY_ASYNC = "(invalid memcpy_async synchronization)"
OFFSET = re.compile(r"\+0x[0-9a-fA-F]+$")
ADDRESS = re.compile(r"^0x[0-9a-fA-F]+$")


class Access(NamedTuple):
    """One access a record names, without thread, address or instruction offset."""
    kind: str        # "Read", "Write", "Atomic"; "at" for the one location of a memcheck/initcheck/synccheck record
    function: str    # the bare name: "ldsm4", "tc::device::marlin_w4a16" ("": the tool named only an address)
    path: str        # the source file as the kernel was compiled
    line: int

    def describe(self) -> str:
        return f"{self.kind} {self.path}:{self.line}" + (f" in {self.function}" if self.function else "")


class RecordKey(NamedTuple):
    """What makes two records the same report: for racecheck the hazard kind, the memcpy_async mark and
    each access (kind, function, file:line); for the other tools the header without addresses or
    threads and the location lines. Threads, blocks, addresses, offsets, values, instantiations aside."""
    hazard: str                  # "WAR", "RAW", "WAW"; "race" (analysis report); "" (not racecheck's)
    memcpy_async: bool           # racecheck marked it "(invalid memcpy_async synchronization)"
    header: str                  # other tools: the normalized header ("" for racecheck's)
    accesses: Tuple[Access, ...]

    def title(self) -> str:
        if not self.hazard:
            return self.header
        what = "race reported" if self.hazard == "race" else f"{self.hazard} hazard"
        return what + (" " + MEMCPY_ASYNC if self.memcpy_async else "")


_BARE_NAMES: Dict[str, str] = {}


LAMBDA = re.compile(r"\[lambda\([^\[\]]*?\)\s*\(instance (\d+)\)\]")
QUALIFIERS = {"const", "volatile", "&", "&&", "noexcept"}


def bare_function(function: str) -> str:
    """"void tc::device::marlin_w4a16<(int)1, ...>(tc::device::KernelArgs)+0x1c40" -> "tc::device::marlin_w4a16":
    no offset, template arguments, parameters or return type. "" for a bare address."""
    cached = _BARE_NAMES.get(function)  # keyed on the text as printed: few distinct (function, offset)
    if cached is not None:
        return cached
    # A lambda's call operator, "Marlin<...>(...)::[lambda(int, int) (instance 4)]::operator ()(int, int) const":
    # "Marlin::lambda4::operator" (cv- and ref-qualifiers after the parameters dropped below).
    text = LAMBDA.sub(r"lambda\1", OFFSET.sub("", function.strip())).replace("operator ()", "operator()")
    kept, depth = [], 0
    for ch in text:
        if ch in "(<":
            depth += 1
        elif ch in ")>":
            depth = max(depth - 1, 0)
        elif depth == 0:
            kept.append(ch)
    words = "".join(kept).split()
    while words and words[-1] in QUALIFIERS:
        words.pop()
    name = "" if not words or ADDRESS.match(words[-1]) else words[-1]
    if len(_BARE_NAMES) < 100_000:
        _BARE_NAMES[function] = name
    return name


def normalize(text: str) -> str:
    """Threads, blocks and addresses out: "(3,0,0)" -> "(..)", "0x4000" -> "0x.."."""
    text = re.sub(r"\(\s*\d+\s*,\s*\d+\s*,\s*\d+\s*\)", "(..)", text)
    return re.sub(r"0x[0-9a-fA-F]+", "0x..", text)


def where_of(text: str) -> Optional[Tuple[str, str, int]]:
    """"<function>+0x1c40 in <file>:<line>" -> (bare function, file, line); None if it is not that."""
    if text in WHERE_SEEN:
        return WHERE_SEEN[text]
    m = WHERE.match(text)
    where = None
    if m:
        function = bare_function(m.group("function"))
        if not function and m.group("tail"):  # "at 0x1ab0 in f.cuh:146:Kernel": the function comes last
            function = bare_function(m.group("tail"))
        where = (function, m.group("file"), int(m.group("line")))
    if len(WHERE_SEEN) < 100_000:
        WHERE_SEEN[text] = where
    return where


@dataclass
class Record:
    lines: List[str] = field(default_factory=list)
    kind: str = "report"          # "report" (must be allow-listed) or "process"
    allowed_by: Optional[AllowEntry] = None
    source_notes: Tuple[str, ...] = ()   # why a source-form entry could not check this record (unreadable source)
    _key: Optional[RecordKey] = field(default=None, repr=False, compare=False)

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
                found.append(f"{who} {m.group('file')}:{m.group('line')} ({m.group('function')})")
        return found

    def accesses(self) -> Tuple[Access, ...]:
        found = []
        # A hazard report's header names no access ("... hazard detected at __shared__ 0x40 in block (0,0,0) :").
        for line in self.lines[1:] if "hazard detected at" in self.lines[0] else self.lines:
            if " in " not in line or line.startswith(("Host Frame", "Device Frame")):
                continue
            at = AT.search(line)
            start = at.end() if at else 0
            where = where_of(line[start:]) if at else None
            if where is None:  # not right after the first "at ": read it as LOCATION does
                m = LOCATION.match(line)
                start = m.start("function") if m else 0
                where = where_of(line[start:]) if m else None
                if where is None:
                    continue
            who = line[:start - 3]  # before "at "
            access = ACCESS.match(who) or ACCESS.search(who)
            found.append(Access(access.group(1) if access else "at", *where))
        return tuple(found)

    def key(self) -> RecordKey:
        if self._key is None:
            header = self.lines[0]
            hazard = HAZARD.search(header)
            kind = hazard.group(1) if hazard else ("race" if RACE.search(header) else "")
            self._key = RecordKey(kind, MEMCPY_ASYNC in header, "" if kind else normalize(header), self.accesses())
        return self._key


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
        """How many problems the tool's ERROR SUMMARY lines count (the largest of them)."""
        return max(self.error_summaries) if self.error_summaries else 0

    def has_summary(self) -> bool:
        return bool(self.error_summaries or self.race_summaries)


def parse_sanitizer_output(text: str) -> SanitizerReport:
    """Parse compute-sanitizer's text (only lines that start with '=========' are its own)."""
    report = SanitizerReport()
    current: Optional[Record] = None
    for raw in text.splitlines():
        if report.unsupported is None and ("upport" in raw or "UPPORT" in raw) and UNSUPPORTED.search(raw):
            report.unsupported = raw.strip()
        if not raw.startswith(PREFIX) or raw[9:10] not in ("", " "):
            continue  # the program's own output
        stripped = raw[9:].strip()
        if not stripped:
            current = None
            continue
        if stripped in BANNERS:
            continue
        if stripped.startswith(("ERROR SUMMARY", "RACECHECK SUMMARY", "LEAK SUMMARY")):
            summary = ERROR_SUMMARY.match(stripped)
            race = RACE_SUMMARY.match(stripped)
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
        if stripped.startswith(PROCESS_LINES):
            current = Record([stripped], kind="process")
            report.records.append(current)
            continue
        if current is None or HEADER.match(stripped):
            current = Record([stripped])
            report.records.append(current)
        else:
            current.lines.append(stripped)
    return report


@dataclass
class RecordGroup:
    """The records of one distinct report (one RecordKey) that the same allow-list entry allowed (or none did)."""
    key: RecordKey
    allowed_by: Optional[AllowEntry]
    first: Record
    order: int                                  # first appearance, for a stable listing
    count: int = 0
    configs: Dict[str, int] = field(default_factory=dict)   # configuration -> records (--per-config)
    notes: List[str] = field(default_factory=list)          # source not readable, ...


class RecordGroups:
    """Records grouped by RecordKey and allowing entry, with counts, over one run or several
    configurations; linear in the number of records."""

    def __init__(self) -> None:
        self._groups: Dict[Tuple[RecordKey, Optional[int]], RecordGroup] = {}

    def add(self, records: Iterable[Record], config: Optional[str] = None) -> "RecordGroups":
        for r in records:
            entry = r.allowed_by
            ident = (r.key(), None if entry is None else entry.line)
            group = self._groups.get(ident)
            if group is None:
                group = self._groups[ident] = RecordGroup(ident[0], entry, r, len(self._groups))
            group.count += 1
            if config is not None:
                group.configs[config] = group.configs.get(config, 0) + 1
            for note in r.source_notes:
                if note not in group.notes:
                    group.notes.append(note)
        return self

    def sorted(self) -> List[RecordGroup]:
        """Not allow-listed first, then the most frequent, then in order of first appearance."""
        return sorted(self._groups.values(), key=lambda g: (g.allowed_by is not None, -g.count, g.order))


def group_records(records: Iterable[Record]) -> List[RecordGroup]:
    return RecordGroups().add(records).sorted()


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
