"""`cmake --install` into a temporary prefix, moved elsewhere, then the installed tilecheck run from
another directory with the source and build trees hidden (a tmpfs mounted over them in a private
mount namespace, where `unshare` is allowed; otherwise they stay visible and the test says so): it
must find the installed data (golden list / check, compare on a committed case, run --committed on
the installed recording, --help) and carry no path of either tree. Then a consumer project
(tests/install/consumer) finds the install with find_package(tilecheck) and builds a stub plugin
against tilecheck::plugin_abi, which a small host loads.

  test_install.py --cmake CMAKE --build BUILD_DIR --source SOURCE_DIR --consumer CONSUMER_DIR
"""
import argparse
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

CASE = "normal_m17_n128_k128_g128_marlin"  # committed; M = 17: two 16-row tiles


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def run(command, cwd, env=None, expect=0):
    print("$", shlex.join(str(c) for c in command), flush=True)
    r = subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    if expect is not None and r.returncode != expect:
        raise Failure(f"exit {r.returncode} (expected {expect}) from {shlex.join(map(str, command))}\n"
                      f"stdout:\n{r.stdout[-4000:]}\nstderr:\n{r.stderr[-4000:]}")
    return r


class Installed:
    """The installed tilecheck, run from `cwd` with TILECHECK_HOME unset and, if possible, with the
    trees in `hide` covered by an empty tmpfs."""

    def __init__(self, prefix, cwd, hide):
        self.binary = prefix / "bin" / "tilecheck"
        self.cwd = cwd
        self.env = {k: v for k, v in os.environ.items() if k != "TILECHECK_HOME"}
        self.hide = hide
        probe = ["unshare", "-m", "sh", "-c", f"mount -t tmpfs none {shlex.quote(str(hide[0]))} && true"]
        self.hidden = shutil.which("unshare") is not None and subprocess.run(
            probe, capture_output=True).returncode == 0
        print("source and build trees hidden while it runs:" if self.hidden else
              "NOTE: cannot unshare a mount namespace here; the trees stay visible (paths are still checked)",
              *hide, flush=True)

    def __call__(self, *args, expect=0):
        return self.program(self.binary, *args, expect=expect)

    def program(self, *command, expect=0):
        """Any program, run the same way."""
        command = list(command)
        if self.hidden:
            mounts = " && ".join(f"mount -t tmpfs none {shlex.quote(str(h))}" for h in self.hide)
            command = ["unshare", "-m", "sh", "-c", f"{mounts} && exec {shlex.join(map(str, command))}"]
        return run(command, self.cwd, self.env, expect)


def no_tree_paths(text, trees, what):
    for tree in trees:
        check(str(tree) not in text, f"{what} names {tree}:\n{text[:4000]}")


def check_layout(prefix, source):
    share = prefix / "share" / "tilecheck" / "fixtures"
    for path in ("bin/tilecheck", "lib/tilecheck/libtc_kernel_upstream.so", "include/tilecheck/plugin/plugin.h",
                 "share/tilecheck/fixtures/catalogue.txt", "share/tilecheck/fixtures/MANIFEST.json",
                 "share/tilecheck/fixtures/recordings/h200.h5", "lib/cmake/tilecheck/tilecheckConfig.cmake",
                 "lib/cmake/tilecheck/tilecheckConfigVersion.cmake", "lib/cmake/tilecheck/tilecheckTargets.cmake"):
        check((prefix / path).is_file(), f"not installed: {path}")
    committed = sorted(p.name for p in (source / "fixtures" / "golden").glob("*.h5"))
    installed = sorted(p.name for p in (share / "golden").glob("*.h5"))
    check(installed == committed, f"{len(installed)} golden files installed, {len(committed)} committed")
    print(f"layout: {len(installed)} golden files, recordings, plugin libraries, plugin.h, package config")


def check_binaries(prefix, trees):
    binary = prefix / "bin" / "tilecheck"
    data = binary.read_bytes()
    for tree in trees:
        check(str(tree).encode() not in data, f"{binary} carries the path {tree} (strings {binary} | grep {tree})")
    print("no path of the source or build tree in bin/tilecheck")
    # The kernel libraries are compiled with -lineinfo (compute-sanitizer and profilers map device
    # code to source lines): their device line tables name the .cu files; nothing reads them at run time.
    for library in sorted((prefix / "lib" / "tilecheck").glob("*.so")):
        named = sum(library.read_bytes().count(str(tree).encode()) for tree in trees[:1])
        print(f"  note: {library.name} names source files {named} times in its device line info (-lineinfo)")


def wrong_output(golden_file, out):
    """The case's reference output with one element changed a lot: a mismatch in one tile."""
    with h5py.File(golden_file, "r") as f:
        c = f["ref/expected"][()]
    c[3, 5] = np.float16(c[3, 5]) * np.float16(2) + np.float16(1)
    with h5py.File(out, "w") as f:
        f.create_dataset("C", data=c.astype(np.float16))


def check_cli(tc, prefix, trees, scratch):
    share = prefix / "share" / "tilecheck" / "fixtures"
    for command in ([], ["run"], ["compare"], ["tiles"], ["golden", "check"]):
        r = tc(*command, "--help")
        no_tree_paths(r.stdout, trees, f"tilecheck {' '.join(command)} --help")
    check("<data>/fixtures" in tc("compare", "--help").stdout, "compare --help shows no <data>/fixtures default")

    listed = tc("golden", "list").stdout
    check(f"in {share}/golden" in listed, f"golden list does not use the installed fixtures:\n{listed[-600:]}")
    checked = tc("golden", "check").stdout
    check(f"match {share}/MANIFEST.json" in checked, f"golden check used another manifest:\n{checked}")

    output, report = scratch / "wrong.h5", scratch / "wrong.errmap.h5"
    wrong_output(share / "golden" / f"{CASE}.h5", output)
    compared = tc("compare", "--fixture", CASE, "--output", output, "--sms", "3", "--report", report, expect=1)
    check("Mismatched 1 / 2176" in compared.stdout, f"compare did not find the one changed element:\n{compared.stdout}")
    no_tree_paths(compared.stdout + compared.stderr, trees, "compare's report")
    with h5py.File(report, "r") as f:
        check(f.attrs["errmap_schema_version"] == 2, "the error map is not schema v2")
        check(f.attrs["elements_stored"] == b"failing_tiles" and f["tiles/stored"][0, 0] == 1,
              "the error map does not store the failing tile (0, 0) alone by default")

    recording = share / "recordings" / "h200.h5"
    judged = tc("run", "--committed", "--recording", recording, "--errmaps", "", "--threads", "2")
    check(f"recording {recording}:" in judged.stdout and " 0 fail," in judged.stdout,
          f"run --committed on the installed recording:\n{judged.stdout[-2000:]}")
    no_tree_paths(judged.stdout + judged.stderr, trees, "run's output")
    print("installed tilecheck: --help, golden list/check, compare, run --committed on its own data")


def check_consumer(cmake, consumer, prefix, scratch, installed):
    build = scratch / "consumer-build"
    configured = run([cmake, "-S", consumer, "-B", build, f"-DCMAKE_PREFIX_PATH={prefix}"], scratch)
    check(f"tilecheck CLI: {prefix}/bin/tilecheck" in configured.stdout,
          f"find_package(tilecheck) found another tilecheck:\n{configured.stdout}")
    run([cmake, "--build", build], scratch)
    plugins = list(build.glob("**/libstub_plugin.so"))
    loaders = [p for p in build.glob("**/load_plugin") if p.is_file()]
    check(len(plugins) == 1 and len(loaders) == 1, f"consumer build made {plugins} and {loaders}")
    # Both libraries say the ABI version of the header they were built with: the installed one's.
    header = (prefix / "include" / "tilecheck" / "plugin" / "plugin.h").read_text()
    abi = re.search(r"#define TC_PLUGIN_ABI_VERSION (\d+)", header).group(1)
    loaded = run([loaders[0], plugins[0]], scratch).stdout
    check(loaded.startswith(f"consumer-stub none abi {abi} configs 1 run 2: consumer-stub runs nothing"),
          f"the stub plugin answered: {loaded}")
    # The installed kernel library loads from the moved prefix (its run path finds the CUDA runtime)
    # and answers a problem it must refuse without touching a GPU (M = 0: TC_ERR_INVALID_ARGUMENT).
    ours = installed.program(loaders[0], prefix / "lib" / "tilecheck" / "libtc_kernel_upstream.so").stdout
    check(ours.startswith(f"tilecheck-marlin upstream abi {abi} configs ") and " run 1: " in ours,
          f"the installed kernel library answered: {ours}")
    print("consumer: find_package(tilecheck), a stub plugin against tilecheck::plugin_abi, loaded")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cmake", required=True)
    p.add_argument("--build", required=True, type=pathlib.Path)
    p.add_argument("--source", required=True, type=pathlib.Path)
    p.add_argument("--consumer", required=True, type=pathlib.Path)
    a = p.parse_args()
    source, build = a.source.resolve(), a.build.resolve()
    trees = [source, build]
    hide = [source] if build.is_relative_to(source) else [source, build]
    with tempfile.TemporaryDirectory(prefix="tilecheck-install-") as tmp:
        scratch = pathlib.Path(tmp).resolve()
        staged = scratch / "staged"
        run([a.cmake, "--install", build, "--prefix", staged], scratch)
        prefix = scratch / "moved" / "prefix"  # relocated after installing: nothing may point back
        prefix.parent.mkdir()
        staged.rename(prefix)
        try:
            check_layout(prefix, source)
            check_binaries(prefix, trees)
            installed = Installed(prefix, scratch, hide)
            check_cli(installed, prefix, trees, scratch)
            check_consumer(a.cmake, a.consumer.resolve(), prefix, scratch, installed)
        except Failure as failure:
            print(f"FAIL: {failure}", file=sys.stderr)
            return 1
    print("install test passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
