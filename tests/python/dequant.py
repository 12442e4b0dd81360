"""A user's dequantize-then-matmul, the way a kernel developer writes one in NumPy or torch to check
a kernel: what the examples judge. C (M, N) fp16 = A (M, K) fp16 . dequant(codes (K, N), scales (G, N)).

Grouped scales: w = RN16((q - 8) * s) (Marlin dequantizes before the MMA), fp32 sum, one rounding.
Per-column scales: the sum of A . (q - 8), then the contract's epilogue: marlin RN16(RN16(acc) * s),
fp32 RN16(acc * s). dequant_matmul_format does the same in any schema-v2 format (a CaseData's).
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


def round_to(dtype, x):
    """x rounded to nearest (ties to even) in the dtype: fp16 as float16, bf16 as float32 holding the
    bf16 value (NumPy has no bfloat16; tilecheck takes this form)."""
    if dtype == "fp16":
        return np.asarray(x).astype(np.float16)
    x = np.asarray(x, dtype=np.float64)
    m, e = np.frexp(x)  # x = m 2^e, 0.5 <= |m| < 1: a normal bf16 keeps 8 bits of m
    normal = np.ldexp(np.round(np.ldexp(m, 8)), e - 8)
    subnormal = np.ldexp(np.round(np.ldexp(x, 133)), -133)  # below 2^-126: multiples of 2^-133
    with np.errstate(over="ignore"):
        return np.where(np.abs(x) < 2.0**-126, subnormal, normal).astype(np.float32)  # beyond the range: inf


def dequant_matmul_format(c):
    """C (M, N) in c.dtype = A . dequant(codes) for a NumPy CaseData of any format: v = q - 8, q - z
    (zero points) or q - 128; the scale (and zero point) of row k is group g_idx[k] with act-order,
    k / group without; then as above, rounding in the case's dtype."""
    with np.errstate(over="ignore", invalid="ignore"):
        K = c.K
        rows = c.g_idx if c.g_idx is not None else np.arange(K) // c.group if c.group != -1 else np.zeros(K, int)
        bias = {"uint4b8": 8.0, "uint8b128": 128.0}
        z = c.zero_points[rows].astype(np.float64) if c.weight_type == "uint4" else bias[c.weight_type]
        v = c.codes.astype(np.float64) - z
        s = np.asarray(c.scales, dtype=np.float64)
        a = np.asarray(c.A, dtype=np.float32)
        if c.group == -1:
            acc = a @ v.astype(np.float32)
            if c.contract == "marlin":
                return round_to(c.dtype, round_to(c.dtype, acc).astype(np.float64) * s[0])
            return round_to(c.dtype, acc.astype(np.float64) * s[0])
        w = round_to(c.dtype, v * s[rows])
        return round_to(c.dtype, a @ w.astype(np.float32))
