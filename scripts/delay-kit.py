#!/usr/bin/env python3
"""The delay kit's writer (docs/perturb.md): a copy of a foreign kernel's CUDA source in which every
barrier `__syncthreads();` is followed by a seeded, warp-uniform sleep, written into a build tree
(never into the repository). The statement becomes one expression statement,
`(__syncthreads(), tc_delay_kit_point(__LINE__));`, on the same line, so that the copy's line numbers
are the original's and the replacement is valid wherever the statement was (an `if` without braces
included). The copy is compiled with plugins/delay-kit/delay_kit.cuh force-included (nvcc -include),
which defines tc_delay_kit_point. The file is rewritten only when its content changes, so a rebuild
recompiles nothing that did not change.

Usage: delay-kit.py --source FILE --out FILE
Exit status: 0 written (or already up to date); 2 bad input (no such file, no barrier in it)."""
import argparse
import os
import re
import sys

BARRIER = re.compile(r"\b__syncthreads\s*\(\s*\)\s*;")
REPLACEMENT = "(__syncthreads(), tc_delay_kit_point(__LINE__));"


def delayed(text: str) -> "tuple[str, int]":
    """The delayed copy of `text` and the number of barriers it delays."""
    return BARRIER.subn(REPLACEMENT, text)


def write_if_changed(path: str, text: str) -> bool:
    try:
        with open(path, encoding="utf-8", newline="") as f:
            if f.read() == text:
                return False
    except FileNotFoundError:
        pass
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    os.replace(tmp, path)  # whole or not at all
    return True


def main(argv) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", required=True, help="the kernel's CUDA source file (read only)")
    parser.add_argument("--out", required=True, help="where the delayed copy goes (a build tree)")
    args = parser.parse_args(argv)
    try:
        with open(args.source, encoding="utf-8", newline="") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        print(f"delay-kit: cannot read --source {args.source}: {e}", file=sys.stderr)
        return 2
    if os.path.abspath(args.source) == os.path.abspath(args.out):
        print(f"delay-kit: --out {args.out} is the source itself (expected a path in a build tree)", file=sys.stderr)
        return 2
    copy, barriers = delayed(text)
    if barriers == 0:
        print(f"delay-kit: {args.source} has no `__syncthreads();` (expected at least one barrier to delay)",
              file=sys.stderr)
        return 2
    changed = write_if_changed(args.out, copy)
    print(f"delay-kit: {args.out}: {barriers} barriers delayed{'' if changed else ' (up to date)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
