#!/usr/bin/env python3
"""Tests of run_sanitizer.py that need no GPU (ctest: sanitizer_runner_tests, label cpu).

The whole runner runs against a fake compute-sanitizer and a fake nvidia-smi on a private PATH
(sanitizer_fakes.py), so the exit statuses (0, 1, 2, 77) are proven here, including 77 with the
reason when there is no GPU; its per-configuration mode is in test_run_sanitizer_per_config.py.
This is the ctest entry point for the tier's CPU tests: it also runs test_sanitizer_parsing.py (the
parser, the allow-list and the verdict on canned output), test_sanitizer_per_config.py (the
per-configuration merge), test_run_sanitizer_per_config.py (--per-config against a fake suite and
sanitizer) and test_sanitizer_records.py (many records, the allow-list's source form).
"""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # ctest runs this from the source tree
sys.path.insert(0, HERE)
from sanitizer_fakes import FAKE_SANITIZER, FAKE_SMI_GPU, FAKE_SMI_NONE, FIXTURES, RUNNER, FakeTools  # noqa: E402,F401
from test_run_sanitizer_per_config import PerConfig  # noqa: E402,F401
from test_sanitizer_parsing import Allowlist, Judge, ParseGtestOutput, ParseSanitizerOutput  # noqa: E402,F401
from test_sanitizer_per_config import Configs, Faults, Merge, RunConfigs  # noqa: E402,F401
from test_sanitizer_records import AcrossConfigs, ManyRecords, SourceForm  # noqa: E402,F401


class Runner(FakeTools, unittest.TestCase):
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
        self.assertEqual(args[:8], "--tool racecheck --error-exitcode 1 --racecheck-report hazard --print-limit 0".split())
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
