"""The example a kernel developer copies: judge a NumPy dequantize-then-matmul on every committed
catalogue case (the plugin's tilecheck_case fixture, one test per case), and see a wrong one fail
with the tile named."""
import pytest

import tilecheck
from dequant import dequant_matmul_numpy, dequant_matmul_wrong


# dequant_matmul_numpy implements fp16-uint4b8 without act-order, the format tilecheck_case takes
# unless told otherwise (test_formats.py: every format).
def test_dequant_matmul_passes(tilecheck_case):
    c = tilecheck_case
    if not c.tiles:
        pytest.skip(f"no kernel tile fits N={c.N} K={c.K}: nothing to attribute to (the CLI refuses it too)")
    C = dequant_matmul_numpy(c.A, c.codes, c.scales, c.group, c.contract)
    tilecheck.assert_close(C, c)


@pytest.mark.tilecheck(filter="^normal_m16_n256_k192_g64_marlin$")
def test_wrong_dequant_matmul_fails_naming_the_tile(tilecheck_case):
    c = tilecheck_case
    C = dequant_matmul_wrong(c.A, c.codes, c.scales, c.group, c.contract)
    with pytest.raises(tilecheck.Mismatch) as failure:
        tilecheck.assert_close(C, c, config="m1n8k4g4", sms=1)
    report = str(failure.value)
    assert "output tile (0, 1) [rows 0-15, cols 128-255]" in report
    worst = failure.value.result.worst
    assert worst["tile"] == (0, 1) and 128 <= worst["col"] < 256
    # every failing element lies in that tile column: the error map says where, not just that
    verdicts = failure.value.result.maps()["verdict"]
    assert verdicts[:, :128].sum() == 0 and verdicts[:, 128:].sum() > 0
