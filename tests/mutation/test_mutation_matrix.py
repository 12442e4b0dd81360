"""The kill-matrix script's own logic, without a GPU: the table it writes and its verdicts, for our
kernel's mutants, (--upstream) for upstream Marlin's and (--vllm) for vLLM's, with fake detector runs."""
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = importlib.util.spec_from_file_location("mm", os.path.join(HERE, "..", "..", "scripts", "mutation-matrix.py"))
mm = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(mm)


class Args:
    build = "build/gpu"
    filter = mm.DEFAULT_FILTER


class KillMatrix(unittest.TestCase):
    def test_every_mutant_has_a_slug_a_description_and_hint_kinds(self):
        self.assertEqual(sorted(mm.MUTANTS), list(range(1, 19)))
        for slug, text, cause, tiles in mm.MUTANTS.values():
            self.assertRegex(slug, r"^[a-z0-9-]+$")
            self.assertTrue(text)
            self.assertIsInstance(cause, set)
            self.assertIsInstance(tiles, set)

    def test_hint_kinds_are_the_comparators(self):
        with open(os.path.join(HERE, "..", "..", "compare", "include", "tilecheck", "compare", "hints.h")) as f:
            enum = f.read().split("enum class HintKind", 1)[1].split("};", 1)[0]
        kinds = set(re.findall(r"^\s*([a-z][a-z0-9_]*),", enum, re.M))
        self.assertIn("act_order_scatter", kinds)
        for number, (slug, _, cause, tiles) in mm.MUTANTS.items():
            self.assertLessEqual(cause | tiles, kinds, f"{number} {slug}")

    def test_table_marks_survivors_and_alarms(self):
        clean = mm.Result("clean", alarms={"bound": 0, "determinism": 0})
        caught = mm.Result("m1", alarms={"bound": 12, "determinism": 0}, hints={"whole_tiles"}, seconds={"matrix": 3.0})
        survived = mm.Result("m2", alarms={"bound": 0, "racecheck": 0}, hints=set())
        text = mm.markdown(clean, [(1, caught), (2, survived)], Args())
        self.assertIn("| clean (upstream) |", text)
        self.assertIn("| 1 scales-in-reduce-scratch | 12 |", text)
        row1 = next(line for line in text.splitlines() if line.startswith("| 1 "))
        self.assertIn("| yes | no | yes | 3 |", row1)  # whole_tiles names the tiles, not the cause
        row2 = next(line for line in text.splitlines() if line.startswith("| 2 "))
        self.assertIn("SURVIVED", row2)
        self.assertFalse(clean.caught())
        self.assertTrue(caught.caught())

    def test_hints_are_judged_only_when_there_is_wrong_output(self):
        quiet = mm.Result("m2", alarms={"bound": 0, "racecheck": 1})
        self.assertEqual(mm.hint_verdict(quiet, {"scale_fetch"}), "-")
        loud = mm.Result("m2", alarms={"bound": 3}, hints={"scale_fetch"})
        self.assertEqual(mm.hint_verdict(loud, {"scale_fetch"}), "yes")
        self.assertEqual(mm.hint_verdict(loud, {"multi_slice"}), "no")
        self.assertEqual(mm.hint_verdict(loud, set()), "-")

    def test_the_matrix_detector_passes_the_schedule_on(self):
        commands = []

        def fake_run(command, env, timeout):
            commands.append(command)
            return None, "", 0.0  # as if it timed out: nothing to read back

        real_run = mm.run
        mm.run = fake_run
        try:
            mm.matrix(mm.Result("m"), "build/gpu", "lib.so", "x", 1.0, "unknown")
            mm.matrix(mm.Result("m"), "build/gpu", "lib.so", "x", 1.0)
        finally:
            mm.run = real_run
        self.assertEqual(commands[0][-2:], ["--schedule", "unknown"])
        self.assertNotIn("--schedule", commands[1])

        class Unknown(Args):
            schedule = "unknown"
            detectors = ["matrix"]
        text = mm.markdown(mm.Result("clean"), [], Unknown())
        self.assertIn("`--schedule unknown` `--detectors matrix`", text)

    def test_an_alarm_on_the_clean_kernel_is_shown(self):
        clean = mm.Result("clean", alarms={"bound": 1})
        text = mm.markdown(clean, [], Args())
        self.assertIn("ALARM", text)


class FakeRuns:
    """Stands in for mm.run: records every command; `tilecheck run` writes the given cells as its JSON."""

    def __init__(self, cells=(), code=0):
        self.commands, self.envs, self.cells, self.code = [], [], list(cells), code

    def __call__(self, command, env, timeout):
        self.commands.append(command)
        self.envs.append(env)
        if "--json" in command:
            with open(command[command.index("--json") + 1], "w") as f:
                json.dump({"cells": self.cells}, f)
        return self.code, "", 1.5

    def __enter__(self):
        self.real, mm.run = mm.run, self
        return self

    def __exit__(self, *exc):
        mm.run = self.real


def cell(name, config, status, **counts):
    return dict({"cell": name, "config": config, "status": status, "tiers": "", "hints": []}, **counts)


class Upstream(unittest.TestCase):
    """--upstream: upstream Marlin's mutants (plugins/ist-marlin/mutants.txt) through the same detectors."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.build = self.tmp.name
        with open(os.path.join(self.build, "CMakeCache.txt"), "w") as f:
            f.write("TC_IST_MARLIN_SRC:PATH=/src/marlin/marlin\n")
        self.args = UpstreamArgs(self.build)
        self.target = mm.plan_upstream(self.args, mm.kit.load_description())

    def tearDown(self):
        self.tmp.cleanup()

    def test_the_plan_names_the_adapter_libraries_and_reads_the_description(self):
        t = self.target
        # The control is the base the mutants are planted on: upstream with its real races fixed.
        self.assertEqual(t.clean, os.path.join(self.build, "kernel", "libtc_ist_marlin_f03.so"))
        self.assertEqual(t.clean_label, "control (ist-marlin 2f6d7c1 + f03)")
        self.assertEqual(list(t.mutants)[:2], ["u01", "u02"])
        self.assertEqual(t.mutants["u07"], os.path.join(self.build, "kernel", "libtc_ist_marlin_u07.so"))
        self.assertEqual(t.catalogue["u01"][0], "scales-in-reduce-scratch")
        self.assertIn("scale_fetch", t.catalogue["u01"][2])
        self.assertEqual(t.expect["u03"], ["guard"])
        self.assertEqual(t.source_dirs[t.clean], os.path.join(self.build, "plugins", "ist-marlin", "mutants", "f03"))
        self.assertEqual(t.allowlist, mm.TIER_ALLOWLIST)  # no race of upstream's own to allow
        self.assertEqual(t.source_dirs[t.mutants["u05"]], os.path.join(self.build, "plugins", "ist-marlin", "mutants", "u05"))
        self.args.mutants = "3,u01"
        self.assertEqual(list(mm.plan_upstream(self.args, mm.kit.load_description()).mutants), ["u03", "u01"])
        self.args.mutants = "u99"
        with self.assertRaises(mm.kit.MutantError):
            mm.plan_upstream(self.args, mm.kit.load_description())

    def test_the_filter_leaves_out_the_configuration_the_compiler_breaks(self):
        import re
        f = re.compile(mm.UPSTREAM_FILTER)
        ok = "normal_m17_n256_k256_g128_marlin_m2n16k4g8_marlin_upstream_2f6d7c1_u03_sms7"
        self.assertTrue(f.search(ok))
        self.assertTrue(f.search(ok.replace("_u03", "")))
        self.assertFalse(f.search("normal_m1_n128_k128_g128_marlin_m1n8k8g8_marlin_upstream_2f6d7c1_sms7"))
        self.assertTrue(f.search("normal_m6_n128_k128_gcol_marlin_m1n8k8gcol_marlin_upstream_2f6d7c1_sms1"))

    def test_every_detector_runs_with_the_upstream_options(self):
        cells = [cell("a_m2n16k4g8_marlin_upstream_2f6d7c1_u07_sms7", "m2n16k4g8", "FAIL", workspace="lock 0 left at 3"),
                 cell("b_m4n16k4gcol_marlin_upstream_2f6d7c1_u07_sms1", "m4n16k4gcol", "HANG"),
                 cell("c_m1n16k4g8_marlin_upstream_2f6d7c1_u07_sms3", "m1n16k4g8", "FAIL", bound=12,
                      tiers={"t0": "fail", "t1": "fail"}, hints=["multi_slice"]),
                 cell("d_m1n16k4g8_marlin_upstream_2f6d7c1_u07_sms3", "m1n16k4g8", "pass"),
                 cell("e_m1n16k4g8_fp32_upstream_2f6d7c1_u07_sms3", "m1n16k4g8", "n/a")]
        library = self.target.mutants["u07"]
        with FakeRuns(cells, code=1) as fake:
            r = mm.evaluate("mutant u07", self.build, library, self.args, self.target)
        matrix, determinism, racecheck, memcheck = fake.commands
        self.assertEqual(matrix[matrix.index("--filter") + 1], mm.UPSTREAM_FILTER)
        self.assertEqual(matrix[matrix.index("--kernel") + 1], library)
        self.assertIn(f"--gtest_filter={mm.UPSTREAM_DETERMINISM}", determinism)
        self.assertEqual(fake.envs[1]["TC_KERNEL"], library)
        for command, tool in ((racecheck, "racecheck"), (memcheck, "memcheck")):
            self.assertIn("--per-config", command)
            self.assertIn("--allow-na", command)
            self.assertEqual(command[command.index("--filter") + 1], mm.UPSTREAM_SANITIZER_FILTERS[tool])
            self.assertEqual(command[command.index("--allowlist") + 1], self.target.allowlist)
            self.assertEqual(command[command.index("--source-dir") + 1], self.target.source_dirs[library])
            self.assertEqual(command[command.index("--log") + 1],
                             os.path.join(self.target.log_dir, f"mutant-u07.{tool}.log"))
        # Only the configuration the compiler breaks is left out: H1, which failed an m1n16k4g8 cell under
        # racecheck, is fixed in the base the mutants are planted on.
        for tool in ("racecheck", "memcheck"):
            self.assertEqual(mm.UPSTREAM_SANITIZER_FILTERS[tool].split("-", 1)[1], "*_m1n8k8g8_*")
        self.assertEqual((r.alarms["workspace"], r.alarms["hang"], r.alarms["bound"], r.alarms["exact"]), (1, 1, 1, 1))
        self.assertEqual((r.alarms["determinism"], r.alarms["racecheck"], r.alarms["memcheck"]), (1, 1, 1))
        self.assertEqual([c[2] for c in r.failing], ["FAIL", "HANG", "FAIL"])
        self.assertEqual(r.hints, {"multi_slice"})

    def test_sanitizers_when_needed_skip_what_the_numbers_caught_unless_expected(self):
        caught = [cell("c_m1n16k4g8_marlin_upstream_2f6d7c1_u02_sms3", "m1n16k4g8", "FAIL", bound=12,
                       tiers="t0=n/a t1=fail")]
        self.args.sanitizers = "needed"
        try:
            with FakeRuns(caught, code=0) as fake:  # u02 expects no sanitizer: both skipped
                r = mm.evaluate("mutant u02", self.build, self.target.mutants["u02"], self.args, self.target, "u02")
            self.assertEqual(len(fake.commands), 2)  # matrix and determinism only
            self.assertIn("racecheck not run: caught by numbers (--sanitizers needed)", r.notes)
            with FakeRuns(caught, code=0) as fake:  # u01 expects racecheck: it runs, memcheck does not
                mm.evaluate("mutant u01", self.build, self.target.mutants["u01"], self.args, self.target, "u01")
            self.assertEqual(len(fake.commands), 3)
            self.assertIn("racecheck", fake.commands[2])
            with FakeRuns(caught, code=0) as fake:  # the clean control always runs every detector
                mm.evaluate("clean", self.build, self.target.clean, self.args, self.target, None)
            self.assertEqual(len(fake.commands), 4)
        finally:
            self.args.sanitizers = "always"

    def test_the_table_says_what_caught_each_mutant_and_what_was_expected(self):
        clean = mm.Result("clean", alarms={"bound": 0, "racecheck": 0})
        u03 = mm.Result("u03", alarms={"guard": 4, "bound": 0}, hints={"row_predication"}, seconds={"matrix": 2.0},
                        failing=[("x_m1n16k4gcol_marlin_upstream_2f6d7c1_u03_sms1", "m1n16k4gcol", "FAIL")] * 3 +
                        [("y_m2n16k4g8_marlin_upstream_2f6d7c1_u03_sms7", "m2n16k4g8", "FAIL")])
        u08 = mm.Result("u08", alarms={"hang": 0, "bound": 0})
        text = mm.markdown(clean, [("u03", u03), ("u08", u08)], self.args, self.target)
        self.assertIn("# Mutation kill matrix: upstream IST-DASLab Marlin", text)
        self.assertIn("`scripts/mutation-matrix.py --upstream --build", text)
        self.assertIn("| caught | caught by | expected | cause | tiles | seconds |", text)
        self.assertIn("| control (ist-marlin 2f6d7c1 + f03) |", text)
        row = next(line for line in text.splitlines() if line.startswith("| u03 no-row-predicate |"))
        self.assertIn("| yes | guard | **guard** | yes | yes | 2 |", row)
        row = next(line for line in text.splitlines() if line.startswith("| u08 lock-release-twice |"))
        self.assertIn("| SURVIVED | - | hang |", row)
        self.assertIn("- u03 no-row-predicate (partial-M row predication): The write-out", text)
        self.assertIn("- u03 no-row-predicate: 4 cells (FAIL 4); m1n16k4gcol 3, m2n16k4g8 1; e.g. `x_m1n16k4gcol", text)
        self.assertIn("- u03 no-row-predicate: hints: row_predication", text)

    def test_without_a_base_the_control_is_the_plain_adapter(self):
        d = mm.kit.load_description()
        d.base = ""
        t = mm.plan_upstream(self.args, d)
        self.assertEqual(t.clean, os.path.join(self.build, "kernel", "libtc_ist_marlin.so"))
        self.assertEqual(t.clean_label, "clean (ist-marlin 2f6d7c1)")
        self.assertEqual(t.source_dirs[t.clean], "/src/marlin/marlin")

    def test_the_command_line_without_a_gpu(self):
        script = os.path.join(HERE, "..", "..", "scripts", "mutation-matrix.py")
        p = subprocess.run([sys.executable, script, "--upstream", "--build", self.build, "--mutants", "u99"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("unknown mutant 'u99'", p.stderr)
        if shutil.which("nvidia-smi") is None:
            p = subprocess.run([sys.executable, script, "--upstream", "--build", self.build], capture_output=True, text=True)
            self.assertEqual(p.returncode, 77)
            self.assertIn("SKIPPED", p.stdout)


class Vllm(unittest.TestCase):
    """--vllm: vLLM's Marlin's mutants (plugins/vllm-marlin/mutants.txt) against the clean adapter."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.build = self.tmp.name
        self.cache(True)
        self.args = UpstreamArgs(self.build)
        self.args.detectors = ["matrix"]
        self.description = mm.kit.load_description(mm.VLLM_DESCRIPTION)
        self.target = mm.plan_vllm(self.args, self.description)

    def cache(self, formats: bool):
        with open(os.path.join(self.build, "CMakeCache.txt"), "w") as f:
            f.write(f"TC_VLLM_MARLIN_FORMATS:BOOL={'ON' if formats else 'OFF'}\n")

    def tearDown(self):
        self.tmp.cleanup()

    def test_the_plan_names_the_adapter_libraries_and_the_mutants_formats(self):
        t = self.target
        self.assertEqual(t.clean, os.path.join(self.build, "kernel", "libtc_vllm_marlin.so"))
        self.assertEqual(t.clean_label, "clean (vllm-marlin vllm-bc390b9-fp32-reduce)")
        self.assertEqual(t.mutants["v01"], os.path.join(self.build, "kernel", "libtc_vllm_marlin_v01.so"))
        self.assertEqual(t.catalogue["v01"][0], "uint8-bias-8")
        self.assertEqual(t.expect["v01"], ["bound"])
        self.assertEqual(t.cell_filter, mm.vllm_filter(["fp16-uint8b128", "bf16-uint8b128", "fp16-uint4", "bf16-uint4"]))
        self.args.mutants = "v01"
        self.assertEqual(list(mm.plan_vllm(self.args, self.description).mutants), ["v01"])
        self.args.mutants = "u01"
        with self.assertRaisesRegex(mm.kit.MutantError, "unknown mutant 'u01'"):
            mm.plan_vllm(self.args, self.description)

    def test_a_control_without_the_mutants_formats_is_refused(self):
        self.cache(False)
        with self.assertRaisesRegex(mm.kit.MutantError, "TC_VLLM_MARLIN_FORMATS=OFF: the control .* lacks fp16-uint8b128"):
            mm.plan_vllm(self.args, self.description)

    def test_the_filter_takes_the_formats_cells_less_the_kpart_cells(self):
        import re
        f = re.compile(mm.vllm_filter(["fp16-uint8b128", "bf16-uint8b128"]))
        tail = "_m1n8k8g8_marlin_vllm_bc390b9_fp32_reduce{}_sms7"
        for variant in ("", "_v01"):
            self.assertTrue(f.search("normal_m16_n128_k256_g128_marlin_fp16_uint8b128" + tail.format(variant)))
            self.assertTrue(f.search("normal_m16_n128_k256_g32_marlin_bf16_uint8b128" + tail.format(variant)))
        self.assertFalse(f.search("normal_m16_n128_k256_g128_marlin" + tail.format("")))        # fp16 / uint4b8
        self.assertFalse(f.search("normal_m16_n128_k256_g128_marlin_fp16_uint4" + tail.format("")))
        self.assertFalse(f.search("normal_m16_n128_k256_g32_fp32_fp16_uint8b128_actworst_kpart" + tail.format("")))
        self.assertTrue(f.search("extremes_m8_n256_k128_gcol_marlin_bf16_uint8b128" + tail.format("_v01")))  # judged since (B), (C)
        self.assertTrue(f.search("extremes_m8_n128_k128_g128_fp32_fp16_uint8b128" + tail.format("_v01")))
        uint4 = re.compile(mm.vllm_filter(["fp16-uint4"]))
        self.assertTrue(uint4.search("normal_m16_n128_k256_g128_marlin_fp16_uint4" + tail.format("_v02")))
        self.assertFalse(uint4.search("normal_m16_n128_k512_g128_marlin_fp16_uint4b8_actrandom" + tail.format("")))
        with self.assertRaisesRegex(mm.kit.MutantError, "pass --filter"):
            mm.vllm_filter(["fp16-uint4b8"])

    def test_the_matrix_runs_on_the_filter_and_the_table_names_the_kit(self):
        cells = [cell("a_fp16_uint8b128_m1n8k8g8_marlin_vllm_bc390b9_fp32_reduce_v01_sms7", "m1n8k8g8", "FAIL", bound=9)]
        with FakeRuns(cells, code=1) as fake:
            r = mm.evaluate("mutant v01", self.build, self.target.mutants["v01"], self.args, self.target, "v01")
        (command,) = fake.commands  # the matrix detector only
        self.assertEqual(command[command.index("--filter") + 1], self.target.cell_filter)
        text = mm.markdown(mm.Result("clean", alarms={"bound": 0}), [("v01", r)], self.args, self.target)
        self.assertIn("# Mutation kill matrix: vLLM's Marlin (plugins/vllm-marlin/mutants.txt)", text)
        self.assertIn("`scripts/mutation-matrix.py --vllm --build", text)
        self.assertIn("| clean (vllm-marlin vllm-bc390b9-fp32-reduce) |", text)
        row = next(line for line in text.splitlines() if line.startswith("| v01 uint8-bias-8 |"))
        self.assertIn("| yes | bound | **bound** |", row)

    def test_the_command_line_without_a_gpu(self):
        script = os.path.join(HERE, "..", "..", "scripts", "mutation-matrix.py")
        for extra, message in ((["--upstream"], "one kit at a time"), (["--mutants", "v99"], "unknown mutant 'v99'")):
            p = subprocess.run([sys.executable, script, "--vllm", "--build", self.build] + extra,
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 2)
            self.assertIn(message, p.stderr)
        if shutil.which("nvidia-smi") is None:
            p = subprocess.run([sys.executable, script, "--vllm", "--build", self.build], capture_output=True, text=True)
            self.assertEqual(p.returncode, 77)
            self.assertIn("SKIPPED", p.stdout)


class UpstreamArgs:
    def __init__(self, build):
        self.build = build
        self.mutants = "all"
        self.filter = ""
        self.timeout = 10.0
        self.schedule = ""
        self.detectors = list(mm.DETECTORS)


if __name__ == "__main__":
    sys.exit(unittest.main())
