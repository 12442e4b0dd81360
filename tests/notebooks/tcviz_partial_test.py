"""tcviz reads an error map that stores only its failing tiles (errmap_schema_version 2), and a v1
map as before. Writes the v2 map with the real CLI (`tilecheck compare --report`, one tile of a
committed case made wrong), checks what tcviz makes of it, and leaves it in OUT_DIR for the
notebook test that runs tile_mismatch on it.

  tcviz_partial_test.py --tilecheck BIN --source SOURCE_DIR --out OUT_DIR
"""
import argparse
import pathlib
import subprocess
import sys

import h5py
import numpy as np

CASE = "normal_m16_n512_k128_gcol_marlin"  # committed; 1 x 4 tiles of 16 x 128


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tilecheck", required=True)
    p.add_argument("--source", required=True, type=pathlib.Path)
    p.add_argument("--out", required=True, type=pathlib.Path)
    a = p.parse_args()
    sys.path.insert(0, str(a.source / "notebooks"))
    import tcviz

    a.out.mkdir(parents=True, exist_ok=True)
    with h5py.File(a.source / "fixtures" / "golden" / f"{CASE}.h5", "r") as f:
        c = f["ref/expected"][()]
    c[:, 128:256] = (c[:, 128:256].astype(np.float32) * 1.01).astype(np.float16)  # tile (0, 1) wrong
    output = a.out / "one_tile_wrong.h5"
    with h5py.File(output, "w") as f:
        f.create_dataset("C", data=c)
    errmap = a.out / "partial.errmap.h5"
    r = subprocess.run([a.tilecheck, "compare", "--fixture", CASE, "--output", str(output), "--sms", "3",
                        "--report", str(errmap)], capture_output=True, text=True)
    assert r.returncode == 1, (r.returncode, r.stdout[-2000:], r.stderr)

    em = tcviz.read_errmap(str(errmap))
    assert em.attrs["errmap_schema_version"] == 2 and em.attrs["elements_stored"] == "failing_tiles", em.attrs
    want = np.zeros((16, 512), dtype=bool)
    want[:, 128:256] = True
    assert (em.stored == want).all(), "stored: exactly the failing tile's elements"
    assert not tcviz.comparable(em)[:, :128].any(), "elements not stored are never comparable"
    util = tcviz.utilization(em)
    assert np.isnan(util[:, :128]).all() and np.isfinite(util[:, 128:256]).all()
    assert (em.el["verdict"][:, :128] == 0).all(), "a tile not stored reads as PASS"
    assert tcviz.tile_of(em, 5, 300) == (0, 2), "tile_of works where the element is not stored"
    assert tcviz.tile_of(em, 5, 130) == (0, 1)
    assert int(em.tiles["fail_bound"][0, 1]) > 0 and int(em.tiles["pass"][0, 0]) == 16 * 128

    v1 = tcviz.read_errmap(str(a.source / "notebooks" / "data" / "clean.errmap.h5"))
    assert v1.attrs["errmap_schema_version"] == 1 and v1.stored.all(), "a v1 map stores every element"
    print(f"tcviz reads {errmap} (v2, {int(em.stored.sum())} of {em.stored.size} elements stored) and v1 maps")
    return 0


if __name__ == "__main__":
    sys.exit(main())
