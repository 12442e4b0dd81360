#!/usr/bin/env python3
"""The README stays a newcomer's path: at most 1,500 words and no dated lines (issue 31). Measurements
go to dated pages under docs/results/, which the README may link to but not quote."""
import os
import re
import unittest

README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "README.md")
LIMIT = 1500
DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")


class Readme(unittest.TestCase):
    def setUp(self):
        with open(README, encoding="utf-8") as f:
            self.text = f.read()

    def test_is_at_most_the_word_limit(self):
        words = len(self.text.split())
        self.assertLessEqual(words, LIMIT, f"README.md has {words} words (at most {LIMIT}): move detail into docs/")

    def test_has_no_dated_line_but_links(self):
        # A date inside a link target (docs/results/gpu-2026-12-02.md) is a pointer, not a measurement.
        dated = [line for line in self.text.splitlines() if DATE.search(re.sub(r"\]\([^)]*\)", "]()", line))]
        self.assertEqual(dated, [], "dated lines belong to docs/results/")


if __name__ == "__main__":
    unittest.main()
