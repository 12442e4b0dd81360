# Type stubs of the package tilecheck (docs/python.md). Arrays are NumPy arrays, or torch tensors
# where framework='torch' (or 'auto' with torch importable). A case's dtype arrays (A, scales,
# scales_marlin, expected; C) are fp16, or bf16: torch.bfloat16, under NumPy float32 holding bf16 values.
from typing import Any, Dict, Iterable, List, Optional, Tuple, Union

import numpy as np

ArrayLike = Any  # numpy.ndarray, torch.Tensor (any device), or an object with __dlpack__
Formats = Union[str, Iterable[str], None]  # a format's name ("bf16-uint4"), several, or None: every format
V1_FORMAT: str  # "fp16-uint4b8"

class Error(ValueError):
    """A case or an output that cannot be judged (bad shape, unknown case, bad option)."""

class Case:
    """The C++ handle of a loaded or made case (CaseData.case)."""
    id: str
    source: str
    M: int
    N: int
    K: int
    group: int
    contract: str
    distribution: str
    seed: int
    tiles: List[str]
    format: str
    dtype: str
    weight_type: str
    act_order: str
    is_k_full: bool
    A: np.ndarray
    codes: np.ndarray
    scales: np.ndarray
    zero_points: Optional[np.ndarray]
    g_idx: Optional[np.ndarray]
    perm: Optional[np.ndarray]
    B_marlin: Optional[np.ndarray]
    scales_marlin: np.ndarray
    y_exact: np.ndarray
    S: np.ndarray
    expected: np.ndarray

class Result:
    """One judgement: what `tilecheck compare` prints, as data."""
    @property
    def passed(self) -> bool: ...
    @property
    def verdict(self) -> str: ...  # "pass" or "FAIL", as the run table prints it
    @property
    def message(self) -> str: ...  # the one-line summary the run's table shows
    @property
    def report(self) -> str: ...  # the CLI's report text
    @property
    def cell(self) -> str: ...  # "<case>_<config>_<contract>_python_sms<S>"
    @property
    def config(self) -> str: ...
    @property
    def numerics(self) -> str: ...
    @property
    def error_map_name(self) -> str: ...
    @property
    def tiers(self) -> List[Dict[str, str]]: ...  # [{key, title, status, detail}], T0, T1, T2
    @property
    def counts(self) -> Dict[str, int]: ...
    @property
    def worst(self) -> Optional[Dict[str, Any]]: ...  # row, col, verdict, values, tile, block, slices, ...
    def element(self, row: int, col: int) -> Dict[str, Any]: ...
    def maps(self) -> Dict[str, np.ndarray]: ...  # verdict, mark, ulp, allowance, got, expected (M, N)
    def bounds(self) -> Dict[str, Any]: ...  # lo, hi (the case's dtype), E, flags, numerics, config

class Mismatch(AssertionError):
    result: Result
    def __init__(self, result: Result) -> None: ...

class CaseData:
    case: Case
    id: str
    M: int
    N: int
    K: int
    group: int
    contract: str
    distribution: str
    seed: int
    tiles: List[str]
    format: str        # e.g. "bf16-uint4-actrandom-kpart"
    dtype: str         # "fp16" or "bf16"
    weight_type: str   # "uint4b8", "uint4" or "uint8b128"
    act_order: str     # "none", "random" or "worst"
    is_k_full: bool
    A: Any
    codes: Any
    scales: Any
    zero_points: Any   # (G, N) uint8 for uint4, else None
    g_idx: Any         # (K,) int32 with act-order, else None
    perm: Any          # (K,) int32 with act-order, else None
    B_marlin: Any      # None for 8-bit codes
    scales_marlin: Any
    y_exact: Any
    S: Any
    expected: Any
    def __init__(self, case: Case, framework: str = ..., device: Optional[str] = ...) -> None: ...
    def bounds(self, *, config: Optional[str] = ..., sms: int = ..., contract: Optional[str] = ...,
               schedule: Optional[str] = ...) -> Dict[str, Any]: ...

CaseLike = Union[str, CaseData, Case]

def catalogue(*, fixtures: Optional[str] = ...) -> List[Dict[str, Any]]: ...
def cases(filter: Optional[str] = ..., *, format: Formats = ..., generated: bool = ...,
          fixtures: Optional[str] = ...) -> List[str]: ...
def load(case: str, *, framework: str = ..., device: Optional[str] = ..., fixtures: Optional[str] = ...) -> CaseData: ...
def reference(A: ArrayLike, B_packed: ArrayLike, scales: ArrayLike, *, group: int, contract: str = ...,
              permuted_scales: bool = ..., framework: str = ..., device: Optional[str] = ...) -> CaseData: ...
def judge(C: ArrayLike, case: CaseLike, *, config: Optional[str] = ..., sms: int = ..., contract: Optional[str] = ...,
          schedule: Optional[str] = ..., error_map: Optional[str] = ..., error_map_elements: str = ...,
          max_chars: int = ...) -> Result: ...
def assert_close(C: ArrayLike, case: CaseLike, **options: Any) -> Result: ...
def set_error_map_dir(directory: Optional[str]) -> None: ...
def set_fixtures(directory: Optional[str]) -> None: ...

class Format:
    """A format as a kernel sees it (plugin ABI 2's tc_format): act-order's random and worst are one."""
    name: str         # as a library lists it: "bf16-uint4", "fp16-uint4b8-act-kpart"
    dtype: str        # of A, scales and C: "fp16" or "bf16"
    weight_type: str  # "uint4b8", "uint4" or "uint8b128"
    bits: int         # 4 or 8
    act_order: bool
    is_k_full: bool
    @property
    def has_zero_points(self) -> bool: ...

def format_of(name: str) -> Format: ...

class KernelOperands:
    """A case's operands as the plugin ABI hands them to a kernel, on the host (NumPy; A and scales as
    uint16 bits of the format's dtype)."""
    case_id: str
    case_format: str
    format: Format
    M: int
    N: int
    K: int
    group: int
    contract: str
    A: np.ndarray                      # (M, K) uint16 bits
    B_packed: np.ndarray               # (K/16, 2N) or (K/16, 4N) int32
    scales: np.ndarray                 # (G, N) uint16 bits, permuted
    zero_points: Optional[np.ndarray]  # (G, N/8) int32, uint4 only
    g_idx: Optional[np.ndarray]        # (K,) int32, act-order only
    perm: Optional[np.ndarray]         # (K,) int32, act-order only
    def buffers(self) -> Dict[str, Optional[np.ndarray]]: ...
    def specs(self) -> Dict[str, Optional[Tuple[Tuple[int, ...], str]]]: ...
    def to_torch(self, device: Any = ...) -> Dict[str, Any]: ...

def kernel_operands(case: CaseLike) -> KernelOperands: ...

class Kernel:
    """A kernel library built to the plugin ABI, run on torch CUDA tensors."""
    def __init__(self, path: str) -> None: ...
    @property
    def path(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def variant(self) -> str: ...
    @property
    def abi_version(self) -> int: ...
    @property
    def configs(self) -> List[str]: ...
    @property
    def formats(self) -> List[str]: ...
    @property
    def lists_formats(self) -> bool: ...
    def implements(self, format: str) -> bool: ...
    def __call__(self, A: Any, B_packed: Any, scales: Any, *, group: int, contract: str = ...,
                 config: Optional[str] = ..., sms: int = ..., format: str = ..., zero_points: Any = ...,
                 g_idx: Any = ..., perm: Any = ...) -> Any: ...
    def run(self, case: CaseLike, *, config: Optional[str] = ..., sms: int = ..., contract: Optional[str] = ...,
            device: Any = ...) -> Any: ...
