"""Executes a notebook headless, top to bottom, and checks that it drew its figures.

Usage: run_notebook.py NOTEBOOK OUT.ipynb --min-figures N [--timeout S] [--env NAME=VALUE ...]
                       [--expect-output TEXT ...]
(ctest runs it with the bootstrap's .venv python: tests/notebooks/CMakeLists.txt.)

The kernel starts in the notebook's directory, so the notebook's default paths (notebooks/data/...)
resolve as they do for a user. --env sets the notebook's parameters (TC_ERRMAP=...). The executed
copy goes to OUT.ipynb (the build tree), never over the source. Jupyter's and matplotlib's state
directories go next to it, so a run touches nothing outside the build tree.

Fails (exit 1) when a cell raises, when the run exceeds the timeout, when a cell tagged `figure`
produced no image/png, when fewer than N images came out in all, or when an --expect-output text
appears in no cell's output (proof that a parameter reached the notebook).
"""
import argparse
import os
import pathlib
import re
import sys
import time


def outputs_text(cell):
    parts = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            parts.append(out.get("text", ""))
        elif "data" in out:
            parts.append(out["data"].get("text/plain", ""))
        elif out.get("output_type") == "error":
            parts.append("\n".join(out.get("traceback", [])))
    return "".join(parts)


def count_pngs(cell):
    return sum(1 for out in cell.get("outputs", []) if "image/png" in out.get("data", {}))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("notebook", type=pathlib.Path)
    p.add_argument("out", type=pathlib.Path)
    p.add_argument("--min-figures", type=int, required=True)
    p.add_argument("--timeout", type=int, default=120, help="seconds for the whole notebook")
    p.add_argument("--env", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--expect-output", action="append", default=[], metavar="TEXT")
    a = p.parse_args()

    nb_path = a.notebook.resolve()
    out = a.out.resolve()
    if out.parent == nb_path.parent or nb_path.parent in out.parents:
        sys.exit(f"run_notebook: refusing to write the executed copy into the source tree: {out}")
    out.parent.mkdir(parents=True, exist_ok=True)
    state = out.parent / (out.stem + ".state")
    for name, sub in (("JUPYTER_RUNTIME_DIR", "runtime"), ("IPYTHONDIR", "ipython"),
                      ("MPLCONFIGDIR", "matplotlib")):
        os.environ[name] = str(state / sub)
        (state / sub).mkdir(parents=True, exist_ok=True)
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    for item in a.env:
        name, sep, value = item.partition("=")
        if not sep:
            sys.exit(f"run_notebook: --env {item!r} is not NAME=VALUE")
        os.environ[name] = value

    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    nb = nbformat.read(nb_path, as_version=4)
    client = NotebookClient(nb, timeout=a.timeout, kernel_name="python3", allow_errors=False,
                            resources={"metadata": {"path": str(nb_path.parent)}})
    start = time.monotonic()
    failure = None
    try:
        client.execute()
    except (CellExecutionError, CellTimeoutError, DeadKernelError) as e:
        plain = re.sub(r"\x1b\[[0-9;]*m", "", str(e))  # IPython colours its tracebacks
        failure = f"execution failed: {type(e).__name__}: {plain[-3000:]}"
    elapsed = time.monotonic() - start
    if elapsed > a.timeout and failure is None:
        failure = f"took {elapsed:.1f} s, more than the timeout {a.timeout} s"
    nbformat.write(nb, out)

    problems = [failure] if failure else []
    total = 0
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        n = count_pngs(cell)
        total += n
        if "figure" in cell.get("metadata", {}).get("tags", []) and n == 0 and not failure:
            first = cell.source.splitlines()[0] if cell.source else ""
            problems.append(f"cell {i} is tagged 'figure' but produced no image/png ({first!r})")
    if total < a.min_figures and not failure:
        problems.append(f"{total} image/png outputs, expected at least {a.min_figures}")
    text = "".join(outputs_text(c) for c in nb.cells if c.cell_type == "code")
    for want in a.expect_output:
        if want not in text:
            problems.append(f"no cell output contains {want!r}")

    print(f"{nb_path.name}: {total} figures in {elapsed:.1f} s; executed copy: {out}")
    if problems:
        for msg in problems:
            print("FAIL:", msg)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
