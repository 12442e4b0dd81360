"""tilecheck.Kernel: a kernel library built to the plugin ABI (docs/plugin.md), run from Python on
torch CUDA tensors, so that a test can run a kernel and judge its output in the same process. Every
format of ABI 2 (bf16, zero points, 8-bit codes, act-order with g_idx and perm, is_k_full) that the
library lists; a case's device buffers made from tilecheck.kernel_operands (Kernel.run).

The module holds no CUDA code of its own: torch allocates the output and the workspace, and the
kernel launches on torch's current stream of the tensors' device. Formats and buffers are checked
before torch is needed, so that a refusal says what is wrong, not that torch is missing.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from . import _tilecheck as _tc
from ._api import Error, _case_of
from ._arrays import torch_dtype
from ._arrays import torch_module as _torch
from ._operands import BUFFERS, CaseLike, Format, Spec, check_buffers, format_of, kernel_operands


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise Error(message)


def _dtype_name(torch: Any, dtype: Any) -> str:
    return {torch.float16: "fp16", torch.bfloat16: "bf16", torch.int32: "int32"}.get(dtype, str(dtype))


class Kernel:
    """A kernel library (.so exporting tc_plugin_info / tc_plugin_workspace_size / tc_plugin_run)."""

    def __init__(self, path: str):
        self._library = _tc.Kernel(str(path))

    @property
    def path(self) -> str:
        return self._library.path

    @property
    def name(self) -> str:
        return self._library.name

    @property
    def variant(self) -> str:
        return self._library.variant

    @property
    def abi_version(self) -> int:
        return self._library.abi_version

    @property
    def configs(self) -> List[str]:
        """The tile configurations the library lists, by name (e.g. 'm1n8k8g8')."""
        return self._library.configs

    @property
    def formats(self) -> List[str]:
        """The formats the library implements, by name (e.g. 'fp16-uint4b8', 'bf16-uint4-act-kpart'): its
        tc_plugin_formats list, or ABI 1's format alone."""
        return self._library.formats

    @property
    def lists_formats(self) -> bool:
        """Whether the library lists its formats (plugin ABI 2's tc_plugin_formats)."""
        return self._library.lists_formats

    def implements(self, format: str) -> bool:  # noqa: A002 (the ABI's word)
        """Whether the library runs problems of `format` (a name as `formats` gives it, or a case's)."""
        return not self._library.not_applicable(format_of(format).name)

    def _require_format(self, fmt: Format, whose: str = "") -> None:
        why = self._library.not_applicable(fmt.name)
        _require(not why, f"{whose}{why}")

    def __call__(self, A: Any, B_packed: Any, scales: Any, *, group: int, contract: str = "marlin",
                 config: Optional[str] = None, sms: int = 0, format: str = "fp16-uint4b8",  # noqa: A002
                 zero_points: Any = None, g_idx: Any = None, perm: Any = None) -> Any:
        """C (M, N) = A (M, K) . dequant(B_packed (K/16, 2N) int32, or (K/16, 4N) for 8-bit codes; scales
        (G, N) Marlin-permuted; zero_points (G, N/8) int32 packed, uint4 only; g_idx and perm (K,) int32,
        act-order only), run by the library on the tensors' CUDA device. A, scales and C are of the
        format's dtype (torch.float16 or torch.bfloat16). format: a name as `formats` lists it; config:
        a tile configuration name (default: the library chooses); sms: the grid size (0: every
        multiprocessor)."""
        fmt = format_of(format)
        self._require_format(fmt)
        torch = _torch()
        _require(torch is not None, "tilecheck.Kernel runs on torch CUDA tensors, and torch is not installed")
        tensors = dict(zip(BUFFERS, (A, B_packed, scales, zero_points, g_idx, perm)))
        given: Dict[str, Optional[Spec]] = {}
        for what, x in tensors.items():
            if x is None and what in ("zero_points", "g_idx", "perm"):  # check_buffers says if one is missing
                given[what] = None
                continue
            _require(isinstance(x, torch.Tensor) and x.is_cuda,
                     f"{what} must be a torch CUDA tensor (got {type(x).__name__}"
                     f"{' on ' + str(x.device) if isinstance(x, torch.Tensor) else ''})")
            _require(x.is_contiguous(), f"{what} must be contiguous (shape {tuple(x.shape)}, strides {x.stride()})")
            _require(x.data_ptr() % 16 == 0, f"{what} starts at {x.data_ptr():#x}, not 16-byte aligned")
            _require(x.device == A.device, f"{what} is on {x.device}, A on {A.device}")
            given[what] = (tuple(x.shape), _dtype_name(torch, x.dtype))
        M, N, K = check_buffers(fmt, group, given)
        configuration = config or ""
        bytes_needed = self._library.workspace_size(M, N, K, group, contract, configuration, sms, fmt.name)
        C = torch.empty((M, N), dtype=torch_dtype(torch, fmt.dtype), device=A.device)
        workspace = torch.zeros(max(bytes_needed, 16), dtype=torch.uint8, device=A.device)
        stream = torch.cuda.current_stream(A.device).cuda_stream
        pointers = [0 if tensors[b] is None else tensors[b].data_ptr() for b in BUFFERS]
        self._library.run(M, N, K, group, contract, configuration, sms, fmt.name, *pointers, C.data_ptr(),
                          workspace.data_ptr(), bytes_needed, stream)
        return C

    def run(self, case: CaseLike, *, config: Optional[str] = None, sms: int = 0, contract: Optional[str] = None,
            device: Any = "cuda") -> Any:
        """C of a case (a CaseData, an id, or its handle) in the case's dtype: its operands laid out as the
        ABI hands them to a kernel (tilecheck.kernel_operands) copied to `device`, then run as __call__
        runs them. A case of a format the library does not list is refused, naming both."""
        handle = _case_of(case)
        fmt = format_of(handle.format)
        self._require_format(fmt, f"case {handle.id} is of format {handle.format}: ")
        _require(_torch() is not None, "tilecheck.Kernel runs on torch CUDA tensors, and torch is not installed")
        ops = kernel_operands(handle)
        t = ops.to_torch(device)
        return self(t["A"], t["B_packed"], t["scales"], group=ops.group, contract=contract or ops.contract,
                    config=config, sms=sms, format=fmt.name, zero_points=t["zero_points"], g_idx=t["g_idx"],
                    perm=t["perm"])

    def __repr__(self) -> str:
        return (f"Kernel({self.path!r}: {self.name} {self.variant}, {len(self.configs)} configurations, "
                f"formats {', '.join(self.formats)})")
