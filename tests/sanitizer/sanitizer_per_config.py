"""The per-configuration mode of the sanitizer tier (run_sanitizer.py --per-config): one
compute-sanitizer process per kernel configuration, then one verdict over all of them.

In one process, a kernel that faults (an illegal instruction, an illegal address) takes the
process's CUDA context with it, and every later cell fails at its first allocation: the run says
nothing about the other configurations. Here the tests the filter selects are listed
(`<suite> --gtest_list_tests`), grouped by the configuration in their cell names
(sanitizer_configs.py), and each group runs in a process of its own. A configuration whose process
faulted is FAULT with the tool's records; the others still run and are judged. Every record stays
with the configuration it came from, and the distinct ones are listed once over all of them with the
source locations the tool printed.

Python 3 standard library only. docs/sanitizer.md describes the tier.
"""
from __future__ import annotations

import re
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, List, Optional

from sanitizer_allowlist import AllowEntry, SourceCache, apply_allowlist
from sanitizer_configs import ConfigGroup
from sanitizer_process import Run
from sanitizer_report import GtestResult, RecordGroups, SanitizerReport, parse_gtest_output, parse_sanitizer_output
from sanitizer_verdict import EXIT_FAIL, EXIT_PASS, EXIT_SKIP, Verdict, describe_groups, judge

# The tool's records that mean the kernel or the CUDA context died (sanitizer_report.HEADER).
DEVICE_FAULT = re.compile(r"^(?:(?:Warp\s|Lane\s)?(?:Illegal|Misaligned|Out-of-range|Malformed|Hardware)\b"
                          r"|Program hit cudaError)")
# The program's own words for it: a cell's "FAULT: ..." (suite/src/device_case.cpp, describe_fault)
# and any CUDA error name, e.g. "cudaMalloc ... cudaErrorIllegalInstruction" after the context is lost.
PROGRAM_FAULT = re.compile(r"\bFAULT: |\bcudaError[A-Z]\w*")

# A process that runs one configuration's tests: (group, seconds it may take; 0: no limit) -> Run.
RunGroup = Callable[[ConfigGroup, float], Run]


@dataclass
class ConfigOutcome:
    group: ConfigGroup
    run: Optional[Run]                 # None: never started, the deadline had passed
    report: SanitizerReport = field(default_factory=SanitizerReport)
    gtest: GtestResult = field(default_factory=GtestResult)
    full: Verdict = field(default_factory=lambda: Verdict(EXIT_FAIL, ["FAIL:", "not run"]))  # for the log
    brief: Verdict = field(default_factory=lambda: Verdict(EXIT_FAIL, ["FAIL:", "not run"]))  # for the summary
    faults: List[str] = field(default_factory=list)
    allow_na: bool = False

    @property
    def status(self) -> str:
        """PASS or N/A (every test n/a, with --allow-na): clean. FAULT, FAIL, SKIPPED, NOT RUN: not."""
        if self.run is None:
            return "NOT RUN"
        if self.faults:
            return "FAULT"
        if self.full.code == EXIT_SKIP and self.allow_na and self.gtest.ran and \
                self.gtest.na_skipped >= self.gtest.skipped == self.gtest.ran:
            return "N/A"
        return {EXIT_PASS: "PASS", EXIT_SKIP: "SKIPPED"}.get(self.full.code, "FAIL")

    @property
    def clean(self) -> bool:
        return self.status in ("PASS", "N/A")

    def problems(self) -> List[str]:
        """What is wrong, for the summary (the log has the whole verdict)."""
        lines = self.brief.lines
        if "FAIL:" in lines:
            return [l for l in lines[lines.index("FAIL:") + 1:] if l.strip()]
        return lines if self.status == "SKIPPED" else []


def fault_reasons(run: Run, report: SanitizerReport, gtest: GtestResult) -> List[str]:
    """Why the process counts as faulted: a device exception or CUDA error, a crash, a hang, or a
    non-zero exit with failed tests. Empty: it ran to its end (hazards alone are no fault)."""
    reasons: List[str] = []
    if run.timed_out:
        reasons.append(f"stopped at its deadline after {run.seconds:.0f} s (a hang, or too slow under the tool)")
    device = [r for r in report.findings if DEVICE_FAULT.match(r.header)]
    if device:
        more = f" (and {len(device) - 1} more)" if len(device) > 1 else ""
        reasons.append(f"the tool reported: {device[0].header}{more}")
    printed = [l.strip() for l in run.program_output.splitlines()
               if not l.startswith("=========") and PROGRAM_FAULT.search(l)]
    if printed:
        more = f" (and {len(printed) - 1} more such lines)" if len(printed) > 1 else ""
        reasons.append(f"the program printed: {printed[0][:240]}{more}")
    if gtest.ran is None and not run.timed_out:
        reasons.append(f"the program printed no gtest summary (exit status {run.returncode}): it crashed or was killed")
    elif run.returncode not in (0, None) and gtest.failed:
        reasons.append(f"exit status {run.returncode} with {gtest.failed} failed test(s)")
    return reasons


def judge_config(tool: str, group: ConfigGroup, run: Run, entries: List[AllowEntry], timeout: float,
                 allow_na: bool, sources: Optional[SourceCache] = None) -> ConfigOutcome:
    # Before --log-file takes effect (e.g. a rejected option) the tool writes to stdout: parse both.
    report = parse_sanitizer_output(run.tool_output + "\n" + run.program_output)
    gtest = parse_gtest_output(run.program_output)
    apply_allowlist(report, tool, entries, sources)
    full = judge(tool, report, gtest, run.returncode, run.timed_out, timeout, allow_na)
    brief = judge(tool, report, gtest, run.returncode, run.timed_out, timeout, allow_na, record_details=False)
    return ConfigOutcome(group, run, report, gtest, full, brief, fault_reasons(run, report, gtest), allow_na)


def run_configs(groups: List[ConfigGroup], run_group: RunGroup, tool: str, entries: List[AllowEntry],
                timeout: float, jobs: int, allow_na: bool, source_dirs: Sequence[str] = ()) -> List[ConfigOutcome]:
    """Runs every group (up to `jobs` at once); `timeout` (0: none) bounds all of them together: a
    group that would start after it is NOT RUN."""
    deadline = time.monotonic() + timeout if timeout > 0 else None
    sources = SourceCache(source_dirs)  # each source file read once over all configurations

    def one(group: ConfigGroup) -> ConfigOutcome:
        left = 0.0
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                why = Verdict(EXIT_FAIL, ["FAIL:", f"not started: the {timeout:g} s deadline had passed"])
                return ConfigOutcome(group, None, full=why, brief=why)
        return judge_config(tool, group, run_group(group, left), entries, left, allow_na, sources)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, groups))


def counts(o: ConfigOutcome) -> str:
    g = o.gtest
    tests = "no gtest summary" if g.ran is None else \
        f"{g.ran} ran, {g.passed} passed, {g.failed} failed, {g.skipped} skipped ({g.na_skipped} n/a)"
    findings = o.report.findings
    allowed = sum(1 for r in findings if r.allowed_by is not None)
    seconds = f"{o.run.seconds:.1f} s" if o.run else "-"
    records = f"{len(findings)} ({allowed} allow-listed, {len(findings) - allowed} not)"
    return f"tests: {tests}; records: {records}; {seconds}"


def distinct_records(outcomes: List[ConfigOutcome]) -> List[str]:
    """Every distinct record over all configurations, once, with its count in each configuration and
    where the tool said each access happened (sanitizer_report.RecordKey: the same hazard in two
    instantiations is one)."""
    groups = RecordGroups()
    for o in outcomes:
        groups.add(o.report.findings, o.group.config)
    merged = groups.sorted()
    return describe_groups("records over all configurations", merged, with_configs=True) if merged else []


def merge(tool: str, outcomes: List[ConfigOutcome]) -> Verdict:
    """One exit status over all configurations: 0 if every one is clean (PASS, or N/A with
    --allow-na) and one passed; 77 if none ran a test (the tool cannot check the device, or every
    test skipped); 1 otherwise."""
    unsupported = [o.report.unsupported for o in outcomes if o.report.unsupported]
    if unsupported and len(unsupported) == len(outcomes):
        return Verdict(EXIT_SKIP, [f"SKIPPED: compute-sanitizer cannot check this device here: {unsupported[0]}"])
    if all(o.status in ("SKIPPED", "N/A") for o in outcomes):
        return Verdict(EXIT_SKIP, [f"SKIPPED: no configuration ran a test; the first: {outcomes[0].full.lines[0]}"])
    width = max(len(o.group.config) for o in outcomes)
    lines = [f"{tool}, per configuration ({len(outcomes)} configurations, one process each):"]
    for o in outcomes:
        lines.append(f"  {o.group.config:<{width}}  {o.status:<7}  {counts(o)}")
        lines.extend(f"  {'':<{width}}    fault: {reason}" for reason in o.faults)
        lines.extend(f"  {'':<{width}}    {p}" for p in o.problems())
    lines.extend(distinct_records(outcomes))
    bad = [o for o in outcomes if not o.clean]
    if bad:
        lines.append(f"FAIL: {len(bad)} of {len(outcomes)} configurations not clean: "
                     + ", ".join(f"{o.group.config} ({o.status})" for o in bad))
        if any(not r.allowed_by for o in outcomes for r in o.report.findings):
            lines.append("  A benign record goes into tests/sanitizer/allowlist.txt with the reason (format in the "
                         "file); anything else is a bug to fix. Each configuration's full report is in the log.")
        return Verdict(EXIT_FAIL, lines)
    lines.append(f"PASS: all {len(outcomes)} configurations clean")
    return Verdict(EXIT_PASS, lines)
