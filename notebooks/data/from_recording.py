"""Makes the notebooks' tile samples from outputs recorded on the H200 (fixtures/recordings/).

Usage (from the repository root, with a built CLI):
    .venv/bin/python notebooks/data/from_recording.py --tilecheck build/default/cli/tilecheck

A recording holds the kernel's C for each cell run (`tilecheck run --record`); this takes one cell
from each recording, writes its C as docs/compare.md says (HDF5 dataset C, float16), and judges it
with `tilecheck compare --fixture ... --report notebooks/data/<name>.errmap.h5`. Every command is
printed.

  clean.errmap.h5               our kernel (upstream fetch order), recorded on the H200
                                (fixtures/recordings/h200.h5)
  broken_scale_fetch.errmap.h5  the same cell from the mutant that puts the per-column scale slot
                                inside the block-reduction scratch, the seed issue's suspected
                                layout (fixtures/recordings/h200-mut01-scales-in-scratch.h5)
"""
import argparse
import pathlib
import subprocess
import sys
import tempfile

import h5py
import numpy as np

CASE = "normal_m16_n512_k128_gcol_marlin"
CONFIG, SMS = "m1n8k8gcol", 3
SAMPLES = [
    ("clean.errmap.h5", "fixtures/recordings/h200.h5"),
    ("broken_scale_fetch.errmap.h5", "fixtures/recordings/h200-mut01-scales-in-scratch.h5"),
]


def recorded_output(path: str) -> np.ndarray:
    with h5py.File(path, "r") as f:
        for cell in f["cells"].values():
            attrs = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in cell.attrs.items()}
            if attrs["case_id"] == CASE and attrs["config"] == CONFIG and int(attrs["sms"]) == SMS:
                return cell["C"][...]
    raise SystemExit(f"{path}: no recorded cell {CASE} {CONFIG} sms={SMS}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tilecheck", required=True, help="the tilecheck CLI")
    args = parser.parse_args()
    out_dir = pathlib.Path(__file__).resolve().parent
    with tempfile.TemporaryDirectory() as tmp:
        for name, recording in SAMPLES:
            c = recorded_output(recording)
            output = pathlib.Path(tmp) / "C.h5"
            with h5py.File(output, "w") as f:
                f.create_dataset("C", data=c.astype(np.float16))
            command = [args.tilecheck, "compare", "--fixture", f"fixtures/golden/{CASE}.h5", "--output", str(output),
                       "--tile", "128x128", "--m-blocks", "1", "--sms", str(SMS),
                       "--schedule", "model",  # what our kernel declares; a bare C declares nothing
                       "--report", str(out_dir / name),
                       "--report-elements", "all"]
            print(" ".join(command))
            code = subprocess.call(command, stdout=subprocess.DEVNULL)
            if code not in (0, 1):  # 1: a mismatch, which the broken sample is
                return code
    return 0


if __name__ == "__main__":
    sys.exit(main())
