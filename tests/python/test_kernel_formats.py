"""tilecheck.Kernel and tilecheck.kernel_operands on plugin ABI 2's formats, on the CPU: formats by name,
a case's operands in the ABI's layouts (every format of the committed cases), the buffers a format has
(refusals naming the buffer and what was expected), a case of a format the library does not list
refused naming both, and what reaches the library: the ABI 2 test library (tests/plugin/abi_v2_plugin.cpp)
records the problem it is given, and Kernel.run drives it through a stand-in for torch (fake_torch.py).
The real torch and CUDA path: test_example_gpu.py."""
import ctypes
import os
import re

import numpy as np
import pytest

import tilecheck
from fake_torch import FakeTorch

LISTED = "fp16-uint4b8, bf16-uint4, fp16-uint8b128-act, fp16-uint4b8-act-kpart"  # the test library's list


def v2_library_path():
    path = os.environ.get("TILECHECK_TEST_ABI_V2_PLUGIN")
    if not path:
        pytest.skip("TILECHECK_TEST_ABI_V2_PLUGIN is not set: ctest sets it to tests/plugin's ABI 2 library")
    return path


def first_case(format):  # noqa: A002
    return tilecheck.cases(format=format)[0]


def bits_of(a, dtype):
    """A case's dtype array (NumPy: float16, or float32 holding bf16 values) as its uint16 bits."""
    return a.view(np.uint16) if dtype == "fp16" else (np.ascontiguousarray(a).view(np.uint32) >> 16).astype(np.uint16)


def test_formats_are_named_as_libraries_list_them_or_as_cases_are():
    f = tilecheck.format_of("fp16-uint4b8-actworst-kpart")
    assert f == tilecheck.format_of("fp16-uint4b8-act-kpart")  # one format to a kernel
    assert (f.name, f.dtype, f.weight_type, f.bits, f.act_order, f.is_k_full) == \
        ("fp16-uint4b8-act-kpart", "fp16", "uint4b8", 4, True, False)
    assert tilecheck.format_of("bf16-uint8b128").bits == 8
    assert tilecheck.format_of("bf16-uint4").has_zero_points and not tilecheck.format_of("bf16-uint4b8").has_zero_points
    for bad in ("fp16-int4", "fp8-uint4b8", "fp16-uint4b8-kpart", "fp16"):
        with pytest.raises(tilecheck.Error, match=f"format '{bad}' is not a format \\(expected <fp16\\|bf16>-"):
            tilecheck.format_of(bad)


# every committed case of a v2 format, and a few of ABI 1's
CASES = sorted(set(tilecheck.cases(format=None)) - set(tilecheck.cases())) + tilecheck.cases("^normal_m1[67]_")


@pytest.mark.parametrize("case_id", CASES)
def test_kernel_operands_are_the_abi_layouts_of_the_case(case_id):
    ops = tilecheck.kernel_operands(case_id)
    c = tilecheck.load(case_id, framework="numpy")
    f = ops.format
    assert ops.case_format == c.format and f == tilecheck.format_of(c.format)
    assert (f.dtype, f.weight_type, f.is_k_full) == (c.dtype, c.weight_type, c.is_k_full)
    assert tilecheck._operands.check_buffers(f, ops.group, ops.specs()) == (c.M, c.N, c.K)
    assert np.array_equal(ops.A, bits_of(c.A, c.dtype)), "A as given, original K order"
    assert np.array_equal(ops.scales, bits_of(c.scales_marlin, c.dtype))
    if f.bits == 4:
        assert np.array_equal(ops.B_packed, c.B_marlin)
    else:
        assert c.B_marlin is None and ops.B_packed.shape == (c.K // 16, 4 * c.N) and ops.B_packed.dtype == np.int32
    if f.has_zero_points:  # eight 4-bit zero points a word: each row holds the row's values, moved
        z = ops.zero_points
        nibbles = np.stack([(z >> (4 * i)) & 15 for i in range(8)], axis=-1).reshape(z.shape[0], -1)
        assert np.array_equal(np.sort(nibbles, axis=1), np.sort(c.zero_points.astype(np.int64), axis=1))
    else:
        assert ops.zero_points is None and c.zero_points is None
    if f.act_order:
        assert sorted(ops.perm.tolist()) == list(range(c.K))
        assert np.array_equal(ops.g_idx, c.g_idx[ops.perm]) and np.all(np.diff(ops.g_idx) >= 0)
    else:
        assert ops.g_idx is None and ops.perm is None


def test_a_format_s_buffers_are_checked_naming_the_buffer_and_what_was_expected():
    check = tilecheck._operands.check_buffers
    zp = tilecheck.format_of("bf16-uint4")
    good = {"A": ((16, 256), "bf16"), "B_packed": ((16, 256), "int32"), "scales": ((4, 128), "bf16"),
            "zero_points": ((4, 16), "int32"), "g_idx": None, "perm": None}
    assert check(zp, 64, good) == (16, 128, 256)
    refusals = [
        (zp, 64, dict(good, zero_points=None), "format bf16-uint4 needs zero_points: (4, 16) int32"),
        (zp, 64, dict(good, A=((16, 256), "fp16")), "A has dtype fp16; format bf16-uint4 expects bf16"),
        (zp, 64, dict(good, scales=((2, 128), "bf16")), "scales: shape (2, 128); expected (4, 128) for format "
                                                        "bf16-uint4, M=16, N=128, K=256, group=64"),
        (zp, 64, dict(good, g_idx=((256,), "int32")), "g_idx given for format bf16-uint4, which has none: only "
                                                      "act-order formats"),
        (zp, 48, good, "group=48 (expected 32, 64 or 128 dividing K = 256, or -1"),
        (tilecheck.format_of("fp16-uint4b8"), 64, dict(good, zero_points=None, A=((16, 256), "fp16"),
                                                       scales=((4, 128), "fp16"), B_packed=((16, 256), "torch.int64")),
         "B_packed has dtype torch.int64; format fp16-uint4b8 expects int32"),
        (tilecheck.format_of("fp16-uint8b128"), 64, dict(good, B_packed=((16, 258), "int32")),
         "B_packed: shape (16, 258); expected (K/16, 4N) for format fp16-uint8b128 (8-bit codes)"),
        (tilecheck.format_of("fp16-uint4b8-act"), 64, {"A": ((16, 256), "fp16"), "B_packed": ((16, 256), "int32"),
                                                       "scales": ((4, 128), "fp16"), "g_idx": ((256,), "int32"),
                                                       "perm": ((255,), "int32")},
         "perm: shape (255,); expected (256,)"),
    ]
    for fmt, group, given, message in refusals:
        with pytest.raises(tilecheck.Error, match=re.escape(message)):
            check(fmt, group, given)


def test_a_case_of_a_format_the_library_does_not_list_is_refused_naming_both():
    kernel = tilecheck.Kernel(v2_library_path())
    assert kernel.formats == LISTED.split(", ") and kernel.lists_formats and kernel.abi_version == 2
    assert kernel.implements("bf16-uint4") and kernel.implements("fp16-uint4b8-actworst-kpart")
    assert not kernel.implements("bf16-uint8b128") and not kernel.implements("fp16-uint4b8-act")
    case_id = first_case("bf16-uint8b128")
    with pytest.raises(tilecheck.Error, match=f"^case {case_id} is of format bf16-uint8b128: kernel library "
                                              f".*abi_v2_plugin.so does not list format bf16-uint8b128 "
                                              f"\\(it lists {LISTED}\\)$"):
        kernel.run(case_id)
    with pytest.raises(tilecheck.Error, match="does not list format fp16-uint4 "):  # before any tensor is looked at
        kernel(None, None, None, group=128, format="fp16-uint4")


def test_our_kernel_refuses_a_case_of_a_format_it_does_not_list():
    path = os.environ.get("TILECHECK_KERNEL")
    if not path:
        pytest.skip("TILECHECK_KERNEL is not set: ctest sets it to our kernel's library")
    kernel = tilecheck.Kernel(path)
    assert "fp16-uint4b8" in kernel.formats and kernel.implements("fp16-uint4b8")
    unlisted = [i for i in tilecheck.cases(format=None) if not kernel.implements(tilecheck.load(i).format)]
    assert unlisted, "our kernel runs neither 8-bit codes nor zero points yet"
    name = tilecheck.kernel_operands(unlisted[0]).format.name
    with pytest.raises(tilecheck.Error, match=re.escape(f"does not list format {name} (it lists "
                                                        f"{', '.join(kernel.formats)})")):
        kernel.run(unlisted[0])


def test_a_listed_case_without_torch_says_torch_is_missing():
    if tilecheck._arrays.torch_module() is not None:
        pytest.skip("torch is installed here")
    with pytest.raises(tilecheck.Error, match="torch is not installed"):
        tilecheck.Kernel(v2_library_path()).run(first_case("bf16-uint4"))


class Format(ctypes.Structure):
    _fields_ = [(n, ctypes.c_int) for n in ("a_dtype", "scale_dtype", "c_dtype", "weight_type", "act_order",
                                            "is_k_full")]


class Problem(ctypes.Structure):  # tc_problem, tilecheck/plugin/plugin.h
    _fields_ = ([(n, ctypes.c_int) for n in ("abi_version", "M", "N", "K", "group", "contract")] +
                [(n, ctypes.c_void_p) for n in ("A", "B", "scales", "C", "workspace")] +
                [("workspace_bytes", ctypes.c_size_t), ("stream", ctypes.c_void_p)] +
                [("config", ctypes.c_int * 4), ("sms", ctypes.c_int), ("max_par", ctypes.c_int),
                 ("flags", ctypes.c_uint), ("format", Format), ("bits", ctypes.c_int), ("num_groups", ctypes.c_int)] +
                [(n, ctypes.c_void_p) for n in ("zero_points", "g_idx", "perm")])


@pytest.mark.parametrize("format_name", ["fp16-uint4b8", "bf16-uint4", "fp16-uint4b8-actworst-kpart"])
def test_kernel_run_hands_the_library_every_buffer_of_the_case_s_format(monkeypatch, format_name):
    path = v2_library_path()
    fake = FakeTorch()
    monkeypatch.setattr(tilecheck._kernel, "_torch", lambda: fake)
    monkeypatch.setattr(tilecheck._operands, "torch_module", lambda: fake)
    case_id = first_case(format_name)
    ops = tilecheck.kernel_operands(case_id)
    C = tilecheck.Kernel(path).run(case_id, sms=3, contract="fp32")
    seen = Problem.in_dll(ctypes.CDLL(path), "tc_test_v2_seen")  # the library's copy of the last problem
    f = ops.format
    assert (seen.abi_version, seen.M, seen.N, seen.K, seen.group) == (2, ops.M, ops.N, ops.K, ops.group)
    assert (seen.contract, seen.sms, list(seen.config)) == (1, 3, [0, 0, 0, 0])  # fp32; the library chooses
    dtype = 2 if f.dtype == "bf16" else 1
    weight = {"uint4b8": 1, "uint4": 2, "uint8b128": 3}[f.weight_type]
    assert (seen.format.a_dtype, seen.format.scale_dtype, seen.format.c_dtype, seen.format.weight_type) == \
        (dtype, dtype, dtype, weight)
    assert (seen.format.act_order, seen.format.is_k_full, seen.bits) == (int(f.act_order), int(f.is_k_full), f.bits)
    assert seen.num_groups == ops.scales.shape[0]
    for field, array in (("A", ops.A), ("B", ops.B_packed), ("scales", ops.scales), ("zero_points", ops.zero_points),
                         ("g_idx", ops.g_idx), ("perm", ops.perm)):
        address = getattr(seen, field)
        if array is None:
            assert address is None, f"{field}: NULL for {format_name}"
            continue
        tensor = fake.at(address)
        assert tensor.device == "cuda" and np.array_equal(tensor.array.view(array.dtype), array), field
    assert seen.C == C.data_ptr() and C.shape == (ops.M, ops.N) and C.dtype == fake.dtype_of(f.dtype)
    assert seen.workspace_bytes == 256 and fake.at(seen.workspace).array.size == 256  # what the library asked for


def test_kernel_call_checks_every_tensor_before_the_library_sees_it(monkeypatch):
    path = v2_library_path()
    fake = FakeTorch()
    monkeypatch.setattr(tilecheck._kernel, "_torch", lambda: fake)
    monkeypatch.setattr(tilecheck._operands, "torch_module", lambda: fake)
    kernel = tilecheck.Kernel(path)
    t = tilecheck.kernel_operands(first_case("bf16-uint4")).to_torch("cuda")
    calls = ctypes.c_int.in_dll(ctypes.CDLL(path), "tc_test_v2_calls")
    before = calls.value
    run = dict(A=t["A"], B_packed=t["B_packed"], scales=t["scales"], group=64, format="bf16-uint4",
               zero_points=t["zero_points"])
    refusals = [
        (dict(run, A=None), "A must be a torch CUDA tensor (got NoneType)"),
        (dict(run, scales=fake.from_numpy(np.zeros((4, 128), np.int16)).view(fake.bfloat16)),
         "scales must be a torch CUDA tensor (got FakeTensor on cpu)"),
        (dict(run, zero_points=None), "format bf16-uint4 needs zero_points: (4, 16) int32"),
        (dict(run, A=t["A"].view(fake.float16)), "A has dtype fp16; format bf16-uint4 expects bf16"),
        (dict(run, g_idx=fake.from_numpy(np.arange(256, dtype=np.int32)).to("cuda")),
         "g_idx given for format bf16-uint4, which has none"),
    ]
    for arguments, message in refusals:
        with pytest.raises(tilecheck.Error, match=re.escape(message)):
            kernel(**arguments)
    assert calls.value == before, "nothing reached the library"
    C = kernel(**run, sms=2)
    assert calls.value == before + 2 and C.dtype == fake.bfloat16  # tc_plugin_workspace_size, then tc_plugin_run
