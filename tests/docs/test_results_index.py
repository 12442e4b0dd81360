#!/usr/bin/env python3
"""docs/results/README.md indexes every page and folder of docs/results (one line each) and every page
inside a folder, and every link in it resolves: a run's evidence is findable from one place."""
import os
import re
import unittest

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "results")


class ResultsIndex(unittest.TestCase):
    def test_every_entry_is_indexed_and_every_link_resolves(self):
        with open(os.path.join(RESULTS, "README.md")) as f:
            index = f.read()
        links = set(re.findall(r"\]\(([^)#]+)\)", index))
        for target in links:
            self.assertTrue(os.path.exists(os.path.join(RESULTS, target)), f"README.md links to a missing {target}")
        linked = {t.rstrip("/") for t in links}
        for entry in sorted(os.listdir(RESULTS)):
            if entry != "README.md":
                self.assertIn(entry, linked, f"docs/results/{entry} is not in docs/results/README.md")
            folder = os.path.join(RESULTS, entry)
            if os.path.isdir(folder):  # a page inside a folder (other than its README) is named too
                for page in sorted(os.listdir(folder)):
                    if page.endswith(".md") and page != "README.md":
                        self.assertIn(f"{entry}/{page}", linked, f"docs/results/{entry}/{page} is not in the index")


if __name__ == "__main__":
    unittest.main()
