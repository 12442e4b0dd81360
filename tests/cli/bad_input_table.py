#!/usr/bin/env python3
"""The bad-input table: tilecheck given bad fixtures, outputs, recordings, paths and options, and
killed in the middle of `golden regenerate` and `golden check`. Every case asserts the exit code,
a substring of the message, and that nothing given was changed (each input hashed before and
after); no case may leave a temporary file behind in its directory. The cases live in
tests/cli/bad_input/*_cases.py. Run by ctest in three parts (cli_bad_input_table.1-3, label cpu), so
that ctest runs them beside each other and beside other tests:

    bad_input_table.py --tilecheck build/default/cli/tilecheck --source .
    bad_input_table.py ... --only 'kill' --verbose      # a subset, with each command's output
    bad_input_table.py ... --part 2/3                   # every third case, from the second

Against another build (e.g. main's, to count the cases it fails) pass its binary and its source
tree. Cases needing an unreadable file run the binary as `nobody` (setpriv) when run as root, and
are skipped where that is impossible; the no-GPU-driver cases are skipped where a driver exists.
"""
import argparse
import os
import re
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bad_input"))

import litter_cases  # noqa: E402,F401  (each module registers its cases)
import option_cases  # noqa: E402,F401
import overwrite_cases  # noqa: E402,F401
import reason_cases  # noqa: E402,F401
from harness import CASES, Ctx, Skip, tree_hashes  # noqa: E402

ORDER = ["overwrite", "crash", "message", "litter"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tilecheck", required=True)
    ap.add_argument("--source", required=True, help="the source tree (fixtures/, recordings)")
    ap.add_argument("--only", default="", help="regex on case names")
    ap.add_argument("--verbose", action="store_true", help="print every command and its output")
    ap.add_argument("--part", default="1/1", help="K/N: only the cases whose place in the order is K mod N")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    part = re.fullmatch(r"([1-9]\d*)/([1-9]\d*)", args.part)
    if not part or int(part[1]) > int(part[2]):
        ap.error(f"--part {args.part}: expected K/N with 1 <= K <= N, e.g. 2/3")
    k, n = int(part[1]), int(part[2])
    args.tilecheck = os.path.abspath(args.tilecheck)
    args.source = os.path.abspath(args.source)
    ordered = sorted(CASES, key=lambda c: ORDER.index(c[0]))
    chosen = [(klass, name, fn) for i, (klass, name, fn) in enumerate(ordered)
              if i % n == k - 1 and re.search(args.only, name)]
    if args.list:
        for k, n, _ in chosen:
            print(f"{k:10} {n}")
        return 0
    golden_before = tree_hashes(os.path.join(args.source, "fixtures"))
    root = tempfile.mkdtemp(prefix="tc_bad_input_")
    os.chmod(root, 0o755)  # the cases run as nobody enter it
    failed, skipped = [], []
    start = time.time()
    try:
        for klass, name, fn in chosen:
            c = Ctx(args, root, name)
            began = time.time()
            try:
                fn(c)
                c.finish()
            except Skip as why:
                skipped.append(name)
                print(f"SKIP {klass:9} {name}: {why}")
                continue
            except Exception as e:  # a broken case is a failure, not a crash of the table
                c.failures.append(f"{type(e).__name__}: {e}")
            status = "FAIL" if c.failures else "ok  "
            print(f"{status} {klass:9} {name} ({time.time() - began:.1f} s)" +
                  (": " + "; ".join(c.failures) if c.failures else ""))
            if c.failures:
                failed.append((klass, name))
            if args.verbose or c.failures:
                for entry in c.log:
                    print("    " + entry.replace("\n", "\n    "))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if tree_hashes(os.path.join(args.source, "fixtures")) != golden_before:
        failed.append(("overwrite", "the source tree's fixtures/ changed during the table"))
        print("FAIL the source tree's fixtures/ changed during the table")
    ran = len(chosen) - len(skipped)
    print(f"{len(chosen)} cases: {ran - len(failed)} passed, {len(failed)} failed, {len(skipped)} skipped "
          f"({time.time() - start:.1f} s)")
    for klass in sorted({k for k, _, _ in chosen}):
        bad = [n for k, n in failed if k == klass]
        print(f"  {klass:9} {len([1 for k, _, _ in chosen if k == klass])} cases, {len(bad)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
