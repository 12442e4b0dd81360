#!/usr/bin/env python3
"""`tilecheck compare` on a bf16 case (schema v2) end to end, with the output written as
docs/compare.md tells a user to: the expected output passes; a tile off by a few hundred ULPs fails
T1 with the tile named; an fp16 dataset for a bf16 case is refused as the wrong type (exit 2).

    test_compare_bf16.py --tilecheck build/default/cli/tilecheck --fixtures fixtures"""
import argparse
import os
import subprocess
import sys
import tempfile
import unittest

import h5py
import numpy as np

CASE = "normal_m16_n128_k256_g64_marlin_bf16-uint4b8"
ARGS = None


def bf16_type():
    t = h5py.h5t.IEEE_F32LE.copy()
    t.set_fields(15, 7, 8, 0, 7)
    t.set_precision(16)
    t.set_size(2)
    t.set_ebias(127)
    return t


def write_bf16(path, values):
    with h5py.File(path, "w") as f:
        ds = h5py.h5d.create(f.id, b"C", bf16_type(), h5py.h5s.create_simple(values.shape))
        ds.write(h5py.h5s.ALL, h5py.h5s.ALL, np.ascontiguousarray(values, dtype=np.float32))


class CompareBf16(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        with h5py.File(os.path.join(ARGS.fixtures, "golden", CASE + ".h5"), "r") as f:
            self.expected = f["ref/expected"].astype(np.float32)[()]  # exact: bf16 is the top half of float32

    def tearDown(self):
        self.dir.cleanup()

    def compare(self, values=None, writer=write_bf16):
        path = os.path.join(self.dir.name, "O.h5")
        writer(path, self.expected if values is None else values)
        return subprocess.run([ARGS.tilecheck, "compare", "--fixtures", ARGS.fixtures, "--fixture", CASE,
                               "--output", path], capture_output=True, text=True)

    def test_the_expected_output_passes_in_bf16_ulps(self):
        r = self.compare()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("format bf16-uint4b8 (bf16 values, ULPs of bf16)", r.stdout)
        self.assertIn("T1 bound PASS (0 mismatched)", r.stdout)

    def test_a_wrong_tile_fails_the_bound(self):
        wrong = self.expected.copy()
        wrong.view(np.uint32)[0:16, 0:64] += np.uint32(400 << 16)  # 400 bf16 ULPs up (finite: |C| < 2^30 here)
        r = self.compare(wrong)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("T1 bound FAIL", r.stdout)
        self.assertIn("ULP distance", r.stdout)

    def test_fp16_for_a_bf16_case_is_the_wrong_type(self):
        def write_fp16(path, values):
            with h5py.File(path, "w") as f:
                f.create_dataset("C", data=values.astype(np.float16))
        r = self.compare(writer=write_fp16)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("expected bf16", r.stderr)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tilecheck", required=True)
    ap.add_argument("--fixtures", required=True)
    ARGS, rest = ap.parse_known_args()
    sys.exit(unittest.main(argv=[sys.argv[0]] + rest, verbosity=2))
