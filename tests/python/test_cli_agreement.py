"""One judge chain: the package's verdict and report are the CLI's (`tilecheck compare`) for the
same output, and a failing output's error map is the same file."""
import os
import subprocess

import numpy as np
import pytest

import tilecheck

CLI = os.environ.get("TILECHECK_CLI")
pytestmark = pytest.mark.skipif(not CLI or not os.path.exists(CLI),
                                reason="TILECHECK_CLI (the tilecheck binary) is not set: ctest sets it")
h5py = pytest.importorskip("h5py")


def compare_with_cli(C, case_id, tmp_path, *options):
    out = tmp_path / "C.h5"
    with h5py.File(out, "w") as f:
        f["C"] = C
    run = subprocess.run([CLI, "compare", "--fixture", case_id, "--output", str(out), *options],
                         capture_output=True, text=True, check=False)
    assert run.returncode in (0, 1), run.stderr
    return run


@pytest.mark.parametrize("case_id", ["normal_m16_n256_k192_g64_marlin", "exact_m17_n128_k128_g32_fp32",
                                     "normal_m6_n128_k128_gcol_marlin"])
def test_same_report_as_the_cli(case_id, tmp_path):
    c = tilecheck.load(case_id, framework="numpy")
    C = c.expected.copy()
    C[0, 5] = np.float16(float(C[0, 5]) + 0.5)  # one element off: a failing report, hints and all
    for options in ([], ["--sms", "3", "--schedule", "model"]):
        cli = compare_with_cli(C, case_id, tmp_path, *options)
        kw = dict(sms=3, schedule="model") if options else {}
        r = tilecheck.judge(C, case_id, **kw)
        assert r.report == cli.stdout
        assert r.passed == (cli.returncode == 0)


def test_same_error_map_as_the_cli(tmp_path):
    case_id = "normal_m16_n256_k192_g64_marlin"
    c = tilecheck.load(case_id, framework="numpy")
    C = c.expected.copy()
    C[9, 130] = np.float16(3000)
    compare_with_cli(C, case_id, tmp_path, "--report", str(tmp_path / "cli.h5"))
    tilecheck.judge(C, case_id, error_map=str(tmp_path / "py.h5"))
    with h5py.File(tmp_path / "cli.h5") as a, h5py.File(tmp_path / "py.h5") as b:
        assert np.array_equal(a["elements/verdict"][()], b["elements/verdict"][()])
        assert np.array_equal(a["elements/ulp"][()], b["elements/ulp"][()])
