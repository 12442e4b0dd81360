"""On a GPU machine: the example on CUDA tensors, judged straight from the device tensor; our kernel
run through its plugin library from Python (tilecheck.Kernel) and judged, on fp16 tensors and on the
cases of every ABI 2 format it lists (Kernel.run); and the judging time of a
16 x 28,672 output (the issue's bar: at most 1.5x the CLI's for the same cell)."""
import os
import subprocess
import time

import numpy as np
import pytest

import tilecheck
from dequant import dequant_matmul_torch

torch = pytest.importorskip("torch", reason="torch is not installed: the GPU examples need it")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device (torch.cuda.is_available() is False): the GPU examples need one",
                allow_module_level=True)


@pytest.mark.tilecheck(filter=r"^[A-Za-z0-9_]*_m16_[A-Za-z0-9_]*$")
def test_cuda_dequant_matmul_passes(tilecheck_case):
    if not tilecheck_case.tiles:
        pytest.skip("no kernel tile fits this shape")
    c = tilecheck.load(tilecheck_case.id, framework="torch", device="cuda")
    C = dequant_matmul_torch(c.A, c.codes, c.scales, c.group, c.contract)
    assert C.is_cuda
    tilecheck.assert_close(C, c)


def kernel_library():
    path = os.environ.get("TILECHECK_KERNEL")
    if not path:
        pytest.skip("TILECHECK_KERNEL is not set: the kernel examples need a kernel library's path")
    return tilecheck.Kernel(path)


@pytest.mark.tilecheck(filter=r"^[A-Za-z0-9_]*_m(1|16|33)_[A-Za-z0-9_]*$")
def test_our_kernel_through_its_plugin_on_cuda_tensors(tilecheck_case):
    kernel = kernel_library()
    if not tilecheck_case.tiles:
        pytest.skip("no kernel tile fits this shape")
    c = tilecheck.load(tilecheck_case.id, framework="torch", device="cuda")
    C = kernel(c.A, c.B_marlin, c.scales_marlin, group=c.group, contract=c.contract, sms=3)
    assert C.is_cuda and C.shape == (c.M, c.N)
    # the kernel chooses its tile: judged with bounds that hold for any split of K (the default)
    tilecheck.assert_close(C, c, sms=3)


@pytest.mark.tilecheck(format=None, filter=r"_(fp16|bf16)-")  # the cases of plugin ABI 2's formats
def test_our_kernel_runs_the_cases_of_every_format_it_lists(tilecheck_case):
    kernel = kernel_library()
    if not kernel.implements(tilecheck_case.format):
        pytest.skip(f"{kernel.name} does not list format {tilecheck_case.format} (it lists {kernel.formats})")
    if not tilecheck_case.tiles:
        pytest.skip("no kernel tile fits this shape")
    C = kernel.run(tilecheck_case.id, sms=3)  # zero points, g_idx and perm as the ABI lays them out
    assert C.is_cuda and C.shape == (tilecheck_case.M, tilecheck_case.N)
    tilecheck.assert_close(C, tilecheck_case.id, sms=3)


def test_a_kernel_refuses_what_it_cannot_run_with_its_reason():
    kernel = kernel_library()
    c = tilecheck.load(tilecheck.cases(r"_m16_")[0], framework="torch", device="cuda")
    with pytest.raises(tilecheck.Error, match="scales: shape"):
        kernel(c.A, c.B_marlin, c.scales_marlin[:, :8].contiguous(), group=c.group)
    with pytest.raises(tilecheck.Error, match="must be a torch CUDA tensor"):
        kernel(c.A.cpu(), c.B_marlin, c.scales_marlin, group=c.group)
    with pytest.raises(tilecheck.Error, match="tc_plugin_(workspace_size|run) answered"):
        kernel(c.A, c.B_marlin, c.scales_marlin, group=c.group, config="m4n16k4g2")  # a tile this case cannot take


def test_judging_a_16x28672_cuda_tensor_against_the_cli(tmp_path):
    cli = os.environ.get("TILECHECK_CLI")
    if not cli:
        pytest.skip("TILECHECK_CLI is not set: the comparison with the CLI needs its path")
    h5py = pytest.importorskip("h5py")
    case_id = "normal_m16_n28672_k8192_g128_marlin"
    c = tilecheck.load(case_id, framework="torch", device="cuda")
    C = dequant_matmul_torch(c.A, c.codes, c.scales, c.group, c.contract)
    torch.cuda.synchronize()
    started = time.perf_counter()
    result = tilecheck.judge(C, case_id)
    python_s = time.perf_counter() - started
    assert result.passed, result.report
    out = tmp_path / "C.h5"
    with h5py.File(out, "w") as f:
        f["C"] = C.cpu().numpy()
    started = time.perf_counter()
    cli_run = subprocess.run([cli, "compare", "--fixture", case_id, "--output", str(out)], capture_output=True,
                             text=True, check=False)
    cli_s = time.perf_counter() - started
    assert cli_run.returncode == 0, cli_run.stdout + cli_run.stderr
    assert cli_run.stdout == result.report
    print(f"\njudging {case_id}: python {python_s:.3f} s (load excluded, judge from a CUDA tensor), "
          f"cli {cli_s:.3f} s (the whole process: load + judge), ratio {python_s / cli_s:.2f}")
    assert python_s <= 1.5 * cli_s
