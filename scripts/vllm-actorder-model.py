#!/usr/bin/env python3
"""The output vLLM's Marlin act-order kernel (group_blocks 0, is_k_full false) computes for a case,
modelled on the CPU, as an output file for `tilecheck compare` (docs/case-study-vllm-marlin-formats.md).

At vLLM bc390b9 (csrc/quantization/marlin/marlin_template.h, fetch_scales_to_registers, act-order
branch, lines 1027-1041) a thread picks the row whose group it reads with its sub-tile index counted
as one row, while the B fragment that scale multiplies lies a whole 16-row sub-tile further per index
(the case study says it in full). With two 16-row sub-tiles per warp row in every tile vLLM builds, the
second takes the group of the row 15 above. Only a tile whose first and last rows have different
groups reads per row; the others take the tile's one group. So kernel row i reads the group of row
i - 15 * ((i // 16) % 2) in those tiles.

Each output is the float64 sum of A[:, perm] times the weights RN16(v * s[group]) in the kernel's
order, rounded once to fp16 (fp16 cases only): accumulation error is not modelled, so the counts `compare` reports
are those of the scale read alone. The file declares what vLLM's default library does (fp32 partials,
schedule unknown, k-slices >= --tile-k). --correct reads each row's own group (the reference's
definition).

  .venv/bin/python scripts/vllm-actorder-model.py CASE.h5 OUT.h5 [--tile-k 128] [--correct]
"""
import argparse
import sys

import h5py
import numpy as np

ITERS = 2  # b_sh_wr_iters of every 16-bit tile vLLM builds (128x128/256 threads, 64x256, 64x128, 128x64)


def read_rows(kernel_groups, tile_k, correct):
    """For each kernel row, the kernel row whose group the act-order kernel reads."""
    K = len(kernel_groups)
    rows = np.arange(K)
    if correct:
        return rows
    out = rows.copy()
    for t0 in range(0, K, tile_k):
        if kernel_groups[t0] == kernel_groups[t0 + tile_k - 1]:
            continue  # is_same_group: the whole tile takes one group
        local = rows[t0:t0 + tile_k] - t0
        out[t0:t0 + tile_k] = t0 + local - 15 * ((local // 16) % ITERS)
    return out


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("case")
    p.add_argument("output")
    p.add_argument("--tile-k", type=int, default=128, help="thread_k of the tile (64 or 128; the same rows either way)")
    p.add_argument("--correct", action="store_true", help="each row reads its own group")
    a = p.parse_args(argv)
    with h5py.File(a.case, "r") as f:
        if f.attrs["act_order"] == b"none" or int(f.attrs["is_k_full"]) != 0:
            sys.exit(f"{a.case}: not an act-order case on a shard of K (is_k_full 0): vLLM runs its grouped kernel")
        if f.attrs["dtype"] != b"fp16":
            sys.exit(f"{a.case}: dtype {f.attrs['dtype'].decode()}: the model writes fp16 outputs only")
        A = f["inputs/A"][()].astype(np.float64)
        s = f["inputs/scales"][()]
        codes = f["inputs/codes"][()].astype(np.int64)
        g_idx = f["inputs/g_idx"][()].reshape(-1)
        perm = f["inputs/perm"][()].reshape(-1)
        v = codes - int(f.attrs["zero_point"])
    if a.tile_k % 16 or len(perm) % a.tile_k:
        sys.exit(f"--tile-k {a.tile_k} does not divide K={len(perm)} into 16-row steps")
    groups = g_idx[perm]  # sorted: the kernel's order
    read = groups[read_rows(groups, a.tile_k, a.correct)]
    w = v[perm] * s[read].astype(np.float64)  # exact in float64
    y = A[:, perm] @ w.astype(np.float16).astype(np.float64)  # the weights RN16(v * s)
    with h5py.File(a.output, "w") as out:
        out.create_dataset("C", data=y.astype(np.float16))  # numpy rounds float64 to fp16 once, to nearest
        # What vLLM's default library (fp32 reduction) declares; grouped scales make the epilogue moot.
        for key, value in (("accumulator", "fp32"), ("partials", "fp32"), ("epilogue", "round-then-scale"),
                           ("schedule", "unknown")):
            out.attrs["numerics_" + key] = np.bytes_(value.encode())
        out.attrs["numerics_min_k_slice"] = np.int64(a.tile_k)
        wrong = int(np.count_nonzero(read != groups))
        out.attrs["model_rows_with_another_group"] = np.int64(wrong)
    print(f"{a.output}: {wrong} of {len(perm)} rows scaled by another group's scale")


if __name__ == "__main__":
    main(sys.argv[1:])
