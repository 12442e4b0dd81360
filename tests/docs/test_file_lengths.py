#!/usr/bin/env python3
"""Every source file of the project (C++, CUDA, Python) has at most 400 lines: one concept per file,
readable in one sitting (issue 31). A file that grows past it is split, not exempted."""
import os
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
FOLDERS = ["cli", "compare", "core", "fixtures", "kernel", "notebooks", "plugin", "plugins", "python", "reference",
           "scripts", "suite", "tests"]
SUFFIXES = (".cpp", ".h", ".cu", ".cuh", ".py")
LIMIT = 400


class FileLengths(unittest.TestCase):
    def test_no_source_file_is_longer_than_the_limit(self):
        long = []
        for folder in FOLDERS:
            for top, dirs, files in os.walk(os.path.join(ROOT, folder)):
                dirs[:] = [d for d in dirs if not d.startswith((".", "__pycache__"))]
                for name in files:
                    if name.endswith(SUFFIXES):
                        path = os.path.join(top, name)
                        with open(path, encoding="utf-8", errors="replace") as f:
                            lines = sum(1 for _ in f)
                        if lines > LIMIT:
                            long.append(f"{os.path.relpath(path, ROOT)}: {lines} lines")
        self.assertEqual(long, [], f"files over {LIMIT} lines (split them by concept)")


if __name__ == "__main__":
    unittest.main()
