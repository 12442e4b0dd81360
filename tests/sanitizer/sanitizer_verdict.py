"""The sanitizer tier's verdict on one run: an exit status and the lines that explain it, from the
parsed compute-sanitizer report (allow-list applied), the test program's gtest summary, and how the
run ended.

Exit status:
   0  the tests all ran and passed, and every record the tool reported is allow-listed
   1  a record is not allow-listed, a test failed or was skipped, the tool's report is missing or
      inconsistent (a summary counting more errors than were parsed; racecheck displaying fewer
      hazards than it found, or other than were parsed), or the run timed out
   2  usage: a missing program or library, a malformed allow-list (run_sanitizer.py decides these)
  77  it cannot run here: no compute-sanitizer, or no GPU (the reason is printed; ctest: Skipped)

Python 3 standard library only. docs/sanitizer.md describes the tier.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import List, Optional, Sequence

from sanitizer_report import GtestResult, RecordGroup, SanitizerReport, group_records

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
    run. record_details: list every distinct record with its count (off where a caller lists them
    itself, over several runs)."""
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
    """The tool's report: complete (its summaries count no more than was parsed; racecheck displayed
    every hazard it found) and every record allow-listed. record_details: list every distinct record."""
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
    check_race_summary(report, problems)
    notes.extend("summary: " + s for s in report.summary_lines)
    for r in report.process_records:
        notes.append("compute-sanitizer: " + r.header)

    groups = group_records(findings)
    refused = [g for g in groups if g.allowed_by is None]
    refused_count = sum(g.count for g in refused)
    if record_details:
        notes.extend(describe_groups("records", groups))
    else:
        notes.append(f"records: {len(findings)} ({len(findings) - refused_count} allow-listed, {refused_count} not), "
                     f"{len(groups)} distinct")
    if refused:
        problems.append(f"{refused_count} report(s) not in the allow-list, {len(refused)} distinct"
                        + (" (listed above)" if record_details else ""))
        if record_details:
            problems.append("  A benign one goes into tests/sanitizer/allowlist.txt with the reason (format in the "
                            "file); anything else is a bug to fix.")


def check_race_summary(report: SanitizerReport, problems: List[str]) -> None:
    """racecheck's "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)": every hazard found
    must have been displayed (N = E + W: no print limit in force) and parsed (N records)."""
    if not report.race_summaries:
        return
    displayed = sum(d for d, _, _ in report.race_summaries)
    errors = sum(e for _, e, _ in report.race_summaries)
    warnings = sum(w for _, _, w in report.race_summaries)
    found = errors + warnings
    if displayed < found:
        problems.append(f"racecheck displayed {displayed} of the {found} hazards it found ({errors} errors, {warnings} "
                        f"warnings): a print limit is in force (--print-limit), and the {found - displayed} hazards "
                        "not displayed were never judged")
    parsed = sum(1 for r in report.findings if r.key().hazard)
    if displayed != parsed:
        problems.append(f"racecheck's summary says {displayed} hazards displayed but {parsed} were parsed: a report "
                        "format this runner does not know, or a report cut short (see the log)")


def describe_groups(what: str, groups: Sequence[RecordGroup], with_configs: bool = False) -> List[str]:
    """Every distinct record once, not allow-listed first, with its count, where the tool said each
    access happened and, over several configurations, the configurations it came from."""
    total = sum(g.count for g in groups)
    refused = sum(g.count for g in groups if g.allowed_by is None)
    head = f"{what}: {total} ({total - refused} allow-listed, {refused} not)"
    if not groups:
        return [head]
    lines = [f"{head}, {len(groups)} distinct:"]
    for g in groups:
        allowed = f"allow-listed by line {g.allowed_by.line}" if g.allowed_by else "NOT allow-listed"
        lines.append(f"  [{allowed}] x{g.count} {g.key.title()}")
        if with_configs:
            lines.append("      in " + ", ".join(f"{c} x{n}" for c, n in g.configs.items()))
        lines.extend("      " + a.describe() for a in g.key.accesses)
        if not g.key.accesses:
            lines.append("      (the tool named no source line)")
        lines.extend("      " + n for n in g.notes)
    return lines
