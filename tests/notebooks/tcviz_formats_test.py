"""tcviz reads the schema v2 formats the formats notebook draws: a uint4 fixture's zero points and
code values q - z, a bf16 fixture's and a bf16 error map's values (as float32, bits unchanged), and
names each fixture's format. Reads committed files only (fixtures/golden, notebooks/data/formats).

  tcviz_formats_test.py --source SOURCE_DIR
"""
import argparse
import pathlib
import sys

import h5py
import numpy as np

UINT4 = "normal_m16_n128_k256_g128_marlin_fp16-uint4"  # G = 2 groups of 128
BF16 = "extremes_m8_n128_k128_g32_marlin_bf16-uint4b8"
BF16_MAP = f"{BF16}_scale_through_fp16.errmap.h5"
V1 = "normal_m16_n128_k768_g32_marlin"  # schema v1 attributes: fp16-uint4b8


def bits(values):
    """float32 values -> the bf16 bits they came from (their top halves)."""
    return (np.asarray(values, np.float32).view(np.uint32) >> 16).astype(np.uint16)


def stored_bf16_bits(dataset):
    """The dataset's raw 16-bit patterns: read with its own type as the memory type, so HDF5
    converts nothing (an integer memory type would convert the values)."""
    out = np.empty(dataset.shape, np.uint16)
    dataset.id.read(h5py.h5s.ALL, h5py.h5s.ALL, out, mtype=dataset.id.get_type())
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--source", required=True, type=pathlib.Path)
    a = p.parse_args()
    sys.path.insert(0, str(a.source / "notebooks"))
    import tcviz

    golden = a.source / "fixtures" / "golden"
    failures = []

    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    fx = tcviz.read_fixture(str(golden / f"{UINT4}.h5"))
    with h5py.File(golden / f"{UINT4}.h5", "r") as f:
        z = f["inputs/zero_points"][()]
    check(fx.zero_points is not None and fx.zero_points.dtype == np.uint8 and fx.zero_points.shape == (2, fx.N)
          and np.array_equal(fx.zero_points, z), "uint4: zero_points is /inputs/zero_points, (G, N) uint8")
    v = tcviz.code_values(fx)
    q = fx.codes.astype(np.int32)
    check(np.array_equal(v[:128], q[:128] - z[0]) and np.array_equal(v[128:], q[128:] - z[1]),
          "uint4: code_values is q - z of the row's group (k / 128)")
    check(fx.format == "fp16-uint4" and "format=fp16-uint4" in fx.describe(), f"uint4: format {fx.format}")

    fx = tcviz.read_fixture(str(golden / f"{BF16}.h5"))
    with h5py.File(golden / f"{BF16}.h5", "r") as f:
        raw = stored_bf16_bits(f["inputs/scales"])
    check(fx.zero_points is None and fx.scales.dtype == np.float32 and np.array_equal(bits(fx.scales), raw),
          "bf16: scales as float32 with the stored bits; no zero points")
    check(np.array_equal(tcviz.code_values(fx), fx.codes.astype(np.int32) - 8), "bf16-uint4b8: code_values is q - 8")
    check(fx.format == "bf16-uint4b8", f"bf16: format {fx.format}")

    check(tcviz.read_fixture(str(golden / f"{V1}.h5")).format == "fp16-uint4b8", "v1-style attributes: fp16-uint4b8")

    path = a.source / "notebooks" / "data" / "formats" / BF16_MAP
    em = tcviz.read_errmap(str(path))
    with h5py.File(path, "r") as f:
        raw_got, raw_expected = stored_bf16_bits(f["elements/got"]), stored_bf16_bits(f["elements/expected"])
    ok = em.stored
    check(em.el["got"].dtype == np.float32 and np.array_equal(bits(em.el["got"])[ok], raw_got[ok])
          and np.array_equal(bits(em.el["expected"])[ok], raw_expected[ok]),
          "bf16 error map: got and expected as float32 with the stored bits")
    check(not em.passed and int(np.isnan(em.el["got"][em.el["verdict"] == 2]).sum()) == em.attrs["nonfinite"],
          "bf16 error map: the NONFINITE elements read as NaN")

    if failures:
        print(f"FAIL: {len(failures)} check(s)")
        sys.exit(1)
    print("PASS")


if __name__ == "__main__":
    main()
