#!/usr/bin/env python3
"""Tests of the per-configuration mode's parts on canned output (no GPU, no processes): listing and
grouping the tests by configuration (sanitizer_configs.py), when a configuration's process counts as
faulted, and the one verdict over all configurations (sanitizer_per_config.py).
test_run_sanitizer.py, the ctest entry point (sanitizer_runner_tests, label cpu), runs these too, and
runs the whole mode against a fake suite and a fake compute-sanitizer.
"""
import os
import sys
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # ctest runs this from the source tree
sys.path.insert(0, HERE)
import sanitizer_allowlist  # noqa: E402
import sanitizer_configs  # noqa: E402
import sanitizer_per_config  # noqa: E402
from sanitizer_process import Run  # noqa: E402
from sanitizer_verdict import EXIT_FAIL, EXIT_PASS, EXIT_SKIP  # noqa: E402

FIXTURES = os.path.join(HERE, "fixtures")
PREFIX = "Sanitize/KernelVsGolden.Matches/"


def fixture(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as f:
        return f.read()


def cell(case, config, contract="marlin", variant="upstream_2f6d7c1", sms=1):
    return f"{PREFIX}{case}_{config}_{contract}_{variant}_sms{sms}"


LISTING = """Running main() from /work/main/tests/common/gtest_main.cpp
Sanitize/KernelVsGolden.
  Matches/normal_m1_n128_k128_g128_marlin_m1n8k8g8_marlin_upstream_2f6d7c1_sms1  # GetParam() = normal_m1_n128_k128_g128_marlin_m1n8k8g8_marlin_upstream_2f6d7c1_sms1
  Matches/normal_m6_n128_k128_gcol_marlin_m1n8k8gcol_marlin_upstream_2f6d7c1_sms3  # GetParam() = x
  Matches/normal_m5_n128_k128_g128_fp32_m1n8k8g8_fp32_upstream_2f6d7c1_sms3  # GetParam() = x
Harness.
  GraphReplayMatchesTheEagerRun
"""


class Configs(unittest.TestCase):
    def test_the_listing_gives_full_test_names(self):
        self.assertEqual(sanitizer_configs.parse_test_list(LISTING), [
            cell("normal_m1_n128_k128_g128_marlin", "m1n8k8g8"),
            cell("normal_m6_n128_k128_gcol_marlin", "m1n8k8gcol", sms=3),
            cell("normal_m5_n128_k128_g128_fp32", "m1n8k8g8", "fp32", sms=3),
            "Harness.GraphReplayMatchesTheEagerRun"])
        self.assertEqual(sanitizer_configs.parse_test_list("Running main()\n"), [])

    def test_the_configuration_is_the_one_config_token_of_a_cell_name(self):
        config_of = sanitizer_configs.config_of
        self.assertEqual(config_of(cell("normal_m17_n128_k128_g128_marlin", "m2n16k4g8", sms=3)), "m2n16k4g8")
        self.assertEqual(config_of(cell("onehot_scale_m16_n256_k128_gcol_fp32", "m4n16k4gcol", "fp32")), "m4n16k4gcol")
        self.assertEqual(config_of(cell("normal_m16_n256_k512_g128_marlin", "m1n16k4g8", variant="upstream")),
                         "m1n16k4g8")
        # A variant named like a configuration does not move the configuration.
        self.assertEqual(config_of(cell("normal_m1_n128_k128_g128_marlin", "m1n8k8g8", variant="m4n16k4g2_sms3")),
                         "m1n8k8g8")
        for not_a_cell in ("Harness.TwoStreams", PREFIX + "normal_m1_n128_k128_g128_marlin_sms1",
                           PREFIX + "normal_m1_n128_k128_g128_marlin_m1n8k8g8_bf16_upstream_sms1",
                           PREFIX + "normal_m1_n128_k128_g128_marlin_m1n8k8_marlin_upstream_sms1"):
            self.assertIsNone(config_of(not_a_cell), not_a_cell)

    def test_groups_keep_the_order_of_first_appearance_with_other_tests_last(self):
        names = sanitizer_configs.parse_test_list(LISTING)
        groups = sanitizer_configs.group_by_config(names)
        self.assertEqual([g.config for g in groups], ["m1n8k8g8", "m1n8k8gcol", "other"])
        self.assertEqual(groups[0].tests, [names[0], names[2]])
        self.assertEqual(groups[0].gtest_filter(), names[0] + ":" + names[2])
        self.assertEqual(groups[2].tests, ["Harness.GraphReplayMatchesTheEagerRun"])
        with self.assertRaises(sanitizer_configs.ListingError):
            sanitizer_configs.group_by_config(["Sanitize/X.Y*"])


def run_of(output="gtest_pass.txt", report="racecheck_clean.txt", returncode=0, timed_out=False, seconds=1.0,
           program_text=None):
    text = program_text if program_text is not None else fixture(output)
    return Run(["compute-sanitizer"], "/k.so", None if timed_out else returncode, text, fixture(report), seconds,
               timed_out)


def outcome(config, run, allowlist="", allow_na=False, tool="racecheck"):
    group = sanitizer_configs.ConfigGroup(config, [cell("normal_m1_n128_k128_g128_marlin", config)])
    entries = sanitizer_allowlist.parse_allowlist(allowlist)
    return sanitizer_per_config.judge_config(tool, group, run, entries, 600, allow_na)


ILLEGAL_INSTRUCTION = """========= COMPUTE-SANITIZER
========= Warp Illegal Instruction
=========     at void Marlin<256, 1, 8, 8, 4, 8>(const int4 *, const int4 *, int4 *, const int4 *, int, int, int, int *)+0x1f30 in /src/marlin/marlin_cuda_kernel.cu:462
=========     by thread (0,0,0) in block (0,0,0)
=========
========= ERROR SUMMARY: 1 error
"""


class Faults(unittest.TestCase):
    def test_hazards_alone_are_no_fault(self):
        o = outcome("m1n8k8g8", run_of(report="racecheck_hazard.txt", returncode=1))
        self.assertEqual(o.faults, [])
        self.assertEqual(o.status, "FAIL")

    def test_a_fault_is_named_by_the_tool_the_program_or_the_exit(self):
        run = run_of(output="gtest_fail.txt", returncode=1)
        run.tool_output = ILLEGAL_INSTRUCTION
        o = outcome("m1n8k8g8", run)
        self.assertEqual(o.status, "FAULT")
        self.assertEqual(o.faults, ["the tool reported: Warp Illegal Instruction",
                                    "the program printed: normal_m17_n128_k128_g128_marlin_m1n8k8g8_marlin_upstream_sms3: "
                                    "FAULT: cudaErrorLaunchFailure",
                                    "exit status 1 with 1 failed test(s)"])

    def test_a_crash_or_a_hang_is_a_fault(self):
        crashed = outcome("m1n8k8g8", run_of(program_text="Running main()\n", returncode=-6))
        self.assertEqual(crashed.status, "FAULT")
        self.assertIn("no gtest summary (exit status -6)", crashed.faults[0])
        hung = outcome("m1n8k8g8", run_of(program_text="Running main()\n", timed_out=True, seconds=42))
        self.assertEqual(hung.faults, ["stopped at its deadline after 42 s (a hang, or too slow under the tool)"])


class Merge(unittest.TestCase):
    def test_every_configuration_is_judged_and_a_fault_does_not_hide_the_others(self):
        faulted = run_of(output="gtest_fail.txt", returncode=1)
        faulted.tool_output = ILLEGAL_INSTRUCTION
        outcomes = [outcome("m1n8k8gcol", run_of()), outcome("m1n8k8g8", faulted),
                    outcome("m1n16k4g8", run_of(report="racecheck_hazard.txt", returncode=1))]
        v = sanitizer_per_config.merge("racecheck", outcomes)
        text = "\n".join(v.lines)
        self.assertEqual(v.code, EXIT_FAIL)
        self.assertRegex(text, r"m1n8k8gcol +PASS +tests: 184 ran, 184 passed, 0 failed, 0 skipped \(0 n/a\); "
                               r"records: 0 \(0 allow-listed, 0 not\)")
        self.assertRegex(text, r"m1n8k8g8 +FAULT +tests: 184 ran, 183 passed, 1 failed")
        self.assertIn("fault: the tool reported: Warp Illegal Instruction", text)
        self.assertRegex(text, r"m1n16k4g8 +FAIL +.*records: 3 \(0 allow-listed, 3 not\)")
        self.assertIn("FAIL: 2 of 3 configurations not clean: m1n8k8g8 (FAULT), m1n16k4g8 (FAIL)", text)
        # Every distinct record once, with the configurations it came from and both source lines.
        self.assertIn("records over all configurations: 4 (0 allow-listed, 4 not), 3 distinct:", text)
        self.assertIn("  [NOT allow-listed] x2 WAR hazard\n"
                      "      in m1n16k4g8 x2\n"
                      "      Read /work/main/kernel/src/marlin_kernel.cuh:376 in tc::device::marlin_w4a16\n"
                      "      Write /work/main/kernel/src/marlin_kernel.cuh:162 in tc::device::marlin_w4a16", text)
        self.assertIn("  [NOT allow-listed] x1 Warp Illegal Instruction\n      in m1n8k8g8 x1\n"
                      "      at /src/marlin/marlin_cuda_kernel.cu:462 in Marlin", text)

    def test_the_same_hazard_in_two_instantiations_is_one_record(self):
        a = run_of(report="racecheck_hazard.txt", returncode=1)
        b = run_of(report="racecheck_hazard.txt", returncode=1)
        b.tool_output = b.tool_output.replace("(int)1, (int)8", "(int)2, (int)8")
        v = sanitizer_per_config.merge("racecheck", [outcome("m1n8k8gcol", a), outcome("m2n8k8gcol", b)])
        text = "\n".join(v.lines)
        self.assertIn("records over all configurations: 6 (0 allow-listed, 6 not), 2 distinct:", text)
        self.assertIn("  [NOT allow-listed] x4 WAR hazard\n      in m1n8k8gcol x2, m2n8k8gcol x2\n", text)

    def test_allow_listed_records_pass_and_are_still_listed(self):
        allow = "racecheck :: . :: test entry"
        v = sanitizer_per_config.merge("racecheck", [
            outcome("m1n8k8gcol", run_of(report="racecheck_hazard.txt", returncode=1), allow),
            outcome("m1n8k8g8", run_of())])
        self.assertEqual(v.code, EXIT_PASS, v.lines)
        self.assertIn("PASS: all 2 configurations clean", v.lines)
        self.assertTrue(any(l.startswith("  [allow-listed by line 1]") for l in v.lines), v.lines)

    def test_na_configurations_are_clean_only_with_allow_na(self):
        na = run_of(output="gtest_na_skipped.txt")
        na.program_output = na.program_output.replace("[  PASSED  ] 1 test.", "[  PASSED  ] 0 tests.").replace(
            "2 tests, listed below", "3 tests, listed below").replace(
            "Skipped\nn/a: upstream Marlin implements only the marlin contract\n[",
            "Skipped\nn/a: upstream Marlin implements only the marlin contract\n"
            "x.cpp:77: Skipped\nn/a: upstream Marlin derives m_blocks from M\n[")
        strict = sanitizer_per_config.merge("racecheck", [outcome("m1n8k8gcol", run_of()), outcome("m2n16k4g8", na)])
        self.assertEqual(strict.code, EXIT_FAIL, strict.lines)
        self.assertTrue(any("m2n16k4g8 (SKIPPED)" in l for l in strict.lines), strict.lines)
        lenient = sanitizer_per_config.merge("racecheck", [outcome("m1n8k8gcol", run_of(), allow_na=True),
                                                           outcome("m2n16k4g8", na, allow_na=True)])
        self.assertEqual(lenient.code, EXIT_PASS, lenient.lines)
        self.assertRegex("\n".join(lenient.lines), r"m2n16k4g8 +N/A +tests: 3 ran, 0 passed, 0 failed, 3 skipped \(3 n/a\)")
        partly = sanitizer_per_config.merge("racecheck", [outcome("m1n8k8g8", run_of(output="gtest_na_skipped.txt"),
                                                                  allow_na=True)])
        self.assertEqual(partly.code, EXIT_PASS, partly.lines)

    def test_nothing_ran_is_a_skip(self):
        skipped = [outcome(c, run_of(output="gtest_all_skipped.txt")) for c in ("m1n8k8g8", "m1n8k8gcol")]
        v = sanitizer_per_config.merge("racecheck", skipped)
        self.assertEqual(v.code, EXIT_SKIP, v.lines)
        unsupported = [outcome(c, run_of(report="device_not_supported.txt", returncode=1)) for c in ("a", "b")]
        self.assertEqual(sanitizer_per_config.merge("racecheck", unsupported).code, EXIT_SKIP)


class RunConfigs(unittest.TestCase):
    def groups(self, *configs):
        return [sanitizer_configs.ConfigGroup(c, [cell("normal_m1_n128_k128_g128_marlin", c)]) for c in configs]

    def test_a_group_that_would_start_after_the_deadline_is_not_run(self):
        def slow(group, seconds):
            self.assertGreater(seconds, 0)
            time.sleep(seconds)  # the whole budget: the process hung until it was stopped
            return run_of(program_text="Running main()\n", timed_out=True, seconds=seconds)
        outcomes = sanitizer_per_config.run_configs(self.groups("a", "b"), slow, "racecheck", [], 0.05, 1, False)
        self.assertEqual([o.status for o in outcomes], ["FAULT", "NOT RUN"])
        v = sanitizer_per_config.merge("racecheck", outcomes)
        self.assertIn("not started: the 0.05 s deadline had passed", "\n".join(v.lines))

    def test_jobs_run_groups_at_once(self):
        barrier = threading.Barrier(3, timeout=20)

        def meet(group, seconds):
            barrier.wait()  # raises BrokenBarrierError unless three groups run at the same time
            return run_of()
        outcomes = sanitizer_per_config.run_configs(self.groups("a", "b", "c"), meet, "racecheck", [], 0, 3, False)
        self.assertEqual([o.status for o in outcomes], ["PASS"] * 3)
        self.assertEqual([o.group.config for o in outcomes], ["a", "b", "c"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
