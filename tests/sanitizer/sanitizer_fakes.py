"""The fakes the runner's CPU tests run against (test_run_sanitizer.py,
test_run_sanitizer_per_config.py): a compute-sanitizer that replays a canned report, an nvidia-smi
with or without a GPU, and FakeTools, a private PATH with a placeholder suite and kernel."""
import os
import stat
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")
RUNNER = os.path.join(HERE, "run_sanitizer.py")

# ---------------------------------------------------------------------------------------------
# The whole runner against fakes on a private PATH
# ---------------------------------------------------------------------------------------------

FAKE_SANITIZER = """#!{python}
# Fake compute-sanitizer: records its arguments and TC_KERNEL, writes the canned report to
# --log-file, prints the canned program output, exits with the canned status.
import os, sys, time
args = sys.argv[1:]
with open(os.environ["FAKE_ARGS"], "w") as f:
    f.write(os.environ.get("TC_KERNEL", "") + "\\n" + "\\n".join(args))
time.sleep(float(os.environ.get("FAKE_SLEEP", "0")))
log = args[args.index("--log-file") + 1]
with open(log, "w") as out, open(os.environ["FAKE_REPORT"]) as src:
    out.write(src.read())
with open(os.environ["FAKE_OUTPUT"]) as src:
    sys.stdout.write(src.read())
sys.exit(int(os.environ.get("FAKE_EXIT", "0")))
"""

FAKE_SMI_GPU = """#!/bin/sh
echo "GPU 0: NVIDIA H200 (UUID: GPU-00000000-0000-0000-0000-000000000000)"
"""
FAKE_SMI_NONE = """#!/bin/sh
echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."
exit 9
"""


class FakeTools:
    """A private PATH (bin/) for the fakes, a placeholder suite and kernel, and the runner's call."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="tc-sanitizer-test-")
        self.dir = self.tmp.name
        self.bin = os.path.join(self.dir, "bin")
        os.mkdir(self.bin)
        self.suite = self.touch("suite_gpu_tests")
        self.kernel = self.touch("libtc_kernel_upstream.so")
        self.args_file = os.path.join(self.dir, "args.txt")
        self.log = os.path.join(self.dir, "logs", "run.log")

    def tearDown(self):
        self.tmp.cleanup()

    def touch(self, name, text=""):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def tool(self, name, text):
        path = os.path.join(self.bin, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)

    def run_runner(self, report="racecheck_clean.txt", output="gtest_pass.txt", exit_code=0, extra=(),
                   env_extra=None, tool="racecheck"):
        env = {"PATH": self.bin, "FAKE_ARGS": self.args_file, "FAKE_REPORT": os.path.join(FIXTURES, report),
               "FAKE_OUTPUT": os.path.join(FIXTURES, output), "FAKE_EXIT": str(exit_code),
               "TC_LIBCUDA": os.path.join(self.dir, "no-such-libcuda.so")}
        env.update(env_extra or {})
        cmd = [sys.executable, RUNNER, "--tool", tool, "--suite", self.suite, "--kernel", self.kernel,
               "--allowlist", os.path.join(HERE, "allowlist.txt"), "--log", self.log,
               "--search-dir", os.path.join(self.dir, "no-cuda"), *extra]
        return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)

    def with_gpu(self):
        self.tool("compute-sanitizer", FAKE_SANITIZER.format(python=sys.executable))
        self.tool("nvidia-smi", FAKE_SMI_GPU)


