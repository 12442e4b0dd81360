#!/usr/bin/env python3
"""Tests of run_sanitizer.py that need no GPU (ctest: sanitizer_runner_tests, label cpu).

The whole runner runs against a fake compute-sanitizer and a fake nvidia-smi on a private PATH, so
the exit statuses (0, 1, 2, 77) are proven here, including 77 with the reason when there is no GPU.
This is the ctest entry point for the tier's CPU tests: it also runs test_sanitizer_parsing.py (the
parser, the allow-list and the verdict on canned output).
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
from test_sanitizer_parsing import Allowlist, Judge, ParseGtestOutput, ParseSanitizerOutput  # noqa: E402,F401

FIXTURES = os.path.join(HERE, "fixtures")
RUNNER = os.path.join(HERE, "run_sanitizer.py")

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
