"""Makes the formats notebook's sample error maps: a wrong output of a bf16 case and of a
zero-point (uint4) case, each judged by the real comparator, on a CPU.

Usage (from the repository root, with a built CLI):
    .venv/bin/python notebooks/data/make_format_samples.py --tilecheck build/default/cli/tilecheck

For each (case, bug) a stand-in kernel output C (M, N) in the case's dtype is written as
docs/compare.md says (HDF5 dataset C; bf16 through HDF5's bfloat16 type), then judged by
`tilecheck compare --fixture fixtures/golden/<case>.h5 --output C.h5 --report
notebooks/data/formats/<case>_<bug>.errmap.h5`. Every command is printed. The outputs are
stand-ins until a mutant kernel's recorded outputs replace them (notebooks/README.md):

  (no file)                       the same emulation without the bug, judged first: it must pass,
                                  so the failures below are the bug's, not the emulation's
  <bf16 case>_scale_through_fp16  every scale converted bf16 -> fp16 -> bf16 before use (our
                                  kernel's mutant 16, kernel/src/element_type.cuh)
  <uint4 case>_zero_point_off_by_one
                                  v = q - (z + 1) in group ZP_GROUP only (all columns); the kernel's
                                  other groups read their zero points right. The kernel's own
                                  zero-point mutant (branch kernel-zp) shifts every group: one group
                                  here, so that the notebook can show which one

The emulation (float64 sum of the dequantized products, rounded once to the dtype) only makes
inputs for the notebook; it is not a reference (reference/ is). It follows the fault model of
tests/compare/format_model.cpp.
"""
import argparse
import os
import pathlib
import sys
import tempfile

import h5py
import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import tcviz  # noqa: E402

sys.path.insert(0, str(HERE))
import make_sample_data  # noqa: E402  (its compare: one way to run tilecheck compare)

GOLDEN = "fixtures/golden"
BF16_CASE = "extremes_m8_n128_k128_g32_marlin_bf16-uint4b8"
ZP_CASE = "normal_m16_n128_k256_g128_marlin_fp16-uint4"
ZP_GROUP = 1  # the group whose zero points the buggy kernel reads one too high
# (case, bug, exit codes compare may give): the correct emulation must pass, the bugs must fail
SAMPLES = [
    (BF16_CASE, "correct", {0}),
    (BF16_CASE, "scale_through_fp16", {1}),
    (ZP_CASE, "correct", {0}),
    (ZP_CASE, "zero_point_off_by_one", {1}),
]


# ------------------------------------------------------------------------------- bf16 in numpy
def round_to_bf16(x):
    """float32 -> the nearest bf16 (ties to even), as float32. numpy has no bf16: keep the top 16
    bits after adding half an ULP of bf16; NaN stays NaN (the carry could make it Inf)."""
    x = np.asarray(x, np.float32)
    b = x.view(np.uint32).astype(np.uint64)
    b = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16
    r = b.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), np.float32("nan"), r)


def round_to(dtype, x):
    """float64 -> the case's dtype, as float32 (bf16) or float16. Through float32 for bf16: a
    double rounding, which can move a tie by one ULP; the bound has room for that."""
    with np.errstate(over="ignore"):
        return round_to_bf16(x.astype(np.float32)) if dtype == "bf16" else x.astype(np.float16)


# ------------------------------------------------------------------------ emulated kernel outputs
def kernel_weights(fx, bug):
    """(K, N) float64: the weights the kernel multiplies, RN_t((q - z) * s) for grouped scales
    (docs/fixtures-schema.md), with the bug's change."""
    assert fx.group_size > 0 and fx.attrs["act_order"] == "none", "grouped cases without act-order only"
    v = tcviz.code_values(fx)  # q - z
    if bug == "zero_point_off_by_one":
        v[ZP_GROUP * fx.group_size:(ZP_GROUP + 1) * fx.group_size] -= 1  # q - (z + 1) in one group
    s = fx.scales.astype(np.float32)
    if bug == "scale_through_fp16":
        with np.errstate(over="ignore"):
            s = round_to_bf16(s.astype(np.float16).astype(np.float32))  # 2^-133 -> 0, 4e37 -> inf
    with np.errstate(over="ignore", invalid="ignore"):
        w = v.astype(np.float64) * np.repeat(s, fx.group_size, axis=0)  # exact: 4-bit x 8/11-bit
        return round_to(fx.dtype, w).astype(np.float64)


def kernel_output(fx, bug):
    """C (M, N) in the dtype: the exact-ish float64 sum, rounded once (grouped scales: no epilogue
    scaling)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return round_to(fx.dtype, fx.A.astype(np.float64) @ kernel_weights(fx, bug))


# ----------------------------------------------------------------------------------- plumbing
def write_output(path, C, dtype):
    with h5py.File(path, "w") as f:
        if dtype == "fp16":
            assert C.dtype == np.float16
            f.create_dataset("C", data=C)
            return
        # bf16: HDF5's bfloat16 type converts the float32 values exactly (docs/compare.md)
        t = h5py.h5t.IEEE_F32LE.copy()
        t.set_fields(15, 7, 8, 0, 7)
        t.set_precision(16)
        t.set_size(2)
        t.set_ebias(127)
        ds = h5py.h5d.create(f.id, b"C", t, h5py.h5s.create_simple(C.shape))
        ds.write(h5py.h5s.ALL, h5py.h5s.ALL, np.ascontiguousarray(C, dtype=np.float32))


def compare(tilecheck, case, output, report, want_rc):  # the passing control keeps no map (report None)
    make_sample_data.compare(tilecheck, case, output, report, (), want_rc, who="make_format_samples")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tilecheck", default="build/default/cli/tilecheck")
    p.add_argument("--out", default=str(HERE.relative_to(pathlib.Path.cwd()) / "formats")
                   if HERE.is_relative_to(pathlib.Path.cwd()) else str(HERE / "formats"))
    a = p.parse_args()
    if not pathlib.Path(GOLDEN).is_dir():
        sys.exit("make_format_samples: run it from the repository root (fixtures/golden not found)")
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for case, bug, want_rc in SAMPLES:
            fx = tcviz.read_fixture(f"{GOLDEN}/{case}.h5")
            C = pathlib.Path(tmp) / f"{case}_{bug}.h5"
            write_output(C, kernel_output(fx, bug), fx.dtype)
            report = None if bug == "correct" else out / f"{case}_{bug}.errmap.h5"
            compare(a.tilecheck, case, C, report, want_rc)
    files = sorted(out.glob("*.errmap.h5"))
    print(f"{len(files)} error maps, {sum(f.stat().st_size for f in files) / 1e3:.0f} kB in {out}")


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    main()
