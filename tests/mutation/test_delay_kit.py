"""The delay kit's writer (scripts/delay-kit.py) without a GPU: every barrier delayed on its own line,
valid in every statement context, nothing else touched, refusals, rewrite only on change, and - only
where $TC_IST_MARLIN_SRC names upstream's checkout - the count on upstream's own file."""
import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
WRITER = os.path.join(ROOT, "scripts", "delay-kit.py")
SPEC = importlib.util.spec_from_file_location("delay_kit", WRITER)
kit = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(kit)

# A made-up kernel: nothing of anyone's.
SOURCE = ("__global__ void k(int* p) {\n"
          "  p[0] = 1;\n"
          "  __syncthreads();\n"
          "  if (p[1]) __syncthreads(); else p[2] = 3;\n"
          "  __syncthreads ( ) ;  // spaced\r\n"
          "  my__syncthreads(); __syncthreads_count(1);\n"
          "}\n")


def run(*args):
    return subprocess.run([sys.executable, WRITER, *args], capture_output=True, text=True)


class Delayed(unittest.TestCase):
    def test_every_barrier_and_nothing_else(self):
        copy, n = kit.delayed(SOURCE)
        self.assertEqual(n, 3)
        self.assertEqual(copy.count(kit.REPLACEMENT), 3)
        self.assertIn("my__syncthreads();", copy)            # another name, untouched
        self.assertIn("__syncthreads_count(1);", copy)        # another intrinsic, untouched
        self.assertIn(f"if (p[1]) {kit.REPLACEMENT} else", copy)  # one statement: the else still binds

    def test_line_numbers_and_line_endings_are_kept(self):
        copy, _ = kit.delayed(SOURCE)
        self.assertEqual(copy.count("\n"), SOURCE.count("\n"))
        self.assertIn("// spaced\r\n", copy)
        for before, after in zip(SOURCE.split("\n"), copy.split("\n")):
            if "__syncthreads" not in before:
                self.assertEqual(before, after)

    def test_the_line_is_passed_to_the_delay(self):
        self.assertIn("tc_delay_kit_point(__LINE__)", kit.REPLACEMENT)


class Cli(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.src = os.path.join(self.dir.name, "k.cu")
        with open(self.src, "w", newline="") as f:
            f.write(SOURCE)
        self.out = os.path.join(self.dir.name, "build", "delayed", "k.cu")

    def tearDown(self):
        self.dir.cleanup()

    def test_writes_then_leaves_an_up_to_date_copy_alone(self):
        r = run("--source", self.src, "--out", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("3 barriers delayed", r.stdout)
        os.utime(self.out, (1, 1))
        r = run("--source", self.src, "--out", self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("(up to date)", r.stdout)
        self.assertEqual(os.stat(self.out).st_mtime, 1)  # not rewritten: nothing recompiles
        with open(self.out, newline="") as f:
            self.assertEqual(f.read(), kit.delayed(SOURCE)[0])

    def test_refuses_a_file_without_a_barrier(self):
        with open(self.src, "w") as f:
            f.write("__global__ void k() {}\n")
        r = run("--source", self.src, "--out", self.out)
        self.assertEqual(r.returncode, 2)
        self.assertIn("has no `__syncthreads();`", r.stderr)
        self.assertFalse(os.path.exists(self.out))

    def test_refuses_a_missing_source_naming_it(self):
        r = run("--source", self.src + ".nope", "--out", self.out)
        self.assertEqual(r.returncode, 2)
        self.assertIn("k.cu.nope", r.stderr)

    def test_refuses_to_overwrite_the_source(self):
        r = run("--source", self.src, "--out", self.src)
        self.assertEqual(r.returncode, 2)
        self.assertIn("is the source itself", r.stderr)
        with open(self.src, newline="") as f:
            self.assertEqual(f.read(), SOURCE)

    def test_help(self):
        r = run("--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("--source", r.stdout)


class Upstream(unittest.TestCase):
    def test_upstreams_seven_barriers(self):
        src = os.environ.get("TC_IST_MARLIN_SRC", "")
        path = src if src.endswith(".cu") else os.path.join(src, "marlin_cuda_kernel.cu")
        if not src or not os.path.isfile(path):
            self.skipTest("TC_IST_MARLIN_SRC names no upstream checkout")
        with open(path, encoding="utf-8", newline="") as f:
            copy, n = kit.delayed(f.read())
        self.assertEqual(n, 7)  # lines 170, 175, 421, 495, 506, 608, 668 at 2f6d7c1


if __name__ == "__main__":
    unittest.main(verbosity=2)
