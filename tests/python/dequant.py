"""A user's dequantize-then-matmul, the way a kernel developer writes one in NumPy or torch to check
a kernel: what the examples judge. C (M, N) fp16 = A (M, K) fp16 . dequant(codes (K, N), scales (G, N)).

Grouped scales: w = RN16((q - 8) * s) (Marlin dequantizes before the MMA), fp32 sum, one rounding.
Per-column scales: the sum of A . (q - 8), then the contract's epilogue: marlin RN16(RN16(acc) * s),
fp32 RN16(acc * s).
"""
import numpy as np


def dequant_matmul_numpy(A, codes, scales, group, contract):
    with np.errstate(over="ignore", invalid="ignore"):  # the overflow and specials cases make inf and NaN
        return _dequant_matmul_numpy(A, codes, scales, group, contract)


def _dequant_matmul_numpy(A, codes, scales, group, contract):
    a = np.asarray(A).astype(np.float32)
    q = np.asarray(codes).astype(np.float32) - 8
    s = np.asarray(scales)
    if group == -1:
        acc = a @ q
        if contract == "marlin":
            return (acc.astype(np.float16).astype(np.float32) * s[0].astype(np.float32)).astype(np.float16)
        return (acc.astype(np.float64) * s[0].astype(np.float64)).astype(np.float16)
    w = (q * np.repeat(s, group, axis=0).astype(np.float32)).astype(np.float16)
    return (a @ w.astype(np.float32)).astype(np.float16)


def dequant_matmul_torch(A, codes, scales, group, contract):
    import torch  # noqa: PLC0415 (only where torch is present)
    a = A.to(torch.float32)
    q = codes.to(torch.float32) - 8
    if group == -1:
        acc = a @ q
        if contract == "marlin":
            return (acc.to(torch.float16).to(torch.float32) * scales[0].to(torch.float32)).to(torch.float16)
        return (acc.to(torch.float64) * scales[0].to(torch.float64)).to(torch.float16)
    w = (q * scales.repeat_interleave(group, dim=0).to(torch.float32)).to(torch.float16)
    return (a @ w.to(torch.float32)).to(torch.float16)


def dequant_matmul_wrong(A, codes, scales, group, contract, cols=(128, 256), k_rows=16):
    """The classic pipeline bug: the last k-tile of rows is never added, here for columns [128, 256)
    only (one tile column of a 128-wide tile), so the report names that tile."""
    codes = codes.cpu().numpy().copy() if hasattr(codes, "cpu") else np.array(codes)  # torch or NumPy
    codes[-k_rows:, cols[0]:cols[1]] = 8  # code 8 dequantizes to 0
    return dequant_matmul_numpy(A, codes, scales, group, contract)
