// What the GPU tests share: a skip with the reason when there is no GPU, and the kernel library
// under test ($TC_KERNEL, or the upstream variant this build made), loaded once.
#pragma once
#include <string>

#include <gtest/gtest.h>

#include "tilecheck/plugin/plugin_loader.h"
#include "tilecheck/suite/device_case.h"

#define TC_REQUIRE_GPU()                                                  \
  do {                                                                    \
    const std::string tc_gpu_why = ::tc::gpu_unavailable_reason();        \
    if (!tc_gpu_why.empty()) GTEST_SKIP() << "no GPU: " << tc_gpu_why;    \
  } while (0)

namespace tc::test_support {

const KernelPlugin& kernel_under_test();

}  // namespace tc::test_support
