"""The package's API on committed cases: every call goes through the C++ libraries, so these tests
check the binding (shapes, dtypes, ownership, options) and that verdicts follow the output."""
import numpy as np
import pytest

import tilecheck

CASE = "normal_m16_n256_k192_g64_marlin"  # two 128-wide tile columns, three k-tiles of 64


@pytest.fixture(scope="module")
def case():
    return tilecheck.load(CASE, framework="numpy")


def test_cases_filters_the_catalogue():
    everything = tilecheck.cases(generated=True)
    committed = tilecheck.cases()
    assert set(committed) < set(everything)
    assert CASE in committed
    large = "normal_m16_n28672_k8192_g128_marlin"
    assert large in everything and large not in committed
    assert tilecheck.cases(filter="^exact_") and all(i.startswith("exact_") for i in tilecheck.cases(filter="^exact_"))
    entry = next(e for e in tilecheck.catalogue() if e["id"] == CASE)
    assert (entry["M"], entry["N"], entry["K"], entry["group"], entry["contract"]) == (16, 256, 192, 64, "marlin")


def test_load_gives_the_fixture_arrays(case):
    assert (case.M, case.N, case.K, case.group, case.contract) == (16, 256, 192, 64, "marlin")
    assert case.A.dtype == np.float16 and case.A.shape == (16, 192)
    assert case.codes.dtype == np.uint8 and case.codes.shape == (192, 256) and case.codes.max() <= 15
    assert case.scales.dtype == np.float16 and case.scales.shape == (3, 256)
    assert case.B_marlin.dtype == np.int32 and case.B_marlin.shape == (192 // 16, 512)
    assert case.scales_marlin.shape == (3, 256)
    assert case.y_exact.dtype == np.float64 and case.S.shape == (16, 256)
    assert case.expected.dtype == np.float16 and case.expected.shape == (16, 256)
    assert not case.A.flags.writeable  # views of the library's fixture
    # expected is the fp16 rounding of the exact sum (grouped scales: one rounding)
    assert np.array_equal(case.expected, case.y_exact.astype(np.float16))


def test_other_formats_are_listed_on_request_and_load():  # test_formats.py: each format's arrays and verdicts
    others = [e for e in tilecheck.catalogue() if e["format"] != "fp16-uint4b8" and e["storage"] == "committed"]
    if not others:
        pytest.skip("the catalogue has no case of another format")
    assert others[0]["id"] not in tilecheck.cases(generated=True)  # the default: fp16-uint4b8, what ABI 1 runs
    assert others[0]["id"] in tilecheck.cases(format=others[0]["format"])
    assert tilecheck.load(others[0]["id"]).format == others[0]["format"]


def test_unknown_case_is_an_error():
    with pytest.raises(tilecheck.Error, match="not a case id"):
        tilecheck.load("no_such_case")


def test_reference_from_marlin_inputs_equals_the_golden_one(case):
    made = tilecheck.reference(case.A, case.B_marlin, case.scales_marlin, group=64, contract="marlin",
                               framework="numpy")
    assert np.array_equal(made.codes, case.codes) and np.array_equal(made.scales, case.scales)
    assert np.array_equal(made.y_exact, case.y_exact) and np.array_equal(made.S, case.S)
    assert np.array_equal(made.expected.view(np.uint16), case.expected.view(np.uint16))
    logical = tilecheck.reference(case.A, case.B_marlin, case.scales, group=64, permuted_scales=False,
                                  framework="numpy")
    assert np.array_equal(logical.scales_marlin, case.scales_marlin)
    b = made.bounds()
    assert b["lo"].dtype == np.float16 and b["lo"].shape == (16, 256)
    assert np.all(b["lo"] <= made.expected) and np.all(made.expected <= b["hi"]) and np.all(b["E"] > 0)
    assert b["numerics"].endswith("schedule unknown, k-slices >= 16")  # judge()'s default: any split of K
    assert np.array_equal(b["E"], case.bounds()["E"])  # the golden case's bounds, to the bit
    model = made.bounds(config="m1n8k4g4", sms=3, schedule="model")
    assert model["numerics"].endswith("schedule model") and model["config"] == "m1n8k4g4"
    assert np.all(model["E"] <= b["E"])  # the modelled schedule's bounds are the tighter ones


def test_reference_checks_its_inputs(case):
    with pytest.raises(tilecheck.Error, match="scales"):
        tilecheck.reference(case.A, case.B_marlin, case.scales[:2], group=64)
    with pytest.raises(TypeError, match="float16"):
        tilecheck.reference(case.A.astype(np.float32), case.B_marlin, case.scales_marlin, group=64)


def test_expected_output_passes_every_tier(case):
    r = tilecheck.judge(case.expected, case)
    assert r.passed and r.verdict == "pass"
    assert [t["key"] for t in r.tiers] == ["t0", "t1", "t2"]
    assert next(t for t in r.tiers if t["key"] == "t1")["status"] == "pass"
    assert r.counts["elements"] == 16 * 256 and r.counts["mismatched"] == 0
    assert r.report.startswith("Mismatched 0 / 4096")
    assert r.cell == f"{CASE}_{r.config}_marlin_python_sms1"


def test_a_wrong_element_fails_with_its_tile_block_and_slice(case):
    C = case.expected.copy()
    C[5, 200] = np.float16(float(C[5, 200]) * 1.5 + 1)
    r = tilecheck.judge(C, case, config="m1n8k4g4", sms=2, schedule="model")
    assert not r.passed and r.verdict == "FAIL"
    assert r.counts["bound"] == 1
    w = r.worst
    assert (w["row"], w["col"], w["verdict"]) == (5, 200, "FAIL_BOUND")
    assert w["tile"] == (0, 1) and w["tile_cols"] == (128, 256)
    assert w["block"] == w["slices"][-1]["block"] and w["slice_count"] == len(w["slices"])
    assert "output tile (0, 1)" in r.report and "thread block" in r.report
    maps = r.maps()
    assert maps["verdict"][5, 200] == 1 and maps["verdict"].sum() == 1
    assert maps["ulp"].dtype == np.int32 and maps["got"][5, 200] == C[5, 200]
    assert r.element(0, 0)["verdict"] == "PASS"


def test_options_reach_the_judge(case):
    r = tilecheck.judge(case.expected, case, config="m1n8k4g4", sms=3, schedule="model")
    assert r.config == "m1n8k4g4" and r.cell.endswith("_sms3")
    assert r.passed
    with pytest.raises(tilecheck.Error):
        tilecheck.judge(case.expected, case, config="nonsense")
    with pytest.raises(tilecheck.Error, match="C is"):
        tilecheck.judge(case.expected[:8], case)
    with pytest.raises(TypeError, match="float16"):
        tilecheck.judge(case.expected.astype(np.float32), case)


def test_error_map_on_request(case, tmp_path):
    h5py = pytest.importorskip("h5py")
    C = case.expected.copy()
    C[0, 0] = np.float16(1000)
    path = tmp_path / "map.h5"
    r = tilecheck.judge(C, case, error_map=str(path))
    assert path.is_file() and str(path) in r.report
    with h5py.File(path) as f:
        assert f.attrs["case_id"] in (CASE, CASE.encode())


def test_assert_close_raises_the_report(case, tmp_path):
    assert tilecheck.assert_close(case.expected, CASE).passed
    C = case.expected.copy()
    C[3, 10] = np.float16(-7000)
    with pytest.raises(tilecheck.Mismatch) as caught:
        tilecheck.assert_close(C, case)
    assert str(caught.value) == caught.value.result.report
    assert "Mismatched 1 / 4096" in str(caught.value)
    tilecheck.set_error_map_dir(str(tmp_path))
    try:
        with pytest.raises(AssertionError):
            tilecheck.assert_close(C, case)
    finally:
        tilecheck.set_error_map_dir(None)
    assert [p.name for p in tmp_path.iterdir()] == [caught.value.result.error_map_name]


def test_arrays_outlive_their_case():
    A = tilecheck.load(CASE, framework="numpy").A  # the case object is gone; the view keeps it alive
    import gc
    gc.collect()
    assert A.shape == (16, 192) and np.isfinite(A.astype(np.float32)).all()


def test_a_kernel_library_loads_and_lists_its_configurations():
    import os  # noqa: PLC0415
    path = os.environ.get("TILECHECK_KERNEL")
    if not path:
        pytest.skip("TILECHECK_KERNEL is not set: ctest sets it to our kernel's library")
    kernel = tilecheck.Kernel(path)
    assert kernel.name == "tilecheck-marlin" and kernel.path == path
    assert "m1n8k8g8" in kernel.configs and "m4n16k4gcol" in kernel.configs
    assert f"{len(kernel.configs)} configurations" in repr(kernel)
    bytes_needed = kernel._library.workspace_size(16, 256, 192, 64, "marlin", "", 2, "fp16-uint4b8")
    assert bytes_needed > 0  # its locks


def test_a_kernel_library_refuses_what_is_not_one():
    with pytest.raises(tilecheck.Error, match="no-such-library.so"):
        tilecheck.Kernel("/nonexistent/no-such-library.so")


def test_a_relative_tilecheck_home_holds_after_a_change_of_directory(monkeypatch, tmp_path):
    import os  # noqa: PLC0415
    from tilecheck import _data  # noqa: PLC0415
    home = os.path.abspath(os.environ["TILECHECK_HOME"])
    monkeypatch.setenv("TILECHECK_HOME", os.path.relpath(home, _data._START_DIR))
    monkeypatch.chdir(tmp_path)  # where pytester runs a test, for instance
    fixtures, _ = _data.data_paths()
    assert fixtures == os.path.join(home, "fixtures")
    assert CASE in tilecheck.cases()
