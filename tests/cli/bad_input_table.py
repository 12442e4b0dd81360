#!/usr/bin/env python3
"""The bad-input table: tilecheck given bad fixtures, outputs, recordings, paths and options, and
killed in the middle of `golden regenerate` and `golden check`. Every case asserts the exit code,
a substring of the message, and that nothing given was changed (each input hashed before and
after); no case may leave a temporary file behind in its directory. Run by ctest (label cpu):

    bad_input_table.py --tilecheck build/default/cli/tilecheck --source .
    bad_input_table.py ... --only 'kill' --verbose      # a subset, with each command's output

Against another build (e.g. main's, to count the cases it fails) pass its binary and its source
tree. Cases needing an unreadable file run the binary as `nobody` (setpriv) when run as root, and
are skipped where that is impossible; the no-GPU-driver cases are skipped where a driver exists.
"""
import argparse
import ctypes
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

SMALL = "normal_m17_n128_k128_g128_marlin"  # M=17 N=128 K=128: two 16-row tiles, fast to judge
TINY = "normal_m1_n128_k128_g128_marlin"  # cell 0 of the committed H200 recording (m1n8k8g8, sms 3)
MUT_CELL = "normal_m16_n512_k128_gcol_marlin"  # fails in the mutant-1 recording (config m1n8k8gcol, sms 3)
NOBODY = 65534
CASES = []


def case(klass):
    def register(fn):
        CASES.append((klass, fn.__name__, fn))
        return fn
    return register


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def tree_hashes(path):
    """{relative path: hash} of a file, or of every file under a directory (links not followed)."""
    if os.path.isfile(path):
        return {"": sha256(path)}
    out = {}
    for root, _, files in os.walk(path):
        for name in files:
            full = os.path.join(root, name)
            if os.path.isfile(full) and not os.path.islink(full):
                out[os.path.relpath(full, path)] = sha256(full)
    return out


def dead_pid():
    """A pid that no process has now: a child that has exited and been reaped."""
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def default_signals():
    """In the child: the default action for SIGINT (a shell's background job starts with it ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Skip(Exception):
    pass


class Ctx:
    """One case: its own directory (the commands' working directory), the inputs it gave, and the
    failed expectations."""

    def __init__(self, args, root, name):
        self.args = args
        self.dir = os.path.join(root, name)
        os.makedirs(self.dir)
        self.given = {}
        self.failures = []
        self.log = []

    # --- inputs -------------------------------------------------------------------------------
    def path(self, name):
        return os.path.join(self.dir, name)

    def give(self, path):
        """Hash `path` (a file or a directory) now; it must be unchanged when the case ends."""
        self.given[path] = tree_hashes(path)
        return path

    def golden(self, case_id):
        return os.path.join(self.args.source, "fixtures", "golden", case_id + ".h5")

    def fixture_copy(self, case_id=SMALL, name="fixture.h5"):
        dst = self.path(name)
        shutil.copyfile(self.golden(case_id), dst)
        return self.give(dst)

    def output(self, case_id=SMALL, name="out.h5", zero_tile=False, rows=None):
        with h5py.File(self.golden(case_id), "r") as f:
            c = f["ref/expected"][...]
        if zero_tile:
            c[0:16, 0:64] = 0
        if rows is not None:
            c = c[:rows]
        with h5py.File(self.path(name), "w") as f:
            f["C"] = c
        return self.give(self.path(name))

    def recording(self, name="rec.h5", source="h200.h5", keep=2, edit=None):
        """The first `keep` cells of a committed recording; `edit(group)` changes cell 0."""
        dst = self.path(name)
        shutil.copyfile(os.path.join(self.args.source, "fixtures", "recordings", source), dst)
        os.chmod(dst, 0o644)
        with h5py.File(dst, "r+") as f:
            cells = f["cells"]
            for k in [k for k in cells if int(k) >= keep]:
                del cells[k]
            if edit:
                edit(cells["0"])
        return self.give(dst)

    def fixtures_copy(self, name="fx", golden=True):
        """catalogue.txt, MANIFEST.json and (with `golden`) golden/ of the source tree."""
        dst = self.path(name)
        src = os.path.join(self.args.source, "fixtures")
        os.makedirs(dst)
        for f in ("catalogue.txt", "MANIFEST.json"):
            shutil.copyfile(os.path.join(src, f), os.path.join(dst, f))
        if golden:
            shutil.copytree(os.path.join(src, "golden"), os.path.join(dst, "golden"))
        else:
            os.makedirs(os.path.join(dst, "golden"))
        return dst

    def file(self, name, text="not an HDF5 file\n"):
        with open(self.path(name), "w") as f:
            f.write(text)
        return self.give(self.path(name))

    def directory(self, name):
        os.makedirs(self.path(name), exist_ok=True)
        return self.path(name)

    # --- running ------------------------------------------------------------------------------
    def command(self, args, as_nobody=False):
        cmd = [self.args.tilecheck] + args
        if as_nobody and os.geteuid() == 0:
            if shutil.which("setpriv") is None:
                raise Skip("running as root without setpriv: cannot make a file unreadable")
            os.chmod(self.dir, 0o755)
            cmd = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"] + cmd
        return cmd

    def run(self, args, as_nobody=False, env=None, timeout=120):
        cmd = self.command(args, as_nobody)
        p = subprocess.run(cmd, cwd=self.dir, capture_output=True, text=True, timeout=timeout,
                           env=dict(os.environ, **(env or {})), preexec_fn=default_signals)
        self.log.append(f"$ {' '.join(cmd)}\n[exit {p.returncode}]\n{p.stdout[-3000:]}{p.stderr[-3000:]}")
        return p

    def start(self, args, env=None):
        cmd = self.command(args)
        self.log.append(f"$ {' '.join(cmd)} &")
        return subprocess.Popen(cmd, cwd=self.dir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                env=dict(os.environ, **(env or {})), preexec_fn=default_signals)

    # --- expectations -------------------------------------------------------------------------
    def check(self, ok, what):
        if not ok:
            self.failures.append(what)

    def expect(self, p, code, *phrases):
        """Exit code `code` and each phrase (case-sensitive) somewhere in stdout or stderr."""
        self.check(p.returncode == code, f"exit {p.returncode}, expected {code}")
        text = p.stdout + p.stderr
        for phrase in phrases:
            self.check(phrase in text, f"no '{phrase}' in the output")
        self.check("internal error" not in text and "terminate called" not in text and "Segmentation" not in text,
                   "a crash or internal error")
        return p

    def bad_input(self, args, *phrases, as_nobody=False):
        return self.expect(self.run(args, as_nobody=as_nobody), 2, *phrases)

    def finish(self):
        for path, before in self.given.items():
            after = tree_hashes(path) if os.path.exists(path) else {}
            self.check(after == before, f"the input {os.path.relpath(path, self.dir)} was changed")
        litter = []
        for root, dirs, files in os.walk(self.dir):
            litter += [os.path.join(root, n) for n in files + dirs if re.search(r"\.tmp\.\d+$", n)]
        self.check(not litter, f"temporary files left: {[os.path.relpath(x, self.dir) for x in litter]}")


def has_gpu_driver():
    try:
        ctypes.CDLL("libcuda.so.1")
        return True
    except OSError:
        return False


# ==== given files overwritten ==================================================================

@case("overwrite")
def compare_report_is_the_fixture(c):
    fx, out = c.fixture_copy(), c.output()
    c.bad_input(["compare", "--fixture", fx, "--output", out, "--report", fx], "--report", "--fixture", "refusing")


@case("overwrite")
def compare_report_is_the_output(c):
    out = c.output()
    c.bad_input(["compare", "--fixture", SMALL, "--output", out, "--report", out], "--report", "--output", "refusing")


@case("overwrite")
def compare_report_is_the_second_output(c):
    out, out2 = c.output(), c.output(name="out2.h5")
    c.bad_input(["compare", "--fixture", SMALL, "--output", out, out2, "--report", out2], "--report", "refusing")


@case("overwrite")
def compare_report_is_a_hard_link_of_the_output(c):
    out = c.output()
    os.link(out, c.path("link.h5"))
    c.bad_input(["compare", "--fixture", SMALL, "--output", out, "--report", c.path("link.h5")], "--report", "refusing")


@case("overwrite")
def compare_report_is_a_symbolic_link_to_the_fixture(c):
    fx, out = c.fixture_copy(), c.output()
    os.symlink(fx, c.path("link.h5"))
    c.bad_input(["compare", "--fixture", fx, "--output", out, "--report", "link.h5"], "--report", "refusing")


@case("overwrite")
def compare_report_is_the_output_by_another_path(c):
    out = c.output()
    c.directory("sub")
    c.bad_input(["compare", "--fixture", SMALL, "--output", out, "--report", "sub/../out.h5"], "--report", "refusing")


@case("overwrite")
def run_json_is_the_recording(c):
    rec = c.recording()
    c.bad_input(["run", "--recording", rec, "--json", rec, "--errmaps", ""], "--json", "--recording", "refusing")


@case("overwrite")
def run_json_is_a_hard_link_of_the_recording(c):
    rec = c.recording()
    os.link(rec, c.path("cells.json"))
    c.bad_input(["run", "--recording", rec, "--json", "cells.json", "--errmaps", ""], "--json", "refusing")


@case("overwrite")
def run_json_is_a_symbolic_link_to_the_recording(c):
    rec = c.recording()
    os.symlink(rec, c.path("cells.json"))
    c.bad_input(["run", "--recording", rec, "--json", "cells.json", "--errmaps", ""], "--json", "refusing")


@case("overwrite")
def tiles_report_is_the_output(c):
    out = c.output(MUT_CELL)
    c.bad_input(["tiles", "--case", MUT_CELL, "--config", "m1n8k8gcol", "--sms", "3", "--output", out,
                 "--report", out], "--report", "--output", "refusing")


@case("overwrite")
def tiles_report_is_the_recording(c):
    rec = c.recording(source="h200-mut01-scales-in-scratch.h5", keep=3)
    c.bad_input(["tiles", "--case", MUT_CELL, "--config", "m1n8k8gcol", "--sms", "3", "--recording", rec,
                 "--report", rec], "--report", "--recording", "refusing")


def guarded(c, path, args, *phrases):
    """Runs a case whose output is a file of the source tree: kept aside and put back whatever the
    binary does (an old build overwrites it), and hashed as a given input."""
    keep = c.path("kept-aside")
    shutil.copy2(path, keep)
    c.give(path)
    try:
        c.bad_input(args, *phrases)
    finally:
        if tree_hashes(path) != c.given[path]:
            shutil.copy2(keep, path)
            c.failures.append(f"{path} was overwritten (put back)")
            c.given.pop(path)
        os.remove(keep)


@case("overwrite")
def compare_report_is_the_golden_file_of_the_case_id(c):
    out = c.output()
    guarded(c, c.golden(SMALL), ["compare", "--fixture", SMALL, "--output", out, "--report", c.golden(SMALL)],
            "--report", "refusing")


@case("overwrite")
def run_json_is_the_manifest(c):
    rec = c.recording()
    manifest = os.path.join(c.args.source, "fixtures", "MANIFEST.json")
    guarded(c, manifest, ["run", "--recording", rec, "--json", manifest, "--errmaps", ""], "--json", "refusing")


@case("overwrite")
def run_json_is_another_golden_file(c):
    rec = c.recording()
    golden = c.golden("normal_m2_n128_k128_gcol_fp32")
    guarded(c, golden, ["run", "--recording", rec, "--json", golden, "--errmaps", ""], "--json", "refusing")


@case("overwrite")
def compare_report_is_a_directory(c):
    out = c.output()
    c.directory("maps")
    c.bad_input(["compare", "--fixture", SMALL, "--output", out, "--report", "maps"], "--report", "is a directory")


@case("overwrite")
def run_json_is_a_directory(c):
    rec = c.recording()
    c.directory("cells.json")
    c.bad_input(["run", "--recording", rec, "--json", "cells.json", "--errmaps", ""], "--json", "is a directory")


@case("overwrite")
def compare_report_in_a_missing_directory(c):
    out = c.output(zero_tile=True)
    p = c.bad_input(["compare", "--fixture", SMALL, "--output", out, "--report", "no/such/dir/r.h5"], "--report",
                    "does not exist")
    c.check("Mismatched" not in p.stdout, "the work ran before the output path was checked")


@case("overwrite")
def run_json_in_a_missing_directory(c):
    rec = c.recording()
    p = c.bad_input(["run", "--recording", rec, "--json", "no/such/cells.json", "--errmaps", ""], "--json",
                    "does not exist")
    c.check("cells:" not in p.stdout, "the work ran before the output path was checked")


@case("overwrite")
def regenerate_out_leaves_the_manifest_alone(c):
    fx = c.fixtures_copy()
    manifest = os.path.join(fx, "MANIFEST.json")
    text = open(manifest).read()
    # A manifest entry the regeneration will disagree with, so that there is something to write.
    entry = re.search(r'"/inputs/A": "([0-9a-f]{64})"', text[text.index('"' + TINY + '"'):]).group(1)
    open(manifest, "w").write(text.replace(entry, "0" * 64, 1))
    c.give(fx)
    p = c.run(["golden", "regenerate", "--fixtures", fx, "--case", TINY, "--out", c.path("out")])
    c.expect(p, 0, "not updated (--out)")
    c.check(os.path.isfile(c.path("out/" + TINY + ".h5")), "--out DIR holds no regenerated file")


@case("overwrite")
def regenerate_out_is_a_file(c):
    fx = c.give(c.fixtures_copy(golden=False))
    c.file("out")
    c.bad_input(["golden", "regenerate", "--fixtures", fx, "--case", TINY, "--out", "out"], "--out", "not a directory")


def forced_twice(c, extra):
    """`regenerate --force` once (it may rewrite files whose bytes another HDF5 version writes
    differently), then again: the second has identical data and must rewrite nothing."""
    fx = c.fixtures_copy()
    c.expect(c.run(["golden", "regenerate", "--fixtures", fx, "--generated", c.path("gen"), "--force"] + extra), 0)
    c.give(fx)
    return c.run(["golden", "regenerate", "--fixtures", fx, "--generated", c.path("gen"), "--force"] + extra)


@case("overwrite")
def regenerate_force_keeps_identical_files(c):
    c.expect(forced_twice(c, []), 0, "0 files written")


@case("overwrite")
def regenerate_force_one_case_keeps_its_file(c):
    c.expect(forced_twice(c, ["--case", SMALL]), 0, "(unchanged, kept)")


@case("overwrite")
def regenerate_out_writes_nothing_outside_it(c):
    fx = c.give(c.fixtures_copy())
    c.expect(c.run(["golden", "regenerate", "--fixtures", fx, "--generated", c.path("gen"), "--out", c.path("o")]), 0)
    committed = [line.split()[0] for line in open(os.path.join(fx, "catalogue.txt"))
                 if line.strip() and not line.startswith("#") and line.split()[-1] == "committed"]
    written = sorted(n[:-3] for n in os.listdir(c.path("o")) if n.endswith(".h5"))
    c.check(written == sorted(committed), f"--out holds {len(written)} files, not the {len(committed)} committed cases")
    c.check(not os.path.exists(c.path("gen")), "--generated was written although --out was given")


# ==== crashes ==================================================================================

@case("crash")
def compare_sms_int_max(c):
    out = c.output(zero_tile=True)
    c.bad_input(["compare", "--fixture", SMALL, "--output", out, "--sms", "2147483647"], "--sms", "65535")


@case("crash")
def tiles_sms_int_max(c):
    rec = c.recording(source="h200-mut01-scales-in-scratch.h5", keep=3)
    c.bad_input(["tiles", "--case", MUT_CELL, "--config", "m1n8k8gcol", "--sms", "2147483647", "--recording", rec],
                "--sms", "65535")


@case("crash")
def compare_sms_above_the_abi(c):
    out = c.output()
    c.bad_input(["compare", "--fixture", SMALL, "--output", out, "--sms", "65536"], "--sms", "65535")


@case("crash")
def compare_sms_negative(c):
    out = c.output()
    c.bad_input(["compare", "--fixture", SMALL, "--output", out, "--sms", "-1"], "--sms")


@case("crash")
def run_threads_100000(c):
    rec = c.recording()
    c.bad_input(["run", "--recording", rec, "--threads", "100000", "--errmaps", ""], "--threads", "hardware threads")


@case("crash")
def run_threads_negative(c):
    rec = c.recording()
    c.bad_input(["run", "--recording", rec, "--threads", "-3", "--errmaps", ""], "--threads")


@case("crash")
def tiles_sms_huge_on_an_output(c):
    out = c.output(MUT_CELL, zero_tile=True)
    c.bad_input(["tiles", "--case", MUT_CELL, "--config", "m1n8k8gcol", "--sms", "1000000000", "--output", out],
                "--sms", "65535")


# ==== wrong or missing reasons =================================================================

@case("message")
def compare_fixture_is_a_directory(c):
    out = c.output()
    c.directory("fx")
    c.bad_input(["compare", "--fixture", "fx", "--output", out], "fx", "is a directory")


@case("message")
def compare_output_is_a_directory(c):
    c.directory("out.h5")
    c.bad_input(["compare", "--fixture", SMALL, "--output", "out.h5"], "out.h5", "is a directory")


@case("message")
def run_recording_is_a_directory(c):
    c.directory("rec.h5")
    c.bad_input(["run", "--recording", "rec.h5", "--errmaps", ""], "rec.h5", "is a directory")


@case("message")
def compare_output_unreadable(c):
    out = c.output()
    os.chmod(out, 0)
    c.bad_input(["compare", "--fixture", SMALL, "--output", out], "out.h5", "Permission denied", as_nobody=True)
    os.chmod(out, 0o644)


@case("message")
def compare_fixture_unreadable(c):
    fx, out = c.fixture_copy(), c.output()
    os.chmod(fx, 0)
    c.bad_input(["compare", "--fixture", fx, "--output", out], "fixture.h5", "Permission denied", as_nobody=True)
    os.chmod(fx, 0o644)


@case("message")
def run_recording_unreadable(c):
    rec = c.recording()
    os.chmod(rec, 0)
    c.bad_input(["run", "--recording", rec, "--errmaps", ""], "rec.h5", "Permission denied", as_nobody=True)
    os.chmod(rec, 0o644)


@case("message")
def unknown_command(c):
    c.bad_input(["frobnicate"], "unknown command 'frobnicate'", "compare", "golden")


@case("message")
def unknown_golden_command(c):
    c.bad_input(["golden", "refresh"], "unknown command 'refresh'", "regenerate")


@case("message")
def no_command(c):
    c.bad_input([], "no command given", "run, golden")


@case("message")
def tiles_repro_is_a_file(c):
    rec = c.recording(source="h200-mut01-scales-in-scratch.h5", keep=3)
    c.file("repro")
    p = c.bad_input(["tiles", "--case", MUT_CELL, "--config", "m1n8k8gcol", "--sms", "3", "--recording", rec,
                     "--repro", "repro"], "--repro", "not a directory")
    c.check("tile map" not in p.stdout and "Mismatched" not in p.stdout, "the work ran before --repro was checked")


@case("message")
def tiles_repro_under_a_file(c):
    rec = c.recording(source="h200-mut01-scales-in-scratch.h5", keep=3)
    c.file("repro")
    c.bad_input(["tiles", "--case", MUT_CELL, "--config", "m1n8k8gcol", "--sms", "3", "--recording", rec,
                 "--repro", "repro/sub"], "--repro", "not a directory")


def failing_recording(c):
    return c.recording(source="h200-mut01-scales-in-scratch.h5", keep=3)


@case("message")
def run_errmaps_on_a_read_only_file_system(c):
    rec = failing_recording(c)
    p = c.bad_input(["run", "--recording", rec, "--errmaps", "/proc/tilecheck-errmaps"], "--errmaps", "cannot write")
    c.check("cells:" not in p.stdout, "the work ran before --errmaps was checked")


@case("message")
def run_errmaps_is_a_file(c):
    rec = failing_recording(c)
    c.file("maps")
    c.bad_input(["run", "--recording", rec, "--errmaps", "maps"], "--errmaps", "not a directory")


@case("message")
def run_errmaps_in_an_unwritable_directory(c):
    rec = failing_recording(c)
    c.directory("locked")
    os.chmod(c.path("locked"), 0o555)
    c.bad_input(["run", "--recording", rec, "--errmaps", "locked/maps"], "--errmaps", "Permission denied",
                as_nobody=True)


def edit_attr(name, value):
    def edit(g):
        g.attrs[name] = value
    return edit


@case("message")
def recording_cell_sms_zero(c):
    rec = c.recording(edit=edit_attr("sms", np.int64(0)))
    c.bad_input(["run", "--recording", rec, "--errmaps", ""], "rec.h5", "sms=0", TINY)


@case("message")
def recording_cell_sms_int_max(c):
    rec = c.recording(edit=edit_attr("sms", np.int64(2147483647)))
    c.bad_input(["run", "--recording", rec, "--errmaps", ""], "rec.h5", "sms=2147483647")


@case("message")
def recording_cell_config_that_cannot_run_its_case(c):
    rec = c.recording(edit=edit_attr("config", np.bytes_(b"m1n8k8g4")))
    c.bad_input(["run", "--recording", rec, "--errmaps", ""], "rec.h5", "group_blocks=4")


@case("message")
def recording_cell_of_an_unknown_case(c):
    rec = c.recording(edit=edit_attr("case_id", np.bytes_(b"normal_m1_n128_k128_g128_marlix")))
    c.bad_input(["run", "--recording", rec, "--errmaps", ""], "rec.h5", "not in the catalogue")


@case("message")
def recording_cell_output_of_the_wrong_shape(c):
    def edit(g):
        del g["C"]
        g["C"] = np.zeros((2, 128), np.float16)
    rec = c.recording(edit=edit)
    c.bad_input(["run", "--recording", rec, "--errmaps", ""], "rec.h5", "(2, 128)")


@case("message")
def compare_m_blocks_zero(c):
    out = c.output()
    c.bad_input(["compare", "--fixture", SMALL, "--output", out, "--m-blocks", "0"], "--m-blocks", "1..4")


@case("message")
def compare_m_blocks_five(c):
    out = c.output()
    c.bad_input(["compare", "--fixture", SMALL, "--output", out, "--m-blocks", "5"], "--m-blocks", "1..4")


@case("message")
def compare_tile_64x16(c):
    out = c.output()
    c.bad_input(["compare", "--fixture", SMALL, "--output", out, "--tile", "64x16"], "--tile", "64x16",
                "128x128, 256x64")


@case("message")
def compare_tile_256x128(c):
    out = c.output()
    c.bad_input(["compare", "--fixture", SMALL, "--output", out, "--tile", "256x128"], "--tile", "256x128",
                "128x128, 256x64")


@case("message")
def compare_tile_not_a_shape(c):
    out = c.output()
    c.bad_input(["compare", "--fixture", SMALL, "--output", out, "--tile", "big"], "--tile", "big")


@case("message")
def tiles_output_and_recording_together(c):
    out = c.output(MUT_CELL)
    rec = failing_recording(c)
    c.bad_input(["tiles", "--case", MUT_CELL, "--config", "m1n8k8gcol", "--sms", "3", "--output", out,
                 "--recording", rec], "--output", "--recording")


@case("message")
def tiles_without_a_gpu_driver(c):
    if has_gpu_driver():
        raise Skip("this machine has a GPU driver")
    c.bad_input(["tiles", "--case", MUT_CELL, "--config", "m1n8k8gcol"], "no NVIDIA GPU driver")


@case("message")
def run_without_a_gpu_driver(c):
    if has_gpu_driver():
        raise Skip("this machine has a GPU driver")
    c.expect(c.run(["run", "--filter", TINY + "_m1n8k8g8_marlin_upstream_sms3$", "--errmaps", ""]), 0,
             "no NVIDIA GPU driver")


@case("message")
def bench_k_not_a_multiple_of_16(c):
    c.bad_input(["bench", "-K", "100"], "-K", "multiple of 16")


@case("message")
def bench_n_int_max(c):
    c.bad_input(["bench", "-N", "2147483647"], "-N", "multiple of 64")


@case("message")
def bench_m_negative(c):
    c.bad_input(["bench", "-M", "-5"], "-M")


@case("message")
def bench_problem_too_large(c):
    c.bad_input(["bench", "-M", "65536", "-K", "65536", "-N", "128"], "M*K")


@case("message")
def run_cell_timeout_huge(c):
    rec = c.recording()
    c.bad_input(["run", "--recording", rec, "--cell-timeout", "1e300", "--errmaps", ""], "--cell-timeout")


@case("message")
def run_cell_timeout_infinite(c):
    rec = c.recording()
    c.bad_input(["run", "--recording", rec, "--cell-timeout", "inf", "--errmaps", ""], "--cell-timeout")


@case("message")
def tiles_cell_timeout_nan(c):
    out = c.output(MUT_CELL)
    c.bad_input(["tiles", "--case", MUT_CELL, "--config", "m1n8k8gcol", "--sms", "3", "--output", out,
                 "--cell-timeout", "nan"], "--cell-timeout")


@case("message")
def bench_config_timeout_huge(c):
    c.bad_input(["bench", "--config-timeout", "1e12"], "--config-timeout")


@case("message")
def run_fault_limit_zero(c):
    rec = c.recording()
    c.bad_input(["run", "--recording", rec, "--fault-limit", "0", "--errmaps", ""], "--fault-limit")


@case("message")
def compare_unknown_contract(c):
    out = c.output()
    c.bad_input(["compare", "--fixture", SMALL, "--output", out, "--contract", "bf16"], "bf16")


@case("message")
def compare_output_missing(c):
    c.bad_input(["compare", "--fixture", SMALL, "--output", "absent.h5"], "absent.h5", "no such file")


@case("message")
def compare_fixture_is_a_text_file(c):
    fx, out = c.file("fx.h5"), c.output()
    c.bad_input(["compare", "--fixture", fx, "--output", out], "fx.h5", "not an HDF5 file")


@case("message")
def compare_output_of_the_wrong_shape(c):
    out = c.output(rows=16)
    c.bad_input(["compare", "--fixture", SMALL, "--output", out], "out.h5", "(16, 128)")


@case("message")
def compare_output_truncated(c):
    out = c.output()
    with open(out, "r+b") as f:
        f.truncate(os.path.getsize(out) // 2)
    c.give(out)
    c.bad_input(["compare", "--fixture", SMALL, "--output", out], "out.h5", "truncated")


@case("message")
def compare_unknown_case_id(c):
    out = c.output()
    c.bad_input(["compare", "--fixture", "no_such_case", "--output", out], "no_such_case", "not a case id")


@case("message")
def run_recording_missing(c):
    c.bad_input(["run", "--recording", "absent.h5", "--errmaps", ""], "absent.h5", "no such file")


@case("message")
def run_filter_not_a_regex(c):
    rec = c.recording()
    c.bad_input(["run", "--recording", rec, "--filter", "(", "--errmaps", ""], "not a valid regular expression")


@case("message")
def run_record_without_a_gpu(c):
    if has_gpu_driver():
        raise Skip("this machine has a GPU driver")
    c.bad_input(["run", "--record", "r.h5", "--errmaps", ""], "--record needs a GPU")
    c.check(not os.path.exists(c.path("r.h5")), "--record wrote a file")


@case("message")
def regenerate_unknown_case(c):
    fx = c.give(c.fixtures_copy(golden=False))
    c.bad_input(["golden", "regenerate", "--fixtures", fx, "--case", "no_such_case"], "no_such_case")


@case("message")
def check_missing_fixtures_directory(c):
    c.bad_input(["golden", "check", "--fixtures", "absent"], "absent")


@case("message")
def tiles_unknown_config(c):
    out = c.output(MUT_CELL)
    c.bad_input(["tiles", "--case", MUT_CELL, "--config", "m9n8k8gcol", "--sms", "3", "--output", out], "m9n8k8gcol")


@case("message")
def tiles_tile_outside_the_grid(c):
    out = c.output(MUT_CELL)
    c.bad_input(["tiles", "--case", MUT_CELL, "--config", "m1n8k8gcol", "--sms", "3", "--output", out,
                 "--tile", "0,9"], "--tile 0,9", "outside")


@case("message")
def unknown_option(c):
    c.bad_input(["compare", "--fixture", SMALL, "--output", "x.h5", "--frobnicate"], "--frobnicate")


# ==== litter ===================================================================================

def kill_when(c, proc, ready, sig=signal.SIGKILL, limit=120.0, pause=0.002):
    """Sends `sig` to `proc` once `ready()` holds (or it has ended); returns whether it was sent."""
    end = time.time() + limit
    while proc.poll() is None and time.time() < end:
        if ready():
            proc.send_signal(sig)
            proc.wait()
            return True
        time.sleep(pause)
    proc.wait()
    return False


def golden_count(fx):
    return len([n for n in os.listdir(os.path.join(fx, "golden")) if n.endswith(".h5")])


def writing(fx):
    return any(".tmp." in n for n in os.listdir(os.path.join(fx, "golden")))


def kill_regeneration_repeatedly(c, fx):
    """Regenerates every committed case into an empty golden/ and kills it with SIGKILL in the
    middle of a write (a temporary file present) after 5, 40 and 80 files."""
    kills = 0
    for after in (5, 40, 80):
        shutil.rmtree(os.path.join(fx, "golden"))
        os.makedirs(os.path.join(fx, "golden"))
        p = c.start(["golden", "regenerate", "--fixtures", fx, "--generated", c.path("gen"), "--force"])
        kills += kill_when(c, p, lambda: golden_count(fx) >= after and writing(fx), pause=0)
    c.check(kills > 0, "no regeneration was still running to be killed")


@case("litter")
def kill9_regenerate_then_regenerate(c):
    fx = c.fixtures_copy(golden=False)
    c.give(os.path.join(fx, "catalogue.txt")), c.give(os.path.join(fx, "MANIFEST.json"))
    kill_regeneration_repeatedly(c, fx)
    c.expect(c.run(["golden", "regenerate", "--fixtures", fx, "--generated", c.path("gen")]), 0, "MANIFEST.json: unchanged")
    c.expect(c.run(["golden", "check", "--fixtures", fx, "--generated", c.path("gen")]), 0, "all")


@case("litter")
def kill9_regenerate_then_check(c):
    fx = c.fixtures_copy(golden=False)
    c.give(os.path.join(fx, "catalogue.txt")), c.give(os.path.join(fx, "MANIFEST.json"))
    kill_regeneration_repeatedly(c, fx)
    c.run(["golden", "check", "--fixtures", fx, "--generated", c.path("gen")])  # fails: files missing


def planted_temporary(c):
    """A fixtures copy with what a kill -9 mid-write leaves in golden/: an empty temporary of a
    process that no longer exists."""
    fx = c.fixtures_copy()
    stale = os.path.join(fx, "golden", f".{SMALL}.h5.tmp.{dead_pid()}")
    open(stale, "w").close()
    c.give(os.path.join(fx, "MANIFEST.json"))
    c.give(os.path.join(fx, "golden", SMALL + ".h5"))
    return fx, stale


@case("litter")
def a_killed_regenerations_temporary_is_removed_by_regenerate(c):
    fx, stale = planted_temporary(c)
    c.expect(c.run(["golden", "regenerate", "--fixtures", fx, "--case", SMALL]), 0, "MANIFEST.json: unchanged")
    c.check(not os.path.exists(stale), "the killed run's temporary is still in golden/")


@case("litter")
def a_killed_regenerations_temporary_is_removed_by_check(c):
    fx, stale = planted_temporary(c)
    c.expect(c.run(["golden", "check", "--fixtures", fx]), 0, "golden check:")
    c.check(not os.path.exists(stale), "the killed run's temporary is still in golden/")


def scratch_dirs(tmp):
    return [n for n in os.listdir(tmp) if n.startswith("tilecheck-golden-check-")]


def interrupted_check(c, sig):
    tmp = c.directory("tmp")
    p = c.start(["golden", "check"], env={"TMPDIR": tmp})
    c.check(kill_when(c, p, lambda: scratch_dirs(tmp), sig), "the check ended before it could be interrupted")
    c.check(p.returncode == -sig, f"exit {p.returncode}, expected death by signal {sig}")
    return tmp


@case("litter")
def kill9_check_then_check(c):
    tmp = interrupted_check(c, signal.SIGKILL)
    c.expect(c.run(["golden", "check"], env={"TMPDIR": tmp}), 0, "golden check:")
    c.check(not scratch_dirs(tmp), f"scratch directories left: {scratch_dirs(tmp)}")


@case("litter")
def sigterm_check_removes_its_scratch_directory(c):
    tmp = interrupted_check(c, signal.SIGTERM)
    c.check(not scratch_dirs(tmp), f"scratch directories left: {scratch_dirs(tmp)}")


@case("litter")
def sigint_check_removes_its_scratch_directory(c):
    tmp = interrupted_check(c, signal.SIGINT)
    c.check(not scratch_dirs(tmp), f"scratch directories left: {scratch_dirs(tmp)}")


@case("litter")
def a_dead_runs_temporary_is_removed_by_the_next_write(c):
    out = c.output(zero_tile=True)
    stale = c.path(f".r.h5.tmp.{dead_pid()}")
    open(stale, "w").close()
    c.expect(c.run(["compare", "--fixture", SMALL, "--output", out, "--report", "r.h5"]), 1, "Mismatched")
    c.check(not os.path.exists(stale), "the stale temporary is still there")


@case("litter")
def a_dead_checks_scratch_directory_is_removed_by_the_next_check(c):
    tmp = c.directory("tmp")
    os.makedirs(os.path.join(tmp, f"tilecheck-golden-check-{dead_pid()}"))
    c.expect(c.run(["golden", "check"], env={"TMPDIR": tmp}), 0, "golden check:")
    c.check(not scratch_dirs(tmp), f"scratch directories left: {scratch_dirs(tmp)}")


@case("litter")
def walkthrough_error_maps_are_ignored_by_git(c):
    if not os.path.isdir(os.path.join(c.args.source, ".git")) and not os.path.isfile(
            os.path.join(c.args.source, ".git")):
        raise Skip("the source tree is not a git checkout")
    p = subprocess.run(["git", "-C", c.args.source, "check-ignore", "-q", "tilecheck-errmaps/x.errmap.h5"])
    c.check(p.returncode == 0, "tilecheck-errmaps/ (the default --errmaps of the README walkthrough) is not ignored")


@case("litter")
def a_passing_run_makes_no_error_map_directory(c):
    rec = c.recording()
    c.expect(c.run(["run", "--recording", rec]), 0, "2 cells: 2 pass")
    c.check(not os.path.exists(c.path("tilecheck-errmaps")), "tilecheck-errmaps/ was created for no error map")


# ==== the table ================================================================================

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tilecheck", required=True)
    ap.add_argument("--source", required=True, help="the source tree (fixtures/, recordings)")
    ap.add_argument("--only", default="", help="regex on case names")
    ap.add_argument("--verbose", action="store_true", help="print every command and its output")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    args.tilecheck = os.path.abspath(args.tilecheck)
    args.source = os.path.abspath(args.source)
    chosen = [(k, n, f) for k, n, f in CASES if re.search(args.only, n)]
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
