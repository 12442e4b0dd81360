"""The served formats (schema v2: bf16, zero points, 8-bit codes, act-order) through the package: listed
by format, loaded with their arrays, judged in their dtype as the CLI judges them, and a C of the wrong
dtype refused naming both dtypes."""
import numpy as np
import pytest

import tilecheck
from dequant import dequant_matmul_format, round_to

BF16 = "normal_m16_n128_k256_g64_marlin_bf16-uint4b8"
ZERO_POINTS = "normal_m16_n128_k256_g128_marlin_fp16-uint4"
EIGHT_BIT = "normal_m16_n128_k256_g32_marlin_bf16-uint8b128"
ACT_ORDER = "normal_m16_n128_k512_g128_marlin_fp16-uint4b8-actrandom"
ACT_ORDER_KPART = "normal_m16_n128_k512_g32_marlin_fp16-uint4b8-actworst-kpart"
OTHER_FORMATS = [i for i in tilecheck.cases(format=None) if i not in tilecheck.cases()]


def load(case_id):
    return tilecheck.load(case_id, framework="numpy")


def bf16_bits(a):
    return np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)


def test_cases_lists_a_format_on_request_and_fp16_uint4b8_by_default():
    catalogue = tilecheck.catalogue()
    committed = {e["id"]: e["format"] for e in catalogue if e["storage"] == "committed"}
    assert {committed[i] for i in tilecheck.cases()} == {"fp16-uint4b8"}  # as before: what ABI 1 runs
    assert tilecheck.cases(format=None) == list(committed)                # every format, catalogue order
    assert tilecheck.cases(format="bf16-uint4b8") == [i for i, f in committed.items() if f == "bf16-uint4b8"]
    both = tilecheck.cases(format=["fp16-uint4", "bf16-uint4"])
    assert ZERO_POINTS in both and {committed[i] for i in both} == {"fp16-uint4", "bf16-uint4"}
    assert tilecheck.cases("_m16_", format=None, generated=True) > tilecheck.cases("_m16_", format=None)
    assert len({committed[i] for i in OTHER_FORMATS}) >= 8  # bf16, zero points, 8-bit, act-order, kpart ...
    with pytest.raises(tilecheck.Error, match="bf17-uint4"):
        tilecheck.cases(format="bf17-uint4")


def test_a_bf16_case_loads_as_float32_holding_bf16_values():
    c = load(BF16)
    assert (c.format, c.dtype, c.weight_type, c.act_order, c.is_k_full) == ("bf16-uint4b8", "bf16", "uint4b8",
                                                                            "none", True)
    for name, shape in (("A", (16, 256)), ("scales", (4, 128)), ("scales_marlin", (4, 128)), ("expected", (16, 128))):
        a = getattr(c, name)
        assert a.dtype == np.float32 and a.shape == shape, name
        assert not a.flags.writeable and np.all(bf16_bits(a) & 0xFFFF == 0), name  # exact bf16 values
    assert c.zero_points is None and c.g_idx is None and c.perm is None
    assert c.B_marlin.dtype == np.int32 and c.B_marlin.shape == (256 // 16, 256)
    assert np.array_equal(c.expected, round_to("bf16", c.y_exact))  # grouped scales: one rounding, in bf16
    assert "format='bf16-uint4b8'" in repr(c)


def test_a_zero_point_case_has_its_zero_points():
    c = load(ZERO_POINTS)
    assert (c.dtype, c.weight_type) == ("fp16", "uint4") and c.A.dtype == np.float16
    assert c.zero_points.dtype == np.uint8 and c.zero_points.shape == (2, 128) and c.zero_points.max() <= 15
    assert c.codes.max() <= 15 and c.B_marlin is not None


def test_an_8bit_case_has_codes_to_255_and_no_marlin_packing_yet():
    c = load(EIGHT_BIT)
    assert (c.dtype, c.weight_type, c.group) == ("bf16", "uint8b128", 32)
    assert c.codes.dtype == np.uint8 and c.codes.shape == (256, 128) and c.codes.max() > 15
    assert c.B_marlin is None and c.zero_points is None  # fixtures-schema.md: 8-bit Marlin layout not stored


@pytest.mark.parametrize("case_id, k_full", [(ACT_ORDER, True), (ACT_ORDER_KPART, False)])
def test_an_act_order_case_has_g_idx_and_perm(case_id, k_full):
    c = load(case_id)
    assert c.act_order in ("random", "worst") and c.is_k_full == k_full
    assert c.g_idx.dtype == np.int32 and c.g_idx.shape == (512,) and c.perm.shape == (512,)
    assert sorted(c.perm) == list(range(512))
    assert np.all(np.diff(c.g_idx[c.perm]) >= 0)  # the kernel's order sorts the rows by group
    sizes = np.bincount(c.g_idx, minlength=512 // c.group)
    assert np.all(sizes == c.group) == k_full  # kpart: a shard's groups are of uneven size


@pytest.mark.parametrize("case_id", OTHER_FORMATS)
def test_expected_and_a_numpy_dequant_matmul_pass_in_every_format(case_id):
    c = load(case_id)
    assert tilecheck.judge(c.expected, c).passed
    C = dequant_matmul_format(c)
    assert C.dtype == (np.float16 if c.dtype == "fp16" else np.float32)
    tilecheck.assert_close(C, c)


def test_the_format_reference_agrees_with_fp16_uint4b8_cases():
    c = load("normal_m16_n256_k192_g64_marlin")  # dequant_matmul_format on schema v1's format too
    tilecheck.assert_close(dequant_matmul_format(c), c)


@pytest.mark.parametrize("case_id", [BF16, ZERO_POINTS, EIGHT_BIT, ACT_ORDER_KPART])
def test_a_wrong_element_fails_in_its_dtype(case_id):
    c = load(case_id)
    C = np.array(c.expected)
    C[3, 100] = round_to(c.dtype, float(C[3, 100]) * 1.5 + 1)
    r = tilecheck.judge(C, c, sms=2, schedule="model")  # Marlin's configuration for the shape
    assert not r.passed and r.counts["bound"] == 1
    assert (r.worst["row"], r.worst["col"]) == (3, 100) and r.worst["got"] == float(C[3, 100])
    assert r.worst["expected"] == float(c.expected[3, 100])
    maps = r.maps()
    assert maps["got"].dtype == C.dtype and np.array_equal(maps["got"], C, equal_nan=True)
    assert maps["verdict"].sum() == 1
    b = c.bounds()
    assert b["lo"].dtype == C.dtype and np.all(b["lo"] <= c.expected) and np.all(c.expected <= b["hi"])


def test_a_bf16_case_refuses_other_dtypes_naming_both():
    c = load(BF16)
    with pytest.raises(TypeError, match=r"C has dtype float16; case .*bf16-uint4b8 is bf16: expected float32 "
                                        r"holding bf16 values"):
        tilecheck.judge(c.expected.astype(np.float16), c)
    C = np.array(c.expected)
    C[2, 7] = np.nextafter(C[2, 7], np.float32(np.inf))  # a float32 between two bf16 values
    with pytest.raises(TypeError, match=r"C\[2, 7\] = .* is not a bf16 value \(1 such elements\)"):
        tilecheck.judge(C, c)
    with pytest.raises(TypeError, match="C has dtype float64; case .* is bf16"):
        tilecheck.judge(c.expected.astype(np.float64), c)
    fp16 = load(ZERO_POINTS)
    with pytest.raises(TypeError, match=r"C has dtype float32; case .*fp16-uint4 is fp16: expected float16"):
        tilecheck.judge(fp16.expected.astype(np.float32), fp16)


def test_nan_in_a_bf16_output_stays_nan():
    c = load(BF16)
    C = np.array(c.expected)
    C[0, 0] = np.uint32(0x7F800001).view(np.float32)  # a float32 NaN whose payload is in the low half only
    r = tilecheck.judge(C, c)
    assert not r.passed and np.isnan(r.maps()["got"][0, 0])  # judged as NaN, never as +inf
    assert r.counts["nonfinite"] + r.counts["bound"] == 1


def test_ml_dtypes_bfloat16_is_taken_too():
    ml_dtypes = pytest.importorskip("ml_dtypes", reason="ml_dtypes is not installed")
    c = load(BF16)
    assert tilecheck.judge(c.expected.astype(ml_dtypes.bfloat16), c).passed


def test_torch_bf16_tensors_in_and_out():
    torch = pytest.importorskip("torch", reason="torch is not installed")
    c = tilecheck.load(BF16, framework="torch")
    assert c.A.dtype == torch.bfloat16 and c.expected.dtype == torch.bfloat16 and c.codes.dtype == torch.uint8
    assert torch.equal(c.expected.float(), torch.from_numpy(np.array(load(BF16).expected)))  # exact
    assert tilecheck.assert_close(c.expected, c).passed
    with pytest.raises(TypeError, match=r"C is a torch tensor of torch.float16; case .* is bf16: expected "
                                        r"torch.bfloat16"):
        tilecheck.judge(c.expected.to(torch.float16), c)
