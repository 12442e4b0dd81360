"""Makes the notebooks' numerics sample error maps with the real comparator, on a CPU (the two
tile samples come from H200 recordings: from_recording.py).

Usage (from the repository root, with a built CLI):
    .venv/bin/python notebooks/data/make_sample_data.py --tilecheck build/default/cli/tilecheck

Each sample is a kernel output C (M, N) float16 written as docs/compare.md says (HDF5 dataset C),
then judged by `tilecheck compare --fixture fixtures/golden/<case>.h5 --output C.h5 --tile ...
--sms ... --report notebooks/data/...errmap.h5`. Every command is printed. The outputs are
stand-ins until error maps recorded on the H200 replace them (notebooks/README.md):

  numerics/*.errmap.h5          C from a CPU emulation of a kernel's accumulator: fp32
                                (numpy float32 matmul, any order: inside the bound) or fp16 (the
                                running sum rounded to fp16 after every 16-deep k-chunk: a kernel
                                with the wrong accumulator), over several configurations and grid
                                sizes.

The emulations only make inputs for the notebooks; they are not a reference (reference/ is).
"""
import argparse
import os
import pathlib
import subprocess
import sys
import tempfile

import h5py
import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import tcviz  # noqa: E402

GOLDEN = "fixtures/golden"
# (case, tile, sms values, accumulator) for the numerics notebook
NUMERICS = [
    ("normal_m16_n128_k768_gcol_marlin", "128x128", (1, 3, 6), "fp32"),
    ("normal_m16_n128_k4096_g128_marlin", "128x128", (1, 8, 32), "fp32"),
    ("normal_m16_n128_k768_gcol_marlin", "128x128", (1, 6), "fp16"),
    ("normal_m16_n256_k704_g64_fp32", "256x64", (4,), "fp32"),
]


# ------------------------------------------------------------------------ emulated kernel outputs
def dequantized(fx):
    """(K, N) float16 weights as a kernel feeds its MMA: RN16((q - 8) * s) per group; q - 8 for
    per-column scales (applied in the epilogue)."""
    q = fx.codes.astype(np.float16) - np.float16(8)
    if fx.group_size == -1:
        return q
    s = np.repeat(fx.scales, fx.group_size, axis=0)  # (K, N)
    return (q * s).astype(np.float16)  # fp16 x fp16 is exact in fp32: one rounding


def epilogue(acc, fx):
    """fp32 accumulator (M, N) -> fp16 output under the fixture's contract (docs/numerics.md item 6)."""
    if fx.group_size != -1:
        return acc.astype(np.float16)
    s = fx.scales.reshape(1, -1)
    if fx.contract == "marlin":
        return acc.astype(np.float16) * s.astype(np.float16)  # RN16(RN16(acc) * s)
    return (acc.astype(np.float32) * s.astype(np.float32)).astype(np.float16)


def accumulate(fx, kind):
    A, W = fx.A.astype(np.float32), dequantized(fx).astype(np.float32)
    if kind == "fp32":
        return A @ W
    acc = np.zeros((fx.M, fx.N), np.float16)
    for k in range(0, fx.K, 16):  # fp16 running sum, rounded after every m16n8k16 step
        acc = (acc.astype(np.float32) + A[:, k:k + 16] @ W[k:k + 16]).astype(np.float16)
    return acc.astype(np.float32)


# ----------------------------------------------------------------------------------- plumbing
def write_output(path, C):
    assert C.dtype == np.float16 and C.ndim == 2
    with h5py.File(path, "w") as f:
        f.create_dataset("C", data=C)


def compare(tilecheck, case, output, report, args, want_rc, who="make_sample_data"):
    """Judges `output` against the golden case with `tilecheck compare` (the report written to `report`
    unless it is None), printing the command and the verdict line; exits unless the status is in want_rc."""
    cmd = [tilecheck, "compare", "--fixture", f"{GOLDEN}/{case}.h5", "--output", str(output), *args]
    cmd += ["--report", str(report)] if report else []
    print("$ " + " ".join(cmd))
    r = subprocess.run(cmd, capture_output=True, text=True)
    print("  " + (r.stdout.splitlines() or ["(no output)"])[0])
    if r.returncode not in want_rc:
        sys.exit(f"{who}: exit {r.returncode}, expected {want_rc}\n{r.stdout}{r.stderr}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tilecheck", default="build/default/cli/tilecheck")
    p.add_argument("--out", default=str(HERE.relative_to(pathlib.Path.cwd()))
                   if HERE.is_relative_to(pathlib.Path.cwd()) else str(HERE))
    a = p.parse_args()
    if not pathlib.Path(GOLDEN).is_dir():
        sys.exit("make_sample_data: run it from the repository root (fixtures/golden not found)")
    out = pathlib.Path(a.out)
    (out / "numerics").mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        for case, tile, sms_values, kind in NUMERICS:
            fx = tcviz.read_fixture(f"{GOLDEN}/{case}.h5")
            with np.errstate(over="ignore"):
                C = epilogue(accumulate(fx, kind), fx)
            write_output(tmp / "C.h5", C)
            for sms in sms_values:
                report = out / "numerics" / f"{case}_{tile}_sms{sms}_{kind}acc.errmap.h5"
                compare(a.tilecheck, case, tmp / "C.h5", report,  # numerics reads every element
                        ("--tile", tile, "--sms", str(sms), "--report-elements", "all"),
                        {0} if kind == "fp32" else {0, 1})  # fp16: fails T1 where it must
    total = sum(f.stat().st_size for f in out.rglob("*.h5"))
    print(f"{len(list(out.rglob('*.h5')))} error maps, {total / 1e6:.2f} MB in {out}")


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    main()
