#!/usr/bin/env python3
"""run_sanitizer.py --per-config against a fake suite (the listing) and a fake compute-sanitizer
(the runs) whose configurations pass, fault, crash, hang or report hazards on demand (label cpu,
run by test_run_sanitizer.py)."""
import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
from sanitizer_fakes import FAKE_SANITIZER, FAKE_SMI_GPU, FAKE_SMI_NONE, FIXTURES, RUNNER, FakeTools  # noqa: E402,F401

# ---------------------------------------------------------------------------------------------
# --per-config against a fake suite (the listing) and a fake compute-sanitizer (the runs)
# ---------------------------------------------------------------------------------------------

FAKE_SUITE = """#!{python}
# Fake suite_gpu_tests, for --gtest_list_tests only: records its arguments, prints $FAKE_LIST.
import os, sys
with open(os.environ["FAKE_LIST_ARGS"], "w") as f:
    f.write(os.environ.get("TC_KERNEL", "") + "\\n" + "\\n".join(sys.argv[1:]))
with open(os.environ["FAKE_LIST"]) as f:
    sys.stdout.write(f.read())
sys.exit(int(os.environ.get("FAKE_LIST_EXIT", "0")))
"""

# Runs the "tests" its --gtest_filter (or --gtest_flagfile) names; their configuration behaves as
# $FAKE_BEHAVIOUR says ("m1n8k8g8=fault,m1n16k4g8=hazard"; clean otherwise). Appends one JSON line
# per call to $FAKE_CALLS.
FAKE_PER_CONFIG_SANITIZER = """#!{python}
import json, os, re, sys, time
args = sys.argv[1:]
flt = next((a.split("=", 1)[1] for a in args if a.startswith("--gtest_filter=")), None)
if flt is None:
    with open(next(a.split("=", 1)[1] for a in args if a.startswith("--gtest_flagfile="))) as f:
        flt = f.read().strip().split("=", 1)[1]
tests = flt.split(":")
configs = sorted({{re.search(r"_(m\\d+n\\d+k\\d+g(?:\\d+|col))_", t).group(1) for t in tests}})
with open(os.environ["FAKE_CALLS"], "a") as f:
    f.write(json.dumps({{"configs": configs, "tests": tests, "kernel": os.environ.get("TC_KERNEL"),
                        "in_process": os.environ.get("TC_IN_PROCESS"), "args": args}}) + "\\n")
kind = dict(b.split("=") for b in os.environ.get("FAKE_BEHAVIOUR", "").split(",") if b).get(configs[0], "clean")
n = len(tests)
report = "========= COMPUTE-SANITIZER\\n"
out = ["Running main() from gtest_main.cpp"]
status = 0
if kind == "hang":
    time.sleep(60)
if kind == "rendezvous":  # wait until $FAKE_MEET configurations run at once
    open(os.path.join(os.environ["FAKE_RENDEZVOUS"], configs[0]), "w").close()
    for _ in range(400):
        if len(os.listdir(os.environ["FAKE_RENDEZVOUS"])) >= int(os.environ["FAKE_MEET"]):
            break
        time.sleep(0.05)
    else:
        sys.exit(3)
if kind == "hazard":
    with open(os.environ["FAKE_HAZARDS"]) as f:
        report = f.read()
    status = 1
if kind in ("clean", "hazard", "rendezvous"):
    out += [f"[==========] {{n}} tests from 1 test suite ran. (5 ms total)", f"[  PASSED  ] {{n}} tests."]
    report += "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\\n" if kind != "hazard" else ""
elif kind == "fault":
    report += ("========= Warp Illegal Instruction\\n"
               "=========     at Marlin<256, 1, 8, 8, 4, 8>+0x1f30 in marlin_cuda_kernel.cu:462\\n"
               "=========     by thread (0,0,0) in block (0,0,0)\\n=========\\n========= ERROR SUMMARY: 1 error\\n")
    out += ["suite_gpu_test.cpp:78: Failure", "x: FAULT: cudaErrorIllegalInstruction"]
    out += ["cudaMalloc at device_case.cpp:40: cudaErrorIllegalInstruction"] * (n - 1)
    out += [f"[==========] {{n}} tests from 1 test suite ran. (5 ms total)", "[  PASSED  ] 0 tests.",
            f"[  FAILED  ] {{n}} tests, listed below:"] + [f"[  FAILED  ] {{t}}" for t in tests]
    status = 1
elif kind == "na":
    out += ["suite_gpu_test.cpp:77: Skipped", "n/a: upstream Marlin derives m_blocks from M"] * n
    out += [f"[==========] {{n}} tests from 1 test suite ran. (5 ms total)", "[  PASSED  ] 0 tests.",
            f"[  SKIPPED ] {{n}} tests, listed below:"] + [f"[  SKIPPED ] {{t}}" for t in tests]
elif kind == "crash":
    report += "========= Error: process didn't terminate successfully\\n========= ERROR SUMMARY: 0 errors\\n"
    status = 134
with open(args[args.index("--log-file") + 1], "w") as f:
    f.write(report)
print("\\n".join(out))
sys.exit(status)
"""

CONFIGS = ("m1n8k8gcol", "m1n8k8g8", "m1n16k4g8")


def listing(tests_per_config=2, configs=CONFIGS, case="normal_m1_n128_k128_g128_marlin"):
    lines = ["Running main() from gtest_main.cpp", "Sanitize/KernelVsGolden."]
    for sms in range(1, tests_per_config + 1):
        for config in configs:
            name = f"{case}_{config}_marlin_upstream_2f6d7c1_sms{sms}"
            lines.append(f"  Matches/{name}  # GetParam() = {name}")
    return "\n".join(lines) + "\n"


class PerConfig(FakeTools, unittest.TestCase):
    def setUp(self):
        super().setUp()
        self.tool("suite_gpu_tests", FAKE_SUITE.format(python=sys.executable))
        self.suite = os.path.join(self.bin, "suite_gpu_tests")
        self.tool("compute-sanitizer", FAKE_PER_CONFIG_SANITIZER.format(python=sys.executable))
        self.tool("nvidia-smi", FAKE_SMI_GPU)
        self.calls = os.path.join(self.dir, "calls.jsonl")

    def per_config(self, behaviour="", tests=None, extra=(), env_extra=None):
        env = {"FAKE_LIST": self.touch("list.txt", tests if tests is not None else listing()),
               "FAKE_LIST_ARGS": os.path.join(self.dir, "list-args.txt"), "FAKE_CALLS": self.calls,
               "FAKE_BEHAVIOUR": behaviour, "FAKE_HAZARDS": os.path.join(FIXTURES, "racecheck_hazard.txt")}
        env.update(env_extra or {})
        return self.run_runner(extra=("--per-config", *extra), env_extra=env)

    def calls_made(self):
        if not os.path.exists(self.calls):
            return []
        with open(self.calls) as f:
            return [json.loads(line) for line in f]

    def read_log(self):
        with open(self.log) as f:
            return f.read()

    def test_one_process_per_configuration_with_exactly_its_tests(self):
        r = self.per_config()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with open(os.path.join(self.dir, "list-args.txt")) as f:
            self.assertEqual(f.read().split("\n"), [os.path.abspath(self.kernel), "--gtest_list_tests",
                                                     "--gtest_filter=Sanitize/*"])
        calls = self.calls_made()
        self.assertEqual([c["configs"] for c in calls], [[c] for c in CONFIGS])
        for call, config in zip(calls, CONFIGS):
            self.assertEqual(call["tests"], [f"Sanitize/KernelVsGolden.Matches/normal_m1_n128_k128_g128_marlin_{config}"
                                             f"_marlin_upstream_2f6d7c1_sms{s}" for s in (1, 2)])
            self.assertEqual((call["kernel"], call["in_process"]), (os.path.abspath(self.kernel), "1"))
            self.assertEqual(call["args"][:4], ["--tool", "racecheck", "--error-exitcode", "1"])
        self.assertIn("6 tests in 3 configurations (m1n8k8gcol, m1n8k8g8, m1n16k4g8), 1 at a time", r.stdout)
        self.assertRegex(r.stdout, r"m1n8k8g8 +PASS +tests: 2 ran, 2 passed")
        self.assertIn("PASS: all 3 configurations clean", r.stdout)
        log = self.read_log()
        for config in CONFIGS:
            self.assertIn(f"==== configuration {config}: 2 tests, PASS ====", log)
        self.assertIn("==== verdict over all configurations ====", log)

    def test_a_faulting_configuration_does_not_stop_the_others(self):
        r = self.per_config("m1n8k8gcol=fault")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertEqual(len(self.calls_made()), 3, "the configurations after the fault still run")
        self.assertRegex(r.stdout, r"m1n8k8gcol +FAULT +tests: 2 ran, 0 passed, 2 failed")
        self.assertIn("fault: the tool reported: Warp Illegal Instruction", r.stdout)
        self.assertIn("fault: the program printed: x: FAULT: cudaErrorIllegalInstruction (and 1 more such lines)",
                      r.stdout)
        self.assertRegex(r.stdout, r"m1n8k8g8 +PASS")
        self.assertRegex(r.stdout, r"m1n16k4g8 +PASS")
        self.assertIn("FAIL: 1 of 3 configurations not clean: m1n8k8gcol (FAULT)", r.stdout)
        log = self.read_log()
        section = log[log.index("==== configuration m1n8k8gcol"):log.index("==== configuration m1n8k8g8")]
        self.assertIn("Warp Illegal Instruction", section)
        self.assertIn("in marlin_cuda_kernel.cu:462", section)

    def test_records_stay_with_their_configuration_and_merge_by_source_line(self):
        r = self.per_config("m1n8k8g8=hazard,m1n16k4g8=hazard")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"m1n8k8gcol +PASS .*records: 0")
        self.assertRegex(r.stdout, r"m1n8k8g8 +FAIL .*records: 3 \(0 allow-listed, 3 not\)")
        self.assertIn("records over all configurations: 6 (0 allow-listed, 6 not), 2 distinct:", r.stdout)
        self.assertIn("  [NOT allow-listed] x4 WAR hazard\n      in m1n8k8g8 x2, m1n16k4g8 x2\n", r.stdout)
        self.assertIn("Read /work/main/kernel/src/marlin_kernel.cuh:376", r.stdout)
        self.assertIn("Write /work/main/kernel/src/marlin_kernel.cuh:162", r.stdout)
        allow = self.touch("allow.txt", "racecheck :: cuh:376(.|\\n)*cuh:162 :: test entry\n"
                                        "racecheck :: cuh:181(.|\\n)*cuh:383 :: test entry\n")
        r = self.per_config("m1n8k8g8=hazard,m1n16k4g8=hazard", extra=("--allowlist", allow))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("[allow-listed by line 1] x4 WAR hazard", r.stdout)

    def test_exit_statuses(self):
        crashed = self.per_config("m1n16k4g8=crash")
        self.assertEqual(crashed.returncode, 1, crashed.stdout)
        self.assertIn("fault: the program printed no gtest summary (exit status 134)", crashed.stdout)
        partly_na = self.per_config("m1n8k8g8=na")
        self.assertEqual(partly_na.returncode, 1, partly_na.stdout)
        self.assertIn("m1n8k8g8 (SKIPPED)", partly_na.stdout)
        allowed = self.per_config("m1n8k8g8=na", extra=("--allow-na",))
        self.assertEqual(allowed.returncode, 0, allowed.stdout)
        self.assertRegex(allowed.stdout, r"m1n8k8g8 +N/A +tests: 2 ran, 0 passed, 0 failed, 2 skipped \(2 n/a\)")
        all_na = self.per_config(",".join(f"{c}=na" for c in CONFIGS), extra=("--allow-na",))
        self.assertEqual(all_na.returncode, 77, all_na.stdout)
        self.assertIn("SKIPPED: no configuration ran a test", all_na.stdout)
        nothing = self.per_config(tests="Running main() from gtest_main.cpp\n")
        self.assertEqual(nothing.returncode, 1, nothing.stdout)
        self.assertIn("the gtest filter selected no test", nothing.stdout)
        broken = self.per_config(env_extra={"FAKE_LIST_EXIT": "1"})
        self.assertEqual(broken.returncode, 1, broken.stdout)
        self.assertIn("listing the tests failed (exit status 1", broken.stdout)
        for bad in (("--jobs", "0"), ("--jobs", "x")):
            r = self.per_config(extra=bad)
            self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        r = self.run_runner(extra=("--jobs", "2"))
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("--jobs 2 needs --per-config", r.stderr)

    def test_the_timeout_bounds_all_configurations(self):
        r = self.per_config("m1n8k8gcol=hang", extra=("--timeout", "2"))
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"m1n8k8gcol +FAULT")
        self.assertIn("fault: stopped at its deadline", r.stdout)
        self.assertIn("m1n8k8g8 (NOT RUN), m1n16k4g8 (NOT RUN)", r.stdout)
        self.assertEqual(len(self.calls_made()), 1)

    def test_jobs_run_configurations_at_once(self):
        meet = os.path.join(self.dir, "rendezvous")
        os.mkdir(meet)
        behaviour = ",".join(f"{c}=rendezvous" for c in CONFIGS)
        r = self.per_config(behaviour, extra=("--jobs", "3"), env_extra={"FAKE_RENDEZVOUS": meet, "FAKE_MEET": "3"})
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("3 at a time", r.stdout)

    def test_a_filter_too_long_for_one_argument_goes_into_a_flagfile(self):
        tests = listing(tests_per_config=1500, configs=("m1n8k8g8",))
        r = self.per_config(tests=tests)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        (call,) = self.calls_made()
        self.assertEqual(len(call["tests"]), 1500)
        self.assertTrue(any(a.startswith("--gtest_flagfile=") for a in call["args"]), call["args"][-3:])


if __name__ == "__main__":
    unittest.main(verbosity=2)
