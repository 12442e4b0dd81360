#!/usr/bin/env python3
"""scripts/bootstrap's decisions, on a machine without clang and without package access (like the GPU
machine): `make run`'s mode needs no clang, `make test`'s reports clang as optional and goes on when
it cannot be installed, and a missing required package still stops it, naming the package.

The script runs from a copy in a temporary tree (no requirements.txt: no venv is built) with a PATH
of links to the commands it may use, a fake `id` (root) and a fake `apt-get` that always fails."""
import os
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "bootstrap")
TOOLS = ["bash", "cmake", "ninja", "g++", "make", "python3", "sed", "cut", "dirname", "cat", "sha256sum", "tail"]


class Bootstrap(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        os.makedirs(os.path.join(self.tmp, "scripts"))
        shutil.copy(SCRIPT, os.path.join(self.tmp, "scripts", "bootstrap"))
        self.bin = os.path.join(self.tmp, "bin")
        os.makedirs(self.bin)
        for tool in TOOLS:
            found = shutil.which(tool)
            if found is None:
                self.skipTest(f"{tool} is not on this machine")
            os.symlink(found, os.path.join(self.bin, tool))
        nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
        if not os.path.exists(nvcc):
            self.skipTest("nvcc is not on this machine (the bootstrap requires it)")
        os.symlink(nvcc, os.path.join(self.bin, "nvcc"))
        self.fake("id", "echo 0")
        self.fake("apt-get", 'echo "E: Unable to locate package $*"; exit 100')

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def fake(self, name, body):
        path = os.path.join(self.bin, name)
        with open(path, "w") as f:
            f.write(f"#!{shutil.which('bash')}\n{body}\n")
        os.chmod(path, 0o755)

    def run_bootstrap(self, *args):
        env = {"PATH": self.bin, "HOME": self.tmp}
        return subprocess.run([os.path.join(self.bin, "bash"), os.path.join(self.tmp, "scripts", "bootstrap"), *args],
                              env=env, capture_output=True, text=True, timeout=60)

    def test_make_run_plans_no_clang(self):
        p = self.run_bootstrap("--plan", "--no-venv")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("bootstrap plan (make run)", p.stdout)
        self.assertNotIn("clang", p.stdout)

    def test_make_test_plans_clang_as_optional(self):
        p = self.run_bootstrap("--plan")
        self.assertEqual(p.returncode, 0, p.stderr)
        optional = next(line for line in p.stdout.splitlines() if "optional, missing" in line)
        self.assertIn("clang", optional)
        required = next(line for line in p.stdout.splitlines() if "required, missing" in line)
        self.assertNotIn("clang", required)

    def test_make_run_installs_nothing_it_does_not_need(self):
        p = self.run_bootstrap("--no-venv")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertNotIn("installing", p.stdout)
        self.assertIn("bootstrap: ok", p.stdout)

    def test_an_optional_package_that_cannot_be_installed_is_reported_not_fatal(self):
        p = self.run_bootstrap()
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("bootstrap: optional clang not installed", p.stderr)
        self.assertIn("bootstrap: ok", p.stdout)

    def test_a_required_package_that_cannot_be_installed_stops_it(self):
        os.remove(os.path.join(self.bin, "cmake"))
        p = self.run_bootstrap("--no-venv")
        self.assertEqual(p.returncode, 1)
        self.assertIn("apt-get could not install cmake", p.stderr)
        self.assertNotIn("bootstrap: ok", p.stdout)

    def test_a_bad_option_is_named(self):
        p = self.run_bootstrap("--venv")
        self.assertEqual(p.returncode, 2)
        self.assertIn("unknown option '--venv'", p.stderr)


if __name__ == "__main__":
    unittest.main()
