#!/usr/bin/env python3
"""Tests of run_sanitizer.py that need no GPU (ctest: sanitizer_runner_tests, label cpu).

The parser and the allow-list logic run on canned compute-sanitizer output (fixtures/: racecheck in
hazard, analysis and documentation styles, memcheck, initcheck, synccheck, unknown formats, a
truncated report, an unsupported device) and canned gtest summaries; the whole runner runs against
a fake compute-sanitizer and a fake nvidia-smi on a private PATH, so the exit statuses (0, 1, 2, 77)
are proven here, including 77 with the reason when there is no GPU.
"""
import os
import stat
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # ctest runs this from the source tree
sys.path.insert(0, HERE)
import run_sanitizer as rs  # noqa: E402

FIXTURES = os.path.join(HERE, "fixtures")
RUNNER = os.path.join(HERE, "run_sanitizer.py")


def fixture(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as f:
        return f.read()


def judge(tool, sanitizer_fixture, gtest_fixture, returncode=0, allowlist=""):
    report = rs.parse_sanitizer_output(fixture(sanitizer_fixture))
    rs.apply_allowlist(report, tool, rs.parse_allowlist(allowlist))
    return rs.judge(tool, report, rs.parse_gtest_output(fixture(gtest_fixture)), returncode)


class ParseSanitizerOutput(unittest.TestCase):
    def test_clean_reports_have_a_summary_and_no_records(self):
        for name in ("racecheck_clean.txt", "memcheck_clean.txt"):
            report = rs.parse_sanitizer_output(fixture(name))
            self.assertTrue(report.has_summary(), name)
            self.assertEqual(report.findings, [], name)
            self.assertEqual(report.reported_count(), 0, name)

    def test_racecheck_hazard_mode_gives_one_record_per_hazard_with_both_accesses(self):
        report = rs.parse_sanitizer_output(fixture("racecheck_hazard.txt"))
        self.assertEqual(len(report.findings), 3)
        self.assertEqual(report.race_summaries, [(3, 3, 0)])
        first = report.findings[0]
        self.assertTrue(first.header.startswith("Error: Potential WAR hazard detected at __shared__ 0x4000"))
        self.assertIn("marlin_kernel.cuh:376", first.text)
        self.assertIn("marlin_kernel.cuh:162", first.text)
        self.assertIn("(invalid memcpy_async synchronization)", report.findings[2].header)
        # The two WAR records differ only in address, block and threads: one distinct hazard.
        self.assertEqual(len(rs.group_records(report.findings)), 2)

    def test_racecheck_analysis_mode_keeps_the_continuation_lines(self):
        report = rs.parse_sanitizer_output(fixture("racecheck_analysis.txt"))
        self.assertEqual(len(report.findings), 2)
        self.assertIn("and Read access at", report.findings[0].text)
        self.assertIn("[64 hazards]", report.findings[0].text)
        self.assertTrue(report.findings[1].header.startswith("Warning: Race reported between"))

    def test_racecheck_documentation_style_without_indentation_or_blank_separators(self):
        report = rs.parse_sanitizer_output(fixture("racecheck_docs_style.txt"))
        self.assertEqual([r.header.split(" ")[0] for r in report.findings], ["ERROR:", "WARN:(Warp"])
        self.assertEqual(len(report.findings[0].lines), 4)

    def test_memcheck_access_error_and_api_error_are_two_records(self):
        report = rs.parse_sanitizer_output(fixture("memcheck_invalid_read.txt"))
        self.assertEqual([r.header for r in report.findings],
                         ["Invalid __global__ read of size 16 bytes",
                          'Program hit cudaErrorLaunchFailure (error 719) due to "unspecified launch failure" on '
                          "CUDA API call to cudaStreamSynchronize."])
        self.assertEqual(report.error_summaries, [2])
        self.assertIn("Address 0x7f3a2e000400 is out of bounds", report.findings[0].text)

    def test_initcheck_and_synccheck_records(self):
        init = rs.parse_sanitizer_output(fixture("initcheck_uninitialized.txt"))
        self.assertEqual([r.header for r in init.findings], ["Uninitialized __shared__ memory read of size 16 bytes",
                                                             "Uninitialized __global__ memory read of size 4 bytes"])
        sync = rs.parse_sanitizer_output(fixture("synccheck_divergent.txt"))
        self.assertEqual([r.header for r in sync.findings], ["Barrier error detected. Divergent thread(s) in block"])

    def test_program_output_lines_are_ignored(self):
        text = fixture("gtest_fail.txt") + fixture("memcheck_clean.txt")
        self.assertEqual(rs.parse_sanitizer_output(text).findings, [])

    def test_an_unreadable_summary_counts_as_unparsed_problems(self):
        report = rs.parse_sanitizer_output("========= ERROR SUMMARY: lots of errors\n")
        self.assertTrue(report.has_summary())
        self.assertGreater(report.reported_count(), 1000)

    def test_unsupported_device_is_noticed(self):
        report = rs.parse_sanitizer_output(fixture("device_not_supported.txt"))
        self.assertIn("Device not supported", report.unsupported)


class ParseGtestOutput(unittest.TestCase):
    def test_pass(self):
        g = rs.parse_gtest_output(fixture("gtest_pass.txt"))
        self.assertEqual((g.ran, g.passed, g.failed, g.skipped), (184, 184, 0, 0))

    def test_failures_are_named_once(self):
        g = rs.parse_gtest_output(fixture("gtest_fail.txt"))
        self.assertEqual((g.ran, g.passed, g.failed), (184, 183, 1))
        self.assertEqual(g.failed_names, ["Sanitize/KernelVsGolden.Matches/"
                                          "normal_m17_n128_k128_g128_marlin_m1n8k8g8_marlin_upstream_sms3,"])

    def test_skips(self):
        g = rs.parse_gtest_output(fixture("gtest_all_skipped.txt"))
        self.assertEqual((g.ran, g.passed, g.skipped), (2, 0, 2))
        self.assertEqual(len(g.skipped_names), 2)

    def test_no_summary_when_the_program_died(self):
        self.assertIsNone(rs.parse_gtest_output("Running main()\n[ RUN      ] X.Y\n").ran)


class Allowlist(unittest.TestCase):
    def test_the_committed_allowlist_parses(self):
        with open(os.path.join(HERE, "allowlist.txt"), encoding="utf-8") as f:
            entries = rs.parse_allowlist(f.read())
        for e in entries:
            self.assertTrue(e.reason)

    def test_entry_fields(self):
        entries = rs.parse_allowlist("# comment\n\nracecheck, initcheck :: cuh:(376|162)\\b :: the reason :: with colons\n")
        self.assertEqual(len(entries), 1)
        e = entries[0]
        self.assertEqual((e.line, e.tools, e.reason), (3, ("racecheck", "initcheck"), "the reason :: with colons"))
        self.assertTrue(e.applies_to("racecheck"))
        self.assertFalse(e.applies_to("memcheck"))
        self.assertTrue(rs.parse_allowlist("* :: x :: r")[0].applies_to("synccheck"))

    def test_malformed_entries_name_their_line(self):
        bad = {
            "racecheck :: only two fields": "expected",
            "racecheck :: ( :: unbalanced": "bad regex",
            "raceckeck :: x :: typo in the tool": "tools must be",
            "racecheck ::  :: empty regex": "empty regex",
        }
        for line, message in bad.items():
            with self.assertRaises(rs.AllowlistError) as caught:
                rs.parse_allowlist("# header\n" + line + "\n", "list.txt")
            self.assertIn("list.txt:2:", str(caught.exception), line)
            self.assertIn(message, str(caught.exception), line)
        with self.assertRaises(rs.AllowlistError):
            rs.parse_allowlist("racecheck :: x :: ")  # no reason

    def test_matching_is_per_record_and_per_tool(self):
        report = rs.parse_sanitizer_output(fixture("racecheck_hazard.txt"))
        entries = rs.parse_allowlist("racecheck :: WAR hazard(.|\\n)*cuh:376(.|\\n)*cuh:162 :: canned reason")
        rs.apply_allowlist(report, "racecheck", entries)
        self.assertEqual([r.allowed_by is not None for r in report.findings], [True, True, False])
        rs.apply_allowlist(report, "memcheck", entries)
        self.assertEqual([r.allowed_by for r in report.findings], [None, None, None])


class Judge(unittest.TestCase):
    def test_clean_runs_pass(self):
        for tool, name in (("racecheck", "racecheck_clean.txt"), ("memcheck", "memcheck_clean.txt")):
            v = judge(tool, name, "gtest_pass.txt")
            self.assertEqual(v.code, rs.EXIT_PASS, v.lines)
            self.assertEqual(v.lines[-1], "PASS")

    def test_every_reported_problem_fails_unless_allow_listed(self):
        cases = [("racecheck", "racecheck_hazard.txt"), ("racecheck", "racecheck_analysis.txt"),
                 ("racecheck", "racecheck_docs_style.txt"), ("memcheck", "memcheck_invalid_read.txt"),
                 ("initcheck", "initcheck_uninitialized.txt"), ("synccheck", "synccheck_divergent.txt")]
        for tool, name in cases:
            v = judge(tool, name, "gtest_pass.txt", returncode=1)
            self.assertEqual(v.code, rs.EXIT_FAIL, name)
            self.assertTrue(any("not in the allow-list" in l for l in v.lines), (name, v.lines))
            everything = judge(tool, name, "gtest_pass.txt", returncode=1, allowlist=f"{tool} :: . :: test entry")
            self.assertEqual(everything.code, rs.EXIT_PASS, (name, everything.lines))
            other_tool = "memcheck" if tool != "memcheck" else "racecheck"
            v = judge(tool, name, "gtest_pass.txt", returncode=1, allowlist=f"{other_tool} :: . :: test entry")
            self.assertEqual(v.code, rs.EXIT_FAIL, name)

    def test_the_failure_lists_each_distinct_report_once(self):
        v = judge("racecheck", "racecheck_hazard.txt", "gtest_pass.txt", returncode=1)
        text = "\n".join(v.lines)
        self.assertIn("3 report(s) not in the allow-list, 2 distinct", text)
        self.assertIn("x2:", text)
        self.assertIn("marlin_kernel.cuh:376", text)

    def test_a_failing_test_fails_even_when_the_tool_is_clean(self):
        v = judge("racecheck", "racecheck_clean.txt", "gtest_fail.txt", returncode=1)
        self.assertEqual(v.code, rs.EXIT_FAIL)
        self.assertTrue(any("1 test(s) failed under racecheck" in l for l in v.lines), v.lines)

    def test_skips(self):
        v = judge("memcheck", "memcheck_clean.txt", "gtest_all_skipped.txt")
        self.assertEqual(v.code, rs.EXIT_SKIP, v.lines)
        v = judge("memcheck", "memcheck_clean.txt", "gtest_some_skipped.txt")
        self.assertEqual(v.code, rs.EXIT_FAIL, v.lines)
        self.assertTrue(any("skipped" in l for l in v.lines))

    def test_no_tests_or_no_summary_fails(self):
        self.assertEqual(judge("memcheck", "memcheck_clean.txt", "gtest_no_tests.txt").code, rs.EXIT_FAIL)
        died = rs.judge("memcheck", rs.parse_sanitizer_output(fixture("memcheck_clean.txt")),
                        rs.parse_gtest_output("Running main()\n"), 1)
        self.assertEqual(died.code, rs.EXIT_FAIL)
        v = judge("memcheck", "memcheck_truncated.txt", "gtest_pass.txt", allowlist="* :: . :: test entry")
        self.assertEqual(v.code, rs.EXIT_FAIL)
        self.assertTrue(any("no ERROR SUMMARY" in l for l in v.lines), v.lines)

    def test_a_summary_counting_more_than_was_parsed_fails_even_if_all_parsed_are_allowed(self):
        v = judge("memcheck", "memcheck_unknown_format.txt", "gtest_pass.txt", returncode=1,
                  allowlist="* :: . :: test entry")
        self.assertEqual(v.code, rs.EXIT_FAIL)
        self.assertTrue(any("counts 3 problem(s) but 1 report(s) were parsed" in l for l in v.lines), v.lines)

    def test_an_unexplained_exit_status_fails(self):
        v = judge("memcheck", "memcheck_clean.txt", "gtest_pass.txt", returncode=3)
        self.assertEqual(v.code, rs.EXIT_FAIL)

    def test_an_unsupported_device_is_a_skip_not_a_pass(self):
        v = judge("memcheck", "device_not_supported.txt", "gtest_fail.txt", returncode=1)
        self.assertEqual(v.code, rs.EXIT_SKIP)
        self.assertIn("Device not supported", v.lines[0])

    def test_timeout_fails(self):
        report = rs.parse_sanitizer_output(fixture("memcheck_clean.txt"))
        v = rs.judge("memcheck", report, rs.parse_gtest_output(fixture("gtest_pass.txt")), None, True, 5)
        self.assertEqual(v.code, rs.EXIT_FAIL)
        self.assertTrue(any("within 5 s" in l for l in v.lines))


# ---------------------------------------------------------------------------------------------
# The whole runner against fakes on a private PATH
# ---------------------------------------------------------------------------------------------

FAKE_SANITIZER = """#!{python}
# Fake compute-sanitizer: records its arguments and TC_KERNEL, writes the canned report to
# --log-file, prints the canned program output, exits with the canned status.
import os, sys, time
args = sys.argv[1:]
with open(os.environ["FAKE_ARGS"], "w") as f:
    f.write(os.environ.get("TC_KERNEL", "") + "\\n" + "\\n".join(args))
time.sleep(float(os.environ.get("FAKE_SLEEP", "0")))
log = args[args.index("--log-file") + 1]
with open(log, "w") as out, open(os.environ["FAKE_REPORT"]) as src:
    out.write(src.read())
with open(os.environ["FAKE_OUTPUT"]) as src:
    sys.stdout.write(src.read())
sys.exit(int(os.environ.get("FAKE_EXIT", "0")))
"""

FAKE_SMI_GPU = """#!/bin/sh
echo "GPU 0: NVIDIA H200 (UUID: GPU-00000000-0000-0000-0000-000000000000)"
"""
FAKE_SMI_NONE = """#!/bin/sh
echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."
exit 9
"""


class Runner(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="tc-sanitizer-test-")
        self.dir = self.tmp.name
        self.bin = os.path.join(self.dir, "bin")
        os.mkdir(self.bin)
        self.suite = self.touch("suite_gpu_tests")
        self.kernel = self.touch("libtc_kernel_upstream.so")
        self.args_file = os.path.join(self.dir, "args.txt")
        self.log = os.path.join(self.dir, "logs", "run.log")

    def tearDown(self):
        self.tmp.cleanup()

    def touch(self, name, text=""):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def tool(self, name, text):
        path = os.path.join(self.bin, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)

    def run_runner(self, report="racecheck_clean.txt", output="gtest_pass.txt", exit_code=0, extra=(),
                   env_extra=None, tool="racecheck"):
        env = {"PATH": self.bin, "FAKE_ARGS": self.args_file, "FAKE_REPORT": os.path.join(FIXTURES, report),
               "FAKE_OUTPUT": os.path.join(FIXTURES, output), "FAKE_EXIT": str(exit_code),
               "TC_LIBCUDA": os.path.join(self.dir, "no-such-libcuda.so")}
        env.update(env_extra or {})
        cmd = [sys.executable, RUNNER, "--tool", tool, "--suite", self.suite, "--kernel", self.kernel,
               "--allowlist", os.path.join(HERE, "allowlist.txt"), "--log", self.log,
               "--search-dir", os.path.join(self.dir, "no-cuda"), *extra]
        return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)

    def with_gpu(self):
        self.tool("compute-sanitizer", FAKE_SANITIZER.format(python=sys.executable))
        self.tool("nvidia-smi", FAKE_SMI_GPU)

    def test_no_compute_sanitizer_is_a_skip_with_the_reason(self):
        self.tool("nvidia-smi", FAKE_SMI_GPU)
        r = self.run_runner()
        self.assertEqual(r.returncode, 77, r.stdout + r.stderr)
        self.assertIn("SKIPPED", r.stdout)
        self.assertIn("no compute-sanitizer on PATH nor in", r.stdout)

    def test_the_fallback_directory_is_searched(self):
        cuda_bin = os.path.join(self.dir, "cuda-bin")
        os.mkdir(cuda_bin)
        self.tool("nvidia-smi", FAKE_SMI_GPU)
        path = os.path.join(cuda_bin, "compute-sanitizer")
        with open(path, "w") as f:
            f.write(FAKE_SANITIZER.format(python=sys.executable))
        os.chmod(path, 0o755)
        r = self.run_runner(extra=("--search-dir", cuda_bin))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("running: TC_KERNEL=" + os.path.abspath(self.kernel) + " " + path, r.stdout)

    def test_no_gpu_by_nvidia_smi_is_a_skip_with_the_reason(self):
        self.tool("compute-sanitizer", FAKE_SANITIZER.format(python=sys.executable))
        self.tool("nvidia-smi", FAKE_SMI_NONE)
        r = self.run_runner()
        self.assertEqual(r.returncode, 77, r.stdout + r.stderr)
        self.assertIn("no GPU: nvidia-smi -L lists no GPU (exit 9)", r.stdout)
        self.assertIn("couldn't communicate with the NVIDIA driver", r.stdout)
        self.assertFalse(os.path.exists(self.args_file), "the sanitizer must not run without a GPU")

    def test_no_gpu_without_nvidia_smi_is_a_skip_with_the_reason(self):
        self.tool("compute-sanitizer", FAKE_SANITIZER.format(python=sys.executable))
        r = self.run_runner()
        self.assertEqual(r.returncode, 77, r.stdout + r.stderr)
        self.assertIn("no GPU: no nvidia-smi, and the CUDA driver library", r.stdout)

    def test_clean_run_passes_and_runs_the_documented_command(self):
        self.with_gpu()
        r = self.run_runner()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("PASS", r.stdout)
        with open(self.args_file) as f:
            kernel, *args = f.read().split("\n")
        self.assertEqual(kernel, os.path.abspath(self.kernel))
        self.assertEqual(args[:6], ["--tool", "racecheck", "--error-exitcode", "1", "--racecheck-report", "hazard"])
        self.assertEqual(args[-3:], [self.suite, "--gtest_filter=Sanitize/*", "--gtest_brief=1"])
        with open(self.log) as f:
            log = f.read()
        self.assertIn("---- compute-sanitizer report ----", log)
        self.assertIn("RACECHECK SUMMARY: 0 hazards", log)
        self.assertIn("[  PASSED  ] 184 tests.", log)

    def test_tool_options(self):
        self.with_gpu()
        r = self.run_runner(report="memcheck_clean.txt", tool="initcheck",
                            extra=("--tool-option=--print-limit=0", "--filter", "Sanitize/*sms1"))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with open(self.args_file) as f:
            args = f.read().split("\n")[1:]
        self.assertEqual(args[:4], ["--tool", "initcheck", "--error-exitcode", "1"])
        self.assertNotIn("--initcheck-address-space", args)
        self.assertIn("--print-limit=0", args)
        self.assertIn("--gtest_filter=Sanitize/*sms1", args)

    def test_a_hazard_fails(self):
        self.with_gpu()
        r = self.run_runner(report="racecheck_hazard.txt", exit_code=1)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("not in the allow-list", r.stdout)

    def test_a_failing_test_fails(self):
        self.with_gpu()
        r = self.run_runner(output="gtest_fail.txt", exit_code=1)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("1 test(s) failed", r.stdout)

    def test_all_tests_skipped_is_a_skip(self):
        self.with_gpu()
        r = self.run_runner(output="gtest_all_skipped.txt")
        self.assertEqual(r.returncode, 77, r.stdout + r.stderr)

    def test_a_run_past_the_timeout_is_stopped_and_fails(self):
        self.with_gpu()
        r = self.run_runner(extra=("--timeout", "1"), env_extra={"FAKE_SLEEP": "30"})
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("did not finish within 1 s", r.stdout)

    def test_usage_errors(self):
        self.with_gpu()
        bad = self.touch("bad-allowlist.txt", "racecheck :: ( :: unbalanced\n")
        r = self.run_runner(extra=("--allowlist", bad))
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("bad-allowlist.txt:1: bad regex", r.stdout)
        os.remove(self.suite)
        r = self.run_runner()
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("does not exist", r.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
