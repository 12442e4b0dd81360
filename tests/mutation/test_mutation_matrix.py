"""The kill-matrix script's own logic, without a GPU: the table it writes and its verdicts."""
import importlib.util
import os
import sys
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
        self.assertEqual(sorted(mm.MUTANTS), list(range(1, 16)))
        for slug, text, cause, tiles in mm.MUTANTS.values():
            self.assertRegex(slug, r"^[a-z0-9-]+$")
            self.assertTrue(text)
            self.assertIsInstance(cause, set)
            self.assertIsInstance(tiles, set)

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


if __name__ == "__main__":
    sys.exit(unittest.main())
