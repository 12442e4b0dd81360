"""scripts/fetch-order-ab.py without a GPU: it reads tilecheck bench's table by column name."""
import importlib.util
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = importlib.util.spec_from_file_location("ab", os.path.join(HERE, "..", "..", "scripts", "fetch-order-ab.py"))
ab = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(ab)

BENCH = """device: NVIDIA H200, 132 SMs, L2 60 MB, driver 13.0, runtime 13.0
device-to-device copy: 4.36 TB/s (read + write)

config       variant        M      K      N group  sms slices        us       spread us    TB/s   %copy  cuBLAS us  speedup
m1n8k8gcol   upstream      16   1024   1024    -1  132      8     13.90   13.86-13.95      0.04      1%        0.0    0.00x
m1n16k4gcol  upstream      16   1024   1024    -1  132    3-4     14.20   14.10-14.30      0.04      1%        0.0    0.00x
"""


class ParseRow(unittest.TestCase):
    def test_reads_the_line_of_the_config(self):
        row = ab.parse_row(BENCH, "m1n16k4gcol")
        self.assertEqual(row["variant"], "upstream")
        self.assertEqual(row["slices"], "3-4")
        self.assertEqual(float(row["us"]), 14.20)

    def test_a_missing_config_is_an_error_that_shows_the_output(self):
        with self.assertRaisesRegex(ValueError, "no bench line for m4n8k8g2"):
            ab.parse_row(BENCH, "m4n8k8g2")


if __name__ == "__main__":
    sys.exit(unittest.main())
