#!/usr/bin/env python3
"""Tests of the sanitizer tier's parsing and judging on canned output (no GPU): compute-sanitizer's
report (sanitizer_report.py; fixtures/: racecheck in hazard, analysis and documentation styles,
memcheck, initcheck, synccheck, unknown formats, a truncated report, an unsupported device) and the
source locations of its records, the gtest summaries (with n/a skips), the allow-list
(sanitizer_allowlist.py) and the verdict (sanitizer_verdict.py).
test_run_sanitizer.py, the ctest entry point (sanitizer_runner_tests, label cpu), runs these too.
"""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # ctest runs this from the source tree
sys.path.insert(0, HERE)
import sanitizer_allowlist  # noqa: E402
import sanitizer_report  # noqa: E402
import sanitizer_verdict  # noqa: E402

FIXTURES = os.path.join(HERE, "fixtures")


def fixture(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as f:
        return f.read()


def judge(tool, sanitizer_fixture, gtest_fixture, returncode=0, allowlist=""):
    report = sanitizer_report.parse_sanitizer_output(fixture(sanitizer_fixture))
    sanitizer_allowlist.apply_allowlist(report, tool, sanitizer_allowlist.parse_allowlist(allowlist))
    return sanitizer_verdict.judge(tool, report, sanitizer_report.parse_gtest_output(fixture(gtest_fixture)), returncode)


class ParseSanitizerOutput(unittest.TestCase):
    def test_clean_reports_have_a_summary_and_no_records(self):
        for name in ("racecheck_clean.txt", "memcheck_clean.txt"):
            report = sanitizer_report.parse_sanitizer_output(fixture(name))
            self.assertTrue(report.has_summary(), name)
            self.assertEqual(report.findings, [], name)
            self.assertEqual(report.reported_count(), 0, name)

    def test_racecheck_hazard_mode_gives_one_record_per_hazard_with_both_accesses(self):
        report = sanitizer_report.parse_sanitizer_output(fixture("racecheck_hazard.txt"))
        self.assertEqual(len(report.findings), 3)
        self.assertEqual(report.race_summaries, [(3, 3, 0)])
        first = report.findings[0]
        self.assertTrue(first.header.startswith("Error: Potential WAR hazard detected at __shared__ 0x4000"))
        self.assertIn("marlin_kernel.cuh:376", first.text)
        self.assertIn("marlin_kernel.cuh:162", first.text)
        self.assertIn("(invalid memcpy_async synchronization)", report.findings[2].header)
        # The two WAR records differ only in address, block and threads: one distinct hazard.
        self.assertEqual(len(sanitizer_report.group_records(report.findings)), 2)

    def test_racecheck_analysis_mode_keeps_the_continuation_lines(self):
        report = sanitizer_report.parse_sanitizer_output(fixture("racecheck_analysis.txt"))
        self.assertEqual(len(report.findings), 2)
        self.assertIn("and Read access at", report.findings[0].text)
        self.assertIn("[64 hazards]", report.findings[0].text)
        self.assertTrue(report.findings[1].header.startswith("Warning: Race reported between"))

    def test_racecheck_documentation_style_without_indentation_or_blank_separators(self):
        report = sanitizer_report.parse_sanitizer_output(fixture("racecheck_docs_style.txt"))
        self.assertEqual([r.header.split(" ")[0] for r in report.findings], ["ERROR:", "WARN:(Warp"])
        self.assertEqual(len(report.findings[0].lines), 4)

    def test_memcheck_access_error_and_api_error_are_two_records(self):
        report = sanitizer_report.parse_sanitizer_output(fixture("memcheck_invalid_read.txt"))
        self.assertEqual([r.header for r in report.findings],
                         ["Invalid __global__ read of size 16 bytes",
                          'Program hit cudaErrorLaunchFailure (error 719) due to "unspecified launch failure" on '
                          "CUDA API call to cudaStreamSynchronize."])
        self.assertEqual(report.error_summaries, [2])
        self.assertIn("Address 0x7f3a2e000400 is out of bounds", report.findings[0].text)

    def test_initcheck_and_synccheck_records(self):
        init = sanitizer_report.parse_sanitizer_output(fixture("initcheck_uninitialized.txt"))
        self.assertEqual([r.header for r in init.findings], ["Uninitialized __shared__ memory read of size 16 bytes",
                                                             "Uninitialized __global__ memory read of size 4 bytes"])
        sync = sanitizer_report.parse_sanitizer_output(fixture("synccheck_divergent.txt"))
        self.assertEqual([r.header for r in sync.findings], ["Barrier error detected. Divergent thread(s) in block"])

    def test_program_output_lines_are_ignored(self):
        text = fixture("gtest_fail.txt") + fixture("memcheck_clean.txt")
        self.assertEqual(sanitizer_report.parse_sanitizer_output(text).findings, [])

    def test_an_unreadable_summary_counts_as_unparsed_problems(self):
        report = sanitizer_report.parse_sanitizer_output("========= ERROR SUMMARY: lots of errors\n")
        self.assertTrue(report.has_summary())
        self.assertGreater(report.reported_count(), 1000)

    def test_records_name_the_source_location_of_each_access(self):
        locations = {}
        for name in ("racecheck_hazard.txt", "racecheck_analysis.txt", "racecheck_docs_style.txt",
                     "memcheck_invalid_read.txt"):
            for r in sanitizer_report.parse_sanitizer_output(fixture(name)).findings:
                locations.setdefault(name, []).append([l.split(" (")[0] for l in r.locations()])
        cuh = "/work/main/kernel/src/marlin_kernel.cuh"
        self.assertEqual(locations["racecheck_hazard.txt"][0], [f"Read {cuh}:376", f"Write {cuh}:162"])
        self.assertEqual(locations["racecheck_hazard.txt"][2], [f"Write {cuh}:181", f"Read {cuh}:383"])
        self.assertEqual(locations["racecheck_analysis.txt"][0], [f"Write {cuh}:175", f"Read {cuh}:213"])
        self.assertEqual(locations["racecheck_docs_style.txt"][1], ["Write warp_scan.cuh:146", "Read warp_scan.cuh:151"])
        self.assertEqual(locations["memcheck_invalid_read.txt"], [[f"at {cuh}:162"], []])  # the API error has none
        first = sanitizer_report.parse_sanitizer_output(fixture("racecheck_hazard.txt")).findings[0]
        self.assertIn("(void tc::device::marlin_w4a16<(int)1, (int)8, (int)8, (int)-1>(tc::device::KernelArgs)+0x1c40)",
                      first.locations()[0])

    def test_unsupported_device_is_noticed(self):
        report = sanitizer_report.parse_sanitizer_output(fixture("device_not_supported.txt"))
        self.assertIn("Device not supported", report.unsupported)


class ParseGtestOutput(unittest.TestCase):
    def test_pass(self):
        g = sanitizer_report.parse_gtest_output(fixture("gtest_pass.txt"))
        self.assertEqual((g.ran, g.passed, g.failed, g.skipped), (184, 184, 0, 0))

    def test_failures_are_named_once(self):
        g = sanitizer_report.parse_gtest_output(fixture("gtest_fail.txt"))
        self.assertEqual((g.ran, g.passed, g.failed), (184, 183, 1))
        self.assertEqual(g.failed_names, ["Sanitize/KernelVsGolden.Matches/"
                                          "normal_m17_n128_k128_g128_marlin_m1n8k8g8_marlin_upstream_sms3,"])

    def test_skips(self):
        g = sanitizer_report.parse_gtest_output(fixture("gtest_all_skipped.txt"))
        self.assertEqual((g.ran, g.passed, g.skipped), (2, 0, 2))
        self.assertEqual(len(g.skipped_names), 2)

    def test_na_skips_are_counted_with_their_reason(self):
        g = sanitizer_report.parse_gtest_output(fixture("gtest_na_skipped.txt"))
        self.assertEqual((g.ran, g.passed, g.skipped, g.na_skipped), (3, 1, 2, 2))
        self.assertEqual(g.na_reasons, ["upstream Marlin implements only the marlin contract"])
        self.assertEqual(sanitizer_report.parse_gtest_output(fixture("gtest_some_skipped.txt")).na_skipped, 0)

    def test_brief_mode_counts_skips_without_a_list(self):
        # --gtest_brief=1 (what the tier runs) prints "[  SKIPPED ] 6 tests." and no names (H200, run 24)
        text = ("tests/suite/suite_gpu_test.cpp:77: Skipped\nn/a: upstream Marlin implements only the marlin contract\n\n"
                "[==========] 8 tests from 1 test suite ran. (1994 ms total)\n[  PASSED  ] 2 tests.\n"
                "[  SKIPPED ] 6 tests.\n")
        g = sanitizer_report.parse_gtest_output(text)
        self.assertEqual((g.ran, g.passed, g.skipped, g.na_skipped), (8, 2, 6, 1))
        self.assertEqual(g.skipped_names, [])

    def test_brief_mode_counts_failures_from_their_names(self):
        # --gtest_brief=1 prints "[  FAILED  ] <name>, where GetParam() = ..." and no count (run 25)
        text = ("[  FAILED  ] Sanitize/KernelVsGolden.Matches/a_sms1, where GetParam() = a_sms1 (409 ms)\n"
                "[==========] 8 tests from 1 test suite ran. (1281 ms total)\n[  PASSED  ] 1 test.\n"
                "[  SKIPPED ] 6 tests.\n")
        g = sanitizer_report.parse_gtest_output(text)
        self.assertEqual((g.ran, g.passed, g.failed, g.skipped), (8, 1, 1, 6))
        self.assertEqual(g.failed_names, ["Sanitize/KernelVsGolden.Matches/a_sms1,"])

    def test_no_summary_when_the_program_died(self):
        self.assertIsNone(sanitizer_report.parse_gtest_output("Running main()\n[ RUN      ] X.Y\n").ran)


class Allowlist(unittest.TestCase):
    def test_the_committed_allowlist_parses(self):
        with open(os.path.join(HERE, "allowlist.txt"), encoding="utf-8") as f:
            entries = sanitizer_allowlist.parse_allowlist(f.read())
        for e in entries:
            self.assertTrue(e.reason)

    def test_entry_fields(self):
        entries = sanitizer_allowlist.parse_allowlist("# comment\n\nracecheck, initcheck :: cuh:(376|162)\\b :: the reason :: with colons\n")
        self.assertEqual(len(entries), 1)
        e = entries[0]
        self.assertEqual((e.line, e.tools, e.reason), (3, ("racecheck", "initcheck"), "the reason :: with colons"))
        self.assertTrue(e.applies_to("racecheck"))
        self.assertFalse(e.applies_to("memcheck"))
        self.assertTrue(sanitizer_allowlist.parse_allowlist("* :: x :: r")[0].applies_to("synccheck"))

    def test_malformed_entries_name_their_line(self):
        bad = {
            "racecheck :: only two fields": "expected",
            "racecheck :: ( :: unbalanced": "bad regex",
            "raceckeck :: x :: typo in the tool": "tools must be",
            "racecheck ::  :: empty regex": "empty regex",
        }
        for line, message in bad.items():
            with self.assertRaises(sanitizer_allowlist.AllowlistError) as caught:
                sanitizer_allowlist.parse_allowlist("# header\n" + line + "\n", "list.txt")
            self.assertIn("list.txt:2:", str(caught.exception), line)
            self.assertIn(message, str(caught.exception), line)
        with self.assertRaises(sanitizer_allowlist.AllowlistError):
            sanitizer_allowlist.parse_allowlist("racecheck :: x :: ")  # no reason

    def test_matching_is_per_record_and_per_tool(self):
        report = sanitizer_report.parse_sanitizer_output(fixture("racecheck_hazard.txt"))
        entries = sanitizer_allowlist.parse_allowlist("racecheck :: WAR hazard(.|\\n)*cuh:376(.|\\n)*cuh:162 :: canned reason")
        sanitizer_allowlist.apply_allowlist(report, "racecheck", entries)
        self.assertEqual([r.allowed_by is not None for r in report.findings], [True, True, False])
        sanitizer_allowlist.apply_allowlist(report, "memcheck", entries)
        self.assertEqual([r.allowed_by for r in report.findings], [None, None, None])


class Judge(unittest.TestCase):
    def test_clean_runs_pass(self):
        for tool, name in (("racecheck", "racecheck_clean.txt"), ("memcheck", "memcheck_clean.txt")):
            v = judge(tool, name, "gtest_pass.txt")
            self.assertEqual(v.code, sanitizer_verdict.EXIT_PASS, v.lines)
            self.assertEqual(v.lines[-1], "PASS")

    def test_every_reported_problem_fails_unless_allow_listed(self):
        cases = [("racecheck", "racecheck_hazard.txt"), ("racecheck", "racecheck_analysis.txt"),
                 ("racecheck", "racecheck_docs_style.txt"), ("memcheck", "memcheck_invalid_read.txt"),
                 ("initcheck", "initcheck_uninitialized.txt"), ("synccheck", "synccheck_divergent.txt")]
        for tool, name in cases:
            v = judge(tool, name, "gtest_pass.txt", returncode=1)
            self.assertEqual(v.code, sanitizer_verdict.EXIT_FAIL, name)
            self.assertTrue(any("not in the allow-list" in l for l in v.lines), (name, v.lines))
            everything = judge(tool, name, "gtest_pass.txt", returncode=1, allowlist=f"{tool} :: . :: test entry")
            self.assertEqual(everything.code, sanitizer_verdict.EXIT_PASS, (name, everything.lines))
            other_tool = "memcheck" if tool != "memcheck" else "racecheck"
            v = judge(tool, name, "gtest_pass.txt", returncode=1, allowlist=f"{other_tool} :: . :: test entry")
            self.assertEqual(v.code, sanitizer_verdict.EXIT_FAIL, name)

    def test_the_failure_lists_each_distinct_report_once(self):
        v = judge("racecheck", "racecheck_hazard.txt", "gtest_pass.txt", returncode=1)
        text = "\n".join(v.lines)
        self.assertIn("3 report(s) not in the allow-list, 2 distinct", text)
        cuh, fn = "/work/main/kernel/src/marlin_kernel.cuh", "tc::device::marlin_w4a16"
        self.assertIn("records: 3 (0 allow-listed, 3 not), 2 distinct:\n"
                      f"  [NOT allow-listed] x2 WAR hazard\n      Read {cuh}:376 in {fn}\n      Write {cuh}:162 in {fn}\n"
                      "  [NOT allow-listed] x1 RAW hazard (invalid memcpy_async synchronization)\n"
                      f"      Write {cuh}:181 in {fn}\n      Read {cuh}:383 in {fn}\n", text)

    def test_a_failing_test_fails_even_when_the_tool_is_clean(self):
        v = judge("racecheck", "racecheck_clean.txt", "gtest_fail.txt", returncode=1)
        self.assertEqual(v.code, sanitizer_verdict.EXIT_FAIL)
        self.assertTrue(any("1 test(s) failed under racecheck" in l for l in v.lines), v.lines)

    def test_skips(self):
        v = judge("memcheck", "memcheck_clean.txt", "gtest_all_skipped.txt")
        self.assertEqual(v.code, sanitizer_verdict.EXIT_SKIP, v.lines)
        v = judge("memcheck", "memcheck_clean.txt", "gtest_some_skipped.txt")
        self.assertEqual(v.code, sanitizer_verdict.EXIT_FAIL, v.lines)
        self.assertTrue(any("skipped" in l for l in v.lines))

    def test_na_skips_fail_unless_allowed(self):
        v = judge("racecheck", "racecheck_clean.txt", "gtest_na_skipped.txt")
        self.assertEqual(v.code, sanitizer_verdict.EXIT_FAIL, v.lines)
        self.assertTrue(any("2 test(s) skipped: their code paths went unchecked" in l for l in v.lines), v.lines)
        report = sanitizer_report.parse_sanitizer_output(fixture("racecheck_clean.txt"))
        allowed = sanitizer_verdict.judge("racecheck", report, sanitizer_report.parse_gtest_output(
            fixture("gtest_na_skipped.txt")), 0, allow_na=True)
        self.assertEqual(allowed.code, sanitizer_verdict.EXIT_PASS, allowed.lines)
        self.assertIn("2 test(s) n/a, allowed by --allow-na: upstream Marlin implements only the marlin contract",
                      allowed.lines)
        # Skips without "n/a:" (no GPU, a missing fixture) are never allowed.
        other = sanitizer_verdict.judge("racecheck", report, sanitizer_report.parse_gtest_output(
            fixture("gtest_some_skipped.txt")), 0, allow_na=True)
        self.assertEqual(other.code, sanitizer_verdict.EXIT_FAIL, other.lines)

    def test_record_details_can_be_left_to_the_caller(self):
        report = sanitizer_report.parse_sanitizer_output(fixture("racecheck_hazard.txt"))
        gtest = sanitizer_report.parse_gtest_output(fixture("gtest_pass.txt"))
        v = sanitizer_verdict.judge("racecheck", report, gtest, 1, record_details=False)
        self.assertEqual(v.code, sanitizer_verdict.EXIT_FAIL)
        self.assertIn("3 report(s) not in the allow-list, 2 distinct", v.lines)
        self.assertFalse(any("marlin_kernel.cuh" in l for l in v.lines), v.lines)

    def test_no_tests_or_no_summary_fails(self):
        self.assertEqual(judge("memcheck", "memcheck_clean.txt", "gtest_no_tests.txt").code, sanitizer_verdict.EXIT_FAIL)
        died = sanitizer_verdict.judge("memcheck", sanitizer_report.parse_sanitizer_output(fixture("memcheck_clean.txt")),
                        sanitizer_report.parse_gtest_output("Running main()\n"), 1)
        self.assertEqual(died.code, sanitizer_verdict.EXIT_FAIL)
        v = judge("memcheck", "memcheck_truncated.txt", "gtest_pass.txt", allowlist="* :: . :: test entry")
        self.assertEqual(v.code, sanitizer_verdict.EXIT_FAIL)
        self.assertTrue(any("no ERROR SUMMARY" in l for l in v.lines), v.lines)

    def test_a_summary_counting_more_than_was_parsed_fails_even_if_all_parsed_are_allowed(self):
        v = judge("memcheck", "memcheck_unknown_format.txt", "gtest_pass.txt", returncode=1,
                  allowlist="* :: . :: test entry")
        self.assertEqual(v.code, sanitizer_verdict.EXIT_FAIL)
        self.assertTrue(any("counts 3 problem(s) but 1 report(s) were parsed" in l for l in v.lines), v.lines)

    def test_an_unexplained_exit_status_fails(self):
        v = judge("memcheck", "memcheck_clean.txt", "gtest_pass.txt", returncode=3)
        self.assertEqual(v.code, sanitizer_verdict.EXIT_FAIL)

    def test_an_unsupported_device_is_a_skip_not_a_pass(self):
        v = judge("memcheck", "device_not_supported.txt", "gtest_fail.txt", returncode=1)
        self.assertEqual(v.code, sanitizer_verdict.EXIT_SKIP)
        self.assertIn("Device not supported", v.lines[0])

    def test_timeout_fails(self):
        report = sanitizer_report.parse_sanitizer_output(fixture("memcheck_clean.txt"))
        v = sanitizer_verdict.judge("memcheck", report, sanitizer_report.parse_gtest_output(fixture("gtest_pass.txt")), None, True, 5)
        self.assertEqual(v.code, sanitizer_verdict.EXIT_FAIL)
        self.assertTrue(any("within 5 s" in l for l in v.lines))


if __name__ == "__main__":
    unittest.main(verbosity=2)
