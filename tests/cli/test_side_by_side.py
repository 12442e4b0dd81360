#!/usr/bin/env python3
"""scripts/side-by-side.py on canned `tilecheck bench` logs: one table row per point and
configuration with the ratio to the reference library, the count of points at or below it, a
library's n/a / FAULT / HANG row in its place, and errors (exit != 0, naming the file) for a log with
the wrong number of rows or none."""
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "side-by-side.py")
HEADER = ("device-to-device copy: 4.20 TB/s (read + write)\n"
          "config       variant        M      K      N group  sms slices        us       spread us    TB/s   %copy"
          "  cuBLAS us  speedup\n")


def row(config, us, copy):
    return f"{config}  upstream  16  8192  28672  128  132  2-3  {us:.2f}  {us - 0.1:.2f}-{us + 0.1:.2f}  2.5  {copy}%  110.7  2.3x\n"


class SideBySide(unittest.TestCase):
    def run_script(self, logs, *extra):
        with tempfile.TemporaryDirectory() as tmp:
            for name, text in logs.items():
                pathlib.Path(tmp, name).write_text(text)
            return subprocess.run([sys.executable, SCRIPT, tmp, *extra], capture_output=True, text=True)

    def test_ratio_to_the_last_library_and_the_count(self):
        log = HEADER + row("m1n16k4g8", 43.0, 67) + row("m1n16k4g8", 46.0, 63) + \
            row("m1n16k4gcol", 44.0, 76) + row("m1n16k4gcol", 40.0, 65)
        r = self.run_script({"bench_8192x28672_M16.txt": log}, "--labels", "ours,upstream")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertIn("| 8192 x 28672 | 16 | m1n16k4g8 | 43.00 (42.90-43.10) | 46.00 (45.90-46.10) | 0.935 | 67% | 63% | 110.7 |",
                      lines)
        self.assertIn("| 8192 x 28672 | 16 | m1n16k4gcol | 44.00 (43.90-44.10) | 40.00 (39.90-40.10) | 1.100 | 76% | 65% | 110.7 |",
                      lines)
        self.assertIn("ours at or below upstream's time at 1 of 2 points.", lines)

    def test_a_library_without_a_time_stands_in_its_place(self):
        # upstream declines the per-column configuration; the grouped one faulted in the shared
        # process and was timed again one library per process.
        log = HEADER + \
            "m1n16k4g8               FAULT: m1n16k4g8: TC_ERR_CUDA: an illegal instruction was encountered\n" + \
            "m1n16k4g8               each library alone (not interleaved):\n" + row("m1n16k4g8", 43.5, 66) + \
            "m1n16k4g8    upstream-2f6d7c1 FAULT: m1n16k4g8: TC_ERR_CUDA: an illegal instruction was encountered\n" + \
            row("m1n16k4gcol", 44.0, 76) + \
            "m1n16k4gcol  upstream-2f6d7c1 n/a: upstream Marlin has no kernel for this tile\n"
        r = self.run_script({"bench_8192x28672_M16.txt": log}, "--labels", "ours,upstream")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertIn("| 8192 x 28672 | 16 | m1n16k4g8 | 43.50 (43.40-43.60) | FAULT | - | 66% | - | 110.7 |", lines)
        self.assertIn("| 8192 x 28672 | 16 | m1n16k4gcol | 44.00 (43.90-44.10) | n/a | - | 76% | - | 110.7 |", lines)
        self.assertIn("ours at or below upstream's time at 0 of 0 points (2 more without a time for both).", lines)

    def test_each_library_on_its_own_tile(self):
        # --config auto, one file per scale group: the rows are keyed by the group, whatever tile each took.
        def auto(group, us, copy):
            return f"auto  lib  16  8192  28672  {group}  132  -  {us:.2f}  {us - 0.1:.2f}-{us + 0.1:.2f}  2.5  {copy}%  110.7  2.3x\n"
        grouped = HEADER + auto(128, 40.0, 70) + auto(128, 44.0, 64) + auto(128, 50.0, 56)
        per_column = HEADER + auto(-1, 38.0, 74) + "auto       upstream-2f6d7c1 n/a: no kernel\n" + auto(-1, 37.0, 76)
        r = self.run_script({"bench_8192x28672_M16_g128.txt": grouped, "bench_8192x28672_M16_g-1.txt": per_column},
                            "--labels", "ours,upstream,vllm")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertIn("| 8192 x 28672 | 16 | auto g128 | 40.00 (39.90-40.10) | 44.00 (43.90-44.10) | 50.00 (49.90-50.10) | 0.800 | 70% | 56% | 110.7 |",
                      lines)
        self.assertIn("| 8192 x 28672 | 16 | auto gcol | 38.00 (37.90-38.10) | n/a | 37.00 (36.90-37.10) | 1.027 | 74% | 76% | 110.7 |",
                      lines)
        self.assertIn("ours at or below vllm's time at 1 of 2 points.", lines)

    def test_an_untimed_auto_row_needs_the_group_in_the_file_name(self):
        log = HEADER + "auto       upstream-2f6d7c1 n/a: no kernel\n"
        r = self.run_script({"bench_8192x28672_M16.txt": log}, "--labels", "ours,upstream")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("bench_8192x28672_M16.txt: an untimed auto row needs the group", r.stdout + r.stderr)

    def test_a_missing_row_names_the_file(self):
        log = HEADER + row("m1n16k4g8", 43.0, 67)
        r = self.run_script({"bench_4096x4096_M1.txt": log}, "--labels", "ours,upstream")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("bench_4096x4096_M1.txt", r.stderr)
        self.assertIn("1 rows, expected one per label (2)", r.stderr)

    def test_a_log_without_rows_is_an_error(self):
        r = self.run_script({"bench_4096x4096_M1.txt": HEADER + "m1n16k4g8 FAULT\n"}, "--labels", "ours,upstream")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no bench rows", r.stderr)

    def test_an_empty_directory_is_a_usage_error(self):
        r = self.run_script({}, "--labels", "ours,upstream")
        self.assertEqual(r.returncode, 2)
        self.assertIn("no bench_<K>x<N>_M<M>[_g<G>].txt files", r.stderr)


if __name__ == "__main__":
    unittest.main()
