"""Makes the notebooks' numerics sample error maps with the real comparator, on a CPU (the two
tile samples come from H200 recordings: from_recording.py; --stand-in-tiles remakes CPU stand-ins).

Usage (from the repository root, with a built CLI):
    .venv/bin/python notebooks/data/make_sample_data.py --tilecheck build/default/cli/tilecheck

Each sample is a kernel output C (M, N) float16 written as docs/compare.md says (HDF5 dataset C),
then judged by `tilecheck compare --fixture fixtures/golden/<case>.h5 --output C.h5 --tile ...
--sms ... --report notebooks/data/...errmap.h5`. Every command is printed. The outputs are
stand-ins until error maps recorded on the H200 replace them (notebooks/README.md):

  clean.errmap.h5               C = the fixture's own /ref/expected: a perfect kernel.
  broken_scale_fetch.errmap.h5  C = /ref/expected except in tiles that a thread block writes after
                                its first one: there the per-column scale is the one the block
                                fetched for its first tile (a scale fetch done once per block, not
                                per tile). Which block writes which tile is read from the clean
                                map's /tiles (the comparator's schedule model), not recomputed.
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
TILE_CASE = "normal_m16_n512_k128_gcol_marlin"  # 1 x 4 tiles of 128 x 128; per-column scales
TILE_ARGS = ("--tile", "128x128", "--sms", "3")  # blocks 0 and 1 write two tiles each
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


def epilogue(acc, fx, scales=None):
    """fp32 accumulator (M, N) -> fp16 output under the fixture's contract (docs/numerics.md item 6)."""
    if fx.group_size != -1:
        return acc.astype(np.float16)
    s = (fx.scales if scales is None else scales).reshape(1, -1)
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


def stale_scale_output(fx, clean_map):
    """/ref/expected, except tiles a block writes after its first tile use that first tile's
    per-column scales (marlin epilogue applied to y*)."""
    C = fx.expected.copy()
    em = clean_map
    first = {}  # (launch, block) -> tile_col of the first tile the block works on
    order = np.lexsort((em.column("tile_col"), em.column("tile_row")))
    for i in order:
        tr, tc, b = (int(em.slices[i, em.slice_columns.index(n)]) for n in ("tile_row", "tile_col", "block"))
        first.setdefault((int(em.tiles["launch"][tr, tc]), b), tc)
    rows, cols = em.grid
    for tr in range(rows):
        for tc in range(cols):
            key = (int(em.tiles["launch"][tr, tc]), int(em.tiles["writer"][tr, tc]))
            fc = first[key]
            if fc == tc:
                continue
            r0, nr = int(em.tiles["row0"][tr, tc]), int(em.tiles["rows"][tr, tc])
            c0, nc = int(em.tiles["col0"][tr, tc]), int(em.tiles["cols"][tr, tc])
            f0 = int(em.tiles["col0"][tr, fc])
            stale = fx.scales[:, f0:f0 + nc]
            with np.errstate(over="ignore"):
                acc = fx.y_exact[r0:r0 + nr, c0:c0 + nc].astype(np.float32)
                C[r0:r0 + nr, c0:c0 + nc] = acc.astype(np.float16) * stale.astype(np.float16)
            print(f"  tile ({tr},{tc}) written by block {key[1]}: scales of tile column {fc}")
    return C


# ----------------------------------------------------------------------------------- plumbing
def write_output(path, C):
    assert C.dtype == np.float16 and C.ndim == 2
    with h5py.File(path, "w") as f:
        f.create_dataset("C", data=C)


def compare(tilecheck, case, output, report, args, want_rc):
    cmd = [tilecheck, "compare", "--fixture", f"{GOLDEN}/{case}.h5", "--output", str(output),
           *args, "--report", str(report)]
    print("$ " + " ".join(cmd))
    r = subprocess.run(cmd, capture_output=True, text=True)
    print("  " + (r.stdout.splitlines() or ["(no output)"])[0])
    if r.returncode not in want_rc:
        sys.exit(f"make_sample_data: exit {r.returncode}, expected {want_rc}\n{r.stdout}{r.stderr}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tilecheck", default="build/default/cli/tilecheck")
    p.add_argument("--stand-in-tiles", action="store_true",
                   help="also remake clean/broken_scale_fetch.errmap.h5 from CPU stand-ins (the committed "
                        "ones come from H200 recordings: from_recording.py)")
    p.add_argument("--out", default=str(HERE.relative_to(pathlib.Path.cwd()))
                   if HERE.is_relative_to(pathlib.Path.cwd()) else str(HERE))
    a = p.parse_args()
    if not pathlib.Path(GOLDEN).is_dir():
        sys.exit("make_sample_data: run it from the repository root (fixtures/golden not found)")
    out = pathlib.Path(a.out)
    (out / "numerics").mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        if a.stand_in_tiles:
            fx = tcviz.read_fixture(f"{GOLDEN}/{TILE_CASE}.h5")
            write_output(tmp / "clean.h5", fx.expected)
            compare(a.tilecheck, TILE_CASE, tmp / "clean.h5", out / "clean.errmap.h5", TILE_ARGS, {0})
            write_output(tmp / "broken.h5", stale_scale_output(fx, tcviz.read_errmap(str(out / "clean.errmap.h5"))))
            compare(a.tilecheck, TILE_CASE, tmp / "broken.h5", out / "broken_scale_fetch.errmap.h5", TILE_ARGS, {1})
        for case, tile, sms_values, kind in NUMERICS:
            fx = tcviz.read_fixture(f"{GOLDEN}/{case}.h5")
            with np.errstate(over="ignore"):
                C = epilogue(accumulate(fx, kind), fx)
            write_output(tmp / "C.h5", C)
            for sms in sms_values:
                report = out / "numerics" / f"{case}_{tile}_sms{sms}_{kind}acc.errmap.h5"
                compare(a.tilecheck, case, tmp / "C.h5", report, ("--tile", tile, "--sms", str(sms)),
                        {0} if kind == "fp32" else {0, 1})  # fp16: fails T1 where it must
    total = sum(f.stat().st_size for f in out.rglob("*.h5"))
    print(f"{len(list(out.rglob('*.h5')))} error maps, {total / 1e6:.2f} MB in {out}")


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    main()
