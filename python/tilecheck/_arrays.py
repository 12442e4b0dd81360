"""Arrays and tensors to and from the bits the module takes, in a case's dtype (docs/python.md, "dtypes").

fp16 is NumPy float16 or torch.float16. bf16, which NumPy has no type for, comes out of the package as
torch.bfloat16 tensors, or under NumPy as float32 arrays holding bf16 values (exact: a bf16 is the top
half of a float32). It goes in as a torch.bfloat16 tensor, an ml_dtypes bfloat16 array, or float32
whose every value is a bf16 value: other float32 values are refused, never rounded here, since the
rounding to bf16 is what a kernel is judged on.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

_NUMPY = {"fp16": "float16", "bf16": "float32 holding bf16 values (or an ml_dtypes bfloat16 array)"}


def torch_module():
    try:
        import torch  # noqa: PLC0415 (optional dependency)
    except ImportError:
        return None
    return torch


def torch_dtype(torch: Any, dtype: str) -> Any:
    return {"fp16": torch.float16, "bf16": torch.bfloat16}[dtype]


def convert(a: Optional[np.ndarray], dtype: Optional[str], framework: str, device: Optional[str]) -> Any:
    """A library array as the framework's: a NumPy array, or a torch tensor (of `dtype` where given:
    the float32 form of a bf16 array becomes torch.bfloat16, exactly)."""
    if a is None or framework == "numpy":
        return a
    torch = torch_module()
    if torch is None:
        if framework == "torch":
            raise ImportError("framework='torch' but torch is not importable")
        return a
    t = torch.from_numpy(np.array(a))  # a copy: the library's arrays are read-only views
    if dtype is not None:
        t = t.to(torch_dtype(torch, dtype))
    return t.to(device) if device else t


def _bf16_bits_of_float32(a: np.ndarray, what: str) -> np.ndarray:
    u = np.ascontiguousarray(a).view(np.uint32)
    nan = np.isnan(a)
    inexact = ((u & 0xFFFF) != 0) & ~nan
    if inexact.any():
        at = tuple(int(i) for i in np.argwhere(inexact)[0])
        raise TypeError(f"{what} is float32 for a bf16 case, and {what}{list(at)} = {float(a[at])!r} is not a "
                        f"bf16 value ({int(inexact.sum())} such elements): round it to bf16 the way your kernel does")
    bits = (u >> 16).astype(np.uint16)
    bits[nan] |= 0x0040  # a NaN whose payload was in the low half must stay a NaN, not become Inf
    return bits


def to_bits(x: Any, dtype: str, what: str, case_id: str = "") -> np.ndarray:
    """x (NumPy array, torch tensor on any device, or anything with __dlpack__) in `dtype` ('fp16' or
    'bf16') as C-contiguous uint16 bits. A wrong dtype raises TypeError naming both."""
    whose = f"case {case_id} is {dtype}" if case_id else f"tilecheck takes {dtype} here"
    torch = torch_module()
    if torch is not None and isinstance(x, torch.Tensor):
        expected = torch_dtype(torch, dtype)
        if x.dtype != expected:
            raise TypeError(f"{what} is a torch tensor of {x.dtype}; {whose}: expected {expected}")
        return x.detach().contiguous().cpu().view(torch.int16).numpy().view(np.uint16)  # a CUDA tensor: one copy
    a = np.asarray(x) if isinstance(x, np.ndarray) or not hasattr(x, "__dlpack__") else np.from_dlpack(x)
    if dtype == "fp16" and a.dtype == np.float16:
        return np.ascontiguousarray(a).view(np.uint16)
    if dtype == "bf16" and a.dtype.name == "bfloat16" and a.dtype.itemsize == 2:  # ml_dtypes (JAX's)
        return np.ascontiguousarray(a).view(np.uint16)
    if dtype == "bf16" and a.dtype == np.float32:
        return _bf16_bits_of_float32(a, what)
    raise TypeError(f"{what} has dtype {a.dtype}; {whose}: expected {_NUMPY[dtype]} (round it the way your kernel "
                    "does), or a torch tensor of " + ("torch.float16" if dtype == "fp16" else "torch.bfloat16"))


def to_int32(x: Any, what: str) -> np.ndarray:
    torch = torch_module()
    if torch is not None and isinstance(x, torch.Tensor):
        x = x.detach().contiguous().cpu().numpy()
    a = np.asarray(x)
    if a.dtype != np.int32:
        raise TypeError(f"{what} has dtype {a.dtype}; expected int32 (Marlin-packed (K/16, 2N))")
    return np.ascontiguousarray(a)
