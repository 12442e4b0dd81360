"""Every notebook in the source tree is committed with its outputs stripped.

Usage: check_stripped.py SOURCE_DIR      (ctest: notebooks_stripped; standard library only)

Walks SOURCE_DIR for *.ipynb, skipping .git, virtual environments, checkpoints and build trees
(any directory holding a CMakeCache.txt, or named build), and fails (exit 1) naming every code
cell that has outputs or an execution_count. Before that it checks itself on a planted notebook
with one output, so a checker that finds nothing cannot pass.
Strip a notebook with: jupyter nbconvert --clear-output --inplace X.ipynb, or
  .venv/bin/python tests/notebooks/check_stripped.py --strip X.ipynb
"""
import json
import os
import pathlib
import sys
import tempfile

SKIP_DIRS = {".git", ".venv", "venv", ".ipynb_checkpoints", "node_modules", "build", "__pycache__"}


def problems_in(path):
    try:
        nb = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        return [f"{path}: not readable as JSON: {e}"]
    if nb.get("nbformat") != 4:
        return [f"{path}: nbformat {nb.get('nbformat')!r}, expected 4"]
    found = []
    for i, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        if cell.get("outputs"):
            found.append(f"{path}: cell {i} has {len(cell['outputs'])} output(s)")
        if cell.get("execution_count") is not None:
            found.append(f"{path}: cell {i} has execution_count {cell['execution_count']}")
    return found


def notebooks_under(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS
                             and not (pathlib.Path(dirpath, d, "CMakeCache.txt").exists()))
        for name in sorted(filenames):
            if name.endswith(".ipynb"):
                yield pathlib.Path(dirpath, name)


def strip(path):
    nb = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            cell["outputs"], cell["execution_count"] = [], None
    pathlib.Path(path).write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def self_test():
    planted = {"nbformat": 4, "nbformat_minor": 4, "metadata": {}, "cells": [
        {"cell_type": "code", "execution_count": 3, "metadata": {}, "source": "1",
         "outputs": [{"output_type": "execute_result", "execution_count": 3, "metadata": {},
                      "data": {"text/plain": "1"}}]}]}
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp, "planted.ipynb")
        path.write_text(json.dumps(planted))
        if list(notebooks_under(tmp)) != [path] or len(problems_in(path)) != 2:
            return "self-test: the planted notebook with an output was not reported"
        strip(path)
        if problems_in(path):
            return "self-test: --strip left outputs behind"
    return None


def main(argv):
    if len(argv) >= 2 and argv[0] == "--strip":
        for p in argv[1:]:
            strip(p)
        return 0
    if len(argv) != 1:
        print(__doc__)
        return 2
    error = self_test()
    if error:
        print("FAIL:", error)
        return 1
    found = list(notebooks_under(argv[0]))
    problems = [p for nb in found for p in problems_in(nb)]
    for p in problems:
        print("FAIL:", p)
    print(f"{len(found)} notebooks checked, {len(problems)} problems")
    if not found:
        print("FAIL: no notebook found under", argv[0])
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
