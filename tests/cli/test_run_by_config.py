#!/usr/bin/env python3
"""scripts/run-by-config.py on a canned `tilecheck run --json` file: one row per configuration and
contract, counts per status, reasons listed once with their count, exit 2 on an unreadable file."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "run-by-config.py")


def cell(config, contract, status, message="", ulp=0, util=0.0):
    return {"config": config, "contract": contract, "status": status, "message": message,
            "worst_ulp": ulp, "worst_utilization": util}


class RunByConfig(unittest.TestCase):
    def run_script(self, doc):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "cells.json")
            with open(path, "w", encoding="utf-8") as f:
                f.write(doc if isinstance(doc, str) else json.dumps(doc))
            return subprocess.run([sys.executable, SCRIPT, path], capture_output=True, text=True)

    def test_rows_counts_and_reasons(self):
        cells = [cell("m1n8k8g8", "marlin", "FAULT", "FAULT: cudaErrorIllegalInstruction"),
                 cell("m1n8k8g8", "marlin", "FAULT", "not run: configuration m1n8k8g8 faulted 3 times in a row"),
                 cell("m1n8k8g8", "marlin", "FAULT", "not run: configuration m1n8k8g8 faulted 3 times in a row"),
                 cell("m1n8k8g8", "fp32", "n/a", "only the marlin contract"),
                 cell("m1n16k4g8", "marlin", "pass", ulp=3, util=0.5),
                 cell("m1n16k4g8", "marlin", "pass", ulp=7, util=0.25)]
        r = self.run_script({"cells": cells})
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(len(lines), 2 + 3)
        self.assertIn("| m1n16k4g8 | marlin | 2 | 2 | 0 | 0 | 0 | 0 | 0 | 7 / 0.50 |  |", lines)
        fault = next(line for line in lines if "| m1n8k8g8 | marlin |" in line)
        self.assertIn("| 3 | 0 | 0 | 3 | 0 | 0 | 0 | - |", fault)
        self.assertIn("FAULT: not run: configuration m1n8k8g8 faulted 3 times in a row (x2)", fault)
        self.assertIn("FAULT: cudaErrorIllegalInstruction (x1)", fault)
        self.assertNotIn("FAULT: FAULT:", fault)
        self.assertIn("n/a: only the marlin contract (x1)", next(line for line in lines if "| fp32 |" in line))

    def test_exact_cells_have_no_bound_use(self):
        # An exact-family cell (no bound) writes null for its bound use; vLLM's run on the H200 had them.
        cells = [cell("m1n8k4gcol", "marlin", "pass", ulp=2, util=None),
                 cell("m1n8k4gcol", "marlin", "pass", ulp=None, util=0.75)]
        r = self.run_script({"cells": cells})
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("| m1n8k4gcol | marlin | 2 | 2 | 0 | 0 | 0 | 0 | 0 | 2 / 0.75 |  |", r.stdout.splitlines())

    def test_unreadable_file_is_exit_2(self):
        r = self.run_script("{not json")
        self.assertEqual(r.returncode, 2)
        self.assertIn("cannot read", r.stderr)


if __name__ == "__main__":
    unittest.main()
