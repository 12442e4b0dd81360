"""tilecheck.Kernel: a kernel library built to the plugin ABI (docs/plugin.md), run from Python on
torch CUDA tensors, so that a test can run a kernel and judge its output in the same process.

The module holds no CUDA code of its own: torch allocates the output and the workspace, and the
kernel launches on torch's current stream of the tensors' device.
"""
from __future__ import annotations

from typing import Any, List, Optional

from . import _tilecheck as _tc
from ._api import Error
from ._arrays import torch_module as _torch


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise Error(message)


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
    def configs(self) -> List[str]:
        """The tile configurations the library lists, by name (e.g. 'm1n8k8g8')."""
        return self._library.configs

    def __call__(self, A: Any, B_packed: Any, scales: Any, *, group: int, contract: str = "marlin",
                 config: Optional[str] = None, sms: int = 0) -> Any:
        """C (M, N) fp16 = A (M, K) fp16 . dequant(B_packed (K/16, 2N) int32 Marlin-packed, scales (G, N) fp16
        Marlin-permuted), run by the library on the tensors' CUDA device. config: a tile configuration
        name (default: the library chooses); sms: the grid size (0: every multiprocessor)."""
        torch = _torch()
        _require(torch is not None, "tilecheck.Kernel runs on torch CUDA tensors, and torch is not installed")

        for what, x, dtype in (("A", A, torch.float16), ("B_packed", B_packed, torch.int32),
                               ("scales", scales, torch.float16)):
            _require(isinstance(x, torch.Tensor) and x.is_cuda,
                     f"{what} must be a torch CUDA tensor (got {type(x).__name__}"
                     f"{' on ' + str(x.device) if isinstance(x, torch.Tensor) else ''})")
            _require(x.dtype == dtype, f"{what} has dtype {x.dtype}; expected {dtype}")
            _require(x.dim() == 2 and x.is_contiguous(), f"{what} must be a contiguous 2-D tensor (shape "
                     f"{tuple(x.shape)}, strides {x.stride()})")
            _require(x.data_ptr() % 16 == 0, f"{what} starts at {x.data_ptr():#x}, not 16-byte aligned")
            _require(x.device == A.device, f"{what} is on {x.device}, A on {A.device}")
        M, K = A.shape
        N = B_packed.shape[1] // 2
        _require(B_packed.shape[0] * 16 == K, f"B_packed has {B_packed.shape[0]} rows; expected K/16 = {K / 16:g}"
                 f" for A's K = {K}")
        rows = 1 if group == -1 else K // group if group > 0 else -1
        _require(tuple(scales.shape) == (rows, N), f"scales have shape {tuple(scales.shape)}; expected ({rows}, {N})"
                 f" for K = {K}, group = {group}")
        configuration = config or ""
        bytes_needed = self._library.workspace_size(M, N, K, group, contract, configuration, sms)
        C = torch.empty((M, N), dtype=torch.float16, device=A.device)
        workspace = torch.zeros(max(bytes_needed, 16), dtype=torch.uint8, device=A.device)
        stream = torch.cuda.current_stream(A.device).cuda_stream
        self._library.run(M, N, K, group, contract, configuration, sms, A.data_ptr(), B_packed.data_ptr(),
                          scales.data_ptr(), C.data_ptr(), workspace.data_ptr(), bytes_needed, stream)
        return C

    def __repr__(self) -> str:
        return f"Kernel({self.path!r}: {self.name} {self.variant}, {len(self.configs)} configurations)"
