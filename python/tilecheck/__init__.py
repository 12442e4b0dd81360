"""tilecheck from Python: judge a GEMM output (NumPy array or torch tensor) against tilecheck's exact
reference and proven bounds, with the same verdict and report as the CLI. See docs/python.md."""
from ._api import (V1_FORMAT, CaseData, Error, Mismatch, Result, assert_close, cases, catalogue, judge, load,
                   reference, set_error_map_dir)
from ._data import set_fixtures
from ._kernel import Kernel
from ._operands import Format, KernelOperands, format_of, kernel_operands

__all__ = ["CaseData", "Error", "Format", "Kernel", "KernelOperands", "Mismatch", "Result", "assert_close", "cases",
           "catalogue", "format_of", "judge", "kernel_operands", "load", "reference", "set_error_map_dir",
           "set_fixtures", "V1_FORMAT"]
