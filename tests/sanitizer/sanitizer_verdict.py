"""The sanitizer tier's verdict on one run: an exit status and the lines that explain it, from the
parsed compute-sanitizer report (allow-list applied), the test program's gtest summary, and how the
run ended.

Exit status:
   0  the tests all ran and passed, and every record the tool reported is allow-listed
   1  a record is not allow-listed, a test failed or was skipped, the tool's report is missing or
      inconsistent (a summary counting more errors than were parsed), or the run timed out
   2  usage: a missing program or library, a malformed allow-list (run_sanitizer.py decides these)
  77  it cannot run here: no compute-sanitizer, or no GPU (the reason is printed; ctest: Skipped)

Python 3 standard library only. docs/sanitizer.md describes the tier.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import List, Optional

from sanitizer_report import GtestResult, SanitizerReport, group_records

EXIT_PASS, EXIT_FAIL, EXIT_USAGE, EXIT_SKIP = 0, 1, 2, 77


@dataclass
class Verdict:
    code: int
    lines: List[str]


def judge(tool: str, report: SanitizerReport, gtest: GtestResult, returncode: Optional[int],
          timed_out: bool = False, timeout: float = 0.0, allow_na: bool = False,
          record_details: bool = True) -> Verdict:
    """Exit status and explanation from the parsed report, the test summary and the exit code.
    allow_na: tests the kernel library skipped as n/a (it does not implement them) do not fail the
    run. record_details: list each refused record's lines (off where a caller lists them itself)."""
    if report.unsupported is not None:
        return Verdict(EXIT_SKIP, [f"SKIPPED: compute-sanitizer cannot check this device here: {report.unsupported}"])
    if gtest.ran and gtest.skipped == gtest.ran and gtest.failed == 0 and not report.findings:
        reasons = gtest.skip_reasons + ["n/a: " + r for r in gtest.na_reasons]
        reason = "; ".join(reasons) or "every test reported SKIPPED"
        return Verdict(EXIT_SKIP, [f"SKIPPED: all {gtest.ran} tests skipped ({reason})"])
    problems: List[str] = []
    notes: List[str] = []
    if timed_out:
        problems.append(f"the run did not finish within {timeout:g} s and was stopped")
    check_tests(tool, gtest, problems, notes, allow_na)
    check_report(report, problems, notes, record_details)
    # --error-exitcode makes any report exit 1, allow-listed or not; otherwise a failing status needs
    # an explanation.
    if returncode not in (0, None) and not problems and not report.findings:
        problems.append(f"compute-sanitizer exited with status {returncode} without a report or test failure "
                        "to explain it (see the log)")
    if problems:
        return Verdict(EXIT_FAIL, notes + ["FAIL:"] + problems)
    return Verdict(EXIT_PASS, notes + ["PASS"])


def check_tests(tool: str, gtest: GtestResult, problems: List[str], notes: List[str], allow_na: bool = False) -> None:
    """The tests themselves: they must all have run and passed (a skipped one went unchecked, unless
    allow_na and the library declared it n/a: then there is no code path of it to check)."""
    if gtest.ran is None:
        problems.append("the test program printed no gtest summary: it crashed, was killed or never started")
        return
    if gtest.ran == 0:
        problems.append("the gtest filter selected no test")
        return
    notes.append(f"tests: {gtest.ran} ran, {gtest.passed} passed, {gtest.failed} failed, {gtest.skipped} skipped"
                 f" ({gtest.na_skipped} as n/a)")
    if gtest.failed:
        names = ", ".join(gtest.failed_names[:10]) + (" ..." if len(gtest.failed_names) > 10 else "")
        problems.append(f"{gtest.failed} test(s) failed under {tool}: {names}")
    if gtest.skipped and allow_na and gtest.na_skipped >= gtest.skipped:
        notes.append(f"{gtest.skipped} test(s) n/a, allowed by --allow-na: {'; '.join(gtest.na_reasons[:3])}")
    elif gtest.skipped:
        problems.append(f"{gtest.skipped} test(s) skipped: their code paths went unchecked "
                        f"({', '.join(gtest.skipped_names[:5])})")
    if gtest.passed + gtest.failed + gtest.skipped != gtest.ran:
        problems.append(f"the gtest summary does not add up ({gtest.ran} ran, {gtest.passed} passed, "
                        f"{gtest.failed} failed, {gtest.skipped} skipped)")


def check_report(report: SanitizerReport, problems: List[str], notes: List[str], record_details: bool = True) -> None:
    """The tool's report: complete (its summary counts no more than was parsed) and every record
    allow-listed."""
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
    if refused and not record_details:
        problems.append(f"{len(refused)} report(s) not in the allow-list, {len(group_records(refused))} distinct")
    elif refused:
        problems.append(f"{len(refused)} report(s) not in the allow-list, {len(group_records(refused))} distinct:")
        for group in group_records(refused):
            problems.append(f"  x{len(group)}:")
            problems.extend("    " + l for l in group[0].lines[:14])
        problems.append("  A benign one goes into tests/sanitizer/allowlist.txt with the reason (format in the "
                        "file); anything else is a bug to fix.")
