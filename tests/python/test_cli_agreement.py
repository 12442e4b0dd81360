"""One judge chain: the package's verdict and report are the CLI's (`tilecheck compare`) for the
same output, and a failing output's error map is the same file."""
import os
import subprocess

import numpy as np
import pytest

import tilecheck
from dequant import round_to

CLI = os.environ.get("TILECHECK_CLI")
pytestmark = pytest.mark.skipif(not CLI or not os.path.exists(CLI),
                                reason="TILECHECK_CLI (the tilecheck binary) is not set: ctest sets it")
h5py = pytest.importorskip("h5py")


def write_bf16(path, values):
    """Dataset C of the schema's bf16 type (docs/fixtures-schema.md, "bf16"), from float32 bf16 values:
    h5py would write float32, or float16 for any 2-byte float."""
    bf16 = h5py.h5t.IEEE_F32LE.copy()
    bf16.set_fields(15, 7, 8, 0, 7)
    bf16.set_precision(16)
    bf16.set_size(2)
    bf16.set_ebias(127)
    bits = (np.ascontiguousarray(values, dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)
    with h5py.File(path, "w") as f:
        dataset = h5py.h5d.create(f.id, b"C", bf16, h5py.h5s.create_simple(bits.shape))
        dataset.write(h5py.h5s.ALL, h5py.h5s.ALL, bits, mtype=bf16)


def compare_with_cli(C, case_id, tmp_path, *options):
    out = tmp_path / "C.h5"
    if C.dtype == np.float32:  # a bf16 case's output
        write_bf16(out, C)
    else:
        with h5py.File(out, "w") as f:
            f["C"] = C
    run = subprocess.run([CLI, "compare", "--fixture", case_id, "--output", str(out), *options],
                         capture_output=True, text=True, check=False)
    assert run.returncode in (0, 1), run.stderr
    return run


@pytest.mark.parametrize("case_id", ["normal_m16_n256_k192_g64_marlin", "exact_m17_n128_k128_g32_fp32",
                                     "normal_m6_n128_k128_gcol_marlin", "normal_m16_n128_k256_g64_fp32_bf16-uint4",
                                     "normal_m16_n128_k512_g32_marlin_fp16-uint4b8-actworst-kpart",
                                     "extremes_m8_n256_k128_gcol_marlin_bf16-uint8b128"])
def test_same_report_as_the_cli(case_id, tmp_path):
    c = tilecheck.load(case_id, framework="numpy")
    C = c.expected.copy()
    C[0, 5] = C.dtype.type(float(C[0, 5]) + 0.5)  # one element off: a failing report, hints and all
    if c.dtype == "bf16":
        C[0, 5] = round_to("bf16", C[0, 5])
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
