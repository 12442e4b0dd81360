"""The bad-input table's harness: the case registry, and Ctx, one case's directory, inputs
(hashed when given, compared when the case ends), commands and expectations."""
import ctypes
import hashlib
import os
import re
import shutil
import signal
import subprocess

import h5py

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


_NOBODY_RUNS = {}


def nobody_can_run(drop, binary):
    """Whether the binary runs as nobody and finds its data (`golden list`), asked once per binary."""
    if binary not in _NOBODY_RUNS:
        p = subprocess.run(drop + [binary, "golden", "list"], capture_output=True, text=True, timeout=60)
        _NOBODY_RUNS[binary] = p.returncode == 0
    return _NOBODY_RUNS[binary]


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
            drop = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]
            if not nobody_can_run(drop, self.args.tilecheck):
                raise Skip(f"nobody cannot run {self.args.tilecheck} and find its data (a directory above them is closed "
                           "to others, e.g. a 0700 temporary checkout): cannot make a file unreadable to the binary")
            cmd = drop + cmd
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


def failing_recording(c):
    """The committed recording of mutant 1: its three cells fail."""
    return c.recording(source="h200-mut01-scales-in-scratch.h5", keep=3)
