#!/usr/bin/env python3
"""scripts/vllm-actorder-model.py against what the H200 measured (docs/case-study-vllm-marlin-formats.md):
on every committed act-order case on a shard of K, `tilecheck compare` finds in the modelled output
exactly the mismatches vLLM's Marlin (bc390b9) had in every cell, and none when each row reads its own
group; a case vLLM runs with its grouped kernel is refused.

    test_vllm_actorder_model.py --tilecheck build/default/cli/tilecheck --fixtures fixtures --source ."""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import unittest

ARGS = None
# Mismatched elements of 2048 in every cell of the case (81 each) of the fp32-reduce library on the H200.
MEASURED = {
    "normal_m16_n128_k512_g128_marlin_fp16-uint4b8-actrandom-kpart": 1995,
    "normal_m16_n128_k512_g32_marlin_fp16-uint4b8-actworst-kpart": 2021,
    "normal_m16_n128_k256_g32_fp32_fp16-uint8b128-actworst-kpart": 2036,
}


class ActOrderModel(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def model(self, case, *flags):
        out = os.path.join(self.dir.name, "C.h5")
        script = os.path.join(ARGS.source, "scripts", "vllm-actorder-model.py")
        r = subprocess.run([sys.executable, script, self.case_file(case), out, *flags], capture_output=True, text=True)
        return r, out

    def case_file(self, case):
        return os.path.join(ARGS.fixtures, "golden", case + ".h5")

    def mismatched(self, case, output):
        r = subprocess.run([ARGS.tilecheck, "compare", "--fixture", self.case_file(case), "--output", output,
                            "--sms", "132"], capture_output=True, text=True)
        m = re.match(r"Mismatched (\d+) / 2048", r.stdout)
        self.assertIsNotNone(m, r.stdout + r.stderr)
        self.assertEqual(r.returncode, 0 if m.group(1) == "0" else 1, r.stderr)
        return int(m.group(1))

    def test_the_misread_scales_give_the_measured_mismatches(self):
        for case, measured in MEASURED.items():
            for tile_k in ("64", "128"):
                r, out = self.model(case, "--tile-k", tile_k)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(self.mismatched(case, out), measured, f"{case}, tile_k {tile_k}")

    def test_each_row_reading_its_own_group_passes(self):
        for case in MEASURED:
            r, out = self.model(case, "--correct")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(" 0 of ", r.stdout)
            self.assertEqual(self.mismatched(case, out), 0, case)

    def test_a_case_on_the_whole_k_is_refused(self):
        r, _ = self.model("normal_m16_n128_k512_g128_marlin_fp16-uint4b8-actrandom")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("grouped kernel", r.stderr)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--tilecheck", required=True)
    parser.add_argument("--fixtures", required=True)
    parser.add_argument("--source", required=True)
    ARGS, rest = parser.parse_known_args()
    unittest.main(argv=[sys.argv[0]] + rest)
