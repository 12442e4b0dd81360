"""The pytest plugin, run on a small test file in a pytester sandbox: test ids are the case ids, the
filters choose the cases, a failure's message is the report, --tilecheck-errmaps keeps the maps."""
import numpy as np  # noqa: F401 (the sandbox's tests import it)

import tilecheck

TESTS = """
import numpy as np
import tilecheck

def test_expected(tilecheck_case):
    tilecheck.assert_close(tilecheck_case.expected, tilecheck_case)

def test_broken(tilecheck_case):
    C = np.array(tilecheck_case.expected)
    C[0, 0] = np.float16(4096)
    tilecheck.assert_close(C, tilecheck_case)
"""


def run(pytester, *args):
    pytester.makepyfile(test_sandbox=TESTS)
    return pytester.runpytest_inprocess("-p", "tilecheck.pytest_plugin", "-p", "no:cacheprovider", *args)


def test_ids_are_case_ids_and_the_filter_chooses(pytester):
    chosen = tilecheck.cases(filter="^exact_m1[57]_")
    assert len(chosen) == 2
    result = run(pytester, "--tilecheck-filter", "^exact_m1[57]_", "--collect-only", "-q")
    lines = result.stdout.lines
    for case_id in chosen:
        assert f"test_sandbox.py::test_expected[{case_id}]" in lines
        assert f"test_sandbox.py::test_broken[{case_id}]" in lines
    assert sum("::test_" in line for line in lines) == 4


def test_failure_message_is_the_report_and_maps_are_kept(pytester, tmp_path):
    maps = tmp_path / "maps"
    result = run(pytester, "--tilecheck-filter", "^normal_m16_n256_k192_g64_marlin$", "--tilecheck-errmaps", str(maps))
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*Mismatch: Mismatched 1 / 4096*", "*worst element (0, 0): FAIL_BOUND*",
                                 "*output tile (0, 0)*"])
    written = [p.name for p in maps.iterdir()]
    assert len(written) == 1 and written[0].startswith("normal_m16_n256_k192_g64_marlin_")
    assert written[0].endswith(".errmap.h5")


def test_marker_narrows_the_cases(pytester):
    pytester.makepyfile(test_marked="""
import pytest

@pytest.mark.tilecheck(filter="gcol")
def test_per_column(tilecheck_case):
    assert tilecheck_case.group == -1
""")
    result = pytester.runpytest_inprocess("-p", "tilecheck.pytest_plugin", "-p", "no:cacheprovider",
                                          "--tilecheck-filter", "^normal_m1[0-9]_[A-Za-z0-9_]*$")
    per_column = [i for i in tilecheck.cases(filter="^normal_m1[0-9]_[A-Za-z0-9_]*$") if "gcol" in i]
    assert per_column
    result.assert_outcomes(passed=len(per_column))


def test_the_format_option_and_mark_choose_the_formats(pytester):
    pytester.makepyfile(test_formats_sandbox="""
import pytest

def test_default(tilecheck_case):
    assert tilecheck_case.format == "fp16-uint4b8"

@pytest.mark.tilecheck(format=["bf16-uint4b8", "fp16-uint4"])
def test_marked(tilecheck_case):
    assert tilecheck_case.format in ("bf16-uint4b8", "fp16-uint4")
""")

    def collected(*options):
        result = pytester.runpytest_inprocess("-p", "tilecheck.pytest_plugin", "-p", "no:cacheprovider",
                                              "--collect-only", "-q", *options)
        lines = result.stdout.lines
        return ([line.split("[")[1][:-1] for line in lines if "::test_default[" in line],
                [line.split("[")[1][:-1] for line in lines if "::test_marked[" in line])

    marked = tilecheck.cases(format=["bf16-uint4b8", "fp16-uint4"])
    assert collected() == (tilecheck.cases(), marked)
    bf16 = tilecheck.cases(format="bf16-uint4b8")
    assert collected("--tilecheck-format", "bf16-uint4b8") == (bf16, bf16)  # with the mark: both say so
    assert collected("--tilecheck-format", "all") == (tilecheck.cases(format=None), marked)
    result = pytester.runpytest_inprocess("-p", "tilecheck.pytest_plugin", "-p", "no:cacheprovider",
                                          "--tilecheck-filter", "_m16_n128_k256_", "-k", "test_marked")
    result.assert_outcomes(passed=len([i for i in marked if "_m16_n128_k256_" in i]))
