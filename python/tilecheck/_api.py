"""The Python API (docs/python.md): thin calls into the C++ libraries through _tilecheck.

Nothing here computes a reference, a bound or a verdict: it finds the data, turns arrays and tensors
into the bits of the case's dtype for the module (_arrays.py) and its results back into NumPy arrays
or torch tensors.
"""
from __future__ import annotations

import os
import re
from typing import Any, Dict, Iterable, List, Optional, Union

from . import _tilecheck as _tc
from ._arrays import convert, to_bits, to_int32
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


class CaseData:
    """A case: its format, inputs and reference outputs (NumPy arrays, or torch tensors), and its handle.
    Arrays the format has none of (zero_points, g_idx, perm; B_marlin for 8-bit codes) are None."""

    DTYPE_ARRAYS = ("A", "scales", "scales_marlin", "expected")  # in the case's dtype, fp16 or bf16
    ARRAYS = ("codes", "zero_points", "g_idx", "perm", "B_marlin", "y_exact", "S") + DTYPE_ARRAYS

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
        self.format: str = case.format            # e.g. "bf16-uint4-actrandom"
        self.dtype: str = case.dtype              # of A, the scales, expected and C: "fp16" or "bf16"
        self.weight_type: str = case.weight_type  # "uint4b8", "uint4" (zero points) or "uint8b128"
        self.act_order: str = case.act_order      # "none", "random" or "worst"
        self.is_k_full: bool = case.is_k_full
        for name in self.ARRAYS:
            dtype = self.dtype if name in self.DTYPE_ARRAYS else None
            setattr(self, name, convert(getattr(case, name), dtype, framework, device))

    def bounds(self, *, config: Optional[str] = None, sms: int = 1, contract: Optional[str] = None,
               schedule: Optional[str] = None) -> Dict[str, Any]:
        """The admissible interval [lo, hi] (in the case's dtype) of every element, E (float64) and what
        they assume."""
        return _tc.bounds(self.case, config or "", sms, contract or "", schedule or "")

    def __repr__(self) -> str:
        return (f"CaseData({self.id!r}, M={self.M}, N={self.N}, K={self.K}, group={self.group}, "
                f"contract={self.contract!r}, distribution={self.distribution!r}, format={self.format!r})")


def catalogue(*, fixtures: Optional[str] = None) -> List[Dict[str, Any]]:
    """Every catalogue entry (fixtures/catalogue.txt) as a dict."""
    return _tc.catalogue(*data_paths(fixtures))


V1_FORMAT = "fp16-uint4b8"  # schema v1's format: fp16, 4-bit codes with zero point 8, no act-order
Formats = Union[str, Iterable[str], None]


def _formats(format: Formats) -> Optional[List[str]]:  # noqa: A002
    """The canonical names of `format` (a name or several), None for every format; tilecheck.Error
    names a name that is not a format."""
    if format is None:
        return None
    names = [format] if isinstance(format, str) else list(format)
    return [_tc.parse_format(n) for n in names]


def cases(filter: Optional[str] = None, *, format: Formats = V1_FORMAT,  # noqa: A002 (the issue's names)
          generated: bool = False, fixtures: Optional[str] = None) -> List[str]:
    """Case ids in catalogue order: those whose id matches the regular expression `filter` (re.search),
    of the format(s) `format` (default fp16-uint4b8, what a kernel of the plugin ABI 1 runs; None: every
    format), the committed ones only unless `generated` (large cases, made on demand when loaded)."""
    pattern = re.compile(filter) if filter else None
    formats = _formats(format)
    return [e["id"] for e in catalogue(fixtures=fixtures)
            if (formats is None or e["format"] in formats) and (generated or e["storage"] == "committed")
            and (pattern is None or pattern.search(e["id"]))]


def load(case: str, *, framework: str = "auto", device: Optional[str] = None,
         fixtures: Optional[str] = None) -> CaseData:
    """A catalogue case of any format by id, or a fixture file, verified as the CLI verifies it.
    framework: 'numpy', 'torch', or 'auto' (torch when importable); device: where torch tensors go
    (e.g. 'cuda'). A bf16 case's arrays are torch.bfloat16, or NumPy float32 holding the bf16 values."""
    return CaseData(_tc.load(*data_paths(fixtures), case), framework, device)


def reference(A: Any, B_packed: Any, scales: Any, *, group: int, contract: str = "marlin",
              permuted_scales: bool = True, framework: str = "auto", device: Optional[str] = None) -> CaseData:
    """A case made from a kernel's own inputs: A (M, K) fp16, B_packed (K/16, 2N) int32 Marlin-packed,
    scales (G, N) fp16 (Marlin-permuted unless permuted_scales=False); group 32, 64, 128 or -1."""
    made = _tc.make_reference(to_bits(A, "fp16", "A"), to_int32(B_packed, "B_packed"),
                              to_bits(scales, "fp16", "scales"), group, permuted_scales, contract)
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
    """Judges C (M, N) in the case's dtype (fp16: float16; bf16: torch.bfloat16, or float32 holding bf16
    values) against a case, as `tilecheck compare` does, and returns the judgement.
    config: e.g. 'm1n8k8g8' (default: Marlin's choice); sms: the grid size; schedule: 'model' or
    'unknown' (default: bounds for any split of K); error_map: write the HDF5 error map there."""
    handle = _case_of(case)
    bits = to_bits(C, handle.dtype, "C", handle.id)
    return _tc.judge(handle, bits, config or "", sms, contract or "", schedule or "", error_map or "",
                     error_map_elements, max_chars)


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
