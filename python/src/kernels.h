// tilecheck.Kernel's C++ half: a kernel library (the plugin ABI, tilecheck/plugin/plugin.h) loaded
// and run on device pointers the Python layer takes from CUDA tensors. The module does not link the
// CUDA runtime: the caller owns every buffer, the workspace included, and the stream. Any format of
// plugin ABI 2 (its name as a library lists it, or a case's), with the library's list; and a case's
// operands laid out as the ABI hands them to a kernel (tilecheck/suite/kernel_operands.h), on the host.
#pragma once
#include <nanobind/nanobind.h>

namespace tc::py {

// Kernel, format_fields(name) and kernel_operands(case).
void bind_kernel(nanobind::module_& m);

}  // namespace tc::py
