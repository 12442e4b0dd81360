"""A kernel library's problem in each format of plugin ABI 2 (docs/plugin.md, "ABI 2: formats"): the
buffers a format has, their shapes and dtypes, checked before anything is launched; and a case's operands
laid out as the ABI hands them to a kernel, on the host (suite/kernel_operands.h), from which
Kernel.run makes the device buffers.
  A: (M, K) dtype, original K order   B_packed: (K/16, 2N) int32 4-bit or (K/16, 4N) 8-bit codes
  scales: (G, N) dtype, permuted      zero_points: (G, N/8) int32 (uint4)   g_idx, perm: (K,) int32 (act-order)
dtype is the format's, fp16 or bf16, also C's (M, N); G = K / group, 1 for per-column scales.
No torch here: KernelOperands.to_torch imports it when called.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple, Union

import numpy as np

from . import _tilecheck as _tc
from ._api import CaseData, Error, _case_of
from ._arrays import torch_dtype, torch_module

Spec = Tuple[Tuple[int, ...], str]  # a buffer's shape and dtype: "fp16", "bf16", "int32" (or another's name)
BUFFERS = ("A", "B_packed", "scales", "zero_points", "g_idx", "perm")  # in tc_problem's order
_NONE = {"zero_points": "only uint4 codes have zero points", "g_idx": "only act-order formats (-act) have one",
         "perm": "only act-order formats (-act) have one"}


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise Error(message)


@dataclass(frozen=True)
class Format:
    """A format as a kernel sees it (tc_format): act-order's random and worst permutations are one."""
    name: str         # as a library lists it: "bf16-uint4", "fp16-uint4b8-act-kpart"
    dtype: str        # of A, scales and C: "fp16" or "bf16"
    weight_type: str  # "uint4b8" (q - 8), "uint4" (q - z, zero points) or "uint8b128" (q - 128)
    bits: int         # a code's: 4 or 8
    act_order: bool   # g_idx and perm are given
    is_k_full: bool   # False: the K rows are a tensor-parallel shard's (vLLM's is_k_full)

    @property
    def has_zero_points(self) -> bool:
        return self.weight_type == "uint4"


def format_of(name: str) -> Format:
    """A format by the name a library lists it ('fp16-uint4b8-act-kpart') or a case's
    ('fp16-uint4b8-actrandom-kpart'); tilecheck.Error names a name that is not one."""
    f = _tc.format_fields(name)
    return Format(f["name"], f["dtype"], f["weight_type"], f["bits"], f["act_order"], f["is_k_full"])


def buffer_specs(fmt: Format, M: int, N: int, K: int, group: int) -> Dict[str, Optional[Spec]]:
    """The shape and dtype of each buffer of a problem of `fmt`; None for those the format has none of."""
    G = 1 if group == -1 else K // group
    return {"A": ((M, K), fmt.dtype),
            "B_packed": ((K // 16, N * fmt.bits // 2), "int32"),  # 32 / bits codes a word, 16 rows a tile row
            "scales": ((G, N), fmt.dtype),
            "zero_points": ((G, N // 8), "int32") if fmt.has_zero_points else None,
            "g_idx": ((K,), "int32") if fmt.act_order else None,
            "perm": ((K,), "int32") if fmt.act_order else None}


def check_buffers(fmt: Format, group: int, given: Dict[str, Optional[Spec]]) -> Tuple[int, int, int]:
    """M, N, K of a problem of `fmt` whose buffers are `given` (name -> (shape, dtype), None where not
    given); tilecheck.Error names the first buffer that does not fit, and what was expected."""
    A, B = given.get("A"), given.get("B_packed")
    _require(A is not None and len(A[0]) == 2, f"A: shape {A[0] if A else None}; expected (M, K)")
    _require(B is not None and len(B[0]) == 2, f"B_packed: shape {B[0] if B else None}; expected (K/16, "
             f"{fmt.bits // 2}N) for format {fmt.name}")
    M, K = A[0]
    words = fmt.bits // 2  # int32 words per column of B_packed: 2 for 4-bit codes, 4 for 8-bit
    _require(B[0][1] % words == 0, f"B_packed: shape {tuple(B[0])}; expected (K/16, {words}N) for format "
             f"{fmt.name} ({fmt.bits}-bit codes)")
    N = B[0][1] // words
    _require(group == -1 or (group > 0 and K % group == 0),
             f"group={group} (expected 32, 64 or 128 dividing K = {K}, or -1 for per-column scales)")
    for name, want in buffer_specs(fmt, M, N, K, group).items():
        got = given.get(name)
        if want is None:
            _require(got is None, f"{name} given for format {fmt.name}, which has none: {_NONE[name]}")
            continue
        _require(got is not None, f"format {fmt.name} needs {name}: {want[0]} {want[1]}")
        _require(got[1] == want[1], f"{name} has dtype {got[1]}; format {fmt.name} expects {want[1]}")
        _require(tuple(got[0]) == want[0], f"{name}: shape {tuple(got[0])}; expected {want[0]} for format "
                 f"{fmt.name}, M={M}, N={N}, K={K}, group={group}")
    return M, N, K


@dataclass
class KernelOperands:
    """A case's operands as the plugin ABI hands them to a kernel, on the host: read-only NumPy arrays,
    A and scales as the bits of the format's dtype (uint16); None where the format has none."""
    case_id: str
    case_format: str  # the case's, e.g. "fp16-uint4b8-actworst-kpart"
    format: Format    # the kernel's, e.g. fp16-uint4b8-act-kpart
    M: int
    N: int
    K: int
    group: int
    contract: str
    A: np.ndarray                   # (M, K) uint16 bits, original K order
    B_packed: np.ndarray            # (K/16, 2N) or (K/16, 4N) int32, kernel order
    scales: np.ndarray              # (G, N) uint16 bits, permuted
    zero_points: Optional[np.ndarray]  # (G, N/8) int32, packed
    g_idx: Optional[np.ndarray]     # (K,) int32, sorted: the group of each row in the kernel's order
    perm: Optional[np.ndarray]      # (K,) int32: row i of the kernel's order is original row perm[i]

    def buffers(self) -> Dict[str, Optional[np.ndarray]]:
        return {name: getattr(self, name) for name in BUFFERS}

    def specs(self) -> Dict[str, Optional[Spec]]:
        """Each buffer's shape and dtype, as check_buffers takes them (the bits as the format's dtype)."""
        dtype = {"A": self.format.dtype, "scales": self.format.dtype}
        return {name: None if a is None else (a.shape, dtype.get(name, str(a.dtype)))
                for name, a in self.buffers().items()}

    def to_torch(self, device: Any = "cuda") -> Dict[str, Any]:
        """The buffers as torch tensors on `device` (A and scales of the format's dtype, exactly: their
        bits reinterpreted), None where the format has none. Needs torch."""
        torch = torch_module()
        _require(torch is not None, "KernelOperands.to_torch needs torch, and torch is not installed")
        out: Dict[str, Any] = {}
        for name, a in self.buffers().items():
            if a is None:
                out[name] = None
            elif a.dtype == np.uint16:  # torch has no uint16 arithmetic to speak of: reinterpret int16 bits
                out[name] = torch.from_numpy(np.array(a).view(np.int16)).view(torch_dtype(torch, self.format.dtype))
            else:
                out[name] = torch.from_numpy(np.array(a))  # a copy: the module's arrays are read-only views
            if out[name] is not None:
                out[name] = out[name].to(device)
        return out


CaseLike = Union[str, CaseData, "_tc.Case"]


def kernel_operands(case: CaseLike) -> KernelOperands:
    """A case (a CaseData, an id, or its handle) laid out as the plugin ABI hands it to a kernel library,
    in any format: 8-bit codes packed, zero points packed, act-order's g_idx and perm in the kernel's order."""
    handle = _case_of(case)
    ops = _tc.kernel_operands(handle)
    fmt = Format(ops["name"], ops["dtype"], ops["weight_type"], ops["bits"], ops["act_order"], ops["is_k_full"])
    return KernelOperands(handle.id, ops["case_format"], fmt, handle.M, handle.N, handle.K, handle.group,
                          handle.contract, ops["A"], ops["B"], ops["scales"], ops["zero_points"], ops["g_idx"],
                          ops["perm"])
