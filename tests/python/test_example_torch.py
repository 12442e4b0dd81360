"""The same example in torch (CPU tensors here; CUDA tensors in test_example_gpu.py)."""
import pytest

import tilecheck
from dequant import dequant_matmul_torch

torch = pytest.importorskip("torch", reason="torch is not installed: the torch example needs it")


@pytest.mark.tilecheck(filter=r"^[A-Za-z0-9_]*_m16_[A-Za-z0-9_]*$")
def test_torch_dequant_matmul_passes(tilecheck_case):
    if not tilecheck_case.tiles:
        pytest.skip("no kernel tile fits this shape")
    c = tilecheck.load(tilecheck_case.id, framework="torch")
    assert isinstance(c.A, torch.Tensor)
    C = dequant_matmul_torch(c.A, c.codes, c.scales, c.group, c.contract)
    tilecheck.assert_close(C, c)
