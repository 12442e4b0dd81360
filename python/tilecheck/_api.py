"""The Python API (docs/python.md): thin calls into the C++ libraries through _tilecheck.

Nothing here computes a reference, a bound or a verdict: it finds the data, turns arrays and tensors
into fp16 bits for the module and its results back into NumPy arrays or torch tensors.
"""
from __future__ import annotations

import os
import re
from typing import Any, Dict, List, Optional, Union

import numpy as np

from . import _tilecheck as _tc
from ._data import data_paths

Error = _tc.Error
Result = _tc.Result

_errmap_dir: Optional[str] = None


class Mismatch(AssertionError):
    """Raised by assert_close: its message is the comparator's report; ``result`` is the judgement."""

    def __init__(self, result: Result):
        super().__init__(result.report)
        self.result = result


Mismatch.__module__ = "tilecheck"  # pytest prints "tilecheck.Mismatch: <report>"


def _torch():
    try:
        import torch  # noqa: PLC0415 (optional dependency)
    except ImportError:
        return None
    return torch


def _convert(a: np.ndarray, framework: str, device: Optional[str]):
    if framework == "numpy":
        return a
    torch = _torch()
    if torch is None:
        if framework == "torch":
            raise ImportError("framework='torch' but torch is not importable")
        return a
    t = torch.from_numpy(np.array(a))  # a copy: the library's arrays are read-only views
    return t.to(device) if device else t


def _half_bits(x: Any, what: str) -> np.ndarray:
    """x (NumPy array, torch tensor on any device, or anything with __dlpack__) as C-contiguous uint16."""
    torch = _torch()
    if torch is not None and isinstance(x, torch.Tensor):
        if x.dtype != torch.float16:
            raise TypeError(f"{what} is a torch tensor of {x.dtype}; tilecheck judges float16")
        x = x.detach().contiguous().cpu().view(torch.int16).numpy()  # a CUDA tensor: one copy
        return x.view(np.uint16)
    a = np.asarray(x) if isinstance(x, np.ndarray) or not hasattr(x, "__dlpack__") else np.from_dlpack(x)
    if a.dtype != np.float16:
        raise TypeError(f"{what} has dtype {a.dtype}; tilecheck judges float16 (round it the way your kernel does)")
    return np.ascontiguousarray(a).view(np.uint16)


def _int32(x: Any, what: str) -> np.ndarray:
    torch = _torch()
    if torch is not None and isinstance(x, torch.Tensor):
        x = x.detach().contiguous().cpu().numpy()
    a = np.asarray(x)
    if a.dtype != np.int32:
        raise TypeError(f"{what} has dtype {a.dtype}; expected int32 (Marlin-packed (K/16, 2N))")
    return np.ascontiguousarray(a)


class CaseData:
    """A case: its inputs and reference outputs (NumPy arrays, or torch tensors), and its handle."""

    ARRAYS = ("A", "codes", "scales", "B_marlin", "scales_marlin", "y_exact", "S", "expected")

    def __init__(self, case: "_tc.Case", framework: str = "auto", device: Optional[str] = None):
        self.case = case
        self.id: str = case.id
        self.M, self.N, self.K = case.M, case.N, case.K
        self.group: int = case.group
        self.contract: str = case.contract
        self.distribution: str = case.distribution
        self.seed: int = case.seed
        # the kernel tiles (n x k) that fit; with none, judge() refuses the case, as the CLI does
        self.tiles: List[str] = case.tiles
        for name in self.ARRAYS:
            setattr(self, name, _convert(getattr(case, name), framework, device))

    def bounds(self, *, config: Optional[str] = None, sms: int = 1, contract: Optional[str] = None,
               schedule: Optional[str] = None) -> Dict[str, Any]:
        """The admissible interval [lo, hi] (fp16) of every element, E (float64) and what they assume."""
        return _tc.bounds(self.case, config or "", sms, contract or "", schedule or "")

    def __repr__(self) -> str:
        return (f"CaseData({self.id!r}, M={self.M}, N={self.N}, K={self.K}, group={self.group}, "
                f"contract={self.contract!r}, distribution={self.distribution!r})")


def catalogue(*, fixtures: Optional[str] = None) -> List[Dict[str, Any]]:
    """Every catalogue entry (fixtures/catalogue.txt) as a dict."""
    return _tc.catalogue(*data_paths(fixtures))


V1_FORMAT = "fp16-uint4b8"  # schema v1's format: fp16, 4-bit codes with zero point 8, no act-order


def cases(filter: Optional[str] = None, *, generated: bool = False,  # noqa: A002 (the issue's name)
          fixtures: Optional[str] = None) -> List[str]:
    """Case ids in catalogue order: those whose id matches the regular expression `filter` (re.search),
    the committed ones only unless `generated` (large cases, made on demand when loaded), of the one
    format the package loads so far (fp16-uint4b8; catalogue() lists every case with its format)."""
    pattern = re.compile(filter) if filter else None
    return [e["id"] for e in catalogue(fixtures=fixtures)
            if e["format"] == V1_FORMAT and (generated or e["storage"] == "committed")
            and (pattern is None or pattern.search(e["id"]))]


def load(case: str, *, framework: str = "auto", device: Optional[str] = None,
         fixtures: Optional[str] = None) -> CaseData:
    """A catalogue case by id, or a fixture file, verified as the CLI verifies it. framework: 'numpy',
    'torch', or 'auto' (torch when importable); device: where torch tensors go (e.g. 'cuda')."""
    return CaseData(_tc.load(*data_paths(fixtures), case), framework, device)


def reference(A: Any, B_packed: Any, scales: Any, *, group: int, contract: str = "marlin",
              permuted_scales: bool = True, framework: str = "auto", device: Optional[str] = None) -> CaseData:
    """A case made from a kernel's own inputs: A (M, K) fp16, B_packed (K/16, 2N) int32 Marlin-packed,
    scales (G, N) fp16 (Marlin-permuted unless permuted_scales=False); group 32, 64, 128 or -1."""
    made = _tc.make_reference(_half_bits(A, "A"), _int32(B_packed, "B_packed"), _half_bits(scales, "scales"),
                              group, permuted_scales, contract)
    return CaseData(made, framework, device)


def _case_of(case: Union[str, CaseData, "_tc.Case"]) -> "_tc.Case":
    if isinstance(case, CaseData):
        return case.case
    if isinstance(case, str):
        return _tc.load(*data_paths(None), case)
    return case


def judge(C: Any, case: Union[str, CaseData, "_tc.Case"], *, config: Optional[str] = None, sms: int = 1,
          contract: Optional[str] = None, schedule: Optional[str] = None, error_map: Optional[str] = None,
          error_map_elements: str = "failing", max_chars: int = 10000) -> Result:
    """Judges C (M, N) fp16 against a case, as `tilecheck compare` does, and returns the judgement.
    config: e.g. 'm1n8k8g8' (default: Marlin's choice); sms: the grid size; schedule: 'model' or
    'unknown' (default: bounds for any split of K); error_map: write the HDF5 error map there."""
    return _tc.judge(_case_of(case), _half_bits(C, "C"), config or "", sms, contract or "", schedule or "",
                     error_map or "", error_map_elements, max_chars)


def set_error_map_dir(directory: Optional[str]) -> None:
    """Where assert_close writes the error map of a failing output (the pytest option --tilecheck-errmaps)."""
    global _errmap_dir
    _errmap_dir = directory


def assert_close(C: Any, case: Union[str, CaseData, "_tc.Case"], **options: Any) -> Result:
    """judge(), raising Mismatch (an AssertionError whose message is the report) unless it passed. With an
    error-map directory set (set_error_map_dir), a failing output's map is written there."""
    handle = _case_of(case)
    result = judge(C, handle, **options)
    if not result.passed and _errmap_dir and not options.get("error_map"):
        os.makedirs(_errmap_dir, exist_ok=True)
        path = os.path.join(_errmap_dir, result.error_map_name)
        result = judge(C, handle, **dict(options, error_map=path))
    if not result.passed:
        raise Mismatch(result)
    return result
