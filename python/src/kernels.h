// tilecheck.Kernel's C++ half: a kernel library (the plugin ABI, tilecheck/plugin/plugin.h) loaded
// and run on device pointers the Python layer takes from CUDA tensors. The module does not link the
// CUDA runtime: the caller owns every buffer, the workspace included, and the stream.
#pragma once
#include <nanobind/nanobind.h>

namespace tc::py {

void bind_kernel(nanobind::module_& m);

}  // namespace tc::py
