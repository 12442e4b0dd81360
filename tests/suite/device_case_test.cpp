// The parts of the device code that need no GPU (tilecheck/suite/device_case.h): the fault message
// names the CUDA error, and the reason a GPU is unavailable agrees with the runtime. Running cases on the device is exercised by the GPU tests
// (tests/kernel/kernel_harness_gpu_test.cpp, tests/suite/suite_gpu_test.cpp).
#include "tilecheck/suite/device_case.h"

#include <string>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

namespace tc {
namespace {

TEST(DescribeFault, NamesTheCudaErrorAndItsDescription) {
  EXPECT_EQ(describe_fault(cudaErrorIllegalAddress),
            std::string("FAULT: cudaErrorIllegalAddress: ") + cudaGetErrorString(cudaErrorIllegalAddress));
  EXPECT_EQ(describe_fault(cudaErrorLaunchOutOfResources),
            std::string("FAULT: cudaErrorLaunchOutOfResources: ") + cudaGetErrorString(cudaErrorLaunchOutOfResources));
}

TEST(GpuUnavailableReason, IsEmptyExactlyWhenTheRuntimeFindsADevice) {
  int count = 0;
  const bool usable = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  const std::string why = gpu_unavailable_reason();
  EXPECT_EQ(why.empty(), usable) << why;
  if (!usable) {
    EXPECT_NE(why.find("cudaGetDeviceCount"), std::string::npos) << "the reason names the call: " << why;
  }
}

TEST(GpuUnavailableReason, TellsNoDriverFromAnOldOne) {
  int driver = -1, count = 0;
  cudaDriverGetVersion(&driver);
  const cudaError_t e = cudaGetDeviceCount(&count);
  const std::string why = gpu_unavailable_reason();
  if (e != cudaErrorInsufficientDriver) GTEST_SKIP() << "the runtime does not say 'insufficient driver' here";
  if (driver == 0) {
    EXPECT_NE(why.find("no NVIDIA GPU driver is installed"), std::string::npos) << why;
  } else {
    EXPECT_NE(why.find("older than the CUDA"), std::string::npos) << why;
  }
}

TEST(GuardRows, LeaveRoomForADroppedRowPredicateOfAFullTile) {
  EXPECT_GE(kGuardRows, 64) << "a 64-row tile whose row predicate is dropped writes up to 63 rows below C";
}

}  // namespace
}  // namespace tc
